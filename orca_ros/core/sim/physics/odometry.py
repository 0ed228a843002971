"""Wheel odometry of a differential-drive robot from its wheels' angles, as a robot's
base controller computes it (the ROS 2 diff_drive_controller's odometry: second-order
Runge-Kutta, Siegwart, Nourbakhsh and Scaramuzza, "Introduction to Autonomous Mobile
Robots", 2nd ed., section 5.2.4).

Between two readings the left and right wheels turned by ``dl`` and ``dr`` (rad): the
robot drove ``ds = r (dr + dl) / 2`` and turned ``dtheta = r (dr - dl) / b`` (``r``:
wheel radius, ``b``: wheel separation), and the pose moves by ``ds`` along the heading at
the middle of the turn. The pose is in the robot's own ``odom`` frame, from its start
pose; it drifts from the truth as much as the wheels slip (and by a wrong ``r``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional, Tuple

from ...geometry.frames import Pose2, wrap_angle


@dataclass
class WheelOdometry:
    """One robot's wheel odometry (module docstring)."""

    wheel_radius: float
    wheel_separation: float
    pose: Pose2 = field(default_factory=Pose2)
    twist: Tuple[float, float, float] = (0.0, 0.0, 0.0)  # (vx, vy, omega), body frame
    _last: Optional[Tuple[float, float]] = None

    def __post_init__(self) -> None:
        for name in ("wheel_radius", "wheel_separation"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0.0):
                raise ValueError(f"{name} must be > 0 m, got {value}")

    def update(self, left: float, right: float, left_rate: float, right_rate: float) -> Pose2:
        """The pose after the wheels reached angles ``left``, ``right`` (rad, unwrapped),
        turning at ``left_rate``, ``right_rate`` (rad/s) now; the first reading only
        sets the reference."""
        r, b = self.wheel_radius, self.wheel_separation
        self.twist = (r * (right_rate + left_rate) / 2.0, 0.0,
                      r * (right_rate - left_rate) / b)
        if self._last is None:
            self._last = (left, right)
            return self.pose
        dl, dr = left - self._last[0], right - self._last[1]
        self._last = (left, right)
        ds, dtheta = r * (dr + dl) / 2.0, r * (dr - dl) / b
        middle = self.pose.yaw + dtheta / 2.0
        self.pose = Pose2(self.pose.x + ds * math.cos(middle),
                          self.pose.y + ds * math.sin(middle),
                          wrap_angle(self.pose.yaw + dtheta))
        return self.pose
