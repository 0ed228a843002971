"""The robot's pose in the shared frame, from what robots have.

Robots on one floor plan together in one shared frame (``map`` on real robots,
``world`` in fleet_sim's default mode). What a robot has is one of
(:data:`POSE_SOURCES`):

- ``odom``: odometry already in the shared frame (fleet_sim's default, toio mats, a
  robot whose driver publishes map poses);
- ``odom_origin``: odometry in the robot's own ``odom`` frame, whose pose in the shared
  frame is known and fixed (a Gazebo spawn pose; ``odom_origin`` ``[x, y, yaw]``);
- ``localization``: odometry in the robot's own ``odom`` frame, which drifts, plus a
  localization pose in the shared frame (AMCL's ``amcl_pose``, slam_toolbox: a few Hz,
  late, and jumping when it corrects).

With a localization the estimator does what TF's ``map -> odom`` does: each fix
(the pose in the shared frame at its stamp) is matched with the odometry pose of the
same instant (interpolated from the last seconds of odometry), which gives the odom
frame's pose in the shared frame, ``T = fix * odom(t_fix)^-1``; between fixes the
shared-frame pose is ``T * odom(now)``, so it follows the odometry at its rate, and a
correction moves it at once (:attr:`SharedFramePose.last_jump`). Until the first fix
there is no pose: the robot holds, and says why.

The position uncertainty of a fix, :data:`UNCERTAINTY_DEVIATIONS` standard deviations of
its covariance's larger axis (:func:`pose_margin`), grows the robot's disc for its own
safety layer and, announced as the covariance, for its neighbours, up to
``max_uncertainty``. Between fixes the pose follows the odometry, whose heading drifts
where the wheels slip (a unicycle turning hard under the MuJoCo engine: a few degrees in
half a second, up to about 11; ``scripts/engine_heading_drift.py``), and a heading off
by ``d`` puts the robot ``s sin d`` off to the side after ``s`` metres:
:attr:`SharedFramePose.drift_uncertainty`, the distance driven since the last fix times
the sine of the heading drift the corrections showed
(:attr:`SharedFramePose.heading_drift`: the heading corrections of the last
:data:`DRIFT_FIXES` fixes beyond their own noise), grows the robot's disc against walls
(position corrections are not used: two fixes' own noise, a few centimetres each, hides
a drift of that size). Not against robots, nor announced: grown in a dense crowd, the
discs of robots whose wheels slip left their safety half-planes no common velocity more
often (menge_circle, 100 unicycles under the engine: a touch in two of three runs, none
in two without).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Deque, Optional, Tuple

from ..geometry.frames import Pose2, interpolate, wrap_angle

POSE_SOURCES = ("odom", "odom_origin", "localization")
"""Where a robot's pose in the shared frame comes from (module docstring)."""
ODOM_HISTORY_S = 3.0
"""How far back the odometry is kept to match a late localization fix (s)."""
JUMP_REPORTED_M = 0.1
"""A correction that moves the shared-frame pose farther than this (m), and farther than
three standard deviations of the fixes, is a jump (a re-localization) and is reported;
smaller ones are the localization's ordinary corrections."""


DRIFT_FIXES = 4
"""How many of the latest fixes' heading corrections bound the odometry's heading drift
between fixes (:attr:`SharedFramePose.heading_drift`): at AMCL's 2 Hz, two seconds."""

UNCERTAINTY_DEVIATIONS = 3.0
"""Standard deviations of a localization's position that a disc grows by: two robots each
off by a few centimetres one way can be off by twice that from each other, and 3 sigma
covers a fix's error but for 0.3% of fixes (a 2 cm localization: a 6 cm margin)."""


def pose_margin(deviation: float, max_uncertainty: float) -> float:
    """How far (m) a disc grows for a localization of ``deviation`` (m, one standard
    deviation): :data:`UNCERTAINTY_DEVIATIONS` of them, at most ``max_uncertainty``."""
    return min(UNCERTAINTY_DEVIATIONS * max(deviation, 0.0), max_uncertainty)


def position_deviation(covariance_xx: float, covariance_xy: float,
                       covariance_yy: float) -> float:
    """The standard deviation along the larger axis of a 2x2 position covariance (m)."""
    half_trace = 0.5 * (covariance_xx + covariance_yy)
    spread = math.hypot(0.5 * (covariance_xx - covariance_yy), covariance_xy)
    return math.sqrt(max(half_trace + spread, 0.0))


