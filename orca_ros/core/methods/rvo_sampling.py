"""``rvo_sampling``: the sampling reciprocal velocity obstacle of RVO_Py_MAS, with the
tether extension of Estevez et al. (ICAE 2025).

Reimplemented from the facts in ``doc/how_it_works/methods/linked_robots.md`` (RVO_Py_MAS,
MengGuo, commit e656e88, is GPL-2.0: none of its code is used here).

Each period the robot scores a fixed fan of candidate velocities: ``angle_count``
headings (``0, angle_step, 2 angle_step, ...``: 63 for 0.1 rad) times
``magnitude_count`` speeds from ``min_magnitude`` to ``min_magnitude + magnitude_span
|v_des|`` (5 speeds, 0.02 to 0.02 + 0.8 |v_des|), plus the desired velocity ``v_des``
itself (the view's preferred velocity), so full speed is only ever ``v_des``. Every
candidate is capped at the robot's own ``max_speed`` (the seed indexed its speed
limits by coordinate instead of by robot: that bug is not copied).

A candidate ``v`` is inside a cone when the angle of ``pA + v - apex`` lies within the
cone's half-angle of its axis:

- another robot B (combined radius ``R = rA + rB``, both already inflated by the
  planning margin, plus ``2 radius_padding``): apex ``pA + (vA + vB)/2`` (the RVO; a
  robot that does not reciprocate gets the plain VO apex ``pA + vB``), axis the
  bearing to B, half-angle ``asin(R / dist)`` with ``dist = |pB - pA| +
  distance_epsilon`` clamped to at least ``R``;
- a partner of this robot's link group (``RobotView.tethers``): the shared-centre
  apex ``(pA + pB)/2 + (vA + vB)/2``, same axis and half-angle. The partner is taken
  from the neighbour list when its key is there (its inflated radius), else from the
  tether view (its true radius plus this robot's own planning margin);
- another group's link (``RobotView.links``) and a wall edge
  (``RobotView.obstacle_edges``): a segment obstacle with apex at the segment's
  point nearest pA (a *position*, as in the seed), axis the bearing to that point,
  half-angle ``asin(R / max(d, R))`` with ``R`` this robot's radius (plus
  ``radius_padding``) and ``d`` the distance to the point. With ``link_obstacles =
  "crossing"`` a link (not a wall) counts only when the segment ``pA -> pA + v_des``
  crosses it (the seed's second variant). Moving as slowly towards the line as
  this allows (``v . n < d`` per second), a robot never crosses a link or wall edge
  within a period of under a second.

If some candidates are outside every cone the nearest to ``v_des`` wins. Otherwise
each candidate costs ``collision_weight / tc + |v - v_des|`` (the code's ``v_des``;
the seed's text says the current velocity), with ``tc`` the smallest, over the cones
containing ``v``, of ``dist_tg / |pA + v - apex|`` plus ``distance_epsilon``, where
``dist_tg = d cos(phi) - sqrt(r^2 - d^2 sin^2 phi)`` is how far along the candidate's
direction the cone's disc begins (``r`` raised to ``|d sin phi|`` when smaller,
``phi`` the angle off the cone's axis, properly wrapped here; ``d`` at least ``r``
so ``tc`` is never negative).

``radius_padding`` (default 0): the seed grows every radius by 0.1 m, sized for its
0.2 m robots. Our view radii already include the planning margin (a share of each
radius), and a fixed 0.1 m would quadruple a 23 mm toio cube, so no padding is added
by default; ``radius_padding=0.1`` reproduces the seed.

The method promises no collision freedom; it runs behind the shared one-step safety
filter (which protects against robots and walls, not links) and keep-right.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..geometry.types import Vector2
from ..geometry.vectors import closest_point_on_segment
from .base import (AvoidanceMethod, Capabilities, LinkView, MethodOutput, MethodSpec, NeighborView,
                   RobotView, TetherView, parameter)
from .registry import register_method

LINK_MODES = ("always", "crossing")


# --- geometry shared with hrvo -----------------------------------------------------------------

def segments_cross(p: Vector2, q: Vector2, a: Vector2, b: Vector2) -> bool:
    """Whether segments p-q and a-b meet (touching counts)."""
    def orient(u: Vector2, v: Vector2, w: Vector2) -> float:
        return (v[0] - u[0]) * (w[1] - u[1]) - (v[1] - u[1]) * (w[0] - u[0])

    def on(u: Vector2, v: Vector2, w: Vector2) -> bool:
        return min(u[0], v[0]) <= w[0] <= max(u[0], v[0]) and \
            min(u[1], v[1]) <= w[1] <= max(u[1], v[1])

    d1, d2 = orient(a, b, p), orient(a, b, q)
    d3, d4 = orient(p, q, a), orient(p, q, b)
    if ((d1 > 0.0 > d2) or (d1 < 0.0 < d2)) and ((d3 > 0.0 > d4) or (d3 < 0.0 < d4)):
        return True
    return (d1 == 0.0 and on(a, b, p)) or (d2 == 0.0 and on(a, b, q)) or \
        (d3 == 0.0 and on(p, q, a)) or (d4 == 0.0 and on(p, q, b))


def wall_segments(view: RobotView) -> List[Tuple[Vector2, Vector2]]:
    """The view's wall edges as segments, each once (a two-vertex obstacle lists its
    segment in both directions)."""
    seen = set()
    segments = []
    for edge in view.obstacle_edges:
        if edge.next is None or edge.point == edge.next.point:
            continue
        key = tuple(sorted((tuple(edge.point), tuple(edge.next.point))))
        if key in seen:
            continue
        seen.add(key)
        segments.append((edge.point, edge.next.point))
    return segments


def tether_partners(view: RobotView) -> List[Tuple[TetherView, Optional[NeighborView]]]:
    """Each partner of the robot's link group, with its neighbour-list entry if it has one."""
    by_key = {n.key: n for n in view.neighbors if n.key}
    return [(t, by_key.get(t.key)) for t in view.tethers]


