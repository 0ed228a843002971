"""Everything that shapes one robot's behaviour: :class:`ControllerConfig` (SI units).

The fields take the names of orca_node's parameters where there is one
(``doc/parameters.md``); a few have no parameter (``guidance``, the lateral
tracking budget) and keep their defaults through ROS.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Dict, Optional, Tuple

from ..geometry.types import as_finite
from ..methods import TRACKING, MethodSpec, world_spec
from ..models.bodies import KINEMATICS, DiffDriveLimits
from .safety_filter import SAFETY_ROUNDING_MARGIN
from .tracking import tracking_error_bound

SAFETY_FILTER_SETTINGS = ("method", "on", "off")
"""orca_node's ``safety_filter`` values: as the method says, or always on or off."""

COMMAND_VALIDITY_PERIODS = 2.0
"""How many control periods a command may act through ROS (``command_validity`` is this
over the control rate): one late cycle does not stop a robot, two do. orca_node and the
fleet plan use it; the world under ``ros_timing`` too."""


@dataclass(frozen=True)
class ControllerConfig:
    """Everything that shapes one robot's behaviour, in SI units."""

    radius: float
    max_speed: float
    pref_speed: float
    time_step: float
    neighbor_dist: float = 10.0
    max_neighbors: int = 10
    time_horizon: float = 2.0
    time_horizon_obst: float = 2.0
    kinematics: str = "holonomic"
    method: str = "orca"  # a registered avoidance method, see orca_ros.core.methods
    method_parameters: Tuple[Tuple[str, object], ...] = ()  # beyond the fields named here
    safety_margin_ratio: float = 0.1
    margin_speed_ratio: float = 0.0  # full margin at this share of max_speed apart; 0: always
    keep_right_deg: float = 8.0
    stall_escape_deg: float = 75.0
    stall_escape_time: float = 3.0
    stall_detour_time: float = 0.5  # s stalled before detouring round standing robots; 0: never
    # s moving without getting a radius nearer the target before that counts as stuck too
    # (detours, the margin release); 0: never
    progress_escape_time: float = 3.0
    safety_filter: str = "method"  # the one-step safety filter: method (as it says), on, off
    guidance: bool = True
    guidance_clearance_ratio: float = 0.25
    guidance_period: int = 5
    goal_tolerance: Optional[float] = None  # None: the radius
    lookahead: Optional[float] = None  # a waypoint counts as passed within this; None: radius
    max_angular_speed: float = 3.0
    max_linear_accel: float = 4.0
    max_angular_accel: float = 20.0
    heading_time_constant: float = 0.0  # s; 0 = one control period
    tracking: str = "unicycle"  # how a unicycle follows: unicycle (NH-ORCA) | move2target
    command_lag: float = 0.0  # s from command to motion (toio cubes: ~0.14)
    lag_error: Optional[float] = None  # m a prediction over command_lag may miss (tracking_error)
    command_validity: Optional[float] = None  # s a command may act; None: one time_step
    accel_limited: bool = False  # holonomic body changes velocity at most at max_linear_accel
    lateral_speed_ratio: float = 0.25
    lateral_error_max_ratio: float = 0.15
    # m/s a unicycle may back off at (drive.drive_direction); 0: never; None: max_speed
    max_reverse_speed: Optional[float] = 0.0

    def __post_init__(self) -> None:
        for name in ("radius", "max_speed", "pref_speed", "time_step", "time_horizon",
                     "time_horizon_obst", "max_angular_speed", "max_linear_accel",
                     "max_angular_accel", "lateral_speed_ratio", "lateral_error_max_ratio"):
            as_finite(getattr(self, name), name, strictly_positive=True)
        for name in ("neighbor_dist", "safety_margin_ratio", "margin_speed_ratio",
                     "keep_right_deg", "command_lag",
                     "heading_time_constant",
                     "stall_escape_deg", "stall_escape_time", "stall_detour_time",
                     "progress_escape_time", "guidance_clearance_ratio"):
            as_finite(getattr(self, name), name, minimum=0.0)
        if self.kinematics not in KINEMATICS:
            raise ValueError(f"kinematics must be one of {KINEMATICS}, got {self.kinematics!r}")
        if self.tracking not in TRACKING:
            raise ValueError(f"tracking must be one of {TRACKING}, got {self.tracking!r}")
        if self.method_spec.holonomic_only and self.kinematics != "holonomic":
            raise ValueError(f"method {self.method} is holonomic only, "
                             f"got kinematics {self.kinematics!r}")
        if self.max_neighbors < 0 or self.guidance_period < 1:
            raise ValueError("max_neighbors must be >= 0 and guidance_period >= 1")
        if self.lag_error is not None:
            as_finite(self.lag_error, "lag_error", minimum=0.0)
        if self.max_reverse_speed is not None:
            as_finite(self.max_reverse_speed, "max_reverse_speed", minimum=0.0)
        if self.safety_filter not in SAFETY_FILTER_SETTINGS:
            raise ValueError(f"safety_filter must be one of {SAFETY_FILTER_SETTINGS}, got "
                             f"{self.safety_filter!r}")
        for name in ("goal_tolerance", "lookahead", "command_validity"):
            if getattr(self, name) is not None:
                as_finite(getattr(self, name), name, strictly_positive=True)

    @cached_property
    def method_spec(self) -> MethodSpec:
        """The registered method, or the world backend the world runs under this name (whose
        capabilities shape the preferred velocities it is given); a ValueError names the
        registered ones."""
        return world_spec(self.method)

    @property
    def strict(self) -> bool:
        """The method reproduces a reference exactly: none of the shared additions."""
        return self.method_spec.strict

    @property
    def runs_safety_filter(self) -> bool:
        """Whether the one-step safety filter runs: ``safety_filter`` ``on`` or ``off``,
        or, with ``method``, what the method's :class:`MethodSpec` says."""
        if self.safety_filter == "method":
            return self.method_spec.safety_filter
        return self.safety_filter == "on"

    def method_arguments(self) -> Dict[str, object]:
        """The method's parameters: the fields of this configuration that its parameter
        dataclass names (``time_horizon``, ...), then ``method_parameters``."""
        own = {f.name for f in dataclasses.fields(self.method_spec.parameters)}
        values = {name: getattr(self, name) for name in own if hasattr(self, name)}
        values.update(dict(self.method_parameters))
        return values

    @property
    def diff_drive(self) -> bool:
        return self.kinematics == "diff_drive"

    @property
    def command_horizon(self) -> float:
        """How long a command can act before the robot brakes (s), at least one period.

        In the world a new command comes every ``time_step``. Through ROS a
        command is valid for ``command_validity`` after its stamp; the robot's
        driver (fleet_sim, toio_bridge) brakes once it has none that is valid.
        """
        if self.command_validity is None:
            return self.time_step
        return max(self.command_validity, self.time_step)

    @property
    def reverse_speed(self) -> float:
        """How fast a unicycle may back off (m/s): ``max_reverse_speed`` (None:
        ``max_speed``); 0, the default, for a robot that never reverses."""
        return self.max_speed if self.max_reverse_speed is None else \
            min(self.max_reverse_speed, self.max_speed)

    @property
    def braking_accel(self) -> Optional[float]:
        """Deceleration the safety half-planes plan with; None: the velocity changes at once."""
        return self.max_linear_accel if self.diff_drive or self.accel_limited else None

    @cached_property
    def limits(self) -> DiffDriveLimits:
        # The lateral budget E_lat: planned velocities may stray sideways of the heading
        # by lateral_speed_ratio * max_speed for one control period, but E_lat stays
        # below lateral_error_max_ratio of the radius, since it enlarges the robot.
        lateral = min(self.lateral_speed_ratio * self.max_speed * self.time_step,
                      self.lateral_error_max_ratio * self.radius)
        return DiffDriveLimits(self.max_speed, self.max_angular_speed, self.max_linear_accel,
                               self.max_angular_accel, lateral)

    @cached_property
    def tracking_error(self) -> float:
        """How far the robot may be from where it planned to be, one period on (m).

        A unicycle's tracking bound E (0 for holonomic robots), plus, with a
        ``command_lag``, the error of predicting its motion over the lag:
        ``lag_error`` when the caller replays the commands already sent
        (:class:`~orca_ros.core.robot.perception.SentCommands`), else the error of a
        constant-velocity guess while speed and heading may change at their
        acceleration and turn limits: ``a lag**2 / 2 + v_max omega_max lag**2 / 2``.
        """
        error = tracking_error_bound(self.limits, self.time_step) if self.diff_drive else 0.0
        lag = self.command_lag
        if lag > 0.0 and self.lag_error is not None:
            error += self.lag_error
        elif lag > 0.0:
            error += self.lag_guess_error
        return error

    @property
    def lag_guess_error(self) -> float:
        """How far a constant-velocity guess over ``command_lag`` may miss (m):
        ``a lag**2 / 2`` (``+ v_max omega_max lag**2 / 2`` for a unicycle)."""
        lag = self.command_lag
        error = 0.5 * self.max_linear_accel * lag * lag
        if self.diff_drive:
            error += 0.5 * self.max_speed * self.max_angular_speed * lag * lag
        return error

    @cached_property
    def margin_ratio(self) -> float:
        return 0.0 if self.strict else self.safety_margin_ratio

    def avoidance_radius(self, radius: float) -> float:
        """A disc's radius as this robot reasons about it in ORCA (margin and tracking error)."""
        return radius * (1.0 + self.margin_ratio) + self.tracking_error

    def pair_margin_shortfall(self, own_radius: float, other_radius: float,
                              relative_speed: float, held: float = 1.0) -> float:
        """How much less than the full planning margins (m) a pair moving at
        ``relative_speed`` apart keeps in ORCA's combined radius.

        With ``margin_speed_ratio`` ``k > 0`` the margin grows with the pair's
        relative speed ``|v_a - v_b|``, from none to full at ``k v_max``:
        ``(1 - min(1, |v_a - v_b| / (k v_max))) m (r_a + r_b)``. Two robots at rest
        side by side then plan only with their true radii and tracking errors, the
        distance the hard layer keeps, so goals closer than the full margins
        allow can all be held. ``k = 0``: the full margin at any speed.
        ``held`` (0..1) scales what is left: the share of its margin the robot
        still holds (:attr:`~orca_ros.core.robot.preferred_velocity.MarginHold.held`, released when
        it is stalled near its goal).
        """
        if self.margin_ratio <= 0.0:
            return 0.0
        scale = 1.0 if self.margin_speed_ratio <= 0.0 else \
            min(1.0, relative_speed / (self.margin_speed_ratio * self.max_speed))
        return (1.0 - scale * held) * self.margin_ratio * (own_radius + other_radius)

    @cached_property
    def safety_numbers(self) -> Tuple[float, float, float, float, Optional[float]]:
        """What the safety filter's C code takes first (:mod:`.safety_filter`): the time
        step, :attr:`command_horizon`, :attr:`tracking_error`, the maximum speed and
        :attr:`braking_accel`."""
        return (self.time_step, self.command_horizon, self.tracking_error, self.max_speed,
                self.braking_accel)

    def safety_radius(self, radius: float) -> float:
        """A disc's radius in the hard one-step safety half-planes (true size, tracking error)."""
        return radius + self.tracking_error + SAFETY_ROUNDING_MARGIN

    @property
    def goal_tolerance_m(self) -> float:
        return self.radius if self.goal_tolerance is None else self.goal_tolerance

    @property
    def lookahead_m(self) -> float:
        return self.radius if self.lookahead is None else self.lookahead
