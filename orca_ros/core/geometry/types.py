"""Small state types of the ORCA core, in SI units.

Positions are metres in the world frame, velocities metres per second, times
seconds. Vectors are plain ``(x, y)`` tuples of floats (``(x, y, z)`` for aerial
robots): one small 2D or 3D problem is solved faster with Python floats than
with numpy arrays, and tuples are
immutable, so a state can be shared between agents of one step safely.

Every constructor validates its fields and raises ``ValueError`` naming the
field, so that bad input (a NaN pose from a driver, a negative radius from a
parameter file) is reported where it enters and never reaches the solver.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence, Tuple

Vector2 = Tuple[float, float]
Vector3 = Tuple[float, float, float]

MIN_EDGE_LENGTH = 1e-9
"""Obstacle edges shorter than this (m) count as zero-length: they have no direction."""


def as_vector2(value: Iterable[float], field: str) -> Vector2:
    """Return ``value`` as a finite ``(x, y)`` float tuple, or raise ``ValueError``."""
    try:
        x, y = value
        x = float(x)
        y = float(y)
    except (TypeError, ValueError):
        raise ValueError(f"{field} must be a pair of numbers, got {value!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ValueError(f"{field} must be finite, got ({x}, {y})")
    return (x, y)


def as_vector3(value: Iterable[float], field: str) -> Vector3:
    """Return ``value`` as a finite ``(x, y, z)`` float tuple, or raise ``ValueError``."""
    try:
        x, y, z = value
        x = float(x)
        y = float(y)
        z = float(z)
    except (TypeError, ValueError):
        raise ValueError(f"{field} must be three numbers (x, y, z), got {value!r}") from None
    if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
        raise ValueError(f"{field} must be finite, got ({x}, {y}, {z})")
    return (x, y, z)


def as_finite(value: float, field: str, *, minimum: float | None = None,
              strictly_positive: bool = False) -> float:
    """Return ``value`` as a finite float that respects the bound, or raise ``ValueError``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{field} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{field} must be finite, got {number}")
    if strictly_positive and number <= 0.0:
        raise ValueError(f"{field} must be positive, got {number}")
    if minimum is not None and number < minimum:
        raise ValueError(f"{field} must be >= {minimum}, got {number}")
    return number


def _check_agent_scalars(agent) -> None:
    """Check and normalise the scalars every ORCA agent has (2D or 3D), naming the field:
    ``radius``, ``max_speed``, ``time_horizon``, ``neighbor_dist``, ``max_neighbors``."""
    set_ = object.__setattr__
    set_(agent, "radius", as_finite(agent.radius, "radius", minimum=0.0))
    set_(agent, "max_speed", as_finite(agent.max_speed, "max_speed", minimum=0.0))
    set_(agent, "time_horizon",
         as_finite(agent.time_horizon, "time_horizon", strictly_positive=True))
    set_(agent, "neighbor_dist", as_finite(agent.neighbor_dist, "neighbor_dist", minimum=0.0))
    if isinstance(agent.max_neighbors, bool) or int(agent.max_neighbors) != agent.max_neighbors \
            or agent.max_neighbors < 0:
        raise ValueError(f"max_neighbors must be a non-negative integer, "
                         f"got {agent.max_neighbors!r}")
    set_(agent, "max_neighbors", int(agent.max_neighbors))


@dataclass(frozen=True)
class AgentState:
    """The agent whose velocity ORCA computes (RVO2's ``Agent``).

    ``max_speed`` may be zero (the agent then stays put); ``time_horizon`` and
    ``time_horizon_obst`` must be positive because ORCA divides by them.
    """

    position: Vector2
    velocity: Vector2
    radius: float
    max_speed: float
    pref_velocity: Vector2 = (0.0, 0.0)
    time_horizon: float = 2.0
    time_horizon_obst: float = 2.0
    neighbor_dist: float = 10.0
    max_neighbors: int = 10

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "position", as_vector2(self.position, "position"))
        set_(self, "velocity", as_vector2(self.velocity, "velocity"))
        set_(self, "pref_velocity", as_vector2(self.pref_velocity, "pref_velocity"))
        _check_agent_scalars(self)
        set_(self, "time_horizon_obst",
             as_finite(self.time_horizon_obst, "time_horizon_obst", strictly_positive=True))


