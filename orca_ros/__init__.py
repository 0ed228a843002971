"""orca_ros: ORCA multi-robot collision avoidance for ROS 2."""

__version__ = "0.1.0"
