"""``hrvo``: hybrid reciprocal velocity obstacles (Snape, van den Berg, Guy, Manocha,
"The hybrid reciprocal velocity obstacle", IEEE T-RO 27(4), 2011).

Our own code with the semantics of snape/HRVO at commit 1a13e4d (Apache-2.0), as
summarised in ``doc/how_it_works/methods/linked_robots.md``. Velocities only; no time horizon
(the cones are infinite, as in the reference).

Another robot B (combined radius ``R``, both discs already inflated by the planning
margin; ``p_rel = pB - pA``, the pre-2022 sign: commit c98cebb flipped it and with it
every cone) gives a cone with legs at ``bearing +- asin(R/|p_rel|)``. Its apex is where
one leg of the reciprocal VO (apex ``(vA + vB)/2``) meets the opposite leg of the
plain VO (apex ``vB``): with ``det(p_rel, prefA - prefB) > 0`` the right VO leg and the
left RVO leg, else the mirror image, so the robot is steered to pass on the side its
preferred relative velocity already leans to; then moved back along ``p_rel`` by
``uncertainty_offset |p_rel| / R``. Robots that overlap get a half-plane with apex
``(vA + vB)/2 - (u + (R - |p_rel|) / (2 dt)) n`` (``n`` the unit ``p_rel``).

Where the view is silent we choose:

- *B's preferred velocity* is not observed: its current velocity stands in for it in
  the side choice (for two robots starting at rest head-on both choices agree).
- A robot that does not reciprocate (``NeighborView.reciprocates`` false) gets the
  plain VO (apex ``vB``; overlapping: the whole push ``(R - d)/dt``).
- *Partners* of the robot's link group (``RobotView.tethers``) are ordinary
  reciprocal HRVO neighbours, taken from the neighbour list when there (inflated
  radius), else from the tether view (true radius plus this robot's planning margin).
  The shared-centre apex of the sampling method is a position, which has no place in
  HRVO's velocity-space cones.
- *Another group's link* (``RobotView.links``) and a *wall edge* are segment
  obstacles: the cone seen from pA that holds the segment grown by this robot's
  radius (bounded by the tangents to the end discs), apex at the velocity of the
  segment's point nearest pA (a wall: zero; a link: its ends' velocities interpolated
  there). The ends are robots avoiding us as a robot, not their link, so the cone is
  a plain VO. Closer than the radius: a half-plane pushing out by ``(R - d)/dt``.
  With ``link_obstacles = "crossing"`` a link counts only when ``pA -> pA + v_pref``
  crosses it.
- Cones are ordered nearest first (by the gap ``distance - R``) before the search,
  as the reference's neighbour set is.

The new velocity is the candidate nearest the preferred velocity outside every cone
(each candidate is exempt from the cones whose legs made it): the preferred velocity
clipped to ``max_speed``, its projections onto every leg (if within the speed), the
legs' intersections with the speed circle and with each other (if within the speed).
If none is outside every cone, the reference's fallback: the candidate whose first
violated cone, in the nearest-first order, comes latest (it keeps clear of the most
nearest cones), ties to the nearest to the preferred velocity; ``used_fallback`` is
then set.

No collision freedom is promised; the method runs behind the shared one-step safety
filter and keep-right.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from ..geometry.types import Vector2
from ..geometry.vectors import closest_point_on_segment
from .base import AvoidanceMethod, Capabilities, MethodOutput, MethodSpec, RobotView, parameter
from .registry import register_method
from .rvo_sampling import LINK_MODES, link_counts, tether_partners, wall_segments

NONE = -1
"""No cone: the index of a candidate's missing second (or first) cone."""


@dataclass(frozen=True)
class HrvoParameters:
    """HRVO's parameters."""

    uncertainty_offset: float = parameter(0.0, "widens every velocity obstacle by this "
                                                "speed (m/s), the reference's "
                                                "uncertaintyOffset")
    link_obstacles: str = parameter("always", "when another group's link is an obstacle: "
                                              "always, or crossing (only where its segment "
                                              "crosses the path)")

    def __post_init__(self) -> None:
        u = self.uncertainty_offset
        if not (isinstance(u, (int, float)) and math.isfinite(u) and u >= 0.0):
            raise ValueError(f"uncertainty_offset must be a finite number >= 0, got {u!r}")
        if self.link_obstacles not in LINK_MODES:
            raise ValueError(f"link_obstacles must be one of {LINK_MODES}, "
                             f"got {self.link_obstacles!r}")


