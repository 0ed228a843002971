"""The interface every avoidance method implements (the registry: :mod:`.registry`).

A method answers one question for one robot each control period: given what
the robot sees (:class:`RobotView`), which velocity should it track
(:class:`MethodOutput`)? It is modelled on Nav2's ``nav2_core::Controller``
(``computeVelocityCommands``; the supervisor's speed limit, Nav2's
``setSpeedLimit``, reaches a method as a lower ``max_speed`` in the view) and on
Menge's per-model ``computeNewVelocity``.

What is not the method is shared by all of them and stays in
:class:`~orca_ros.core.robot.controller.RobotController`: path following and roadmap
guidance, keep-right and the stall escape (both shape the *preferred*
velocity), the tracking margin (the discs in the view are already inflated by
it), the one-step safety filter (hard half-planes any method runs behind) and
unicycle tracking. A method's :class:`Capabilities` say which of those it runs
with: the exact reference ``orca_strict`` (and the ``rvo2`` world backend) run
with none.

A method that optimises under constraints (ORCA's linear program) takes the
view's ``hard_half_planes`` into its own optimisation; for every other method
the controller projects the method's velocity onto them afterwards
(:func:`~orca_ros.core.robot.safety_filter.filter_velocity`), so the safety filter
protects any method.

Registering a method: a parameter dataclass, a class implementing
:class:`AvoidanceMethod`, and a :class:`MethodSpec` (name, summary, parameters,
factory, 3D factory, :class:`Capabilities`) given to :func:`~.registry.register_method`.
Another package makes its methods known through the entry-point group
``orca_ros.methods`` (:mod:`.plugins`). The CLI's choices, the world, orca_node's
``method`` parameter, the fleet plan and the ``method:=`` launch argument all read
:func:`~.registry.method_names`; the registry fills itself on first use.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, Mapping, NamedTuple, Optional, Sequence, Tuple, Type

from ..geometry.linprog import HalfPlane
from ..geometry.obstacles import ObstacleVertex
from ..geometry.types import Vector2


class NeighborView(NamedTuple):
    """Another robot as a method sees it: a disc already inflated by the planning
    margin and any uncertainty about where it is, moving at ``velocity``.
    ``reciprocates``: False for a robot that does not avoid us."""

    position: Vector2
    velocity: Vector2
    radius: float
    key: str = ""
    reciprocates: bool = True


class TetherView(NamedTuple):
    """A partner of this robot's link group (a tether or a carried load joins them):
    where it is and goes, its true ``radius``, and the link's ``max_length`` (m,
    centre to centre) and ``rest_length`` (None: not set)."""

    key: str
    position: Vector2
    velocity: Vector2
    radius: float
    max_length: float
    rest_length: Optional[float] = None


class LinkView(NamedTuple):
    """Another group's link: the segment between two linked robots' centres, whose
    ends move with them. This robot must not cross or touch it."""

    a: Vector2
    b: Vector2
    velocity_a: Vector2
    velocity_b: Vector2
    keys: Tuple[str, str] = ("", "")


class RobotView(NamedTuple):
    """One robot's view of the world for one control period (SI units, world frame).

    ``radius`` is the robot's planning radius (true radius, margin and tracking
    error); ``true_radius`` its body. ``neighbors`` are nearest first (at most
    the robot's ``max_neighbors``, strictly inside its ``neighbor_dist``);
    ``obstacle_edges`` the wall edges it can see, nearest first.
    ``hard_half_planes``: constraints ``v`` must satisfy (the safety filter's,
    and for a unicycle its kinematic limits). ``agent_half_planes``: ORCA's
    half-planes against ``neighbors`` when the caller built them in a batch.
    ``goal``: the end of the robot's path; ``target``: the waypoint (or
    guidance corner) the preferred velocity heads for. ``tethers``: the
    partners this robot is linked to; ``links``: other groups' links near it
    (scenario ``links:``).
    """

    position: Vector2
    velocity: Vector2
    heading: float
    radius: float
    true_radius: float
    max_speed: float
    pref_velocity: Vector2
    time_step: float
    neighbors: Sequence[NeighborView] = ()
    obstacle_edges: Sequence[ObstacleVertex] = ()
    hard_half_planes: Sequence[HalfPlane] = ()
    agent_half_planes: Optional[Sequence[HalfPlane]] = None
    goal: Optional[Vector2] = None
    key: str = ""
    target: Optional[Vector2] = None  # the point the preferred velocity heads for
    angular_speed: float = 0.0  # rad/s, as measured
    tethers: Sequence[TetherView] = ()
    links: Sequence[LinkView] = ()


class MethodOutput(NamedTuple):
    """The velocity to track, and what the method wants drawn or reported.

    ``half_planes``: constraint lines to draw (RViz markers); ``used_fallback``:
    the method could not satisfy all its constraints and relaxed some (a
    diagnostic warning); ``neighbor_half_planes``: for a reciprocal method, the
    half-plane it expects each of ``RobotView.neighbors`` (in order) to keep to
    (orca_node's reciprocity monitor checks them); ``report``: further numbers
    or words for diagnostics.
    """

    velocity: Vector2
    half_planes: Tuple[HalfPlane, ...] = ()
    used_fallback: bool = False
    neighbor_half_planes: Tuple[HalfPlane, ...] = ()
    report: Optional[Mapping[str, Any]] = None
    waypoint: Optional[Vector2] = None  # the point the method steers for, if it has one
    waypoint_speed: Optional[float] = None  # m/s towards it, before slowing down near it


def parameter(default, doc: str):
    """A method parameter's field with what it means (``doc``): the parameter reference
    (doc/parameters.md) and ``ros2 param describe`` give it."""
    return dataclasses.field(default=default, metadata={"doc": doc})


def parameter_doc(field: "dataclasses.Field") -> str:
    """A method parameter's meaning, as :func:`parameter` gave it ('' without)."""
    return field.metadata.get("doc", "")


@dataclass(frozen=True)
class NoParameters:
    """For a method without parameters of its own."""


class AvoidanceMethod(ABC):
    """One robot's avoidance method. One instance per robot: it may keep state."""

    def __init__(self, params: Any = None) -> None:
        self.params = params

    @abstractmethod
    def compute_velocity(self, view: RobotView) -> MethodOutput:
        """The velocity to track this period (Nav2's ``computeVelocityCommands``)."""

    def reset(self) -> None:
        """Forget whatever the method keeps from one period to the next: the robot has a
        new path (:meth:`~orca_ros.core.robot.controller.RobotController.set_path`), or a
        run starts again. Stateless methods (all the built-in ones) need not override it."""
        return None

    def sensing_range(self, radius: float) -> float:
        """How far (m) the method wants to see walls, for a robot of ``radius`` (beyond
        ORCA's own reach; 0: ORCA's is enough)."""
        return 0.0


TRACKING = ("unicycle", "move2target")


@dataclass(frozen=True)
class Capabilities:
    """What a method promises and which of the shared behaviours it runs with.

    ``strict`` (default False): the method reproduces a reference exactly, so none of
    the shared additions apply: no guidance, keep-right, stall escape, planning margin
    or safety filter (``orca_strict``).

    ``keep_right`` (default True): the shared keep-right and stall escape turn its
    preferred velocity.

    ``safety_filter`` (default True): the one-step safety filter runs behind it (the
    controller's ``safety_filter`` setting, ``method``/``on``/``off``, can still
    overrule this).

    ``takes_constraints`` (default False): the method honours
    ``RobotView.hard_half_planes`` itself, inside its own optimisation; otherwise the
    controller projects its velocity onto them afterwards.

    ``avoids`` (default True): it avoids other robots at all (``direct`` does not; the
    supervisor then knows no robot will yield).

    ``collision_free`` (default False): it promises no contact between robots that all
    run it (ORCA's reciprocal guarantee).

    ``holonomic_only`` (default False): it has no unicycle version.

    ``cube_tracking`` (default ``unicycle``): how a toio cube follows the method's
    velocity by default, ``unicycle`` (ours: NH-ORCA style tracking) or
    ``move2target`` (the toio SDK's ``CubeHandle.Move2Target``).
    """

    strict: bool = False
    keep_right: bool = True
    safety_filter: bool = True
    takes_constraints: bool = False
    avoids: bool = True
    collision_free: bool = False
    holonomic_only: bool = False
    cube_tracking: str = "unicycle"

    def __post_init__(self) -> None:
        if self.cube_tracking not in TRACKING:
            raise ValueError(f"cube_tracking must be one of {TRACKING}, "
                             f"got {self.cube_tracking!r}")


CAPABILITY_FLAGS = tuple(f.name for f in dataclasses.fields(Capabilities))


class CapabilityFlags:
    """Read access to a registered entry's :class:`Capabilities` by flag name
    (``spec.strict`` is ``spec.capabilities.strict``), for everything that asks a
    registered name how it runs."""

    capabilities: Capabilities

    strict = property(lambda self: self.capabilities.strict)
    keep_right = property(lambda self: self.capabilities.keep_right)
    safety_filter = property(lambda self: self.capabilities.safety_filter)
    takes_constraints = property(lambda self: self.capabilities.takes_constraints)
    avoids = property(lambda self: self.capabilities.avoids)
    collision_free = property(lambda self: self.capabilities.collision_free)
    holonomic_only = property(lambda self: self.capabilities.holonomic_only)
    cube_tracking = property(lambda self: self.capabilities.cube_tracking)


HalfPlanesBatch = Callable[..., Tuple[Any, Any]]
"""``half_planes_batch(params, velocity, other_position_rel, other_velocity,
combined_radius, inv_time_horizon, inv_time_step) -> (lines, kept)``: see
:attr:`MethodSpec.half_planes_batch`."""


@dataclass(frozen=True, init=False)
class MethodSpec(CapabilityFlags):
    """A registered method: its ``name`` (letters, digits and ``_``), a one-line
    ``summary`` (the CLI's and orca_node's help), its ``parameters`` dataclass, the
    ``factory`` making one robot's instance from a ``parameters`` value, its 3D version's
    ``factory_3d`` (:mod:`.base3d`: gives an :class:`~.base3d.AvoidanceMethod3D`; None:
    2D only) and its :class:`Capabilities`.

    ``half_planes_batch`` (optional): the method's half-planes against its neighbours
    can be built for many robots at once by this function of plain arrays, ``(params,
    velocity (N, 2), other_position_rel (N, K, 2), other_velocity (N, K, 2),
    combined_radius (N, K), inv_time_horizon (N,), inv_time_step) -> (lines (N, K, 4),
    kept)``: ``params`` the N robots' parameter values, in row order; ``lines`` the rows
    ``(point_x, point_y, direction_x, direction_y)`` (or a list of N lists of K
    :class:`~orca_ros.core.geometry.linprog.HalfPlane`); ``kept`` an (N, K) mask of the
    half-planes that count, or None for all. The world then gathers every robot's pairs
    and hands each robot its half-planes in ``RobotView.agent_half_planes``
    (:mod:`orca_ros.core.sim.batch`), which the method must then use in place of
    building its own; the numbers must be the ones it would build.

    The capability flags may also be given as keywords (``MethodSpec(name, summary,
    factory, keep_right=False)`` is ``capabilities=Capabilities(keep_right=False)``),
    and read as attributes (:class:`CapabilityFlags`).
    """

    name: str
    summary: str
    factory: Callable[[Any], AvoidanceMethod]
    parameters: Type = NoParameters
    factory_3d: Optional[Callable[[Any], Any]] = None
    capabilities: Capabilities = Capabilities()
    half_planes_batch: Optional[HalfPlanesBatch] = None

    def __init__(self, name: str, summary: str, factory: Callable[[Any], AvoidanceMethod],
                 parameters: Type = NoParameters, *,
                 factory_3d: Optional[Callable[[Any], Any]] = None,
                 capabilities: Optional[Capabilities] = None,
                 half_planes_batch: Optional[HalfPlanesBatch] = None, **flags: Any) -> None:
        unknown = sorted(set(flags) - set(CAPABILITY_FLAGS))
        if unknown:
            raise TypeError(f"MethodSpec got unknown keyword(s) {unknown}; the capability "
                            f"flags are {list(CAPABILITY_FLAGS)}")
        if flags and capabilities is not None:
            raise TypeError("give the capabilities or capability flags, not both")
        if capabilities is None:
            capabilities = Capabilities(**flags)
        for field, value in (("name", name), ("summary", summary), ("factory", factory),
                             ("parameters", parameters), ("factory_3d", factory_3d),
                             ("capabilities", capabilities),
                             ("half_planes_batch", half_planes_batch)):
            object.__setattr__(self, field, value)

    world_only = False
    """A method runs for one robot (in orca_node as in the world); a world backend
    (:mod:`orca_ros.core.sim.backends`) is the one kind of registered name that does not."""

    @property
    def supports_3d(self) -> bool:
        """The method has a 3D version (aerial robots)."""
        return self.factory_3d is not None

    def _arguments(self, parameters: Mapping[str, Any]):
        known = {f.name for f in dataclasses.fields(self.parameters)}
        unknown = sorted(set(parameters) - known)
        if unknown:
            raise ValueError(f"method {self.name!r} has no parameter(s) {unknown}; "
                             f"it has {sorted(known)}")
        return self.parameters(**parameters)

    def create_3d(self, **parameters: Any):
        """A new instance of the method's 3D version for one aerial robot."""
        if self.factory_3d is None:
            raise ValueError(f"method {self.name!r} has no 3D version")
        return self.factory_3d(self._arguments(parameters))

    def create(self, **parameters: Any) -> AvoidanceMethod:
        """A new instance for one robot, with these parameters over the defaults."""
        return self.factory(self._arguments(parameters))
