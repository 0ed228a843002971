"""The ORCA algorithm itself: the RVO2 port (orca2d), the RVO2-3D port (orca3d), the
R-function geometry of the velocity obstacle (rfunction), and the conformance replay of
single-step cases against both references."""