@dataclass(frozen=True)
class VelocityObstacle:
    """A cone (or half-plane) in velocity space: ``v`` is inside when it is left of the
    right leg ``side1`` and right of the left leg ``side2``, both from ``apex``."""

    apex: Vector2
    side1: Vector2  # right leg (unit)
    side2: Vector2  # left leg (unit)
    gap: float = 0.0  # distance - R, for the nearest-first order

    def contains(self, v: Vector2) -> bool:
        wx, wy = v[0] - self.apex[0], v[1] - self.apex[1]
        return _det(self.side2, (wx, wy)) < 0.0 and _det(self.side1, (wx, wy)) > 0.0


def _det(a: Vector2, b: Vector2) -> float:
    return a[0] * b[1] - a[1] * b[0]


def _dir(angle: float) -> Vector2:
    return (math.cos(angle), math.sin(angle))


def _half_plane(apex: Vector2, n: Vector2, gap: float) -> VelocityObstacle:
    """Inside: moving along ``n`` relative to ``apex`` (the reference's overlap case)."""
    side1 = (n[1], -n[0])
    return VelocityObstacle(apex, side1, (-side1[0], -side1[1]), gap)


def agent_velocity_obstacle(pa: Vector2, va: Vector2, pref_a: Vector2, pb: Vector2,
                            vb: Vector2, pref_b: Vector2, combined: float, dt: float,
                            uncertainty: float = 0.0, reciprocates: bool = True,
                            flip_side: bool = False, tie: float = 1.0) -> VelocityObstacle:
    """B's HRVO for A (module docstring). ``flip_side``: choose the other side (what the
    post-2022 sign convention does to the side choice; for tests). ``tie``: the sign of
    the fallback direction to B when the centres coincide."""
    dx, dy = pb[0] - pa[0], pb[1] - pa[1]
    dist = math.hypot(dx, dy)
    n = (dx / dist, dy / dist) if dist > 0.0 else (tie, 0.0)
    if dist > combined:
        angle = math.atan2(dy, dx)
        opening = math.asin(combined / dist)
        side1, side2 = _dir(angle - opening), _dir(angle + opening)
        sin2 = 2.0 * math.sin(opening) * math.cos(opening)
        if sin2 > 1e-9:
            back = uncertainty * dist / combined
            if not reciprocates:
                apex = vb
            else:
                rel = (va[0] - vb[0], va[1] - vb[1])
                left = _det((dx, dy), (pref_a[0] - pref_b[0], pref_a[1] - pref_b[1])) > 0.0
                if left != flip_side:
                    s = 0.5 * _det(rel, side2) / sin2
                    apex = (vb[0] + s * side1[0], vb[1] + s * side1[1])
                else:
                    s = 0.5 * _det(rel, side1) / sin2
                    apex = (vb[0] + s * side2[0], vb[1] + s * side2[1])
            return VelocityObstacle((apex[0] - back * n[0], apex[1] - back * n[1]),
                                    side1, side2, dist - combined)
    if reciprocates:
        push = uncertainty + 0.5 * (combined - dist) / dt
        base = (0.5 * (va[0] + vb[0]), 0.5 * (va[1] + vb[1]))
    else:
        push = uncertainty + (combined - dist) / dt
        base = vb
    return _half_plane((base[0] - push * n[0], base[1] - push * n[1]), n, dist - combined)


