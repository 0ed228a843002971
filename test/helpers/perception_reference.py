"""Neighbour perception over readings' rows in pure Python: what
``orca_ros/core/orca/_orca2d.c``'s ``perceive_rows`` computes, composed of the package's
own rules (:func:`~orca_ros.core.robot.perception.perceive_neighbor`,
:func:`~orca_ros.core.robot.perception.select_neighbors`) and the cheap reach test the
cycle used to run in Python (:func:`beyond_reach`), in their order of operations; the
tests' reference for the C code (``test/unit/robot/test_perception_rows.py``). Nothing in
the package imports this module.
"""

from __future__ import annotations

import math
from typing import List, Optional, Sequence

from orca_ros.core.geometry.types import Vector2
from orca_ros.core.robot.perception import perceive_neighbor, select_neighbors
from orca_ros.core.robot.readings import (ANNOUNCED, STAMP, UNCERTAINTY, VX, VY, X, Y)
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
