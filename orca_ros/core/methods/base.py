"""The interface every avoidance method implements, and the registry of methods by name.

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
unicycle tracking. A :class:`MethodSpec` says which of those a method runs
with: the exact reference methods (``orca_strict``, ``rvo2``) run with none.

A method that optimises under constraints (ORCA's linear program) takes the
view's ``hard_half_planes`` into its own optimisation; for every other method
the controller projects the method's velocity onto them afterwards
(:func:`~orca_ros.core.robot.safety_filter.filter_velocity`), so the safety filter
protects any method.

Registering a method: one module with a parameter dataclass, a class
implementing :class:`AvoidanceMethod`, and a call to :func:`register_method`.
The CLI's choices, the world, orca_node's ``method`` parameter, the fleet plan
and the ``method:=`` launch argument all read :func:`method_names`.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, NamedTuple, Optional, Sequence, Tuple, Type

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

    def sensing_range(self, radius: float) -> float:
        """How far (m) the method wants to see walls, for a robot of ``radius`` (beyond
        ORCA's own reach; 0: ORCA's is enough)."""
        return 0.0


@dataclass(frozen=True)
class MethodSpec:
    """A registered method: how to build it and which shared behaviours it runs with.

    ``strict``: the method reproduces a reference exactly, so none of the
    shared additions apply (no guidance, keep-right, stall escape, margin or
    safety filter). ``keep_right``, ``safety_filter``: whether the shared
    keep-right/stall escape and one-step safety filter run (``safety_filter``
    in the controller settings can still turn the filter off).
    ``takes_constraints``: the method honours ``RobotView.hard_half_planes``
    itself; otherwise the controller filters its output. ``avoids``: it avoids
    other robots at all (``direct`` does not); ``collision_free``: it promises
    no contact between robots that all run it (ORCA's reciprocal guarantee). ``world_only``: it
    needs the whole world at once (a reference library stepping all agents),
    so it cannot run in orca_node. ``holonomic_only``: no unicycle version.
    ``half_planes_batch`` (optional): the method's half-planes against its neighbours
    can be built for many robots at once by this function of plain arrays, ``(params,
    velocity (N, 2), other_position_rel (N, K, 2), other_velocity (N, K, 2),
    combined_radius (N, K), inv_time_horizon (N,), inv_time_step) -> (lines (N, K, 4),
    kept)``: ``params`` the N robots' parameter values, in row order; ``lines`` the rows
    ``(point_x, point_y, direction_x, direction_y)``; ``kept`` an (N, K) mask of the
    half-planes that count, or None for all. The world then gathers every robot's pairs
    and hands each robot its half-planes in ``RobotView.agent_half_planes``
    (:mod:`orca_ros.core.sim.batch`), which the method must then use in place of
    building its own; the numbers must be the ones it would build.
    ``cube_tracking``: how a toio cube follows this method by default:
    ``unicycle`` (ours: NH-ORCA style tracking) or ``move2target`` (the toio
    SDK's ``CubeHandle.Move2Target``).
    ``world_backend``: for a world-only method, ``world_backend(world)`` gives an
    object whose ``step(pref)`` moves every agent (``pref``: (N, 2) preferred
    velocities) and returns ``(positions, velocities)``, and ``remove(i)``
    takes an agent out.
    ``factory_3d``: the method's 3D version for aerial robots
    (:mod:`.base3d`: ``factory_3d(params)`` gives an
    :class:`~.base3d.AvoidanceMethod3D`), None: 2D only.
    ``world_backend_3d``: a world-only method's backend for 3D scenarios
    (``step(pref)`` with (N, 3) preferred velocities), None: none.
    """

    name: str
    summary: str
    factory: Callable[[Any], AvoidanceMethod]
    parameters: Type = NoParameters
    strict: bool = False
    keep_right: bool = True
    safety_filter: bool = True
    takes_constraints: bool = False
    avoids: bool = True
    collision_free: bool = False
    world_only: bool = False
    holonomic_only: bool = False
    half_planes_batch: Optional[Callable[..., Tuple[Any, Any]]] = None
    cube_tracking: str = "unicycle"
    world_backend: Optional[Callable[[Any], Any]] = None
    factory_3d: Optional[Callable[[Any], Any]] = None
    world_backend_3d: Optional[Callable[[Any], Any]] = None

    @property
    def supports_3d(self) -> bool:
        """The method runs in 3D (aerial robots): a 3D version, or a 3D world backend."""
        return self.factory_3d is not None or self.world_backend_3d is not None

    def create_3d(self, **parameters: Any):
        """A new instance of the method's 3D version for one aerial robot."""
        if self.factory_3d is None:
            raise ValueError(f"method {self.name!r} has no 3D version; in 3D: "
                             f"{', '.join(method_names(dimensions=3))}")
        known = {f.name for f in dataclasses.fields(self.parameters)}
        unknown = sorted(set(parameters) - known)
        if unknown:
            raise ValueError(f"method {self.name!r} has no parameter(s) {unknown}; "
                             f"it has {sorted(known)}")
        return self.factory_3d(self.parameters(**parameters))

    def create(self, **parameters: Any) -> AvoidanceMethod:
        """A new instance for one robot, with these parameters over the defaults."""
        known = {f.name for f in dataclasses.fields(self.parameters)}
        unknown = sorted(set(parameters) - known)
        if unknown:
            raise ValueError(f"method {self.name!r} has no parameter(s) {unknown}; "
                             f"it has {sorted(known)}")
        return self.factory(self.parameters(**parameters))


_REGISTRY: Dict[str, MethodSpec] = {}


TRACKING = ("unicycle", "move2target")


def register_method(spec: MethodSpec, replace: bool = False) -> MethodSpec:
    """Make ``spec.name`` available to the CLI, the world, orca_node and launch."""
    if spec.cube_tracking not in TRACKING:
        raise ValueError(f"cube_tracking must be one of {TRACKING}, got {spec.cube_tracking!r}")
    if not spec.name or not spec.name.replace("_", "").isalnum():
        raise ValueError(f"a method name is letters, digits and '_', got {spec.name!r}")
    if spec.name in _REGISTRY and not replace:
        raise ValueError(f"method {spec.name!r} is already registered")
    _REGISTRY[spec.name] = spec
    return spec


def unregister_method(name: str) -> None:
    _REGISTRY.pop(name, None)


def method_names(ros: bool = False, dimensions: Optional[int] = None) -> Tuple[str, ...]:
    """Registered method names, in registration order; ``ros``: only those that can run
    in orca_node (not world-only); ``dimensions=3``: only those with a 3D version."""
    return tuple(name for name, spec in _REGISTRY.items()
                 if not (ros and spec.world_only)
                 and not (dimensions == 3 and not spec.supports_3d))


def method_spec(name: str) -> MethodSpec:
    """The registered method of that name, or a ValueError listing the names there are."""
    spec = _REGISTRY.get(name)
    if spec is None:
        raise ValueError(f"method must be one of {method_names()}, got {name!r}")
    return spec