def segment_velocity_obstacle(pa: Vector2, a: Vector2, b: Vector2, va: Vector2, vb: Vector2,
                              radius: float, dt: float) -> VelocityObstacle:
    """The VO of segment a-b (ends moving at ``va``, ``vb``) grown by ``radius``, seen
    from ``pa``; apex at the velocity of the segment's point nearest ``pa``."""
    c, t = closest_point_on_segment(pa, a, b)
    apex = ((1.0 - t) * va[0] + t * vb[0], (1.0 - t) * va[1] + t * vb[1])
    dx, dy = c[0] - pa[0], c[1] - pa[1]
    d = math.hypot(dx, dy)
    if d > radius:
        axis = math.atan2(dy, dx)
        right, left = math.inf, -math.inf
        for end in (a, b):
            ex, ey = end[0] - pa[0], end[1] - pa[1]
            reach = max(math.hypot(ex, ey), d)
            phi = (math.atan2(ey, ex) - axis + math.pi) % (2.0 * math.pi) - math.pi
            alpha = math.asin(min(1.0, radius / reach))
            right, left = min(right, phi - alpha), max(left, phi + alpha)
        if left - right < math.pi - 1e-6:
            return VelocityObstacle(apex, _dir(axis + right), _dir(axis + left), d - radius)
        return VelocityObstacle(apex, _dir(axis - 0.5 * math.pi), _dir(axis + 0.5 * math.pi),
                                d - radius)
    if d > 0.0:
        n = (dx / d, dy / d)
    else:  # on the segment: push off to its left
        ux, uy = b[0] - a[0], b[1] - a[1]
        length = math.hypot(ux, uy) or 1.0
        n = (uy / length, -ux / length)
    push = (radius - d) / dt
    return _half_plane((apex[0] - push * n[0], apex[1] - push * n[1]), n, d - radius)


def candidates(vos: List[VelocityObstacle], pref: Vector2, max_speed: float
               ) -> Tuple[np.ndarray, np.ndarray]:
    """The reference's candidate velocities (M, 2), and the cones whose legs made each
    (M, 2; ``NONE`` for none), in the reference's order of generation."""
    points: List[Vector2] = []
    owners: List[Tuple[int, int]] = []
    speed2 = max_speed * max_speed
    norm = math.hypot(*pref)
    clipped = pref if norm * norm < speed2 or norm == 0.0 else \
        (pref[0] * max_speed / norm, pref[1] * max_speed / norm)
    points.append(clipped)
    owners.append((NONE, NONE))
    for i, vo in enumerate(vos):  # projections of the preferred velocity onto the legs
        w = (pref[0] - vo.apex[0], pref[1] - vo.apex[1])
        for side, sign in ((vo.side1, 1.0), (vo.side2, -1.0)):
            dot = w[0] * side[0] + w[1] * side[1]
            if dot > 0.0 and sign * _det(side, w) > 0.0:
                c = (vo.apex[0] + dot * side[0], vo.apex[1] + dot * side[1])
                if c[0] * c[0] + c[1] * c[1] < speed2:
                    points.append(c)
                    owners.append((i, i))
    for j, vo in enumerate(vos):  # legs meeting the speed circle
        for side in (vo.side1, vo.side2):
            disc = speed2 - _det(vo.apex, side) ** 2
            if disc > 0.0:
                along = -(vo.apex[0] * side[0] + vo.apex[1] * side[1])
                for t in (along + math.sqrt(disc), along - math.sqrt(disc)):
                    if t >= 0.0:
                        points.append((vo.apex[0] + t * side[0], vo.apex[1] + t * side[1]))
                        owners.append((NONE, j))
    if len(vos) > 1:  # legs meeting each other
        apex = np.array([vo.apex for vo in vos])
        sides = np.array([[vo.side1, vo.side2] for vo in vos])  # (K, 2 legs, 2)
        k = len(vos)
        ii, jj = np.triu_indices(k, 1)
        for li in (0, 1):
            for lj in (0, 1):
                si, sj = sides[ii, li], sides[jj, lj]
                d = si[:, 0] * sj[:, 1] - si[:, 1] * sj[:, 0]
                delta = apex[jj] - apex[ii]
                ok = d != 0.0
                safe = np.where(ok, d, 1.0)
                s = (delta[:, 0] * sj[:, 1] - delta[:, 1] * sj[:, 0]) / safe
                t = (delta[:, 0] * si[:, 1] - delta[:, 1] * si[:, 0]) / safe
                c = apex[ii] + s[:, None] * si
                keep = ok & (s >= 0.0) & (t >= 0.0) & ((c * c).sum(axis=1) < speed2)
                for row in np.flatnonzero(keep):
                    points.append((float(c[row, 0]), float(c[row, 1])))
                    owners.append((int(ii[row]), int(jj[row])))
    return np.array(points, dtype=float).reshape(-1, 2), np.array(owners, dtype=int)


