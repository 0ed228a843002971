"""orca_ros.core: the algorithms, in numpy, plain Python and one C extension (ORCA's hot
path, orca/_orca2d.c), with no ROS import."""

from .geometry.linprog import HalfPlane, linear_program_2d, linear_program_3d
from .geometry.obstacles import ObstacleVertex, build_obstacle_edges
from .orca.orca2d import (STRICT_RVO2, OrcaOptions, OrcaResult, agent_orca_half_plane,
                          compute_new_velocity, obstacle_orca_half_plane)
from .geometry.types import AgentState, NeighborState, Polygon, Segment

__all__ = [
    "AgentState", "HalfPlane", "NeighborState", "ObstacleVertex", "OrcaOptions", "OrcaResult",
    "Polygon", "STRICT_RVO2", "Segment", "agent_orca_half_plane", "build_obstacle_edges",
    "compute_new_velocity", "linear_program_2d", "linear_program_3d", "obstacle_orca_half_plane",
]
