"""ORCA with linked robots: half-planes against other groups' links, tether limits, accounting.

Linked robots (scenario ``links:``) are pairs or triads joined by a tether or a
carried load. Two things are new to ORCA (van den Berg et al. 2011) and to RVO2:

* another group's **link** is a thin segment between two robots' centres whose
  ends move with them; a robot must never cross or touch it
  (:func:`moving_segment_half_plane`, the ORCA half-plane of its velocity
  obstacle, and :func:`link_safety_half_plane`, a one-step guarantee);
* a robot's own **tether** may not be stretched beyond ``max_length``
  (:func:`tether_half_plane`), nor swept onto another robot
  (:func:`tether_sweep_half_plane`).

All are linear half-planes in the robot's own velocity, as
:class:`~orca_ros.core.geometry.linprog.HalfPlane` (a point and a unit direction, the
allowed side to the LEFT of the direction). ORCA keeps the link safety line
hard and lets the others yield to the robots' safety half-planes
(:mod:`orca_ros.core.methods.orca`). The accounting helpers
(:func:`disc_touches_segment`, :func:`disc_crosses_moving_segment`) decide what
:class:`~orca_ros.core.sim.metrics.LinkLedger` counts. Plain floats only, no ROS.
"""

from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

from ..geometry.linprog import HalfPlane
from ..geometry.types import Vector2
from ..geometry.vectors import closest_point_on_segment, point_segment_distance

TETHER_MARGIN = 0.01
"""Metres kept free below a tether's ``max_length`` (rounding, and the curvature of the
circle a pair turns on within one step beyond what :func:`tether_half_plane` already
takes into account)."""
LINK_CLEARANCE = 0.01
"""Metres added to a robot's true radius in :func:`link_safety_half_plane`."""
FRONT_SAMPLES = 24
"""Points on the front of the velocity obstacle's cut-off capsule (each arc is
circumscribed, so the polygon contains the true velocity obstacle)."""


def _sub(a: Vector2, b: Vector2) -> Vector2:
    return (a[0] - b[0], a[1] - b[1])


def _dot(a: Vector2, b: Vector2) -> float:
    return a[0] * b[0] + a[1] * b[1]


def _det(a: Vector2, b: Vector2) -> float:
    return a[0] * b[1] - a[1] * b[0]


def segment_segment_distance(p0: Vector2, p1: Vector2, q0: Vector2, q1: Vector2) -> float:
    """Distance between segments p0-p1 and q0-q1: zero when they intersect (proper
    crossing test by orientation signs), else the least of the four endpoint-to-segment
    distances (the minimum of two non-crossing segments' distance is at an endpoint)."""
    d1 = _det(_sub(p1, p0), _sub(q0, p0))
    d2 = _det(_sub(p1, p0), _sub(q1, p0))
    d3 = _det(_sub(q1, q0), _sub(p0, q0))
    d4 = _det(_sub(q1, q0), _sub(p1, q0))
    if ((d1 > 0.0) != (d2 > 0.0)) and ((d3 > 0.0) != (d4 > 0.0)) and d1 * d2 < 0.0 \
            and d3 * d4 < 0.0:
        return 0.0
    return min(point_segment_distance(p0, q0, q1), point_segment_distance(p1, q0, q1),
               point_segment_distance(q0, p0, p1), point_segment_distance(q1, p0, p1))


def link_frame_velocity(position: Vector2, a: Vector2, b: Vector2, velocity_a: Vector2,
                        velocity_b: Vector2) -> Tuple[Vector2, float]:
    """The velocity of the frame the link is taken as static in: that of the link's
    point nearest the robot, ``w = v_a + s (v_b - v_a)`` (the segment moves affinely,
    so its material point at parameter ``s`` moves at the interpolated velocity).

    Why this point: where the robot would touch the link first is near it, so it is
    the part whose motion matters; any other point of the segment moves relative to
    it by at most ``spread = max(|v_a - w|, |v_b - w|)`` (the relative velocity is
    linear in the parameter, so its largest norm is at an end). Returns ``(w,
    spread)``; :func:`moving_segment_half_plane` enlarges the robot by ``spread``
    times one time step, which covers every point of the segment for the step the
    half-plane is used (it is rebuilt each step), and the exact guarantee for that
    step is :func:`link_safety_half_plane`'s, which uses both ends' velocities.
    """
    _, s = closest_point_on_segment(position, a, b)
    w = (velocity_a[0] + s * (velocity_b[0] - velocity_a[0]),
         velocity_a[1] + s * (velocity_b[1] - velocity_a[1]))
    spread = max(math.dist(velocity_a, w), math.dist(velocity_b, w))
    return w, spread