def select_velocity(vos: List[VelocityObstacle], pref: Vector2, max_speed: float
                    ) -> Tuple[Vector2, bool]:
    """The candidate nearest ``pref`` outside every cone, else the reference's fallback
    (module docstring). Returns ``(velocity, found)``."""
    points, owners = candidates(vos, pref, max_speed)
    order = np.argsort(((points - np.asarray(pref, dtype=float)) ** 2).sum(axis=1),
                       kind="stable")
    points, owners = points[order], owners[order]
    if not vos:
        return (float(points[0, 0]), float(points[0, 1])), True
    apex = np.array([vo.apex for vo in vos])
    side1 = np.array([vo.side1 for vo in vos])
    side2 = np.array([vo.side2 for vo in vos])
    w = points[:, None, :] - apex[None, :, :]  # (M, K, 2)
    det1 = side1[None, :, 0] * w[..., 1] - side1[None, :, 1] * w[..., 0]
    det2 = side2[None, :, 0] * w[..., 1] - side2[None, :, 1] * w[..., 0]
    index = np.arange(len(vos))[None, :]
    inside = (det2 < 0.0) & (det1 > 0.0) & (index != owners[:, 0:1]) & (index != owners[:, 1:2])
    violated = inside.any(axis=1)
    if not violated.all():
        row = int(np.argmin(violated))  # the first (nearest pref) candidate outside all
        return (float(points[row, 0]), float(points[row, 1])), True
    first = np.argmax(inside, axis=1)
    row = int(np.argmax(first))  # the latest first violation, nearest pref on a tie
    return (float(points[row, 0]), float(points[row, 1])), False


def velocity_obstacles(view: RobotView, p: HrvoParameters) -> List[VelocityObstacle]:
    """Every cone of the period, nearest first: robots (link partners among them),
    other groups' links, wall edges."""
    pa, va, pref = view.position, view.velocity, view.pref_velocity
    dt = view.time_step
    vos = []
    seen = set()

    def tie(key: str) -> float:
        return 1.0 if view.key <= key else -1.0

    for n in view.neighbors:
        seen.add(n.key)
        vos.append(agent_velocity_obstacle(pa, va, pref, n.position, n.velocity, n.velocity,
                                           view.radius + n.radius, dt, p.uncertainty_offset,
                                           n.reciprocates, tie=tie(n.key)))
    margin = max(0.0, view.radius - view.true_radius)
    for tether, neighbor in tether_partners(view):
        if neighbor is not None or tether.key in seen:
            continue
        vos.append(agent_velocity_obstacle(pa, va, pref, tether.position, tether.velocity,
                                           tether.velocity,
                                           view.radius + tether.radius + margin, dt,
                                           p.uncertainty_offset, tie=tie(tether.key)))
    for link in view.links:
        if link_counts(p.link_obstacles, pa, pref, link):
            vos.append(segment_velocity_obstacle(pa, link.a, link.b, link.velocity_a,
                                                 link.velocity_b, view.radius, dt))
    for a, b in wall_segments(view):
        vos.append(segment_velocity_obstacle(pa, a, b, (0.0, 0.0), (0.0, 0.0), view.radius, dt))
    vos.sort(key=lambda vo: vo.gap)
    return vos


class Hrvo(AvoidanceMethod):
    """Hybrid reciprocal velocity obstacles (snape/HRVO's ``computeNewVelocity``)."""

    params: HrvoParameters

    def __init__(self, params: Optional[HrvoParameters] = None) -> None:
        super().__init__(params or HrvoParameters())

    def compute_velocity(self, view: RobotView) -> MethodOutput:
        vos = velocity_obstacles(view, self.params)
        velocity, found = select_velocity(vos, view.pref_velocity, view.max_speed)
        return MethodOutput(velocity, used_fallback=not found,
                            report={"cones": len(vos), "outside_all": found})


HRVO = MethodSpec(
    "hrvo", "hybrid reciprocal velocity obstacles (Snape et al. 2011, snape/HRVO 1a13e4d), "
    "links and walls as segment obstacles", Hrvo, HrvoParameters,
    capabilities=Capabilities(keep_right=True, safety_filter=True, collision_free=False))


def register() -> None:
    """Register ``hrvo`` (the entry point ``hrvo``)."""
    register_method(HRVO)