@dataclass(frozen=True)
class NeighborState:
    """Another agent as the subject sees it: where it is, how it moves, how big it is."""

    position: Vector2
    velocity: Vector2
    radius: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "position", as_vector2(self.position, "neighbor position"))
        object.__setattr__(self, "velocity", as_vector2(self.velocity, "neighbor velocity"))
        object.__setattr__(self, "radius", as_finite(self.radius, "neighbor radius", minimum=0.0))


@dataclass(frozen=True)
class AgentState3D:
    """The agent whose velocity 3D ORCA computes (RVO2-3D's ``Agent``): an aerial robot,
    a sphere of ``radius``. RVO2-3D has no obstacles, hence no ``time_horizon_obst``."""

    position: Vector3
    velocity: Vector3
    radius: float
    max_speed: float
    pref_velocity: Vector3 = (0.0, 0.0, 0.0)
    time_horizon: float = 2.0
    neighbor_dist: float = 10.0
    max_neighbors: int = 10

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "position", as_vector3(self.position, "position"))
        set_(self, "velocity", as_vector3(self.velocity, "velocity"))
        set_(self, "pref_velocity", as_vector3(self.pref_velocity, "pref_velocity"))
        _check_agent_scalars(self)


@dataclass(frozen=True)
class NeighborState3D:
    """Another aerial robot as the subject sees it: a sphere at ``position`` moving at
    ``velocity``."""

    position: Vector3
    velocity: Vector3
    radius: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "position", as_vector3(self.position, "neighbor position"))
        object.__setattr__(self, "velocity", as_vector3(self.velocity, "neighbor velocity"))
        object.__setattr__(self, "radius", as_finite(self.radius, "neighbor radius", minimum=0.0))


@dataclass(frozen=True)
class Segment:
    """A line segment obstacle from ``a`` to ``b``; both sides block.

    RVO2 treats a two-vertex obstacle as two directed edges (a->b and b->a),
    each with convex end vertices; :func:`orca_ros.core.geometry.obstacles.build_obstacle_edges`
    does the same.
    """

    a: Vector2
    b: Vector2

    def __post_init__(self) -> None:
        object.__setattr__(self, "a", as_vector2(self.a, "segment a"))
        object.__setattr__(self, "b", as_vector2(self.b, "segment b"))
        length = math.hypot(self.b[0] - self.a[0], self.b[1] - self.a[1])
        if not length >= MIN_EDGE_LENGTH:
            raise ValueError(f"segment has zero length: a={self.a}, b={self.b} "
                             f"(|b - a| = {length:.3g} m < {MIN_EDGE_LENGTH} m)")


@dataclass(frozen=True)
class Polygon:
    """A closed polygon obstacle, vertices counter-clockwise (RVO2's convention)."""

    vertices: Tuple[Vector2, ...]

    def __post_init__(self) -> None:
        vertices = tuple(as_vector2(v, f"polygon vertex {i}") for i, v in enumerate(self.vertices))
        if len(vertices) < 3:
            raise ValueError(f"polygon needs at least 3 vertices, got {len(vertices)}")
        if signed_area(vertices) <= 0.0:
            vertices = vertices[::-1]
            if signed_area(vertices) <= 0.0:
                raise ValueError("polygon has zero area")
        for i, (x0, y0) in enumerate(vertices):
            x1, y1 = vertices[(i + 1) % len(vertices)]
            if not math.hypot(x1 - x0, y1 - y0) >= MIN_EDGE_LENGTH:
                raise ValueError(f"polygon has a zero-length edge at vertex {i}: ({x0}, {y0})")
        object.__setattr__(self, "vertices", vertices)


def signed_area(vertices: Sequence[Vector2]) -> float:
    """Shoelace area: positive for counter-clockwise vertex order."""
    total = 0.0
    n = len(vertices)
    for i in range(n):
        x0, y0 = vertices[i]
        x1, y1 = vertices[(i + 1) % n]
        total += x0 * y1 - x1 * y0
    return 0.5 * total