def link_counts(mode: str, position: Vector2, pref: Vector2, link: LinkView) -> bool:
    """Whether a link is an obstacle this period: always, or (``crossing``) only when the
    segment ``pA -> pA + v_des`` crosses it."""
    if mode == "always":
        return True
    return segments_cross(position, (position[0] + pref[0], position[1] + pref[1]),
                          link.a, link.b)


# --- the method --------------------------------------------------------------------------------

@dataclass(frozen=True)
class RvoSamplingParameters:
    """The sampling RVO's parameters (defaults: RVO_Py_MAS's values)."""

    angle_step: float = parameter(0.1, "rad between candidate headings")
    angle_count: int = parameter(63, "candidate headings 0, angle_step, ... (63 x 0.1 rad: "
                                     "0 to 6.2 rad)")
    magnitude_count: int = parameter(5, "candidate speeds per heading")
    min_magnitude: float = parameter(0.02, "the slowest candidate speed (m/s)")
    magnitude_span: float = parameter(0.8, "the fastest candidate speed is min_magnitude + "
                                           "this x the preferred speed")
    collision_weight: float = parameter(0.2, "the penalty weight over the time to collision, "
                                             "when no candidate is admissible")
    radius_padding: float = parameter(0.0, "added to every radius (m)")
    distance_epsilon: float = parameter(0.001, "added to distances (m) and to times to "
                                               "collision (s)")
    link_obstacles: str = parameter("always", "when another group's link is an obstacle: "
                                              "always, or crossing (only where its segment "
                                              "crosses the path)")

    def __post_init__(self) -> None:
        for name in ("angle_step", "collision_weight"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0.0):
                raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
        for name in ("min_magnitude", "magnitude_span", "radius_padding", "distance_epsilon"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0.0):
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        for name in ("angle_count", "magnitude_count"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        if self.link_obstacles not in LINK_MODES:
            raise ValueError(f"link_obstacles must be one of {LINK_MODES}, "
                             f"got {self.link_obstacles!r}")


PARAMETER_NAMES = tuple(f.name for f in fields(RvoSamplingParameters))


@dataclass
class Cones:
    """The cones one robot avoids this period, as arrays (K cones)."""

    apex: np.ndarray  # (K, 2) positions: a candidate v is tested by pA + v - apex
    axis: np.ndarray  # (K,) bearing of the cone's axis
    half: np.ndarray  # (K,) half-angle
    d: np.ndarray  # (K,) distance to the obstacle's centre (or nearest point)
    r: np.ndarray  # (K,) its radius (combined)

    @classmethod
    def build(cls, rows: Sequence[Tuple[float, float, float, float, float, float]]) -> "Cones":
        a = np.array(rows, dtype=float).reshape(-1, 6)
        return cls(a[:, 0:2], a[:, 2], a[:, 3], a[:, 4], a[:, 5])


def candidate_velocities(v_des: Vector2, max_speed: float,
                         p: RvoSamplingParameters = RvoSamplingParameters()) -> np.ndarray:
    """The candidate fan: ``angle_count x magnitude_count`` velocities, heading-major,
    then ``v_des`` itself (all capped at ``max_speed``)."""
    norm = math.hypot(*v_des)
    angles = np.arange(p.angle_count) * p.angle_step
    if p.magnitude_count == 1:
        magnitudes = np.array([p.min_magnitude])
    else:
        magnitudes = p.min_magnitude + np.arange(p.magnitude_count) \
            * (p.magnitude_span * norm / (p.magnitude_count - 1))
    magnitudes = np.minimum(magnitudes, max_speed)
    fan = np.stack([np.outer(np.cos(angles), magnitudes).ravel(),
                    np.outer(np.sin(angles), magnitudes).ravel()], axis=1)
    last = np.array([v_des], dtype=float)
    if norm > max_speed:
        last *= max_speed / norm
    return np.vstack([fan, last])


def build_cones(view: RobotView, p: RvoSamplingParameters) -> Cones:
    """Every cone of the period: robots, link partners, other groups' links, walls."""
    pa = view.position
    va = view.velocity
    eps = p.distance_epsilon
    own = view.radius + p.radius_padding
    rows = []
    partners = tether_partners(view)
    partner_keys = {t.key for t, _ in partners}

    def agent_cone(pb: Vector2, rb: float, apex: Vector2) -> None:
        combined = own + rb + p.radius_padding
        dx, dy = pb[0] - pa[0], pb[1] - pa[1]
        dist = max(math.hypot(dx, dy) + eps, combined)
        half = math.asin(min(1.0, combined / dist)) if dist > 0.0 else math.pi / 2.0
        rows.append((apex[0], apex[1], math.atan2(dy, dx), half, dist, combined))

    for n in view.neighbors:
        if n.key and n.key in partner_keys:
            continue
        if n.reciprocates:
            apex = (pa[0] + 0.5 * (va[0] + n.velocity[0]), pa[1] + 0.5 * (va[1] + n.velocity[1]))
        else:
            apex = (pa[0] + n.velocity[0], pa[1] + n.velocity[1])
        agent_cone(n.position, n.radius, apex)
    margin = max(0.0, view.radius - view.true_radius)
    for tether, seen in partners:
        pb, vb = tether.position, tether.velocity
        rb = seen.radius if seen is not None else tether.radius + margin
        apex = (0.5 * (pa[0] + pb[0]) + 0.5 * (va[0] + vb[0]),
                0.5 * (pa[1] + pb[1]) + 0.5 * (va[1] + vb[1]))
        agent_cone(pb, rb, apex)

    def segment_cone(a: Vector2, b: Vector2) -> None:
        c, _ = closest_point_on_segment(pa, a, b)
        dx, dy = c[0] - pa[0], c[1] - pa[1]
        d = math.hypot(dx, dy) + eps
        rows.append((c[0], c[1], math.atan2(dy, dx), math.asin(own / max(d, own)), d, own))

    for link in view.links:
        if link_counts(p.link_obstacles, pa, view.pref_velocity, link):
            segment_cone(link.a, link.b)
    for a, b in wall_segments(view):
        segment_cone(a, b)
    return Cones.build(rows)


def choose(candidates: np.ndarray, v_des: Vector2, position: Vector2, cones: Cones,
           p: RvoSamplingParameters) -> Tuple[int, bool]:
    """The index of the chosen candidate, and whether one outside every cone existed."""
    miss = np.hypot(candidates[:, 0] - v_des[0], candidates[:, 1] - v_des[1])
    if len(cones.axis) == 0:
        return int(np.argmin(miss)), True
    w = np.asarray(position, dtype=float)[None, None, :] + candidates[:, None, :] \
        - cones.apex[None, :, :]  # (M, K, 2)
    length = np.hypot(w[..., 0], w[..., 1])
    off = np.abs((np.arctan2(w[..., 1], w[..., 0]) - cones.axis[None, :] + math.pi)
                 % (2.0 * math.pi) - math.pi)
    inside = (length > 0.0) & (off < cones.half[None, :])
    admissible = ~inside.any(axis=1)
    if admissible.any():
        return int(np.flatnonzero(admissible)[np.argmin(miss[admissible])]), True
    d = np.maximum(cones.d, cones.r)[None, :]
    r = cones.r[None, :]
    across = np.abs(d * np.sin(off))
    r = np.maximum(r, across)
    with np.errstate(divide="ignore", invalid="ignore"):
        to_disc = np.abs(d * np.cos(off)) - np.abs(r * np.cos(np.arcsin(
            np.where(r > 0.0, across / np.where(r > 0.0, r, 1.0), 0.0))))
        tc = np.where(inside, np.maximum(to_disc, 0.0) / np.where(length > 0.0, length, 1.0),
                      np.inf)
    tc = tc.min(axis=1) + p.distance_epsilon
    cost = p.collision_weight / tc + miss
    return int(np.argmin(cost)), False


class RvoSampling(AvoidanceMethod):
    """The sampling RVO: the admissible candidate nearest the desired velocity, else the
    one with the least ``weight/tc + |v - v_des|``."""

    params: RvoSamplingParameters

    def __init__(self, params: Optional[RvoSamplingParameters] = None) -> None:
        super().__init__(params or RvoSamplingParameters())

    def compute_velocity(self, view: RobotView) -> MethodOutput:
        p = self.params
        v_des = view.pref_velocity
        candidates = candidate_velocities(v_des, view.max_speed, p)
        cones = build_cones(view, p)
        index, admissible = choose(candidates, v_des, view.position, cones, p)
        chosen = candidates[index]
        return MethodOutput((float(chosen[0]), float(chosen[1])), used_fallback=not admissible,
                            report={"cones": int(len(cones.axis)), "admissible": admissible})


RVO_SAMPLING = MethodSpec(
    "rvo_sampling", "sampling reciprocal velocity obstacles (RVO_Py_MAS), with linked-robot "
    "apexes and link obstacles (Estevez et al. 2025)", RvoSampling, RvoSamplingParameters,
    capabilities=Capabilities(keep_right=True, safety_filter=True, collision_free=False))


def register() -> None:
    """Register ``rvo_sampling`` (the entry point ``rvo_sampling``)."""
    register_method(RVO_SAMPLING)