@dataclass
class SharedFramePose:
    """One robot's pose in the shared frame (module docstring).

    Feed it every odometry pose (:meth:`odometry`, in the odom frame) and, with the
    ``localization`` source, every fix (:meth:`fix`, in the shared frame); ask
    :meth:`in_shared_frame` for a pose, :attr:`uncertainty` for how sure it is.
    """

    source: str = "odom"
    odom_origin: Pose2 = Pose2()
    max_uncertainty: float = 0.3
    map_from_odom: Optional[Pose2] = None
    deviation: float = 0.0  # m, of the last fix
    fixes: int = 0
    last_jump: float = 0.0  # m the last fix moved the shared-frame pose
    jumps: int = 0  # fixes that moved it farther than a correction would (see fix)
    travelled: float = 0.0  # m the odometry moved since the last fix's stamp
    _history: Deque[Tuple[float, Pose2]] = field(default_factory=deque)
    _turns: Deque[float] = field(default_factory=lambda: deque(maxlen=DRIFT_FIXES))

    def __post_init__(self) -> None:
        if self.source not in POSE_SOURCES:
            raise ValueError(f"pose source must be one of {POSE_SOURCES}, got {self.source!r}")
        if self.source == "odom":
            self.map_from_odom = Pose2()
        elif self.source == "odom_origin":
            self.map_from_odom = self.odom_origin

    @property
    def known(self) -> bool:
        """Whether the odom frame's pose in the shared frame is known (a fix came)."""
        return self.map_from_odom is not None

    @property
    def heading_drift(self) -> float:
        """How far (rad) the odometry's heading has been found to drift between two fixes:
        the largest heading correction of the last :data:`DRIFT_FIXES` fixes beyond
        :data:`UNCERTAINTY_DEVIATIONS` of their heading deviations (0 before the second
        fix), at most a right angle."""
        return max(self._turns, default=0.0)

    @property
    def uncertainty(self) -> float:
        """How far (m) the shared-frame pose may be off at a fix: :func:`pose_margin` of
        the last fix's deviation (0 without a localization)."""
        return pose_margin(self.deviation, self.max_uncertainty)

    @property
    def drift_uncertainty(self) -> float:
        """How much farther (m) the pose may have drifted since the last fix: the distance
        driven since then times the sine of :attr:`heading_drift`, so that it and
        :attr:`uncertainty` together stay within ``max_uncertainty``."""
        drift = self.travelled * math.sin(self.heading_drift)
        return max(min(drift, self.max_uncertainty - self.uncertainty), 0.0)

    def odometry(self, stamp: float, pose: Pose2) -> None:
        """An odometry pose (odom frame) measured at ``stamp`` (s)."""
        if self.source != "localization":
            return
        history = self._history
        if history and stamp < history[-1][0]:
            return  # older than what we have
        if history and self.known:
            last = history[-1][1]
            self.travelled += math.hypot(pose.x - last.x, pose.y - last.y)
        history.append((stamp, pose))
        while history and history[0][0] < stamp - ODOM_HISTORY_S:
            history.popleft()

    def odometry_at(self, stamp: float) -> Optional[Pose2]:
        """The odometry pose at ``stamp``, interpolated; the nearest end of the history
        outside it; None without any odometry."""
        history = self._history
        if not history:
            return None
        if stamp >= history[-1][0]:
            return history[-1][1]  # the newest (also among equal stamps)
        if stamp <= history[0][0]:
            return history[0][1]
        for (t0, p0), (t1, p1) in zip(history, list(history)[1:]):
            if t0 <= stamp <= t1:
                return interpolate(p0, p1, (stamp - t0) / (t1 - t0) if t1 > t0 else 0.0)
        return history[-1][1]

    def fix(self, stamp: float, pose: Pose2, deviation: float = 0.0,
            heading_deviation: float = 0.0) -> Optional[str]:
        """A localization fix: the pose in the shared frame at ``stamp`` (s), and its
        position (m) and heading (rad) deviations. Returns a report when it moved the
        shared-frame pose farther than :data:`JUMP_REPORTED_M` and three deviations (a
        jump: a re-localization), else None; without any odometry yet the fix waits
        (returns None, nothing known). Its heading correction beyond three heading
        deviations is kept for :attr:`heading_drift`."""
        odom = self.odometry_at(stamp)
        if odom is None:
            return None
        before = self.in_shared_frame(self._history[-1][1]) if self.known else None
        expected = 3.0 * max(self.deviation, deviation)
        self.map_from_odom = pose.compose(odom.inverse())
        self.deviation = deviation
        self.fixes += 1
        self.travelled = 0.0  # a late fix: what was driven since its stamp counts
        last = odom
        for t, p in self._history:
            if t > stamp:
                self.travelled += math.hypot(p.x - last.x, p.y - last.y)
                last = p
        if before is None:
            return None
        after = self.in_shared_frame(self._history[-1][1])
        turn = abs(wrap_angle(after.yaw - before.yaw))
        self._turns.append(min(max(turn - UNCERTAINTY_DEVIATIONS * heading_deviation, 0.0),
                               0.5 * math.pi))
        self.last_jump = math.hypot(after.x - before.x, after.y - before.y)
        if self.last_jump > max(JUMP_REPORTED_M, expected):
            self.jumps += 1
            return (f"localization moved the robot {self.last_jump:.3f} m at once (a "
                    f"re-localization; its fixes' deviation {deviation:.3f} m)")
        return None

    def in_shared_frame(self, pose: Pose2) -> Optional[Pose2]:
        """An odometry pose (odom frame) in the shared frame; None until known."""
        if self.map_from_odom is None:
            return None
        if self.source == "odom":
            return pose  # already there, exactly
        return self.map_from_odom.compose(pose)

    def velocity_in_shared_frame(self, velocity: Tuple[float, float]) -> Tuple[float, float]:
        """A velocity given in the odom frame, in the shared frame."""
        if self.map_from_odom is None or self.source == "odom":
            return velocity
        return self.map_from_odom.rotate(velocity)
