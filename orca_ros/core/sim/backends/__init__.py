"""World backends: a library that steps every agent of the world at once.

A world backend is not an avoidance method: it cannot run for one robot (so not in
orca_node), and in the world it replaces the controllers' avoidance and motion, while
the controllers still give each agent its preferred velocity, as the reference
libraries' own examples do. It is selected by name where the world runs, like a
method (``orca-ros bench --method rvo2``,
:class:`~orca_ros.core.sim.world.WorldOptions`): its registry is beside the methods'
(:mod:`orca_ros.core.methods.registry`; :func:`~orca_ros.core.methods.registry.method_names`
lists it after them, not with ``ros=True``; ``world_spec`` gives its spec,
``method_spec`` refuses it).

Built in: ``rvo2`` (:mod:`.rvo2`: the RVO2 library through ``pyrvo``, RVO2-3D through
``rvo23d`` in 3D; optional installs). Another package adds one through the entry-point
group ``orca_ros.world_backends`` (:mod:`orca_ros.core.methods.plugins`).

A backend object, made by :attr:`WorldBackendSpec.backend` (2D) or
:attr:`WorldBackendSpec.backend_3d` (3D) from the world, has ``step(pref)``: with
``pref`` the (N, 2) or (N, 3) preferred velocities (zero for agents no longer active),
it moves every agent one time step and returns ``(positions, velocities)``; and
``remove(i)``: agent ``i`` has left the world (``on_goal: remove``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Optional, Protocol, Tuple, Type

from ...methods.base import Capabilities, CapabilityFlags, NoParameters
from ...methods.registry import add_entry, world_spec


class WorldBackend(Protocol):
    """What :attr:`WorldBackendSpec.backend` makes (module docstring)."""

    def step(self, pref) -> Tuple[Any, Any]:
        ...

    def remove(self, i: int) -> None:
        ...


REFERENCE_CAPABILITIES = Capabilities(strict=True, keep_right=False, safety_filter=False,
                                      holonomic_only=True)
"""A reference library's: its agents get preferred velocities as in its examples (no
keep-right, guidance or margin), and move holonomically."""


@dataclass(frozen=True)
class WorldBackendSpec(CapabilityFlags):
    """A registered world backend: its ``name`` and ``summary`` (as a method's), what
    makes it for a 2D world (``backend(world)``) and for a 3D one (``backend_3d(world)``,
    None: 2D only), and the :class:`~orca_ros.core.methods.base.Capabilities` the world's
    controllers read for it (``strict``: their preferred velocities without guidance or
    keep-right; ``holonomic_only``: the world refuses other kinematics)."""

    name: str
    summary: str
    backend: Callable[[Any], WorldBackend]
    backend_3d: Optional[Callable[[Any], WorldBackend]] = None
    capabilities: Capabilities = REFERENCE_CAPABILITIES

    parameters: ClassVar[Type] = NoParameters
    factory_3d: ClassVar[None] = None
    world_only: ClassVar[bool] = True

    @property
    def supports_3d(self) -> bool:
        return self.backend_3d is not None

    def create(self, **parameters: Any):
        """A backend cannot run for one robot: a ValueError saying so."""
        raise ValueError(f"{self.name} steps the whole world at once (a world backend): it "
                         "runs only in `orca-ros bench`, not for one robot")

    create_3d = create

    def start(self, world, dimensions: int = 2) -> WorldBackend:
        """The backend for this world (``dimensions``: 2 or 3)."""
        if dimensions == 3:
            if self.backend_3d is None:
                raise ValueError(f"world backend {self.name!r} has no 3D version")
            return self.backend_3d(world)
        return self.backend(world)


def register_world_backend(spec: WorldBackendSpec, replace: bool = False) -> WorldBackendSpec:
    """Make ``spec.name`` a choice of the world's ``method`` (not of orca_node's)."""
    if not isinstance(spec, WorldBackendSpec):
        raise TypeError(f"register_world_backend takes a WorldBackendSpec, "
                        f"got {type(spec).__name__}")
    if not isinstance(spec.capabilities, Capabilities):
        raise TypeError(f"world backend {spec.name!r}: capabilities must be a Capabilities")
    return add_entry(spec, replace)


def start_world_backend(method: str, world, dimensions: int = 2) -> Optional[WorldBackend]:
    """The backend that steps ``world`` when its ``method`` names a world backend; None
    for a method (the robots' controllers then move the world)."""
    spec = world_spec(method)
    if not spec.world_only:
        return None
    return spec.start(world, dimensions)


__all__ = ["REFERENCE_CAPABILITIES", "WorldBackend", "WorldBackendSpec", "register_world_backend",
           "start_world_backend"]
