"""A goal is held, not only reached: a robot pushed off its goal after arriving comes
back, and a run is done only when every robot is at its goal at once (the world, and
fleet_sim's record that ends runs through ROS)."""

import numpy as np
import yaml
import pytest

from orca_ros.core.scenario.loader import load_scenario, parse_scenario, resolve_scenario
from orca_ros.core.sim.metrics import FleetRecord
from orca_ros.core.sim.world import World, WorldOptions
from orca_ros.fleet.runner import all_held

TWO = """
name: two
time_step: 0.1
max_time: 30.0
on_goal: {on_goal}
defaults: {{radius: 0.2, max_speed: 0.5, pref_speed: 0.4}}
agents:
- {{name: a, start: [0.0, 0.0], goal: [5.0, 0.0]}}
- {{name: b, start: [0.0, 2.0], goal: [5.0, 2.0]}}
"""


@pytest.mark.parametrize("kinematics", ["holonomic", "diff_drive"])
def test_a_robot_pushed_off_its_goal_comes_back_before_the_run_is_done(kinematics):
    scenario = load_scenario(resolve_scenario("crossing_4"))
    world = World(scenario, WorldOptions(kinematics=kinematics))
    while not world.all_arrived and world.time < scenario.max_time:
        world.step()
    assert world.all_arrived
    i = world.names.index("north")
    goal, tolerance = np.array(scenario.agents[i].goal), scenario.goal_tolerance_of(
        scenario.agents[i])
    world.positions[i] = goal + (0.5, 0.3)  # pushed 0.58 m off by a robot passing
    assert not world.all_arrived  # arrived once, not at its goal now
    pushed_at = world.time
    while not world.all_arrived and world.time < pushed_at + 10.0:
        world.step()
    assert np.linalg.norm(world.positions[i] - goal) <= tolerance
    assert world.result(0.0).reached == 4 and world.at_goal_count() == 4


def test_fleet_sims_record_counts_who_is_at_its_goal_now_apart_from_who_arrived():
    scenario = parse_scenario(yaml.safe_load(TWO.format(on_goal="stay")))
    record = FleetRecord(scenario, [(0.0, 0.0), (0.0, 2.0)])
    record.record(1.0, [(5.0, 0.0), (4.0, 2.0)])
    assert (record.arrived, record.at_goal) == (1, 1)
    record.record(2.0, [(5.6, 0.0), (5.0, 2.0)])  # a pushed off, b arrives
    assert (record.arrived, record.at_goal) == (2, 1)
    assert not all_held(record, scenario)
    record.record(3.0, [(5.1, 0.0), (5.0, 2.0)])  # a back within tolerance
    assert (record.arrived, record.at_goal) == (2, 2)
    assert all_held(record, scenario)
    assert record.arrival_time.tolist() == [1.0, 2.0]  # arrivals stay the first ones


def test_where_robots_leave_at_their_goals_arriving_is_enough():
    scenario = parse_scenario(yaml.safe_load(TWO.format(on_goal="remove")))
    record = FleetRecord(scenario, [(0.0, 0.0), (0.0, 2.0)])
    record.record(1.0, [(5.0, 0.0), (4.0, 2.0)])
    record.record(2.0, [(5.6, 0.0), (5.0, 2.0)])
    assert all_held(record, scenario)