def _leg(rel: Vector2, radius: float, left: bool) -> Vector2:
    """Unit direction of the tangent from the origin to the disc (rel, radius): the left
    (counter-clockwise) one or the right one (RVO2's leg formulas)."""
    dist_sq = _dot(rel, rel)
    leg = math.sqrt(max(dist_sq - radius * radius, 0.0))
    if left:
        return ((rel[0] * leg - rel[1] * radius) / dist_sq,
                (rel[0] * radius + rel[1] * leg) / dist_sq)
    return ((rel[0] * leg + rel[1] * radius) / dist_sq,
            (-rel[0] * radius + rel[1] * leg) / dist_sq)


def segment_velocity_obstacle_boundary(rel_a: Vector2, rel_b: Vector2, radius: float,
                                       time_horizon: float,
                                       samples: int = FRONT_SAMPLES) -> List[Vector2]:
    """The boundary of the truncated velocity obstacle of a static segment, as a polyline.

    ``VO = {v : exists t in (0, tau], dist(v t, [A, B]) < r}`` for the segment A-B
    (relative to the robot) and the combined radius ``r``: the union of the scaled
    capsules ``k K`` (``K = (A-B ⊕ disc r) / tau``, ``k >= 1``), a convex set whose
    boundary is the left leg (the counter-clockwise tangent from the origin to the
    capsule, from infinity to its tangent point on ``K``), the front of ``K`` (the
    part facing the origin, outward normals from the left leg's left normal to the
    right leg's right normal, counter-clockwise) and the right leg out to
    infinity. The front is sampled at ``samples`` normals plus the flat side's
    exact normal, each point pushed out by ``1 / cos(half step)`` so the polygon
    contains the arc. Legs end ``1e3 m/s`` out. The origin must be outside the
    capsule (no collision).
    """
    left_a, left_b = _leg(rel_a, radius, True), _leg(rel_b, radius, True)
    right_a, right_b = _leg(rel_a, radius, False), _leg(rel_b, radius, False)
    left = left_b if _det(left_a, left_b) > 0.0 else left_a  # the more counter-clockwise
    right = right_b if _det(right_a, right_b) < 0.0 else right_a  # the more clockwise
    start = math.atan2(left[0], -left[1])  # angle of (-l_y, l_x), the left leg's left normal
    end = math.atan2(-right[0], right[1])  # angle of (r_y, -r_x), the right leg's right normal
    while end < start:
        end += 2.0 * math.pi
    span = end - start
    angles = [start + span * k / samples for k in range(samples + 1)]
    ab = _sub(rel_b, rel_a)
    length = math.hypot(*ab)
    if length > 1e-12:  # the flat side's normal facing the origin, if on the front
        normal = (ab[1] / length, -ab[0] / length)
        if _dot(normal, rel_a) > 0.0:
            normal = (-normal[0], -normal[1])
        phi = math.atan2(normal[1], normal[0])
        while phi < start:
            phi += 2.0 * math.pi
        if phi <= end:
            angles = sorted(angles + [phi, phi])
    step = span / samples
    scaled = radius / time_horizon / max(math.cos(0.5 * step), 0.5)
    inv = 1.0 / time_horizon
    front: List[Vector2] = []
    previous = None
    for phi in angles:
        # the capsule's support point for this normal: the end furthest along it; at the
        # flat side's normal (listed twice) first the end just before it, then the other
        if phi == previous:
            probe = phi + 1e-6
        elif angles.count(phi) == 2:
            probe = phi - 1e-6
        else:
            probe = phi
        previous = phi
        m = (math.cos(probe), math.sin(probe))
        end_point = rel_a if _dot(m, rel_a) >= _dot(m, rel_b) else rel_b
        m = (math.cos(phi), math.sin(phi))
        front.append((end_point[0] * inv + scaled * m[0], end_point[1] * inv + scaled * m[1]))
    far = 1e3
    return ([(front[0][0] + far * left[0], front[0][1] + far * left[1])] + front
            + [(front[-1][0] + far * right[0], front[-1][1] + far * right[1])])


