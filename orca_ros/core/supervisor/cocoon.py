"""The virtual-cocoon conflict supervisor (Baranauskas et al., IASC 2022), centralized.

Every robot is wrapped in a cocoon of radius ``(1 + cocoon_k) * r``. When two
cocoons touch, the pair is judged once: does their predicted motion collide?
If so, the robot nearer the crossing of their paths keeps going (priority)
and the other yields: it slows, stops, or side-steps to its right and returns
to its line. The mathematics (reconstructed, and where the paper is only a
heuristic) is in doc/how_it_works/supervisor.md; equation numbers refer to the paper.

Robots are assumed to drive straight at their goals at their nominal speed
(the paper's setting); the prediction is the closest approach of those
piecewise-linear motions, each robot stopping at its goal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from ..geometry.types import Vector2, as_finite

MODES = ("exact", "paper")
YIELD_MODES = ("stop", "slow")
RESOLUTIONS = ("stop", "slow", "side_step")


TIE_DISTANCE_M = 0.05
"""Distances to the crossing that differ by no more than this (m) are a tie, decided by
``priority_order``. Through ROS two robots that set off together are seen a step or two
apart (0.5 m/s and 50 Hz odometry: 1 cm a step; each robot takes its goal as its own
messages come), so a finer tie would be decided by which message came first."""


@dataclass(frozen=True)
class CocoonConfig:
    cocoon_k: float = 1.0
    mode: str = "exact"
    yield_mode: str = "stop"
    margin: float = 0.05
    horizon: float = 30.0
    hysteresis: float = 0.02
    tie_distance: float = TIE_DISTANCE_M
    priority_order: Tuple[str, ...] = ()
    parallel_deg: float = 3.0
    side_step_step_deg: float = 15.0
    side_step_max_deg: float = 90.0
    max_wait: float = 0.0  # s; 0 = a directive holds until its conflict clears
    pairs_only: bool = False  # judge only pairs whose cocoons touch no third robot's

    def __post_init__(self) -> None:
        as_finite(self.cocoon_k, "cocoon_k", strictly_positive=True)
        for name in ("margin", "hysteresis", "tie_distance", "parallel_deg", "max_wait"):
            as_finite(getattr(self, name), name, minimum=0.0)
        as_finite(self.horizon, "horizon", strictly_positive=True)
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if self.yield_mode not in YIELD_MODES:
            raise ValueError(f"yield_mode must be one of {YIELD_MODES}, got {self.yield_mode!r}")
        object.__setattr__(self, "priority_order", tuple(self.priority_order))

    def check_names(self, names: Sequence[str]) -> None:
        """Reject ``priority_order`` entries that name no robot (a typo would silently
        change who yields)."""
        unknown = [n for n in self.priority_order if n not in set(names)]
        if unknown:
            raise ValueError(f"priority_order names unknown robots {unknown}; "
                             f"robots are {sorted(names)}")


@dataclass(frozen=True)
class Track:
    """A robot as the supervisor sees it: where it is, where it goes, how fast, how big."""

    name: str
    position: Vector2
    radius: float
    speed: float  # nominal cruise speed (m/s)
    goal: Optional[Vector2] = None  # None: standing (no task)

    def velocity(self, speed_factor: float = 1.0, turn: float = 0.0) -> Vector2:
        """Nominal velocity straight at the goal, scaled and turned (rad, + = left)."""
        if self.goal is None:
            return (0.0, 0.0)
        dx, dy = self.goal[0] - self.position[0], self.goal[1] - self.position[1]
        distance = math.hypot(dx, dy)
        if distance < 1e-9:
            return (0.0, 0.0)
        c, s = math.cos(turn), math.sin(turn)
        ux, uy = dx / distance, dy / distance
        v = self.speed * speed_factor
        return (v * (c * ux - s * uy), v * (s * ux + c * uy))

    def time_to_goal(self, speed_factor: float = 1.0) -> float:
        if self.goal is None or self.speed * speed_factor <= 0.0:
            return 0.0
        return math.dist(self.position, self.goal) / (self.speed * speed_factor)


MAX_CARRY_S = 0.5
"""The most (s) :func:`positions_at_one_instant` carries a robot forward."""


def positions_at_one_instant(readings: Mapping[str, Tuple[Vector2, Vector2, Optional[float]]],
                             max_carry: float = MAX_CARRY_S) -> Dict[str, Vector2]:
    """Every robot where it is at the newest stamp among ``readings`` (name -> position,
    velocity, stamp in s; a reading without a stamp counts as the newest): an older
    reading (the robot's message of the same step not yet taken) is carried forward at
    its velocity, by at most ``max_carry``. Judged from readings of different steps, two
    robots the same distance from a crossing were 1 cm apart and the tie was decided by
    which message came first."""
    stamps = [stamp for _, _, stamp in readings.values() if stamp is not None]
    newest = max(stamps, default=0.0)
    positions = {}
    for name, (position, velocity, stamp) in readings.items():
        carry = min(max(newest - (newest if stamp is None else stamp), 0.0), max_carry)
        positions[name] = (position[0] + velocity[0] * carry, position[1] + velocity[1] * carry)
    return positions


@dataclass(frozen=True)
class Motion:
    """A straight motion from ``start`` at ``velocity`` that stops after ``duration`` s."""

    start: Vector2
    velocity: Vector2
    duration: float

    def at(self, t: float) -> Vector2:
        t = min(max(t, 0.0), self.duration)
        return (self.start[0] + self.velocity[0] * t, self.start[1] + self.velocity[1] * t)


def nominal_motion(track: Track, speed_factor: float = 1.0, turn: float = 0.0,
                   duration: Optional[float] = None) -> Motion:
    velocity = track.velocity(speed_factor, turn)
    if duration is None:
        duration = track.time_to_goal(speed_factor) if turn == 0.0 else math.inf
    return Motion(track.position, velocity, duration)


def closest_approach(a: Motion, b: Motion, horizon: float) -> Tuple[float, float]:
    """``(distance, time)`` of the closest approach of two stopping straight motions
    within ``horizon``.

    The relative motion is linear on each interval between the stop times, so
    the minimum of each interval's quadratic is found in closed form.
    """
    breaks = sorted({0.0, min(a.duration, horizon), min(b.duration, horizon), horizon})
    best = (math.inf, 0.0)
    for t0, t1 in zip(breaks, breaks[1:] + [breaks[-1]]):
        p_a, p_b = a.at(t0), b.at(t0)
        rx, ry = p_b[0] - p_a[0], p_b[1] - p_a[1]
        va = a.velocity if t0 < a.duration else (0.0, 0.0)
        vb = b.velocity if t0 < b.duration else (0.0, 0.0)
        wx, wy = vb[0] - va[0], vb[1] - va[1]
        w_sq = wx * wx + wy * wy
        t = 0.0 if w_sq < 1e-18 else min(max(-(rx * wx + ry * wy) / w_sq, 0.0), t1 - t0)
        distance = math.hypot(rx + wx * t, ry + wy * t)
        if distance < best[0]:
            best = (distance, t0 + t)
    return best


def limit_angle(combined_radius: float, distance: float) -> float:
    """LA(d) = 2 asin((r_i + r_j) / d): the collision cone's opening at distance d (eq. 10)."""
    return 2.0 * math.asin(min(1.0, combined_radius / max(distance, 1e-12)))


def crossing_distances(a: Track, b: Track, parallel_deg: float) -> Optional[Tuple[float, float]]:
    """Signed distances along each robot's heading to the crossing O of their paths.

    ``None`` for parallel paths (no crossing point) or a robot without motion.
    """
    va, vb = a.velocity(), b.velocity()
    if va == (0.0, 0.0) or vb == (0.0, 0.0):
        return None
    ha = math.atan2(va[1], va[0])
    hb = math.atan2(vb[1], vb[0])
    ua = (math.cos(ha), math.sin(ha))
    ub = (math.cos(hb), math.sin(hb))
    det = ua[0] * (-ub[1]) - ua[1] * (-ub[0])
    if abs(math.sin(ha - hb)) < math.sin(math.radians(parallel_deg)):
        return None
    rx, ry = b.position[0] - a.position[0], b.position[1] - a.position[1]
    # a.position + s ua = b.position + t ub
    s = (rx * (-ub[1]) - ry * (-ub[0])) / det
    t = (ua[0] * ry - ua[1] * rx) / det
    return s, t


@dataclass
class Decision:
    """One supervisor action (or capture), as the JSON summary lists it."""

    t: float
    robots: Tuple[str, str]
    priority: Optional[str]
    yielding: Optional[str]
    resolution: str  # stop | slow | side_step | none

    def as_dict(self) -> Dict[str, object]:
        return {"t": round(self.t, 4), "robots": list(self.robots), "priority": self.priority,
                "yielding": self.yielding, "resolution": self.resolution}


@dataclass
class Directive:
    """What a yielding robot is told: a speed factor (0 = stop) or a detour."""

    robot: str
    resolution: str
    pair: Tuple[str, str]
    priority: str
    speed_factor: float = 1.0
    detour: Tuple[Vector2, ...] = ()
    since: float = 0.0

    def speed_limit(self, pref_speed: float) -> Optional[float]:
        """The speed (m/s) the robot is held to: ``speed_factor`` of its preferred speed,
        or None for a side step (a detour, at its own speed)."""
        return None if self.resolution == "side_step" else self.speed_factor * pref_speed


@dataclass
class _Ban:
    """A judged pair: the velocities it was judged on (BanCnflct)."""

    velocities: Tuple[Vector2, Vector2]


class CocoonSupervisor:
    """Pairwise conflict prediction and resolution, one ``update`` per tick."""

    def __init__(self, config: CocoonConfig = CocoonConfig()) -> None:
        self.config = config
        self.bans: Dict[FrozenSet[str], _Ban] = {}
        self.directives: Dict[str, Directive] = {}
        self.decisions: List[Decision] = []
        self._captured: set = set()
        self._expired: set = set()  # pairs whose directive lapsed after max_wait

    # --- geometry ----------------------------------------------------------------

    def cocoon_radius(self, track: Track) -> float:
        return (1.0 + self.config.cocoon_k) * track.radius

    def touching(self, a: Track, b: Track, slack: float = 0.0) -> bool:
        return math.dist(a.position, b.position) <= \
            self.cocoon_radius(a) + self.cocoon_radius(b) + slack

    def clears(self, a: Motion, b: Motion, combined_radius: float) -> bool:
        distance, _ = closest_approach(a, b, self.config.horizon)
        return distance >= combined_radius + self.config.margin

    def commanded_motion(self, track: Track) -> Motion:
        """The motion the robot is driving now: nominal, or as its directive says."""
        directive = self.directives.get(track.name)
        if directive is None:
            return nominal_motion(track)
        if directive.resolution == "side_step" and directive.detour:
            x, y = directive.detour[0]
            dx, dy = x - track.position[0], y - track.position[1]
            distance = math.hypot(dx, dy)
            if distance > 1e-9:
                return Motion(track.position, (dx / distance * track.speed,
                                               dy / distance * track.speed),
                              distance / track.speed)
        return nominal_motion(track, directive.speed_factor) if directive.speed_factor > 0 \
            else Motion(track.position, (0.0, 0.0), math.inf)

    def in_conflict(self, a: Track, b: Track, nominal: bool = False) -> bool:
        """Will the pair's motions collide (``exact``), or does eq. 11 say so (``paper``)?

        Motions are the commanded ones (a robot told to stop stands), or with
        ``nominal`` both robots' undisturbed motions (to decide a release).
        """
        combined = a.radius + b.radius
        motion_a = nominal_motion(a) if nominal else self.commanded_motion(a)
        motion_b = nominal_motion(b) if nominal else self.commanded_motion(b)
        undisturbed = nominal or (a.name not in self.directives and b.name not in self.directives)
        if self.config.mode == "paper" and undisturbed:
            verdict = self._paper_verdict(a, b)
            if verdict is not None:
                return verdict
        return not self.clears(motion_a, motion_b, combined)

    def _paper_verdict(self, a: Track, b: Track) -> Optional[bool]:
        """Eq. 11 with LA(d), and the corrected rule when one robot has passed O."""
        crossing = crossing_distances(a, b, self.config.parallel_deg)
        if crossing is None:
            return None  # parallel or standing: fall back to the exact test
        da, db = crossing
        d = math.dist(a.position, b.position)
        D = d
        p = (abs(da) + abs(db) + D) / 2.0
        if p <= 0 or p - D < 0 or p - abs(da) < 0 or p - abs(db) < 0:
            return None
        gamma = 2.0 * math.atan(math.sqrt((p - D) * (p - abs(da)) / max(p * (p - abs(db)), 1e-18)))
        delta = 2.0 * math.atan(math.sqrt((p - D) * (p - abs(db)) / max(p * (p - abs(da)), 1e-18)))
        la = limit_angle(a.radius + b.radius, d)
        if da > 0 and db > 0:
            return abs(gamma - delta) <= la
        if da <= 0 and db <= 0:
            return False  # both past the crossing
        receding_gamma = gamma if da <= 0 else delta
        other = delta if da <= 0 else gamma
        return receding_gamma > other and abs(gamma - delta) > math.pi - la

    # --- priority -----------------------------------------------------------------

    def standing(self, track: Track) -> bool:
        directive = self.directives.get(track.name)
        return track.goal is None or track.time_to_goal() == 0.0 or \
            (directive is not None and directive.resolution == "stop")

    def priority(self, a: Track, b: Track) -> Tuple[Track, Track]:
        """``(priority, yielding)`` for a conflicting pair."""
        sa, sb = self.standing(a), self.standing(b)
        if sa != sb:
            return (a, b) if sa else (b, a)
        crossing = crossing_distances(a, b, self.config.parallel_deg)
        if crossing is not None:
            ta = crossing[0] / max(a.speed, 1e-9)
            tb = crossing[1] / max(b.speed, 1e-9)
            if abs(crossing[0] - crossing[1]) > self.config.tie_distance and \
                    (ta >= 0 or tb >= 0):
                # Nearer the crossing point first; a robot already past it has
                # nothing left to cross and keeps going.
                key_a = ta if ta >= 0 else -math.inf
                key_b = tb if tb >= 0 else -math.inf
                if key_a != key_b:
                    return (a, b) if key_a < key_b else (b, a)
        else:
            va, vb = a.velocity(), b.velocity()
            if va[0] * vb[0] + va[1] * vb[1] > 0:  # same direction: the leader goes first
                rx, ry = b.position[0] - a.position[0], b.position[1] - a.position[1]
                ahead = rx * (va[0] + vb[0]) + ry * (va[1] + vb[1])
                if abs(ahead) > 1e-3:
                    return (b, a) if ahead > 0 else (a, b)
        return self._tie_break(a, b)

    def _tie_break(self, a: Track, b: Track) -> Tuple[Track, Track]:
        order = self.config.priority_order
        rank = {name: k for k, name in enumerate(order)}
        key_a = (rank.get(a.name, len(order)), a.name)
        key_b = (rank.get(b.name, len(order)), b.name)
        return (a, b) if key_a < key_b else (b, a)

    # --- resolution ---------------------------------------------------------------

    def resolve(self, priority: Track, yielding: Track) -> Directive:
        c = self.config
        combined = priority.radius + yielding.radius
        ahead = nominal_motion(priority)
        pair = tuple(sorted((priority.name, yielding.name)))
        if c.yield_mode == "slow" and c.mode == "exact":  # the paper's rules only stop
            for tenth in range(9, 0, -1):
                factor = tenth / 10.0
                if self.clears(ahead, nominal_motion(yielding, factor), combined):
                    return Directive(yielding.name, "slow", pair, priority.name, factor)
        parked = priority.goal is None or priority.time_to_goal() == 0.0
        if not parked and self.clears(ahead, Motion(yielding.position, (0.0, 0.0), math.inf),
                                      combined):
            return Directive(yielding.name, "stop", pair, priority.name, 0.0)
        for sign in (-1.0, 1.0):  # right first, then left
            angle = c.side_step_step_deg
            while angle <= c.side_step_max_deg + 1e-9:
                turn = sign * math.radians(angle)
                if self.clears(ahead, nominal_motion(yielding, turn=turn), combined):
                    return Directive(yielding.name, "side_step", pair, priority.name,
                                     detour=self._detour(yielding, turn, combined))
                angle += c.side_step_step_deg
        return Directive(yielding.name, "stop", pair, priority.name, 0.0)

    def _detour(self, track: Track, turn: float, combined: float) -> Tuple[Vector2, ...]:
        """Side point along the turned heading, then a point back on the start-goal line at 45°."""
        vx, vy = track.velocity(turn=turn)
        speed = math.hypot(vx, vy)
        if speed == 0.0:
            return ()
        step = 2.0 * (combined + self.config.margin) / max(abs(math.sin(turn)), 0.25)
        side = (track.position[0] + vx / speed * step, track.position[1] + vy / speed * step)
        gx, gy = track.goal[0] - track.position[0], track.goal[1] - track.position[1]
        length = math.hypot(gx, gy)
        ux, uy = gx / length, gy / length
        along = (side[0] - track.position[0]) * ux + (side[1] - track.position[1]) * uy
        offset = abs((side[0] - track.position[0]) * uy - (side[1] - track.position[1]) * ux)
        back = min(along + offset, length)
        rejoin = (track.position[0] + ux * back, track.position[1] + uy * back)
        return (side, rejoin)

    # --- the tick -----------------------------------------------------------------

    def update(self, t: float, tracks: Sequence[Track]) -> Dict[str, Directive]:
        """Judge touching pairs and return the directives in force (by yielding robot)."""
        c = self.config
        by_name = {track.name: track for track in tracks}
        # Release directives whose pair no longer conflicts: the priority robot's
        # commanded motion against the yielder's undisturbed one.
        for name, directive in list(self.directives.items()):
            other = by_name.get(directive.priority)
            me = by_name.get(name)
            if me is None or other is None or \
                    self.clears(self.commanded_motion(other), nominal_motion(me),
                                other.radius + me.radius):
                del self.directives[name]
                self._drop_bans(name)
            elif c.max_wait > 0.0 and t - directive.since > c.max_wait:
                # Waited too long (a crowd that cannot clear): lift it and keep the pair
                # banned until the cocoons separate; local avoidance takes over.
                del self.directives[name]
                self._expired.add(frozenset(directive.pair))
        candidates = self._candidate_pairs(tracks)
        crowded = set()
        if c.pairs_only:
            contacts: Dict[str, int] = {}
            for first, second in candidates:
                if self.touching(by_name[first], by_name[second]):
                    contacts[first] = contacts.get(first, 0) + 1
                    contacts[second] = contacts.get(second, 0) + 1
            crowded = {name for name, count in contacts.items() if count > 1}
        for first, second in candidates:
            a, b = by_name[first], by_name[second]
            key = frozenset((first, second))
            if not self.touching(a, b):
                if not self.touching(a, b, c.hysteresis):
                    self.bans.pop(key, None)  # ClrCnflcts: the cocoons separated
                    self._captured.discard(key)
                    self._expired.discard(key)
                continue
            if key in self._expired:
                continue
            if first in crowded or second in crowded:
                continue  # part of a crowd: local avoidance's job, not a pairwise one
            velocities = (self.commanded_motion(a).velocity,
                          self.commanded_motion(b).velocity)
            ban = self.bans.get(key)
            if ban is not None and _same(ban.velocities, velocities):
                continue  # BanCnflct: judged already on these commanded velocities
            self.bans[key] = _Ban(velocities)
            if not self.in_conflict(a, b):
                if key not in self._captured:
                    self._captured.add(key)
                    self.decisions.append(Decision(t, (first, second), None, None, "none"))
                continue
            priority, yielding = self.priority(a, b)
            if yielding.name in self.directives:
                continue  # it already yields (to someone else)
            if self._waits_on(priority.name, yielding.name):
                continue  # making it wait would close a wait-for cycle: nobody could move
            directive = self.resolve(priority, yielding)
            directive.since = t
            self.directives[yielding.name] = directive
            self._drop_bans(yielding.name, keep=key)
            self.decisions.append(Decision(t, (first, second), priority.name, yielding.name,
                                           directive.resolution))
        return dict(self.directives)

    def _waits_on(self, waiter: str, target: str) -> bool:
        """Whether ``waiter`` waits, directly or through others, on ``target``."""
        seen = set()
        while waiter in self.directives and waiter not in seen:
            seen.add(waiter)
            waiter = self.directives[waiter].priority
            if waiter == target:
                return True
        return False

    def _candidate_pairs(self, tracks: Sequence[Track]) -> List[Tuple[str, str]]:
        """Pairs whose cocoons may touch (k-d tree), plus banned pairs, in name order."""
        pairs = {tuple(sorted(key)) for key in self.bans}
        if len(tracks) > 1:
            from scipy.spatial import cKDTree

            reach = 2.0 * max(self.cocoon_radius(t) for t in tracks) + self.config.hysteresis
            tree = cKDTree([t.position for t in tracks])
            for i, j in tree.query_pairs(reach):
                pairs.add(tuple(sorted((tracks[i].name, tracks[j].name))))
        known = {t.name for t in tracks}
        return sorted(p for p in pairs if p[0] in known and p[1] in known)

    def _drop_bans(self, name: str, keep: Optional[FrozenSet[str]] = None) -> None:
        """A robot whose command changes clears its stale bans (ClrCnflcts)."""
        for key in [k for k in self.bans if name in k and k != keep]:
            del self.bans[key]

    @property
    def actions(self) -> List[Decision]:
        return [d for d in self.decisions if d.resolution != "none"]


def _same(a: Tuple[Vector2, Vector2], b: Tuple[Vector2, Vector2], tol: float = 1e-3) -> bool:
    return all(abs(x - y) <= tol for va, vb in zip(a, b) for x, y in zip(va, vb))


SCENARIO_KEYS = {"cocoon_k", "mode", "yield_mode", "margin", "horizon", "hysteresis",
                 "tie_distance", "priority_order", "parallel_deg", "max_wait", "pairs_only"}


ORCA_MAX_WAIT = 5.0
"""s: how long a robot waits on a directive when ORCA runs underneath (a lapsed wait is
then safe: ORCA still keeps the pair apart). With the direct planner waits never lapse."""


def config_from_scenario(block: Dict[str, object], where: str = "supervisor",
                         with_orca: bool = False) -> CocoonConfig:
    """A scenario's ``supervisor:`` block as a config; unknown keys are rejected.

    ``with_orca``: local avoidance runs under the supervisor, so waits lapse
    after :data:`ORCA_MAX_WAIT` unless the block sets ``max_wait``, and only
    pairwise encounters are judged (``pairs_only``): crowds are ORCA's job.
    """
    unknown = set(block) - SCENARIO_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: "
                         f"{sorted(SCENARIO_KEYS)}")
    values = dict(block)
    if with_orca:
        values.setdefault("max_wait", ORCA_MAX_WAIT)
        values.setdefault("pairs_only", True)
    if "priority_order" in values:
        values["priority_order"] = tuple(values["priority_order"] or ())
    return CocoonConfig(**values)
