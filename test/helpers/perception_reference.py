"""Neighbour perception over readings' rows in pure Python: what
``orca_ros/core/orca/_orca2d.c``'s ``perceive_rows`` computes, composed of the package's
own rules (:func:`~orca_ros.core.robot.perception.perceive_neighbor`,
:func:`~orca_ros.core.robot.perception.select_neighbors`) and the cheap reach test the
cycle used to run in Python (:func:`beyond_reach`), in their order of operations; and
what the rows become after it, the former Python bodies of the cycle's and the
controller's loops that ``observed_rows``, ``make_neighbors`` and ``neighbor_views``
replaced; and the reciprocity monitor's former Python (:class:`ReciprocityMonitor`,
:func:`reciprocity_violation`). The tests' reference for the C code
(``test/unit/robot/test_perception_rows.py``, ``test/unit/robot/test_neighbor_stage_c.py``).
Nothing in the package imports this module.
"""

from __future__ import annotations

import collections
import math
from dataclasses import dataclass
from typing import List, Mapping, Optional, Sequence

from orca_ros.core.geometry.types import Vector2
from orca_ros.core.robot import perception
from orca_ros.core.robot.perception import perceive_neighbor, select_neighbors
from orca_ros.core.robot.readings import (ANNOUNCED, STAMP, UNCERTAINTY, VX, VY, X, Y)
from orca_ros.core.geometry.linprog import HalfPlane
from orca_ros.core.methods import NeighborView
from orca_ros.core.robot.state import Neighbor


def beyond_reach(position: Vector2, seen_position: Vector2, seen_velocity: Vector2,
                 age: float, max_speed: float, neighbor_dist: float) -> bool:
    """Whether a neighbour seen at ``seen_position`` moving at ``seen_velocity``, ``age``
    s ago, is certainly not within ``neighbor_dist`` of ``position`` for
    :func:`select_neighbors` once :func:`perceive_neighbor` has carried it forward.

    Carried forward it is at most ``speed * age`` further on (``speed`` = its
    norm) with at most ``(max_speed + speed) age`` of uncertainty
    (:func:`position_uncertainty`), so its distance less its uncertainty is at
    least ``d - (max_speed + 2 speed) age``. A cheap test that lets a robot pass
    over the far ones of a hundred neighbours without perceiving each.
    """
    speed = math.hypot(seen_velocity[0], seen_velocity[1])
    distance = math.hypot(seen_position[0] - position[0], seen_position[1] - position[1])
    return distance - (max_speed + 2.0 * speed) * max(age, 0.0) >= neighbor_dist


def perceive_neighbor_rows(data, names: Sequence[str], x: float, y: float, now: float, lag: float,
                  max_speed: float, max_accel: float, extrapolate: float,
                  neighbor_dist: float, max_uncertainty: float,
                  keep: Optional[bytes] = None) -> List[tuple]:
    """Reference of ``_orca2d.perceive_rows`` (see its docstring)."""
    passed = []
    for k, name in enumerate(names):
        row = [float(v) for v in data[k]]
        position, velocity = (row[X], row[Y]), (row[VX], row[VY])
        age = max(0.0, now - row[STAMP]) + lag
        if not (keep and keep[k]) and beyond_reach((x, y), position, velocity, age,
                                                   max_speed, neighbor_dist):
            continue
        seen = Neighbor(position, velocity, 0.0, name,
                        min(row[UNCERTAINTY], max_uncertainty))
        perceived = perceive_neighbor(seen, age, max_speed, max_accel, extrapolate)
        passed.append((k, perceived, row))
    selected = select_neighbors((x, y), [p for _, p, _ in passed], neighbor_dist)
    chosen = {id(n): n for n in selected}
    first = [item for n in selected for item in passed if item[1] is n]
    rest = [item for item in passed if id(item[1]) not in chosen]
    return [(k, row[STAMP], p.position[0], p.position[1], row[VX], row[VY], p.uncertainty,
             p.age_uncertainty, id(p) in chosen, row[ANNOUNCED] != 0.0)
            for k, p, row in first + rest]


def observed_rows(passed: List[tuple], names: Sequence[str], observed: dict,
                  waiting) -> List[tuple]:
    """Reference of ``_orca2d.observed_rows`` (see its docstring)."""
    judged = []
    for row in passed:
        name, stamp = names[row[0]], row[1]
        if observed.get(name) != stamp:
            observed[name] = stamp
            if name in waiting:
                judged.append((name, stamp, (row[4], row[5])))
    return judged


def make_neighbors(passed: List[tuple], names: Sequence[str], keep: Optional[bytes],
                   listed: dict, heard: dict, default_radius: float, refusing,
                   unannounced: bool) -> List[Neighbor]:
    """Reference of ``_orca2d.make_neighbors`` (see its docstring)."""
    perceived = []
    for k, _, px, py, vx, vy, uncertainty, added, selected, announced in passed:
        name = names[k]
        if not selected and not (keep and keep[k]):
            continue
        radius = listed.get(name)
        if radius is None:
            radius = heard.get(name, default_radius)
        reciprocates = name not in refusing and (announced or unannounced)
        perceived.append(Neighbor((px, py), (vx, vy), radius, name, uncertainty,
                                  reciprocates, added))
    return perceived


