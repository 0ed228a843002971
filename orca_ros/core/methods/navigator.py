"""The toio SDK for Unity's Navigator as methods: ``hlavoid``, ``boids`` and ``boids_avoid``.

The SDK's ``Navigator`` (``Assets/toio-sdk/Scripts/Navigation``, commit
e9e7278, MIT) has three modes, reimplemented here from the facts in
``doc/how_it_works/methods/navigator.md``:

- ``hlavoid`` (mode AVOID): HLAvoid, after Guzzi et al., "Human-friendly robot
  navigation in dynamic environments" (ICRA 2013). It samples 19 headings
  around the robot plus the bearing to the target, scans how far the robot
  could go along each before it would meet another robot (moving at its
  velocity) or a wall, and takes the sample whose reachable point lies
  nearest the target, with a small penalty for turning; rays into a robot
  or wall already touched are barred by a "safety" score, and the speed is
  limited by the turning radius that nearby obstacles leave.
- ``boids`` (BOIDS): Reynolds' flocking: attraction to the target,
  separation, cohesion and alignment with the robots it flocks with.
- ``boids_avoid`` (BOIDS_AVOID): Boids without attraction shifts the target
  (a "surrogate target"), and HLAvoid runs towards it.

Units: everything inside is in mat dots, as in the SDK, converted once at
the boundary. A dot is ``dot_m`` metres; by default the robot's radius /
16.88: for a toio cube (radius 23 mm) the mat's 1.3625 mm, for any other robot
as many dots across as a cube, so the SDK's ranges and margins keep their
proportions. Speeds in dots/s; the SDK's speed limit is in motor units
(2.0655 dots/s each).

What the SDK's ``CubeHandle.Navi2Target`` does with the navigator's result
becomes the velocity to track: towards the waypoint, at the preferred speed
times the mode's speed ratio, capped by HLAvoid's speed limit, slowing down
within half the top speed's dots of the waypoint (``Move2Target``), with the
waypoint itself in the output. A unicycle tracks it like any other method's
velocity; a toio cube by default with the SDK's own follower
(:func:`~orca_ros.core.models.toio_cube.move_to_target`, the spec's ``cube_tracking``).

Quirks kept on purpose (the SDK's behaviour): HLAvoid's scan speed is at
least 20 dots/s (its English docs say 10); Boids sees another robot when the
*signed* bearing is below its field of view (``boids_signed_fov``; set it
false for the symmetric test); when the target is within 0.01 rad of straight
behind, the extra sample stays at angle 0.

These methods make no promise of collision freedom and run, like the SDK,
without our safety filter and keep-right (``safety_filter: on`` puts the
filter behind them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from ..models.toio_cube import CUBE_RADIUS_UNITS
from ..geometry.types import as_finite
from .base import AvoidanceMethod, Capabilities, MethodOutput, MethodSpec, RobotView, parameter
from .registry import register_method

VDOT_PER_MOTOR_UNIT = 2.0655
"""Wheel speed in dots/s per motor unit (the SDK's ``VDotOverU``)."""
CUBE_RADIUS_DOTS = CUBE_RADIUS_UNITS
"""A toio cube's disc (23 mm, our cubes' radius) in mat dots: a robot of radius r gets
``dot_m = r / 16.88``, a cube exactly the mat's 1.3625 mm."""
MOTOR_DEAD_ZONE = 8.0
"""Motor dead zone (firmware 2.1 and later), for the approach slow-down of ``Move2Target``."""
MODES = ("AVOID", "BOIDS", "BOIDS_AVOID")
Vec = Tuple[float, float]


def wrap(angle: float) -> float:
    """The SDK's ``Rad``: ``(r + 3 pi) % 2 pi - pi`` with C#'s truncating ``%``."""
    return math.fmod(angle + 3.0 * math.pi, 2.0 * math.pi) - math.pi


def _clip(vector: Vec, limit: float) -> Vec:
    """The SDK's ``Vector.clip``: scaled down to ``limit`` if longer."""
    norm = math.hypot(*vector)
    if norm <= limit or norm == 0.0:
        return vector
    return (vector[0] * limit / norm, vector[1] * limit / norm)


def _unit(vector: Vec) -> Vec:
    norm = math.hypot(*vector)
    return (0.0, 0.0) if norm == 0.0 else (vector[0] / norm, vector[1] / norm)


@dataclass(frozen=True)
class NavigatorParameters:
    """The Navigator's parameters, in the SDK's names and units (dots, dots/s, rad)."""

    dot_m: float = parameter(0.0, "metres per mat dot (the SDK's unit of length); 0: the "
                                  "robot's radius over a cube's radius in dots")
    # HLAvoid
    avoid_range: float = parameter(200.0, "HLAvoid: how far it looks along each ray (dots)")
    avoid_samples: int = parameter(19, "HLAvoid: rays across its field of view (at least 2)")
    avoid_margin: float = parameter(22.0, "HLAvoid: this robot's margin round its centre "
                                          "(dots)")
    entity_margin: float = parameter(16.0, "HLAvoid: another robot's own margin, for how "
                                           "severe an overlap is (dots)")
    use_safety: bool = parameter(True, "HLAvoid: rank rays by safety when overlapping "
                                       "(false: by the largest clear distance)")
    safety_threshold: float = parameter(0.15, "HLAvoid: a ray is taken only if its safety "
                                              "exceeds this")
    wall_margin: float = parameter(0.0, "HLAvoid: a wall's own margin (dots); our walls are "
                                        "polygons, their thickness already there")
    # Boids
    boids_fov: float = parameter(math.radians(120.0), "Boids: field of view (rad)")
    boids_range: float = parameter(150.0, "Boids: how far it sees other robots (dots)")
    boids_margin: float = parameter(25.0, "Boids: distance taken off before separation "
                                          "counts (dots)")
    weight_attraction: float = parameter(50.0, "Boids: weight of the pull to the target")
    weight_separation: float = parameter(1.0, "Boids: weight of keeping apart")
    max_separation: float = parameter(100.0, "Boids: clip of the separation (dots)")
    weight_cohesion: float = parameter(0.3, "Boids: weight of moving to the others' centre")
    max_cohesion: float = parameter(50.0, "Boids: clip of the cohesion (dots)")
    weight_alignment: float = parameter(0.3, "Boids: weight of matching the others' "
                                             "velocity")
    max_alignment: float = parameter(30.0, "Boids: clip of the alignment (dots/s)")
    max_boids: float = parameter(100.0, "Boids: clip of the whole flocking force (dots)")
    boids_signed_fov: bool = parameter(True, "Boids: the SDK's signed bearing test (true, "
                                             "as the SDK) or its absolute value")
    boids_ignore: Tuple[str, ...] = parameter((), "robots this one does not flock with "
                                                  "(the SDK's relation NONE)")
    # Navigator
    surrogate_target: float = parameter(1.0, "BOIDS_AVOID: how far the flocking force moves "
                                             "the target HLAvoid heads for")
    speed_ratio_boids: float = parameter(1.0, "BOIDS: scale of the speed ratio |f|/75")
    speed_ratio_boids_avoid: float = parameter(1.0, "BOIDS_AVOID: scale of its speed ratio")

    def __post_init__(self) -> None:
        as_finite(self.dot_m, "dot_m", minimum=0.0)
        for name in ("avoid_range", "avoid_margin", "boids_range", "boids_fov"):
            as_finite(getattr(self, name), name, strictly_positive=True)
        if self.avoid_samples < 2:
            raise ValueError(f"avoid_samples must be >= 2, got {self.avoid_samples}")


@dataclass(frozen=True)
class Ego:
    """The robot in dots: position, heading, speed, velocity and angular speed."""

    x: float
    y: float
    heading: float
    speed: float
    velocity: Vec
    angular_speed: float


@dataclass(frozen=True)
class Other:
    """Another robot in dots."""

    x: float
    y: float
    velocity: Vec
    key: str = ""


@dataclass(frozen=True)
class Wall:
    """A wall segment in dots, with the SDK's margin around it."""

    a: Vec
    b: Vec
    margin: float = 0.0


@dataclass
class Scan:
    """One scan: per ray (in the order of the rays scanned), how far the robot can go
    and how safe the direction is."""

    distances: List[float]
    safety: List[float]
    collision: bool = False

    @classmethod
    def empty(cls, rays: Sequence[float], far: float) -> "Scan":
        return cls([far] * len(rays), [1.0] * len(rays))


def _combine(scans: Sequence[Scan], rays: Sequence[float], far: float, collisions: bool) -> Scan:
    """Per ray the smallest distance (and, for collision scans, the smallest safety)."""
    result = Scan.empty(rays, far)
    for scan in scans:
        if collisions and not scan.collision:
            continue
        result.collision = result.collision or (collisions and scan.collision)
        for i in range(len(rays)):
            result.distances[i] = min(result.distances[i], scan.distances[i])
            if collisions:
                result.safety[i] = min(result.safety[i], scan.safety[i])
    return result


# --- segment geometry (the SDK's LineBase, Point and Wall circle casts) -------------------------

def _foot_on_segment(p: Vec, a: Vec, b: Vec) -> bool:
    ab = (b[0] - a[0], b[1] - a[1])
    return ((p[0] - a[0]) * ab[0] + (p[1] - a[1]) * ab[1] >= 0.0
            and (p[0] - b[0]) * -ab[0] + (p[1] - b[1]) * -ab[1] >= 0.0)


def _line_normal(a: Vec, b: Vec) -> Tuple[Vec, float]:
    """Unit normal ``n`` and offset ``c`` of the line ``n . p + c = 0`` through a and b."""
    nx, ny = a[1] - b[1], b[0] - a[0]
    norm = math.hypot(nx, ny)
    nx, ny = nx / norm, ny / norm
    return (nx, ny), -(nx * a[0] + ny * a[1])


def _distance_truncated(p: Vec, a: Vec, b: Vec) -> float:
    """Distance from p to the segment (to the line where its foot falls on the segment)."""
    if _foot_on_segment(p, a, b):
        n, c = _line_normal(a, b)
        return abs(n[0] * p[0] + n[1] * p[1] + c)
    return min(math.dist(p, a), math.dist(p, b))


def _repulsion(p: Vec, a: Vec, b: Vec) -> Vec:
    """The direction that pushes p away from the segment (its normal, or from an end)."""
    if _foot_on_segment(p, a, b):
        n, c = _line_normal(a, b)
        side = math.copysign(1.0, n[0] * p[0] + n[1] * p[1] + c) \
            if n[0] * p[0] + n[1] * p[1] + c != 0.0 else 0.0
        return (side * n[0], side * n[1])
    end = a if math.dist(p, a) <= math.dist(p, b) else b
    return _unit((p[0] - end[0], p[1] - end[1]))


def _cast_point(origin: Vec, direction: Vec, radius: float, point: Vec) -> Optional[float]:
    """How far a circle of ``radius`` moves from ``origin`` along ``direction`` before it
    touches ``point`` (0 if it already does), or None."""
    if math.dist(origin, point) < radius:
        return 0.0
    along = (point[0] - origin[0]) * direction[0] + (point[1] - origin[1]) * direction[1]
    if along < 0.0:
        return None
    across = abs((point[0] - origin[0]) * direction[1] - (point[1] - origin[1]) * direction[0])
    if across > radius:
        return None
    return along - math.sqrt(radius * radius - across * across)


def _cast_wall(origin: Vec, direction: Vec, radius: float, wall: Wall) -> Optional[float]:
    """How far the circle moves before it touches the wall (its margin included): 0 if
    it touches already, None if never (the SDK's ``Wall.CircleCastHandle``)."""
    r = radius + wall.margin
    a, b = wall.a, wall.b
    n, c = _line_normal(a, b)
    signed = n[0] * origin[0] + n[1] * origin[1] + c
    if abs(signed) < r:
        if _foot_on_segment(origin, a, b):
            return 0.0
    else:
        # The segment moved towards the origin by r, intersected with the ray.
        side = 1.0 if signed > 0.0 else -1.0
        shifted_a = (a[0] + side * r * n[0], a[1] + side * r * n[1])
        shifted_b = (b[0] + side * r * n[0], b[1] + side * r * n[1])
        denominator = direction[0] * n[0] + direction[1] * n[1]
        if denominator != 0.0:
            t = -(n[0] * origin[0] + n[1] * origin[1] + c - side * r) / denominator
            hit = (origin[0] + t * direction[0], origin[1] + t * direction[1])
            if t >= 0.0 and _foot_on_segment(hit, shifted_a, shifted_b):
                return t
    hits = [h for h in (_cast_point(origin, direction, r, a), _cast_point(origin, direction, r, b))
            if h is not None]
    return min(hits) if hits else None


# --- HLAvoid ----------------------------------------------------------------------------------

class HLAvoid:
    """HLAvoid's ``RunTowards`` (the SDK's defaults in :class:`NavigatorParameters`)."""

    def __init__(self, params: NavigatorParameters) -> None:
        self.p = params
        self.fov = 2.0 * math.pi - 0.02

    @property
    def far(self) -> float:
        return self.p.avoid_range + 1.0

    def sample_rays(self, ego: Ego, target: Vec) -> List[float]:
        """``avoid_samples`` headings across the field of view, with the exact bearing to
        the target inserted in order (the SDK's ``SampleRads``)."""
        n = self.p.avoid_samples
        step = self.fov / (n - 1)
        rays = [0.0] * (n + 1)
        to_target = math.atan2(target[1] - ego.y, target[0] - ego.x)
        relative_target = wrap(to_target - ego.heading)
        for i in range(n):
            ray = ego.heading - self.fov / 2.0 + step * i
            relative = wrap(ray - ego.heading)
            if relative_target > relative:
                rays[i] = ray
            elif relative_target + step > relative:
                rays[i] = to_target
                rays[i + 1] = ray
            else:
                rays[i + 1] = ray
        return rays

    def scan_other(self, ego: Ego, other: Other, rays: Sequence[float]) -> Scan:
        """How far along each ray before the two margins meet, the other moving at its
        velocity (the SDK's ``_ScanEntity``)."""
        scan = Scan.empty(rays, self.far)
        margins = 2.0 * self.p.avoid_margin
        speed = max(ego.speed, 20.0)
        dx, dy = ego.x - other.x, ego.y - other.y
        gap2 = dx * dx + dy * dy
        for i, ray in enumerate(rays):
            vx, vy = speed * math.cos(ray), speed * math.sin(ray)
            rvx, rvy = vx - other.velocity[0], vy - other.velocity[1]
            a = rvx * rvx + rvy * rvy
            b = 2.0 * (rvx * dx + rvy * dy)
            c = gap2 - margins * margins
            delta = b * b - 4.0 * a * c
            if delta < 0.0 or abs(a) < 1.0:
                continue
            t1 = (-b - math.sqrt(delta)) / 2.0 / a
            t2 = (-b + math.sqrt(delta)) / 2.0 / a
            if t2 <= 0.0:
                continue
            if t1 > 0.0:
                scan.distances[i] = t1 * speed
            else:  # already overlapping: the scan is a collision scan
                scan.distances[i] = (vx * dx + vy * dy) / speed / math.sqrt(gap2) * 100.0 \
                    if gap2 > 0.0 else 0.0
                scan.collision = True
        if scan.collision:
            severity = max(0.0, self.p.avoid_margin + self.p.entity_margin - math.sqrt(gap2)) \
                / self.p.avoid_margin
            away = math.atan2(dy, dx)
            scan.safety = [math.cos(abs(wrap(ray - away))) * (1.0 + severity) for ray in rays]
        return scan

    def scan_wall(self, ego: Ego, wall: Wall, rays: Sequence[float]) -> Scan:
        """How far along each ray the robot's margin circle moves before touching the wall
        (the SDK's ``_ScanWall``)."""
        scan = Scan.empty(rays, self.far)
        position = (ego.x, ego.y)
        margin = self.p.avoid_margin
        if _distance_truncated(position, wall.a, wall.b) < margin + wall.margin:
            scan.collision = True
            distance = _distance_truncated(position, wall.a, wall.b)
            severity = max(0.0, margin + wall.margin - distance) / margin
            repulsion = _repulsion(position, wall.a, wall.b)
            away = math.atan2(repulsion[1], repulsion[0])
            for i, ray in enumerate(rays):
                if self.p.use_safety:
                    scan.safety[i] = math.cos(abs(wrap(ray - away))) * (1.0 + severity)
                else:
                    scan.distances[i] = max(0.1, (math.cos(ray) * repulsion[0]
                                                  + math.sin(ray) * repulsion[1]) * 100.0)
            return scan
        for i, ray in enumerate(rays):
            hit = _cast_wall(position, (math.cos(ray), math.sin(ray)), margin, wall)
            if hit is not None and hit < scan.distances[i]:
                scan.distances[i] = hit
        return scan

    def run_towards(self, ego: Ego, others: Sequence[Other], target: Vec,
                    walls: Sequence[Wall]) -> Tuple[Vec, bool, float]:
        """``(waypoint - ego, colliding, speed limit in motor units)`` (``RunTowards``)."""
        p = self.p
        rays = self.sample_rays(ego, target)
        far = self.far
        to_target = (target[0] - ego.x, target[1] - ego.y)
        target_distance = math.hypot(*to_target)
        target_ray = math.atan2(to_target[1], to_target[0])
        target_scan = Scan.empty(rays, far)
        for i, ray in enumerate(rays):
            if ray == target_ray:
                target_scan.distances[i] = target_distance
                break
        seen = [o for o in others
                if math.hypot(ego.x - o.x, ego.y - o.y) < p.avoid_range + 2.0 * p.avoid_margin
                and abs(wrap(math.atan2(o.y - ego.y, o.x - ego.x) - ego.heading)) < self.fov / 2]
        other_scans = [self.scan_other(ego, o, rays) for o in seen]
        wall_scans = []
        for wall in walls:
            n, c = _line_normal(wall.a, wall.b)
            if abs(n[0] * ego.x + n[1] * ego.y + c) - wall.margin > far:
                continue
            wall_scans.append(self.scan_wall(ego, wall, rays))
        free = _combine([target_scan,
                         _combine([s for s in other_scans if not s.collision], rays, far, False),
                         _combine([s for s in wall_scans if not s.collision], rays, far, False)],
                        rays, far, False)
        touching = _combine([_combine(other_scans, rays, far, True),
                             _combine(wall_scans, rays, far, True)], rays, far, True)

        points = []
        costs = []
        for i, ray in enumerate(rays):
            nearest = max(math.cos(target_ray - ray) * target_distance, 1.0)
            length = min(abs(free.distances[i]), nearest)
            point = (length * math.cos(ray), length * math.sin(ray))
            points.append(point)
            turn = abs(wrap(ego.heading - ray))
            costs.append(math.hypot(ego.x + point[0] - target[0], ego.y + point[1] - target[1])
                         + max(turn, 0.5) * 0.1 + max(turn - math.pi / 2.0, 0.0) * 2.0)

        chosen = 0
        waypoint: Vec = (0.0, 0.0)
        if p.use_safety:
            best = math.inf
            for i, cost in enumerate(costs):
                if cost < best and touching.safety[i] > p.safety_threshold:
                    best, chosen = cost, i
            if best < math.inf:
                waypoint = points[chosen]
        elif not touching.collision:
            chosen = min(range(len(rays)), key=lambda i: (costs[i], i))
            waypoint = points[chosen]
        else:
            chosen = max(range(len(rays)), key=lambda i: (touching.distances[i], -i))
            d = abs(touching.distances[chosen])
            waypoint = (d * math.cos(rays[chosen]), d * math.sin(rays[chosen]))

        # Speed limit: slow down where obstacles close by leave only a tight turn.
        chosen_ray = rays[chosen]
        min_radius = 1e10
        for i, ray in enumerate(rays):
            between = (wrap(ray - ego.heading) > 0.1 and wrap(chosen_ray - ray) > 0.1) or \
                (wrap(ego.heading - ray) > 0.1 and wrap(ray - chosen_ray) > 0.1)
            if free.distances[i] < 50.0 and between:
                sine = math.sin(abs(ray - ego.heading))
                if sine != 0.0:
                    min_radius = min(min_radius, (free.distances[i] + 20.0) / (2.0 * sine))
        limit = max(8.0, min_radius * max(1.0, abs(ego.angular_speed)))
        if touching.collision:
            for i, ray in enumerate(rays):
                if abs(wrap(ray - ego.heading)) < 2.0 * math.pi / p.avoid_samples and \
                        touching.safety[i] <= 0.0:
                    limit = 100.0 * max(0.0, touching.safety[i] * 2.0 + 1.0)
                    break
        return waypoint, touching.collision, limit


# --- Boids ------------------------------------------------------------------------------------

def boids_force(ego: Ego, others: Sequence[Other], target: Optional[Vec],
                p: NavigatorParameters) -> Vec:
    """Reynolds' rules as the SDK's ``Boids.Run`` (dots): attraction (when there is a
    target), separation, cohesion and alignment, each weighted and clipped."""
    seen = []
    for o in others:
        bearing = wrap(math.atan2(o.y - ego.y, o.x - ego.x) - ego.heading)
        within = bearing < p.boids_fov if p.boids_signed_fov else abs(bearing) < p.boids_fov
        if math.hypot(o.x - ego.x, o.y - ego.y) - 2.0 * p.boids_margin < p.boids_range \
                and within:
            seen.append(o)
    force = (0.0, 0.0)
    if target is not None:
        attract = _unit((target[0] - ego.x, target[1] - ego.y))
        force = (attract[0] * p.weight_attraction, attract[1] * p.weight_attraction)
    separation = (0.0, 0.0)
    for o in seen:
        away = (ego.x - o.x, ego.y - o.y)
        distance = max(1.0, math.hypot(*away) - 2.0 * p.boids_margin)
        push = p.boids_range / distance - 1.0
        u = _unit(away)
        separation = (separation[0] + u[0] * push, separation[1] + u[1] * push)
    separation = _clip((separation[0] * p.weight_separation,
                        separation[1] * p.weight_separation), p.max_separation)
    cohesion = alignment = (0.0, 0.0)
    if seen:
        n = len(seen)
        cohesion = (sum(o.x - ego.x for o in seen) / n, sum(o.y - ego.y for o in seen) / n)
        alignment = (sum(o.velocity[0] for o in seen) / n, sum(o.velocity[1] for o in seen) / n)
    cohesion = _clip((cohesion[0] * p.weight_cohesion, cohesion[1] * p.weight_cohesion),
                     p.max_cohesion)
    alignment = _clip((alignment[0] * p.weight_alignment, alignment[1] * p.weight_alignment),
                      p.max_alignment)
    total = (force[0] + separation[0] + cohesion[0] + alignment[0],
             force[1] + separation[1] + cohesion[1] + alignment[1])
    return _clip(total, p.max_boids)


# --- the method -------------------------------------------------------------------------------

class Navigator(AvoidanceMethod):
    """The SDK's ``Navigator.GetWaypointTo`` in one of its modes, and what
    ``CubeHandle.Navi2Target`` makes of its result, as a velocity to track."""

    params: NavigatorParameters

    def __init__(self, params: NavigatorParameters, mode: str = "AVOID") -> None:
        if mode not in MODES:
            raise ValueError(f"navigator mode must be one of {MODES}, got {mode!r}")
        super().__init__(params)
        self.mode = mode
        self.avoid = HLAvoid(params)

    def dot_m(self, view: RobotView) -> float:
        return self.params.dot_m or view.true_radius / CUBE_RADIUS_DOTS

    def sensing_range(self, view_radius: float) -> float:
        """How far (m) walls matter: HLAvoid's range and margin."""
        dot = self.params.dot_m or view_radius / CUBE_RADIUS_DOTS
        return (self.params.avoid_range + self.params.avoid_margin + 1.0) * dot

    def compute_velocity(self, view: RobotView) -> MethodOutput:
        p = self.params
        dot = self.dot_m(view)
        target_m = view.target
        if target_m is None or math.hypot(*view.pref_velocity) == 0.0:
            return MethodOutput((0.0, 0.0))

        def dots(point: Vec) -> Vec:
            return (point[0] / dot, point[1] / dot)

        velocity = dots(view.velocity)
        ego = Ego(view.position[0] / dot, view.position[1] / dot, view.heading,
                  math.hypot(*velocity), velocity, view.angular_speed)
        target = dots(target_m)
        others = [Other(n.position[0] / dot, n.position[1] / dot, dots(n.velocity), n.key)
                  for n in view.neighbors]
        flock = [o for o in others if o.key not in p.boids_ignore]
        walls = [Wall(dots(e.point), dots(e.next.point), p.wall_margin)
                 for e in view.obstacle_edges if e.next is not None
                 and e.point != e.next.point]

        limit = math.inf
        report = {"mode": self.mode}
        if self.mode == "BOIDS":
            force = boids_force(ego, flock, target, p)
            waypoint = force
            ratio = math.hypot(*force) / 75.0 * p.speed_ratio_boids
        elif self.mode == "BOIDS_AVOID":
            force = boids_force(ego, flock, None, p)
            reach = math.hypot(target[0] - ego.x, target[1] - ego.y) / 100.0 * p.surrogate_target
            surrogate = (target[0] + force[0] * reach, target[1] + force[1] * reach)
            waypoint, colliding, limit = self.avoid.run_towards(ego, others, surrogate, walls)
            u = _unit(waypoint)
            ratio = max(0.0, (force[0] * u[0] + force[1] * u[1]) / 100.0
                        * p.speed_ratio_boids_avoid + 1.0)
            report["colliding"] = colliding
        else:
            waypoint, colliding, limit = self.avoid.run_towards(ego, others, target, walls)
            ratio = 1.0
            report["colliding"] = colliding

        distance = math.hypot(*waypoint)
        if distance == 0.0:  # nowhere safe to go: stay
            return MethodOutput((0.0, 0.0), report=report)
        # Navi2Target: speed = min(limit, top speed * ratio); Move2Target slows down
        # within half the top speed (in motor units) of the waypoint.
        top = math.hypot(*view.pref_velocity)
        top_units = top / (VDOT_PER_MOTOR_UNIT * dot)
        cruise = min(top * ratio, limit * VDOT_PER_MOTOR_UNIT * dot, view.max_speed)
        half = 0.5 * max(top_units, MOTOR_DEAD_ZONE)
        speed = cruise * min(max(distance, 0.5 * MOTOR_DEAD_ZONE), half) / half
        return MethodOutput((waypoint[0] / distance * speed, waypoint[1] / distance * speed),
                            report=report, waypoint=(view.position[0] + waypoint[0] * dot,
                                                     view.position[1] + waypoint[1] * dot),
                            waypoint_speed=cruise)


def _navigator(mode: str):
    def create(params: NavigatorParameters) -> Navigator:
        return Navigator(params, mode)
    return create


NAVIGATOR_CAPABILITIES = Capabilities(keep_right=False, safety_filter=False,
                                      cube_tracking="move2target")
HLAVOID = MethodSpec(
    "hlavoid", "the toio SDK Navigator's AVOID mode (HLAvoid, Guzzi et al. 2013)",
    _navigator("AVOID"), NavigatorParameters, capabilities=NAVIGATOR_CAPABILITIES)
BOIDS = MethodSpec(
    "boids", "the toio SDK Navigator's BOIDS mode (attraction, separation, cohesion, "
    "alignment)", _navigator("BOIDS"), NavigatorParameters,
    capabilities=NAVIGATOR_CAPABILITIES)
BOIDS_AVOID = MethodSpec(
    "boids_avoid", "the toio SDK Navigator's BOIDS_AVOID mode (HLAvoid towards a target "
    "shifted by Boids)", _navigator("BOIDS_AVOID"), NavigatorParameters,
    capabilities=NAVIGATOR_CAPABILITIES)


def register() -> None:
    """Register ``hlavoid``, ``boids`` and ``boids_avoid`` (the entry point ``navigator``)."""
    for spec in (HLAVOID, BOIDS, BOIDS_AVOID):
        register_method(spec)
