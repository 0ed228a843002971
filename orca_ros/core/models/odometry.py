"""What a robot's own sensors report, as a simulator makes it: wheel odometry that drifts
in the robot's own frame, and a localization that places it in the shared frame now and
then, late and noisy (the stand-in for AMCL or slam_toolbox).

:class:`DriftingOdometry` integrates the body's true motion as wheel odometry does:
from the robot's start pose (its ``odom`` frame's origin), with a wheel-scale error (the
distance it reports is ``1 + scale_error`` times the distance driven) and a heading
drift per metre driven, so two robots that started 5 m apart both believe they started
at the origin, and each one's belief wanders off the truth as it drives.

:class:`LocalizationStandIn` publishes, ``rate`` times a second, the true pose of
``age`` seconds before, with Gaussian noise of ``noise`` m and ``noise_deg`` degrees,
and a covariance that says so.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Deque, Optional, Tuple

import numpy as np

from ..geometry.frames import Pose2, wrap_angle


@dataclass
class DriftingOdometry:
    """One robot's wheel odometry in its own ``odom`` frame (module docstring)."""

    scale_error: float = 0.01
    heading_drift_per_m: float = math.radians(0.5)
    pose: Pose2 = Pose2()  # in the odom frame; the robot starts at its origin
    _last_true: Optional[Pose2] = None

    def step(self, true_pose: Pose2) -> Pose2:
        """The odometry pose after the body moved to ``true_pose`` (shared frame): the
        true step, seen in the robot's own frame, scaled and turned as the wheels
        misreport it."""
        if self._last_true is None:
            self._last_true = true_pose
            return self.pose
        step = self._last_true.inverse().compose(true_pose)  # the motion, in the body frame
        self._last_true = true_pose
        distance = math.hypot(step.x, step.y)
        scaled = Pose2(step.x * (1.0 + self.scale_error), step.y * (1.0 + self.scale_error),
                       step.yaw + self.heading_drift_per_m * distance)
        self.pose = self.pose.compose(scaled)
        return self.pose

    def twist(self, vx: float, vy: float, omega: float) -> Tuple[float, float, float]:
        """The body twist the wheels report for a true one."""
        scale = 1.0 + self.scale_error
        return (vx * scale, vy * scale, omega + self.heading_drift_per_m * math.hypot(vx, vy))


@dataclass
class LocalizationStandIn:
    """A localization (module docstring) for one robot."""

    rate: float = 2.0  # Hz
    noise: float = 0.02  # m, standard deviation in x and y
    noise_deg: float = 1.0  # deg, standard deviation of the heading
    age: float = 0.05  # s a fix is old when it is published
    seed: int = 0
    _history: Deque[Tuple[float, Pose2]] = field(default_factory=deque)
    _next: float = 0.0
    _rng: Optional[np.random.Generator] = None

    def __post_init__(self) -> None:
        self._rng = np.random.default_rng(self.seed)

    def observe(self, time: float, true_pose: Pose2) -> Optional[Tuple[float, Pose2]]:
        """The true pose at ``time``; returns a fix ``(stamp, noisy pose)`` when one is
        due (stamped ``age`` before ``time``), else None."""
        history = self._history
        history.append((time, true_pose))
        while history and history[0][0] < time - self.age - 1.0:
            history.popleft()
        if time + 1e-9 < self._next:
            return None
        self._next = time + 1.0 / self.rate
        stamp, seen = history[0]
        for t, pose in history:
            if t <= time - self.age + 1e-9:
                stamp, seen = t, pose
        noisy = Pose2(seen.x + self._rng.normal(0.0, self.noise),
                      seen.y + self._rng.normal(0.0, self.noise),
                      wrap_angle(seen.yaw + math.radians(self._rng.normal(0.0, self.noise_deg))))
        return stamp, noisy

    @property
    def covariance(self) -> Tuple[float, float, float]:
        """The variances it claims: x, y (m^2) and yaw (rad^2)."""
        return (self.noise ** 2, self.noise ** 2, math.radians(self.noise_deg) ** 2)