def planning_uncertainty(n: Neighbor) -> float:
    """All of a neighbour's uncertainty for one that does not reciprocate; for one that
    does, all but its data's age's."""
    if not n.reciprocates:
        return n.uncertainty
    return max(n.uncertainty - n.age_uncertainty, 0.0)


def neighbor_views(c, position: Vector2, velocity: Vector2, own_radius: float, held: float,
                   neighbors: Sequence[Neighbor]) -> List[NeighborView]:
    """Reference of ``_orca2d.neighbor_views`` (``RobotController.neighbor_views``): ``c``
    the effective configuration, ``held`` the margin's share held."""
    vx, vy = velocity
    views = []
    for n in neighbors:
        nvx, nvy = n.velocity
        radius = c.avoidance_radius(n.radius) - c.pair_margin_shortfall(
            c.radius, n.radius, math.hypot(vx - nvx, vy - nvy), held)
        uncertainty = planning_uncertainty(n)
        if uncertainty > 0.0:
            free = math.dist(position, n.position) - own_radius - radius
            radius += min(uncertainty, 0.5 * max(free, 0.0))
        views.append(NeighborView(n.position, n.velocity, radius, n.key, n.reciprocates))
    return views


def reciprocity_violation(half_plane: HalfPlane, own_velocity: Vector2,
                          neighbor_velocity_then: Vector2,
                          neighbor_velocity_now: Vector2) -> float:
    """How far a neighbour's new velocity lies outside its reciprocal ORCA half-plane (m/s).

    Our half-plane ``ORCA_A|B`` passes through ``v_A + u/2`` with normal ``m``
    (to the left of its direction). A neighbour B running ORCA keeps to
    ``ORCA_B|A``: through ``v_B - u/2`` with normal ``-m`` (van den Berg et al.
    2011, eq. 4 from B's side). The violation is
    ``(v_B' - v_B + (v_A + u/2) - v_A) . m``: positive when B's new velocity
    ``v_B'`` is outside its half-plane, for instance when B keeps its velocity
    on a collision course (then it is ``|u|/2``).
    """
    mx, my = -half_plane.direction_y, half_plane.direction_x
    half_u = (half_plane.point_x - own_velocity[0], half_plane.point_y - own_velocity[1])
    return ((neighbor_velocity_now[0] - neighbor_velocity_then[0] + half_u[0]) * mx
            + (neighbor_velocity_now[1] - neighbor_velocity_then[1] + half_u[1]) * my)


@dataclass
class _Expectation:
    stamp: float
    half_plane: HalfPlane
    own_velocity: Vector2
    neighbor_velocity: Vector2
    judge_after: float  # the neighbour's answer is in its velocity measured after this


class ReciprocityMonitor(perception.ReciprocityMonitor):
    """Reference of :class:`orca_ros.core.robot.perception.ReciprocityMonitor`'s
    ``expect`` and ``observe``, which are C (``_orca2d.reciprocity_expect``,
    ``reciprocity_observe``): their former Python, unchanged (its expectations
    :class:`_Expectation` objects, its histories deques); the rest is the package's."""

    def expect(self, name: str, stamp: float, half_plane: HalfPlane, own_velocity: Vector2,
               neighbor_velocity: Vector2, now: Optional[float] = None) -> None:
        """Our half-plane against ``name``, built at ``now`` (default ``stamp``) from its
        data of time ``stamp``: judged on its velocity measured after
        ``now + (now - stamp)``. One expectation per neighbour waits at a time."""
        built = stamp if now is None else max(now, stamp)
        pending = self._pending.get(name)
        if pending is not None and built - pending.judge_after <= self.window:
            return  # the one before still waits for its answer
        self._pending[name] = _Expectation(stamp, half_plane, own_velocity, neighbor_velocity,
                                           built + (built - stamp))

    @property
    def waiting(self) -> Mapping[str, object]:
        """The neighbours an expectation waits on (by name): :meth:`observe` judges only
        those."""
        return self._pending

    def observe(self, name: str, stamp: float, velocity: Vector2) -> None:
        """``name``'s velocity measured at ``stamp``."""
        expectation = self._pending.get(name)
        if expectation is None or stamp <= expectation.judge_after:
            return
        del self._pending[name]
        half_plane = expectation.half_plane
        half_u = math.hypot(half_plane.point_x - expectation.own_velocity[0],
                            half_plane.point_y - expectation.own_velocity[1])
        if half_u <= self.tolerance:
            return  # nothing was asked of it
        violated = reciprocity_violation(half_plane, expectation.own_velocity,
                                         expectation.neighbor_velocity, velocity) > self.tolerance
        history = self._history.setdefault(name, collections.deque())
        history.append((stamp, violated))
        violations = self._violations.get(name, 0) + violated
        while history and history[0][0] < stamp - self.window:
            violations -= history.popleft()[1]
        self._violations[name] = violations
        if violations >= self.min_violations and violations >= self.ratio * len(history):
            self._flagged_at[name] = stamp
        if violated and name in self._flagged_at:
            self._flagged_at[name] = stamp
