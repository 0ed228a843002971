"""One robot's control cycle: the one function orca_node and the simulated world both call.

Each control period, from what the robot has received to the command it sends:

1. **perception** (:meth:`RobotCycle.perceive`): the robot's own state carried to when
   the command acts (its odometry's age plus ``command_lag``; a lagging unicycle's by
   replaying the commands it already sent, :class:`~.perception.SentCommands`), every
   neighbour's reading carried there too and grown by what that guess may miss
   (:func:`~.perception.perceive_neighbor_best`, with what the neighbour said it would
   do where that is surer), neighbours that do not answer their half-planes flagged
   (:class:`~.perception.ReciprocityMonitor`), linked partners and other groups' links;
2. the **preferred velocity**, the **method**, the **safety filter** and **tracking**
   (:meth:`RobotController.compute <orca_ros.core.robot.controller.RobotController.compute>`);
3. what follows the command: the half-planes the neighbours are expected to keep, the
   command recorded for the lag replay, and the prediction shared with neighbours.

The cycle holds still, and says why (:class:`GoalState`), while it lacks its own
odometry, a goal, the walls it was told to wait for, or a linked partner.

orca_node turns messages into :class:`~.perception.NeighborReading` and
:class:`OwnReading` and the :class:`CycleResult` into ``cmd_vel``, markers and
diagnostics. The world (:mod:`orca_ros.core.sim.world`) steps every robot through
:meth:`RobotCycle.step` too: with readings timed as the ROS path times them
(``orca-ros bench --ros-timing``) or as toio_bridge reports them, so that it predicts
what the nodes do; with ideal timing, with readings of zero age, which it perceives
for all robots at once and hands each cycle as its :class:`NeighborsNow`.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from dataclasses import dataclass, field
from typing import (TYPE_CHECKING, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple,
                    Union)

from ..geometry.obstacles import ObstacleVertex
from ..geometry.types import Vector2
from ..methods import LinkView, TetherView
from .config import ControllerConfig
from .controller import RobotController
from .link_groups import LinkedViews, LinkSpec, linked_views, parse_links
from ..orca._orca2d import make_neighbors, observed_rows, perceive_rows
from .perception import (NeighborRadii, NeighborReading, ReciprocityMonitor, SentCommands,
                         SharedPrediction, perceive_neighbor_best, select_neighbors)
from .readings import Readings
from .state import Command, Neighbor, RobotState, predict_state
from .tracking import LoopDelay

if TYPE_CHECKING:
    from .aerial import AerialCommand


NO_LINKS = LinkedViews((), (), (), ())
"""What a robot in no link group knows of links."""

PASS_THROUGH_TOLERANCE = 1e-9
"""m/s between the preferred velocity and avoidance's below which filter mode passes the
input twist on unchanged."""


class GoalState(str, enum.Enum):
    """What the robot is doing, as its diagnostics say it (``goal_state``)."""

    WAITING_FOR_ODOM = "waiting for odom"
    OWN_ODOM_STALE = "own odom stale"
    NO_GOAL = "no goal"
    HOLDING = "holding"
    DRIVING = "driving"
    GOAL_REACHED = "goal reached"


@dataclass(frozen=True)
class Status:
    """A :class:`GoalState` and, for ``HOLDING``, why."""

    state: GoalState
    reason: str = ""

    def __str__(self) -> str:
        return f"holding: {self.reason}" if self.state is GoalState.HOLDING else self.state.value

    @property
    def warns(self) -> bool:
        return self.state in (GoalState.WAITING_FOR_ODOM, GoalState.OWN_ODOM_STALE,
                              GoalState.HOLDING)


DRIVING = Status(GoalState.DRIVING)
GOAL_REACHED = Status(GoalState.GOAL_REACHED)


class OwnReading(NamedTuple):
    """The robot's own state in the shared frame and when it was measured (s, robot
    clock); ``uncertainty`` (m): how far its localization may be off; ``drift`` (m): how
    much farther its odometry may have drifted since the last fix, which grows it
    against walls only (:attr:`~.localization.SharedFramePose.drift_uncertainty`)."""

    state: RobotState
    stamp: float
    uncertainty: float = 0.0
    drift: float = 0.0


class Preferred(NamedTuple):
    """A preferred velocity given from outside (Nav2's controller, any controller on
    ``cmd_vel_in``): ``velocity`` in the shared frame, and the ``twist`` it came as
    (body frame ``(vx, vy, omega)``), passed on unchanged while avoidance needs no
    change."""

    velocity: Vector2
    twist: Tuple[float, float, float]


@dataclass(frozen=True)
class PerceptionSettings:
    """How a robot perceives others (orca_node's parameters of these names).

    ``neighbor_max_speed``: how fast neighbours may move (0: the robot's own
    ``max_speed``); ``neighbor_timeout`` (s): how long a reading is carried forward at
    its velocity before the neighbour counts as stale (still avoided, as a growing
    disc); ``detect_non_reciprocating``: flag neighbours that do not answer their
    half-planes; ``non_reciprocating``: robots that never do; ``share_predictions``:
    plan with what neighbours said they will do where that is surer; ``odom_timeout``
    (s): own odometry older than this stops the robot. ``unannounced_reciprocate``:
    whether a neighbour known only from its odometry (it announces nothing: it does not
    run orca_node, or its orca_node is gone) reciprocates; in a fleet that announces
    itself it does not. ``max_uncertainty`` (m): the most a neighbour's announced
    localization uncertainty grows its disc.
    """

    neighbor_max_speed: float = 0.0
    neighbor_timeout: float = 1.0
    detect_non_reciprocating: bool = True
    non_reciprocating: frozenset = frozenset()
    share_predictions: bool = False
    odom_timeout: float = 0.5
    unannounced_reciprocate: bool = True
    max_uncertainty: float = 0.3


class Perceived(NamedTuple):
    """What perception hands the controller: the own state when the command acts, how
    uncertain it is (m), the neighbours nearest first (every one that may be inside
    ``neighbor_dist``), the linked partners and other groups' links."""

    state: RobotState
    own_uncertainty: float
    neighbors: List[Neighbor]
    tethers: Sequence[TetherView] = ()
    links: Sequence[LinkView] = ()
    drift: float = 0.0  # m more against walls (OwnReading.drift)
    localization: float = 0.0  # m of own_uncertainty: the localization fix's


class NeighborsNow(NamedTuple):
    """The neighbours read at the cycle's ``now`` (readings of zero age), perceived
    already: what a simulator that knows the ground truth hands :meth:`RobotCycle.step`
    in place of the readings to perceive (the world with ideal timing,
    :mod:`orca_ros.core.sim.world`). A reading of zero age for a robot without command
    lag is perceived as it is, so the simulator can perceive them for all its robots at
    once (a k-d tree, ORCA's half-planes in one batch) and give each cycle its slice.

    ``neighbors``: nearest first, the ones ORCA reasons about (at most
    ``max_neighbors``, strictly inside ``neighbor_dist``: RVO2's ``computeNeighbors``);
    ``close``: every robot within one period's reach, for the hard safety half-planes
    (None: the ``neighbors``); ``half_planes``: ORCA's against ``neighbors`` built in a
    batch (None: the method builds its own); the linked partners (``tethers``: every
    partner still in the world) and the other groups' ``links`` near the robot. Each
    neighbour's ``reciprocates`` is as given: the reciprocity monitor plays no part (the
    simulator knows which robots run the cycle)."""

    neighbors: List[Neighbor]
    close: Optional[List[Neighbor]] = None
    half_planes: Optional[list] = None
    tethers: Sequence[TetherView] = ()
    links: Sequence[LinkView] = ()


@dataclass
class CycleResult:
    """One cycle's outcome: the status, the command (None: stand still, the robot holds
    or has nothing to do), what it perceived, and the prediction to share."""

    status: Status
    command: Optional[Command] = None
    perceived: Optional[Perceived] = None
    prediction: Optional[SharedPrediction] = None

    @property
    def holds(self) -> bool:
        return self.command is None


@dataclass
class RobotCycle:
    """One robot's control cycle (module docstring) and the state it keeps between
    periods: the controller (path, stall, margins, method), the commands sent (lag
    replay), the reciprocity monitor, the neighbours' shared predictions, the
    supervisor's directives and the linked groups.

    ``radius_of``: the neighbours' radii by name; ``drive``: how the robot's drive
    carries out commands, for the lag replay (:func:`~orca_ros.core.models.drive.drive_model`).
    """

    config: ControllerConfig
    key: str = ""
    perception: PerceptionSettings = field(default_factory=PerceptionSettings)
    radius_of: NeighborRadii = field(default_factory=NeighborRadii)
    drive: Optional[object] = None
    link_groups: Tuple[LinkSpec, ...] = ()
    controller: Optional[RobotController] = None

    def __post_init__(self) -> None:
        if self.controller is None:
            self.controller = RobotController(self.config, key=self.key)
        self.sent = SentCommands(self.config.command_lag, self.config.command_horizon,
                                 drive=self.drive)
        self.reciprocity = self._monitor()
        self.predictions: Dict[str, SharedPrediction] = {}
        self.observed: Dict[str, float] = {}  # the stamp of each one's reading last perceived
        self.speed_limit: Optional[Tuple[float, float]] = None  # (m/s, received s)
        self.detour: Optional[Tuple[List[Vector2], float]] = None  # (points, received s)
        self.directive_timeout = 1.0  # s a supervisor directive stays in force
        self.links_error = ""
        self.link_missing: List[str] = []  # own partners without a reading
        self.link_stale: List[str] = []  # own partners whose reading is stale
        self.links_seen = 0  # other groups' links handed to the method last cycle
        self.last_command: Optional[Command] = None
        self._measure_loop_delay()

    def _monitor(self) -> ReciprocityMonitor:
        return ReciprocityMonitor(tolerance=0.1 * self.neighbor_max_speed,
                                  declared=frozenset(self.perception.non_reciprocating))

    @property
    def neighbor_max_speed(self) -> float:
        return self.perception.neighbor_max_speed or self.config.max_speed

    def reconfigure(self, config: ControllerConfig, perception: PerceptionSettings,
                    directive_timeout: Optional[float] = None) -> None:
        """New settings (parameters changed): the controller keeps its path and state.
        ``directive_timeout`` (s): how long a supervisor directive stays in force (None:
        as it was)."""
        if directive_timeout is not None:
            self.directive_timeout = directive_timeout
        self.config = config
        self.perception = perception
        self.controller.config = config
        self.reciprocity = self._monitor()
        self.sent.lag = config.command_lag
        self.sent.validity = config.command_horizon
        self._measure_loop_delay()

    def _measure_loop_delay(self) -> None:
        """A unicycle that follows with its own tracking measures how late its turn
        commands show in its odometry (:class:`~.tracking.LoopDelay`), unless it replays
        the commands it sent over a known ``command_lag`` (toio cubes), which makes up
        for that delay instead. A new control period starts the measurement anew."""
        config, tracking = self.config, self.controller.tracking
        measured = config.diff_drive and config.tracking == "unicycle" and not (
            config.command_lag > 0.0 and config.lag_error is not None)
        if not measured:
            tracking.loop_delay = None
        elif tracking.loop_delay is None or tracking.loop_delay.period != config.time_step:
            tracking.loop_delay = LoopDelay(config.time_step)

    def set_links(self, raw) -> str:
        """``links`` (orca_node's parameter, the scenario format's text) as the robot's
        groups; for a bad value none and the error, returned (the cycle then holds the
        robot until a valid value is set)."""
        try:
            self.link_groups, self.links_error = parse_links(raw, "links"), ""
        except ValueError as error:
            self.link_groups, self.links_error = (), str(error)
        return self.links_error

    # --- inputs that come between cycles ------------------------------------------------

    def set_path(self, waypoints: Sequence[Vector2]) -> None:
        self.controller.set_path(waypoints)

    def set_speed_limit(self, speed: Optional[float], received: float = 0.0) -> None:
        """The supervisor's speed limit (m/s), in force for ``directive_timeout`` (s)."""
        self.speed_limit = None if speed is None else (speed, received)

    def set_detour(self, points: Sequence[Vector2], received: float = 0.0) -> None:
        """The supervisor's detour (empty: none), in force for ``directive_timeout`` (s)."""
        self.detour = (list(points), received) if points else None

    def share(self, name: str, prediction: SharedPrediction) -> None:
        """What neighbour ``name`` said it will do (its ``orca/prediction``)."""
        self.predictions[name] = prediction

    def forget(self, names: Sequence[str]) -> None:
        """Neighbours silent for too long: forget what was known of them."""
        for name in names:
            self.observed.pop(name, None)
            self.predictions.pop(name, None)
            self.reciprocity.forget(name)

    # --- the cycle ------------------------------------------------------------------------

    def step(self, now: float, own: Optional[OwnReading],
             neighbors: Union[Mapping[str, NeighborReading], NeighborsNow],
             obstacle_edges: Sequence[ObstacleVertex] = (),
             awaited_obstacles: Sequence[str] = (),
             preferred: Optional[Preferred] = None) -> CycleResult:
        """One control period at ``now`` (s, the robot's clock): perceive, decide, and
        keep what the next periods need (module docstring). ``neighbors``: the latest
        reading of each neighbour by name, or, read at ``now`` and perceived already,
        :class:`NeighborsNow`. ``awaited_obstacles``: the obstacle sources not heard
        from yet (the robot holds until they are). ``preferred``: a preferred velocity
        from outside (filter mode), instead of the robot's own path."""
        loop = self.controller.tracking.loop_delay
        if loop is not None and own is not None:
            loop.observe(now, own.state.angular_speed)
        result = self._step(now, own, neighbors, obstacle_edges, awaited_obstacles,
                            preferred)
        if loop is not None and result.command is not None:
            loop.sent(now, result.command.angular)
        if self.sent.lag > 0.0:  # replayed over the lag; without one, nothing reads them
            command = result.command
            self.sent.record(now, command.linear if command else 0.0,
                             command.angular if command else 0.0)
        return result

    def _step(self, now: float, own: Optional[OwnReading],
              neighbors: Union[Mapping[str, NeighborReading], NeighborsNow],
              obstacle_edges: Sequence[ObstacleVertex],
              awaited_obstacles: Sequence[str],
              preferred: Optional[Preferred]) -> CycleResult:
        if own is None:
            return CycleResult(Status(GoalState.WAITING_FOR_ODOM))
        if now - own.stamp > self.perception.odom_timeout:
            return CycleResult(Status(GoalState.OWN_ODOM_STALE))
        given = isinstance(neighbors, NeighborsNow)
        if not given:
            present = neighbors.index if isinstance(neighbors, Readings) else neighbors
            self.forget([n for n in self.observed if n not in present])
        if not self.controller.waypoints and preferred is None:
            return CycleResult(Status(GoalState.NO_GOAL))
        if awaited_obstacles:
            return CycleResult(Status(GoalState.HOLDING, "waiting for obstacles from "
                                      + ", ".join(awaited_obstacles)))
        controller = self.controller
        if self.speed_limit or self.detour or controller.speed_limit is not None or \
                controller.preferred.route.detour:  # (none in force, none to lift: nothing to do)
            self.apply_directives(now)
        config = controller.effective_config
        if own.stamp == now and config.command_lag <= 0.0:  # measured now, acting now
            state, own_uncertainty = own.state, 0.0
        else:
            state, own_uncertainty = self._own_state(config, own, now)
        if given:  # every partner still in the world is among the tethers
            tethers, links = neighbors.tethers, neighbors.links
            if self.link_missing or self.link_stale:
                self.link_missing, self.link_stale = [], []
            self.links_seen = len(links)
        else:
            tethers, links = self._link_views(config, state, now, neighbors)[:2]
        if self.links_error or self.link_missing or self.link_stale:
            return CycleResult(Status(GoalState.HOLDING, self._link_hold()))
        pref_velocity = None if preferred is None else preferred.velocity
        if given:
            perceived = Perceived._make((state, own_uncertainty + own.uncertainty,
                                         neighbors.neighbors, tethers, links, own.drift,
                                         own.uncertainty))
            command = self.decide(perceived, obstacle_edges, neighbors.half_planes,
                                  neighbors.close, pref_velocity)
        else:
            seen = self._perceived_neighbors(config, state, now, neighbors)
            perceived = Perceived(state, own_uncertainty + own.uncertainty, seen, tethers,
                                  links, own.drift, own.uncertainty)
            command = self.decide(perceived, obstacle_edges, pref_velocity=pref_velocity)
            self._expect_reciprocity(command, state, seen[:config.max_neighbors], now)
        if preferred is not None:
            command = self._pass_through(config, command, preferred)
            status = DRIVING
        else:  # planned from where the robot is: at its goal as the path just said
            at_goal = command.arrived if state is own.state else \
                self.controller.at_goal(own.state.position)
            status = GOAL_REACHED if at_goal else DRIVING
        prediction = None
        if config.kinematics == "diff_drive":
            if self.perception.share_predictions:
                # Until the sent commands reach back over the lag (just started), the
                # prediction is partly a constant-velocity guess: say so.
                guess = 0.0 if self.sent.covers(own.stamp) else config.lag_guess_error
                prediction = SharedPrediction(
                    now + config.command_lag, state.position, state.heading,
                    command.linear, command.angular, own_uncertainty + guess)
        return CycleResult(status, command, perceived, prediction)

    def decide(self, perceived: Perceived, obstacle_edges: Sequence[ObstacleVertex] = (),
               agent_half_planes=None, close: Optional[Sequence[Neighbor]] = None,
               pref_velocity: Optional[Vector2] = None) -> Command:
        """The command from what was perceived: ORCA reasons about the nearest
        ``max_neighbors``; the hard safety half-planes cover every robot within reach,
        however many (``close``: those, when the caller knows them; default all the
        perceived). ``agent_half_planes``: ORCA's half-planes built in a batch;
        ``pref_velocity``: the preferred velocity from outside (filter mode)."""
        config = self.controller.effective_config
        neighbors = perceived.neighbors[:config.max_neighbors]
        command = self.controller.compute(
            perceived.state, neighbors, obstacle_edges,
            close=perceived.neighbors if close is None else close,
            agent_half_planes=agent_half_planes, own_uncertainty=perceived.own_uncertainty,
            drift=perceived.drift, own_localization=perceived.localization,
            tethers=perceived.tethers, links=perceived.links, pref_velocity=pref_velocity)
        self.last_command = command
        return command

    @staticmethod
    def _pass_through(config: ControllerConfig, command: Command,
                      preferred: Preferred) -> Command:
        """Filter mode: while avoidance left the preferred velocity as it was, the input
        twist goes on unchanged (within the robot's limits), so far from everyone the
        output is the input; otherwise the command avoidance made.

        A unicycle's reversing input (Nav2's BackUp, docking) passes at up to
        ``reverse_speed`` (a stop at 0), though the unicycle's own tracking, which
        reverses only to back off from avoidance, would turn it round first."""
        free = command.free_velocity
        vx, vy, omega = preferred.twist
        reversing = config.diff_drive and vx < 0.0
        if math.hypot(free[0] - preferred.velocity[0], free[1] - preferred.velocity[1]) > \
                PASS_THROUGH_TOLERANCE or (command.velocity != free and not reversing):
            return command
        top = config.max_speed
        speed = math.hypot(vx, vy)
        if speed > top:
            vx, vy = vx * top / speed, vy * top / speed
        limited = reversing and vx < -config.reverse_speed
        if config.diff_drive:
            vx, vy = min(max(vx, -config.reverse_speed), top), 0.0
        omega = min(max(omega, -config.max_angular_speed), config.max_angular_speed)
        return dataclasses.replace(command, linear=vx, angular=omega,
                                   passed_through=(vx, vy, omega), reverse_limited=limited)

    # --- perception -----------------------------------------------------------------------

    def _own_state(self, config: ControllerConfig, own: OwnReading,
                   now: float) -> Tuple[RobotState, float]:
        """The own state carried to when the command acts, and how uncertain it is (m):
        a lagging unicycle by replaying the commands it sent, anything else at constant
        velocity over the odometry's age and the lag; ``a age**2 / 2`` of uncertainty."""
        own_age = max(0.0, now - own.stamp)
        if config.diff_drive and config.lag_error is not None and config.command_lag > 0.0:
            state = self.sent.predict(own.state, own.stamp, now + config.command_lag,
                                      config.limits)
        else:
            state = predict_state(own.state, own_age + config.command_lag,
                                  unicycle=config.diff_drive)
        return state, 0.5 * config.max_linear_accel * own_age * own_age

    def _perceived_neighbors(self, config: ControllerConfig, state: RobotState, now: float,
                             readings: Mapping[str, NeighborReading]) -> List[Neighbor]:
        """Neighbours as they may be when the command acts, nearest first (all of them
        that may be inside ``neighbor_dist``).

        From the reading (:func:`~.perception.perceive_neighbor`, over every reading's
        row at once in C: ``_orca2d.perceive_rows``), or, where that is surer, from what
        the neighbour said it would do (its :class:`SharedPrediction`, with
        ``share_predictions``: :func:`~.perception.perceive_neighbor_best`). A neighbour
        that cannot be within reach, wherever it went since its reading, is passed over
        first (its distance less ``(max_speed + 2 speed) age`` is ``neighbor_dist`` or
        more); the reciprocity monitor sees each new reading of the others. The rows
        become :class:`Neighbor` tuples in C too (``_orca2d.observed_rows``,
        ``make_neighbors``; radii by :class:`~.perception.NeighborRadii`)."""
        perception = self.perception
        max_speed = self.neighbor_max_speed
        predictions = self.predictions if perception.share_predictions else {}
        rows = Readings.of(readings)
        names = rows.names
        keep = None
        if predictions:  # never passed over: where it said it will be counts
            keep = bytes(name in predictions for name in names)
        lag = config.command_lag
        x, y = state.position
        passed = perceive_rows(rows.data, names, x, y, now, lag, max_speed,
                               config.max_linear_accel, perception.neighbor_timeout,
                               config.neighbor_dist, perception.max_uncertainty, keep)
        reciprocity = self.reciprocity  # the new readings judged first
        reciprocity.observe_all(observed_rows(passed, names, self.observed,
                                              reciprocity.waiting))
        refusing = reciprocity.refusing(now) if perception.detect_non_reciprocating \
            else reciprocity.declared
        radii = self.radius_of
        # not announced: not running the cycle (or no longer), so it won't yield
        perceived = make_neighbors(passed, names, keep, radii.listed, radii.heard(),
                                   radii.default, refusing,
                                   perception.unannounced_reciprocate, Neighbor)
        if not predictions:
            return perceived
        for i, seen in enumerate(perceived):  # carried by what they said, where surer
            predicted = predictions.get(seen.key)
            if predicted is not None:
                s = rows.reading(rows.index[seen.key])
                perceived[i] = perceive_neighbor_best(
                    Neighbor(s.position, s.velocity, seen.radius, seen.key,
                             min(s.uncertainty, perception.max_uncertainty),
                             seen.reciprocates),
                    max(0.0, now - s.stamp) + lag, max_speed, config.max_linear_accel,
                    perception.neighbor_timeout, predicted, now + lag,
                    config.max_angular_speed)
        # the predicted ones chosen and ordered with the rest
        return select_neighbors(state.position, perceived, config.neighbor_dist)

    def _expect_reciprocity(self, command: Command, state: RobotState,
                            neighbors: List[Neighbor], now: float) -> None:
        """Hand this period's half-plane against each neighbour to the reciprocity monitor
        (built now, from the readings perceived this period: their stamps are the latest
        :attr:`observed`)."""
        lines = command.output.neighbor_half_planes if command.output is not None else ()
        if not neighbors or len(lines) != len(neighbors):
            return
        self.reciprocity.expect_all(neighbors, self.observed, lines, state.velocity, now)

    def apply_directives(self, now: float) -> None:
        """Hand the supervisor's unexpired directives to the controller. Directives
        expire ``directive_timeout`` after their last message, so a dead supervisor
        leaves the robot running on its method alone. (:meth:`step` does this; a world
        whose library moves the robots instead calls it alone.)"""
        timeout = self.directive_timeout
        if self.speed_limit and now - self.speed_limit[1] > timeout:
            self.speed_limit = None
        if self.detour and now - self.detour[1] > timeout:
            self.detour = None
        self.controller.set_directive(self.speed_limit[0] if self.speed_limit else None,
                                      self.detour[0] if self.detour else ())

    # --- links --------------------------------------------------------------------------

    def _link_views(self, config: ControllerConfig, state: RobotState, now: float,
                    readings: Mapping[str, NeighborReading]) -> LinkedViews:
        """This robot's partners and the other groups' links near it
        (:func:`~.link_groups.linked_views`); the partners it cannot see are noted for
        :meth:`_link_hold`."""
        if not self.link_groups:  # (most robots: nothing to look at)
            self.link_missing, self.link_stale, self.links_seen = [], [], 0
            return NO_LINKS
        named = {name for group in self.link_groups for name in group.agents}
        observed = {name: (s.position, s.velocity, now - s.stamp)
                    for name, s in ((n, readings[n]) for n in named if n in readings)}
        views = linked_views(self.key, self.link_groups, observed, self.radius_of,
                             config.command_lag, self.perception.neighbor_timeout,
                             state.position, config.neighbor_dist)
        self.link_missing, self.link_stale = views.missing, views.stale
        self.links_seen = len(views.links)
        return views

    def _link_hold(self) -> str:
        """Why the robot must hold still for its links ('' when it need not): the
        ``links`` setting it started with is invalid, or a partner's reading is missing
        or stale."""
        if self.links_error:
            return "invalid links parameter"
        reasons = []
        if self.link_missing:
            reasons.append(f"no odometry of link partner(s) {', '.join(self.link_missing)}")
        if self.link_stale:
            reasons.append(f"stale odometry of link partner(s) {', '.join(self.link_stale)}")
        return "; ".join(reasons)


@dataclass
class AerialCycle:
    """The cycle of an aerial robot (``dimensions: 3``, holonomic): the same shape as
    :class:`RobotCycle` in 3D. Its own state and its neighbours are carried forward to
    now at their velocity, each neighbour's sphere grown by what that guess may miss
    (:func:`~.aerial.perceive_neighbor_3d`); then
    :meth:`~.aerial.AerialController.compute`. Walls, links, the supervisor and the
    reciprocity monitor are 2D only and play no part (a neighbour named in
    ``non_reciprocating`` still gets the whole avoidance)."""

    config: ControllerConfig
    key: str = ""
    perception: PerceptionSettings = field(default_factory=PerceptionSettings)
    radius_of: NeighborRadii = field(default_factory=NeighborRadii)

    def __post_init__(self) -> None:
        from .aerial import AerialController  # aerial robots only

        self.controller = AerialController(self.config, key=self.key)  # ValueError: cannot fly
        self.last_command: Optional[AerialCommand] = None

    def set_path(self, waypoints: Sequence) -> None:
        self.controller.set_path(waypoints)

    def step(self, now: float, own: Optional[OwnReading],
             position: Optional[Tuple[float, float, float]],
             velocity: Tuple[float, float, float],
             neighbors: Union[Mapping[str, NeighborReading], NeighborsNow]) -> CycleResult:
        """One control period from the own odometry (``own``, with its ``position`` and
        ``velocity`` in 3D); the command's ``velocity`` is 3D (world frame).
        ``neighbors``: the latest reading of each neighbour by name, or, read at ``now``
        and perceived already, :class:`NeighborsNow` (of
        :class:`~.aerial.Neighbor3D`: the 3D world's)."""
        from .aerial import Neighbor3D, perceive_neighbor_3d

        if own is None:
            return CycleResult(Status(GoalState.WAITING_FOR_ODOM))
        if now - own.stamp > self.perception.odom_timeout:
            return CycleResult(Status(GoalState.OWN_ODOM_STALE))
        if not self.controller.waypoints or position is None:
            return CycleResult(Status(GoalState.NO_GOAL))
        config = self.controller.config
        own_age = now - own.stamp
        carried = tuple(p + v * own_age for p, v in zip(position, velocity))
        own_uncertainty = 0.5 * config.max_linear_accel * own_age * own_age
        if isinstance(neighbors, NeighborsNow):
            command = self.controller.compute(carried, velocity, neighbors.neighbors,
                                              close=neighbors.close,
                                              own_uncertainty=own_uncertainty)
            return self._result(command, position)
        max_speed = self.perception.neighbor_max_speed or config.max_speed
        declared = self.perception.non_reciprocating
        perceived = []
        for name, s in neighbors.items():
            seen_as = Neighbor3D((s.position[0], s.position[1], s.z),
                                 (s.velocity[0], s.velocity[1], s.vz),
                                 self.radius_of(name), name, reciprocates=name not in declared)
            perceived.append(perceive_neighbor_3d(seen_as, now - s.stamp,
                                                  max_speed, config.max_linear_accel,
                                                  self.perception.neighbor_timeout))
        close = select_neighbors(carried, perceived, config.neighbor_dist)
        command = self.controller.compute(carried, velocity, close[:config.max_neighbors],
                                          close=close, own_uncertainty=own_uncertainty)
        return self._result(command, position)

    def _result(self, command: AerialCommand, position: Tuple[float, float, float]
                ) -> CycleResult:
        self.last_command = command
        return CycleResult(GOAL_REACHED if self.controller.at_goal(position) else DRIVING,
                           command)
