"""toio mats: their coordinate ranges, and the mat <-> world (metres, right-handed) transform.

Mat coordinates are mat units with y growing downwards and angles in degrees
clockwise. The world frame is x = X s, y = -Y s, yaw = -angle (s = metres per
mat unit), as the toio_ros2 bridge does; see doc/how_it_works/toio.md.
"""

from __future__ import annotations

# The mat table, the mat <-> world transform and odometry's finite difference belong
# to the cube's model (the scenario world uses them too); importable from here as before.
from ..core.models.toio_cube import (DEFAULT_MM_PER_UNIT, MATS, Mat, MatFrame, body_velocity,  # noqa: F401
                         mat_border, mat_named)
