"""Geometry shared by every layer: vectors and checked inputs (types), polygons, RVO2's
obstacle edges, and the linear programs (2D and 3D) that ORCA and the safety filter solve."""
