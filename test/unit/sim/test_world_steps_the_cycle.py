"""The world steps every robot through the one robot cycle (:meth:`RobotCycle.step`):
a robot run in the world and the same robot's cycle fed by hand with the same
readings (zero age: the world's state at the step's start) send the same commands,
period after period; what only the cycle does (hold the robot for an invalid
``links`` setting) happens in the world too."""

import pytest

from orca_ros.core.robot.cycle import GoalState, OwnReading, RobotCycle
from orca_ros.core.robot.perception import NeighborRadii, NeighborReading
from orca_ros.core.robot.state import RobotState
from orca_ros.core.scenario.loader import parse_scenario
from orca_ros.core.sim.world import World, WorldOptions

SCENARIO = {
    "name": "three_meet", "time_step": 0.1, "max_time": 30.0,
    "defaults": {"radius": 0.25, "max_speed": 1.0, "pref_speed": 0.8, "neighbor_dist": 6.0,
                 "max_neighbors": 10, "time_horizon": 2.0, "time_horizon_obst": 1.0},
    "agents": [{"name": "a", "start": [-3.0, 0.1], "goal": [3.0, 0.0]},
               {"name": "b", "start": [3.0, -0.1], "goal": [-3.0, 0.0]},
               {"name": "c", "start": [0.1, -3.0], "goal": [0.0, 3.0]}],
    "obstacles": [{"vertices": [[-0.6, 1.6], [0.6, 1.6], [0.6, 2.0], [-0.6, 2.0]]}],
}
PERIODS = 60
SCENARIO_3D = {  # no two neighbours ever equally far: the same order by any rule
    "name": "three_meet_3d", "dimensions": 3, "time_step": 0.1, "max_time": 30.0,
    "defaults": {"radius": 0.25, "max_speed": 1.0, "pref_speed": 0.8, "neighbor_dist": 6.0,
                 "max_neighbors": 10, "time_horizon": 2.0},
    "agents": [{"name": "a", "start": [-3.0, 0.1, 1.5], "goal": [3.0, 0.0, 1.6]},
               {"name": "b", "start": [3.2, -0.1, 1.45], "goal": [-3.0, 0.0, 1.5]},
               {"name": "c", "start": [0.1, -2.7, 1.7], "goal": [0.0, 3.0, 1.4]}],
    "obstacles": [],
}


def _twin(world, index):
    """A cycle for robot ``index`` made as the world makes its robots', fed by hand."""
    agent = world.scenario.agents[index]
    radius = {a.name: a.radius for a in world.scenario.agents}
    cycle = RobotCycle(world.options.controller_config(agent, world.scenario), key=agent.name,
                       perception=world.options.perception_settings(),
                       radius_of=NeighborRadii(radius), link_groups=world.scenario.links)
    cycle.set_path(agent.waypoints)
    return cycle


def _readings(world, index):
    """Robot ``index``'s own reading and its neighbours' at the step's start (zero age)."""
    now = world.time
    own = OwnReading(RobotState(tuple(world.positions[index].tolist()),
                                tuple(world.velocities[index].tolist()),
                                float(world.headings[index]), float(world.linear_speed[index]),
                                float(world.angular_speed[index])), now)
    neighbors = {name: NeighborReading(now, tuple(world.positions[j].tolist()),
                                       tuple(world.velocities[j].tolist()), announced=True)
                 for j, name in enumerate(world.names) if j != index and world.active[j]}
    return own, neighbors


def _figures(command):
    return (command.velocity, command.linear, command.angular, command.pref_velocity,
            command.free_velocity, command.arrived, command.guidance_target,
            command.stalled_time)


@pytest.mark.parametrize("kinematics", ["holonomic", "diff_drive"])
def test_a_robot_in_the_world_sends_what_its_cycle_fed_by_hand_sends(kinematics):
    world = World(parse_scenario(SCENARIO), WorldOptions(kinematics=kinematics))
    twin = _twin(world, 0)
    stepped = []  # what the world's cycle of robot a returned, period by period
    cycle = world.cycles[0]
    step = RobotCycle.step

    def recording(*args, **kwargs):
        result = step(cycle, *args, **kwargs)
        stepped.append(result)
        return result

    cycle.step = recording
    avoided = 0
    for period in range(PERIODS):
        own, neighbors = _readings(world, 0)
        expected = twin.step(world.time, own, neighbors, world.edges)
        world.step()
        assert len(stepped) == period + 1, "the world did not step robot a's cycle"
        got = stepped[-1]
        assert got.status == expected.status, f"period {period}"
        assert _figures(got.command) == _figures(expected.command), f"period {period}"
        assert cycle.last_command is got.command
        avoided += got.command.velocity != got.command.pref_velocity
    assert avoided > 0  # the robots met: avoidance changed robot a's velocity
    assert world.positions[0][0] > 0.0  # and robot a got past the others


def test_a_robot_whose_cycle_holds_stands_still_in_the_world():
    world = World(parse_scenario(SCENARIO), WorldOptions())
    assert world.cycles[0].set_links("[{agents: [a, b]")  # not valid: the cycle holds
    twin = _twin(world, 0)
    twin.set_links("[{agents: [a, b]")
    start = world.positions[0].copy()
    for _ in range(10):
        own, neighbors = _readings(world, 0)
        expected = twin.step(world.time, own, neighbors, world.edges)
        world.step()
        assert expected.holds and expected.status.state is GoalState.HOLDING
    assert (world.positions[0] == start).all()
    assert (world.positions[1] != SCENARIO["agents"][1]["start"]).any()  # b drove on


def test_an_aerial_robot_in_the_3d_world_sends_what_its_cycle_fed_by_hand_sends():
    from orca_ros.core.robot.cycle import AerialCycle
    from orca_ros.core.sim.world3d import World3D

    world = World3D(parse_scenario(SCENARIO_3D), WorldOptions())
    agent = world.scenario.agents[0]
    radius = {a.name: a.radius for a in world.scenario.agents}
    twin = AerialCycle(world.options.controller_config(agent, world.scenario), key=agent.name,
                       perception=world.options.perception_settings(),
                       radius_of=NeighborRadii(radius))
    twin.set_path(agent.waypoints)
    cycle = world.cycles[0]
    stepped = []
    step = AerialCycle.step

    def recording(*args):
        result = step(cycle, *args)
        stepped.append(result)
        return result

    cycle.step = recording
    avoided = 0
    for period in range(80):
        now = world.time
        position = tuple(world.positions[0].tolist())
        velocity = tuple(world.velocities[0].tolist())
        own = OwnReading(RobotState(position[:2], velocity[:2]), now)
        neighbors = {name: NeighborReading(now, tuple(world.positions[j, :2].tolist()),
                                           tuple(world.velocities[j, :2].tolist()),
                                           z=float(world.positions[j, 2]),
                                           vz=float(world.velocities[j, 2]), announced=True)
                     for j, name in enumerate(world.names) if j and world.active[j]}
        expected = twin.step(now, own, position, velocity, neighbors)
        world.step()
        assert len(stepped) == period + 1, "the world did not step the robot's cycle"
        got = stepped[-1]
        assert got.status == expected.status, f"period {period}"
        assert got.command.velocity == expected.command.velocity, f"period {period}"
        assert got.command.pref_velocity == expected.command.pref_velocity
        avoided += got.command.velocity != got.command.pref_velocity
    assert avoided > 0  # the robots met