def _closest_on_polyline(v: Vector2, points: Sequence[Vector2]) -> Tuple[Vector2, Vector2]:
    """The point of the polyline nearest ``v``, and the outward normal of its piece: the
    velocity obstacle lies on the left of the boundary traversed from the left leg over
    the front to the right leg (counter-clockwise around the capsule), so outward is
    the right normal ``(e_y, -e_x)``."""
    best = (math.inf, points[0], (1.0, 0.0))
    for p, q in zip(points, points[1:]):
        c, _ = closest_point_on_segment(v, p, q)
        d = math.dist(v, c)
        if d < best[0]:
            e = _sub(q, p)
            n = math.hypot(*e)
            normal = (e[1] / n, -e[0] / n) if n > 0.0 else (1.0, 0.0)
            best = (d, c, normal)
    return best[1], best[2]


def moving_segment_half_plane(position: Vector2, velocity: Vector2, radius: float,
                              a: Vector2, b: Vector2, velocity_a: Vector2,
                              velocity_b: Vector2, time_horizon: float, time_step: float,
                              responsibility: float = 1.0) -> HalfPlane:
    """ORCA's half-plane for a robot (disc at ``position``, ``radius``, moving at
    ``velocity``) against another group's link, the segment a-b whose ends move at
    ``velocity_a`` and ``velocity_b``.

    In the frame moving with the link (:func:`link_frame_velocity`: the velocity
    ``w`` of the link's point nearest the robot; the robot is enlarged by the other
    points' relative motion over one step) the link is a static segment, and its
    velocity obstacle over the horizon ``tau`` is
    ``VO = {v : exists t in (0, tau], dist(v t, [A, B]) < r}``
    (:func:`segment_velocity_obstacle_boundary`). As in ORCA (paper eq. 3-4),
    ``u`` is the vector from the relative velocity ``v - w`` to the nearest point
    of the VO's boundary and ``n`` the VO's outward normal there; the half-plane
    is ``(v' - (v + f u)) . n >= 0`` with ``f = responsibility``.

    Responsibility: 1 (the robot takes the whole ``u``). The link's robots see the
    crossing robot as an ordinary neighbour disc (they avoid its body with half
    of their ``u``), but nothing tells them to keep their link off it, so, as
    against a non-reciprocating agent (paper section 4), the crossing robot
    alone avoids the segment.

    Collision branch (the disc already touches the segment, distance <= r): like
    RVO2's agent collision case, the VO is cut off at one ``time_step`` around the
    nearest point ``C`` of the segment: ``w' = (v - w) - C / dt``,
    ``u = (r / dt - |w'|) w'/|w'|``, ``n = w'/|w'|``: the robot leaves the segment's
    disc of radius ``r`` within one step.
    """
    w, spread = link_frame_velocity(position, a, b, velocity_a, velocity_b)
    r = radius + spread * time_step
    rel_a, rel_b = _sub(a, position), _sub(b, position)
    rel_v = _sub(velocity, w)
    closest, _ = closest_point_on_segment((0.0, 0.0), rel_a, rel_b)
    distance = math.hypot(*closest)
    if distance <= r:
        wx, wy = rel_v[0] - closest[0] / time_step, rel_v[1] - closest[1] / time_step
        w_length = math.hypot(wx, wy)
        if w_length < 1e-12:
            ab = _sub(rel_b, rel_a)
            nx, ny = _normalize_or((-ab[1], ab[0]), (1.0, 0.0))
        else:
            nx, ny = wx / w_length, wy / w_length
        scale = r / time_step - w_length
        ux, uy = scale * nx, scale * ny
    else:
        boundary = segment_velocity_obstacle_boundary(rel_a, rel_b, r, time_horizon)
        q, (nx, ny) = _closest_on_polyline(rel_v, boundary)
        ux, uy = q[0] - rel_v[0], q[1] - rel_v[1]
        u_length = math.hypot(ux, uy)
        if u_length > 1e-9:
            inside = segment_segment_distance(
                (0.0, 0.0), (rel_v[0] * time_horizon, rel_v[1] * time_horizon),
                rel_a, rel_b) < r
            sign = 1.0 if inside else -1.0  # u points out of the VO from inside, in from outside
            nx, ny = sign * ux / u_length, sign * uy / u_length
    return HalfPlane(velocity[0] + responsibility * ux, velocity[1] + responsibility * uy,
                     ny, -nx)


def _normalize_or(v: Vector2, fallback: Vector2) -> Vector2:
    n = math.hypot(*v)
    return (v[0] / n, v[1] / n) if n > 1e-12 else fallback


