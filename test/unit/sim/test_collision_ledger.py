"""The world's and fleet_sim's collision accounting against walls: many walls through a
spatial index, and a map's occupied cells."""

import numpy as np
import pytest

from orca_ros.core.maps import OccupancyMap
from orca_ros.core.sim import metrics
from orca_ros.core.sim.metrics import INDEXED_OUTLINES, CollisionLedger


def walls(seed, count):
    rng = np.random.default_rng(seed)
    outlines = []
    for k in range(count):
        centre = rng.uniform(0.0, 20.0, 2)
        if k % 2:  # a segment
            outlines.append(np.array([centre, centre + rng.normal(0.0, 0.5, 2)]))
        else:  # a small square, anticlockwise
            half = rng.uniform(0.05, 0.3)
            outlines.append(centre + half * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]))
    return outlines


@pytest.mark.parametrize("seed", range(5))
def test_with_many_walls_the_index_counts_what_judging_every_wall_counts(seed, monkeypatch):
    outlines = walls(seed, 4 * INDEXED_OUTLINES)
    rng = np.random.default_rng(seed + 100)
    steps = [rng.uniform(0.0, 20.0, (30, 2)) for _ in range(5)]
    radii = rng.uniform(0.1, 0.4, 30)
    names = [f"r{i}" for i in range(30)]
    indexed = CollisionLedger()
    for positions in steps:
        indexed.update(positions, radii, names, outlines)
    monkeypatch.setattr(metrics, "INDEXED_OUTLINES", 10 ** 9)
    every = CollisionLedger()
    for positions in steps:
        every.update(positions, radii, names, outlines)
    assert indexed.wall_pairs == every.wall_pairs and indexed.wall_pairs
    assert indexed.min_wall_gap == every.min_wall_gap
    assert indexed.deepest_wall == every.deepest_wall
    assert sorted(indexed.points) == sorted(every.points)


def test_a_robot_on_an_occupied_cell_collides_with_the_map():
    occupied = np.zeros((10, 10), bool)
    occupied[5, 5] = True  # x and y in [0.5, 0.6]
    ledger = CollisionLedger(occupancy=OccupancyMap(occupied, 0.1))
    ledger.update(np.array([[0.3, 0.55], [2.0, 2.0]]), np.array([0.2, 0.2]), ["a", "b"], [])
    assert ledger.min_wall_gap == pytest.approx(0.0)
    assert not ledger.wall_pairs  # touching is no contact
    ledger.update(np.array([[0.35, 0.55], [2.0, 2.0]]), np.array([0.2, 0.2]), ["a", "b"], [])
    assert ledger.wall_pairs == {("a", "map")}
    assert ledger.deepest_wall == pytest.approx(0.05)
