"""The interface of a method's 3D version, for aerial robots (``dimensions: 3``).

The same question as :mod:`.base` asks, in three dimensions: given what one
aerial robot sees (:class:`RobotView3D`), which velocity ``(vx, vy, vz)``
should it fly (:class:`MethodOutput3D`)? Aerial robots are holonomic spheres;
there are no walls, links or unicycles in 3D. A registered method offers a 3D
version through its :class:`~.base.MethodSpec`'s ``factory_3d`` (and, for a
world-only reference library, ``world_backend_3d``); the world, orca_node's
3D mode and the CLI read :func:`~.registry.method_names` with ``dimensions=3``.

What is not the method stays in :class:`~orca_ros.core.robot.aerial.AerialController`,
as in 2D: the preferred velocity, the planning margin (the spheres in the
view are already inflated by it) and the one-step safety half-spaces, which a
method that optimises under constraints takes into its own program
(``takes_constraints``) and which otherwise project its velocity afterwards
(:func:`~orca_ros.core.robot.safety_filter.filter_velocity_3d`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Mapping, NamedTuple, Optional, Sequence, Tuple

from ..geometry.linprog3d import HalfSpace
from ..geometry.types import Vector3


class NeighborView3D(NamedTuple):
    """Another aerial robot as a method sees it: a sphere already inflated by the
    planning margin and any uncertainty about where it is, moving at ``velocity``.
    ``reciprocates``: False for a robot that does not avoid us."""

    position: Vector3
    velocity: Vector3
    radius: float
    key: str = ""
    reciprocates: bool = True


class RobotView3D(NamedTuple):
    """One aerial robot's view for one control period (SI units, world frame, z up).

    ``radius`` is its planning radius (true radius and margin), ``true_radius``
    its body. ``neighbors`` are nearest first (at most ``max_neighbors``,
    strictly inside ``neighbor_dist``). ``hard_half_spaces``: constraints the
    velocity must meet (the safety filter's). ``goal``: the end of its path;
    ``target``: the point the preferred velocity heads for.
    """

    position: Vector3
    velocity: Vector3
    radius: float
    true_radius: float
    max_speed: float
    pref_velocity: Vector3
    time_step: float
    neighbors: Sequence[NeighborView3D] = ()
    hard_half_spaces: Sequence[HalfSpace] = ()
    goal: Optional[Vector3] = None
    key: str = ""
    target: Optional[Vector3] = None


class MethodOutput3D(NamedTuple):
    """The velocity to fly, and what the method wants reported: ``half_spaces`` (its
    constraints), ``used_fallback`` (it relaxed some), ``neighbor_half_spaces`` (for a
    reciprocal method, the one each neighbour is expected to keep to, in order)."""

    velocity: Vector3
    half_spaces: Tuple[HalfSpace, ...] = ()
    used_fallback: bool = False
    neighbor_half_spaces: Tuple[HalfSpace, ...] = ()
    report: Optional[Mapping[str, Any]] = None


class AvoidanceMethod3D(ABC):
    """One aerial robot's avoidance method. One instance per robot: it may keep state."""

    def __init__(self, params: Any = None) -> None:
        self.params = params

    @abstractmethod
    def compute_velocity(self, view: RobotView3D) -> MethodOutput3D:
        """The velocity to fly this period."""