def link_safety_half_plane(position: Vector2, radius: float, a: Vector2, b: Vector2,
                           velocity_a: Vector2, velocity_b: Vector2,
                           horizon: float) -> Optional[HalfPlane]:
    """Velocities with which the robot's disc cannot touch the link within ``horizon``
    (one time step), if the link's ends keep their velocities: the link's counterpart
    of :func:`~orca_ros.core.orca.orca2d.one_step_obstacle_half_plane`.

    Separating line: with ``c`` the link's point nearest the robot, ``d = |c - p|``
    and ``n = (c - p)/d``, the whole segment lies in ``(x - p) . n >= d`` (``c`` is
    the nearest point of a convex set). After ``t`` its ends have moved by ``v_a t``
    and ``v_b t``, so every point of it (an affine combination) lies in
    ``(x - p) . n >= d + t min(v_a . n, v_b . n)``; the robot's disc lies in
    ``(x - p) . n <= v . n t + r``. They stay apart for all ``t <= T`` when
    ``v . n <= (d - r) / T + min(v_a . n, v_b . n)``. With ``d < r`` (already
    touching) the same bound is negative: the robot backs away. Whole
    responsibility, as in :func:`moving_segment_half_plane`. Returns None for a
    centre on the segment (no direction).
    """
    c, _ = closest_point_on_segment(position, a, b)
    nx, ny = c[0] - position[0], c[1] - position[1]
    distance = math.hypot(nx, ny)
    if distance < 1e-12:
        return None
    nx, ny = nx / distance, ny / distance
    closing = min(velocity_a[0] * nx + velocity_a[1] * ny, velocity_b[0] * nx + velocity_b[1] * ny)
    limit = (distance - radius) / horizon + closing
    return HalfPlane(nx * limit, ny * limit, -ny, nx)


def tether_sweep_half_plane(position: Vector2, partner_position: Vector2,
                            partner_velocity: Vector2, other_position: Vector2,
                            other_velocity: Vector2, other_radius: float,
                            horizon: float) -> Optional[HalfPlane]:
    """The owners' side of :func:`link_safety_half_plane`: velocities of this robot (A)
    with which its tether to B does not sweep onto another robot's disc within
    ``horizon`` (one time step), if B and the other robot keep their velocities.

    With ``q = p_A + s (p_B - p_A)`` the tether's point nearest the other robot's
    centre ``o``, ``d = |o - q|`` and ``n = (o - q) / d``, that point moves at
    ``(1 - s) v_A + s v_B``, and the disc of radius ``r`` keeps clear while
    ``n . ((1 - s) v_A + s v_B) <= (d - r) / T + n . v_o``: a half-plane in ``v_A``,
    ``n . v_A <= ((d - r) / T + n . v_o - s n . v_B) / (1 - s)``. The other robot
    keeps off the link with its own half-plane (whole responsibility); this one
    lets the owners help, which matters when that robot is boxed in and cannot.
    None when the nearest point is B's end (``1 - s`` small: the robot-to-robot
    half-planes between B and it cover that) or ``o`` lies on the tether.
    """
    q, s = closest_point_on_segment(other_position, position, partner_position)
    if 1.0 - s < 0.1:
        return None
    nx, ny = other_position[0] - q[0], other_position[1] - q[1]
    distance = math.hypot(nx, ny)
    if distance < 1e-12:
        return None
    nx, ny = nx / distance, ny / distance
    limit = ((distance - other_radius) / horizon + other_velocity[0] * nx
             + other_velocity[1] * ny
             - s * (partner_velocity[0] * nx + partner_velocity[1] * ny)) / (1.0 - s)
    return HalfPlane(nx * limit, ny * limit, -ny, nx)


