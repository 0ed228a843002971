"""Scenarios built in code (``orca_ros.core.scenario.builders``)."""

import itertools
import math

import pytest
import yaml

from orca_ros.core.geometry.vectors import point_segment_distance
from orca_ros.core.scenario.builders import FLEET_LAYOUTS, pairs_scenario_yaml
from orca_ros.core.scenario.loader import parse_scenario
from orca_ros.core.sim.world import World, WorldOptions


def _segment_gap(a, b):
    """The least distance between the segments a and b (each (start, goal)) that do not
    cross."""
    (a0, a1), (b0, b1) = a, b
    return min(point_segment_distance(a0, b0, b1), point_segment_distance(a1, b0, b1),
               point_segment_distance(b0, a0, a1), point_segment_distance(b1, a0, a1))


@pytest.mark.parametrize("robots", [1, 7, 40])
def test_in_the_pairs_layout_a_robot_meets_its_partner_only(robots):
    """Each pair's way (start to goal) stays at least twice the 4 m neighbour reach away
    from every other pair's: no robot is ever another pair's neighbour."""
    scenario = parse_scenario(yaml.safe_load(pairs_scenario_yaml(robots)), "<pairs>")
    agents = scenario.agents
    assert len(agents) == robots and len({a.name for a in agents}) == robots
    ways = [(a.start, a.waypoints[0]) for a in agents]  # (back and forth on that line)
    assert all(len(a.waypoints) == 5 and a.waypoints[1] == a.start for a in agents)
    for i, j in itertools.combinations(range(robots), 2):
        gap = _segment_gap(ways[i], ways[j])
        if i // 2 == j // 2:  # partners: their ways cross
            assert gap < 0.5
        else:
            assert gap >= 2 * agents[i].neighbor_dist - 1e-9
    assert all(math.dist(a.start, a.waypoints[0]) == pytest.approx(4.0) for a in agents)


def test_the_pairs_all_swap_in_the_world():
    scenario = parse_scenario(yaml.safe_load(FLEET_LAYOUTS["pairs"](9, legs=2)), "<pairs>")
    result = World(scenario, WorldOptions()).run()
    assert result.reached == 9 and result.collisions == 0