def tether_half_plane(position: Vector2, velocity: Vector2, partner_position: Vector2,
                      partner_velocity: Vector2, max_length: float, tau: float,
                      margin: float = TETHER_MARGIN) -> Optional[HalfPlane]:
    """Keeps this robot (A) and a partner (B) within ``max_length`` after ``tau`` (one
    time step), reciprocally: a half-plane in A's velocity ``v``.

    With ``p = p_B - p_A``, ``d = |p|``, ``n = p / d``, the distance after ``tau`` is
    ``|p + (v_B' - v_A') tau|``; linearised along ``n`` it is
    ``d + n . (v_B' - v_A') tau`` and the part across ``n`` (the pair turning)
    adds ``(t tau)**2`` under the root, ``t`` the current relative velocity
    across ``n``. So the pair keeps ``L = max_length - margin`` when
    ``n . (v_B' - v_A') <= s / tau`` with the slack
    ``s = sqrt(L**2 - (t tau)**2) - d`` (``s = -d`` if ``|t| tau >= L``).
    Reciprocity as in ORCA: both take half of it around the same reference, the
    mean of their current velocities ``m = n . (v_A + v_B) / 2``: A keeps
    ``n . v_A' >= m - s / (2 tau)``, B keeps ``n . v_B' <= m + s / (2 tau)``
    (the same rule seen from B, whose ``n`` is ``-n``); together
    ``n . (v_B' - v_A') <= s / tau``. A negative slack (already too far apart)
    makes both close in. Allowed side: ``v . n >= m - s / (2 tau)``. Returns None
    for coincident centres (no direction; the pair cannot be over-stretched).
    """
    px, py = partner_position[0] - position[0], partner_position[1] - position[1]
    distance = math.hypot(px, py)
    if distance < 1e-9:
        return None
    nx, ny = px / distance, py / distance
    relx, rely = partner_velocity[0] - velocity[0], partner_velocity[1] - velocity[1]
    across = (-ny * relx + nx * rely) * tau
    length = max(max_length - margin, 0.0)
    slack = (math.sqrt(length * length - across * across) if abs(across) < length else 0.0) \
        - distance
    mean = 0.5 * (nx * (velocity[0] + partner_velocity[0]) + ny * (velocity[1]
                                                                 + partner_velocity[1]))
    limit = mean - slack / (2.0 * tau)
    # v . n >= limit: the boundary through n * limit, allowed side left of (n_y, -n_x).
    return HalfPlane(nx * limit, ny * limit, ny, -nx)


# --- accounting --------------------------------------------------------------------------

def disc_touches_segment(centre: Vector2, radius: float, a: Vector2, b: Vector2,
                         tolerance: float) -> bool:
    """A disc crosses or touches segment a-b: its centre is nearer the segment than
    ``radius - tolerance`` (the CollisionLedger's ``OVERLAP_TOLERANCE``: touching
    to within it does not count)."""
    return point_segment_distance(centre, a, b) < radius - tolerance


def disc_crosses_moving_segment(centre0: Vector2, centre1: Vector2, radius: float,
                                a0: Vector2, b0: Vector2, a1: Vector2, b1: Vector2,
                                tolerance: float) -> bool:
    """Did a disc moving from ``centre0`` to ``centre1`` cross or touch a segment
    moving from a0-b0 to a1-b1 within the step?

    Checked: the disc touches the segment at either end of the step
    (:func:`disc_touches_segment`), or the centre changed side of the segment's
    line while its path met the segment. In the frame of the segment's point
    nearest the centre at the start (the segment then roughly static), the
    centre's relative path from ``centre0`` to ``centre1 - (c1 - c0)`` must miss
    the start segment by ``radius - tolerance``, and the real path must miss the
    end segment. This is an approximation of the swept test (an exact one
    solves a quadratic in time): it checks the segment swept against the moving
    point in the frames of both ends of the step, which catches a robot that
    passes through a link between two samples; robots move by under a radius per
    step here, so a crossing also shows as a touch at a step's end in practice.
    """
    limit = radius - tolerance
    if disc_touches_segment(centre0, radius, a0, b0, tolerance) or \
            disc_touches_segment(centre1, radius, a1, b1, tolerance):
        return True
    _, s0 = closest_point_on_segment(centre0, a0, b0)
    c0 = (a0[0] + s0 * (b0[0] - a0[0]), a0[1] + s0 * (b0[1] - a0[1]))
    c1 = (a1[0] + s0 * (b1[0] - a1[0]), a1[1] + s0 * (b1[1] - a1[1]))
    shifted = (centre1[0] - (c1[0] - c0[0]), centre1[1] - (c1[1] - c0[1]))
    if segment_segment_distance(centre0, shifted, a0, b0) < limit:
        return True
    shifted = (centre0[0] + (c1[0] - c0[0]), centre0[1] + (c1[1] - c0[1]))
    return segment_segment_distance(shifted, centre1, a1, b1) < limit


def links_within(position, links, reach: float) -> list:
    """The ``links`` (:class:`~orca_ros.core.methods.LinkView`) whose segment passes within
    ``reach`` (m, a robot's ``neighbor_dist``) of ``position``, nearest first: what a robot
    sees of other groups' links (the world and orca_node alike)."""
    found = []
    for view in links:
        distance = point_segment_distance(position, view.a, view.b)
        if distance < reach:
            found.append((distance, view))
    return [view for _, view in sorted(found, key=lambda item: item[0])]
