"""Stall detection from where the robot went, not from its velocity estimate: a toio
cube spinning in place under its command lag reports speeds of several cm/s from its
rounded readings while it goes nowhere, and so never turned to escape."""


import pytest

from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.controller import RobotController
from orca_ros.core.robot.state import RobotState
from orca_ros.core.scenario.loader import load_scenario, resolve_scenario
from orca_ros.core.sim.world import World, WorldOptions

CONFIG = ControllerConfig(radius=0.023, max_speed=0.12, pref_speed=0.1, time_step=0.05,
                          keep_right_deg=0.0, stall_escape_deg=75.0, stall_escape_time=3.0)


def test_a_robot_spinning_in_place_counts_as_stalled_whatever_its_speed_estimate():
    controller = RobotController(CONFIG, key="a")
    controller.set_path([(1.0, 0.0)])
    noisy = RobotState((0.0, 0.0), velocity=(0.05, 0.0), heading=0.0, linear_speed=0.05,
                       angular_speed=4.0)
    for _ in range(20):
        pref = controller.preferred_velocity(noisy)
    assert controller.path.stalled_time == pytest.approx(19 * CONFIG.time_step)
    assert pref[1] < -0.01  # the stall escape turns its preferred velocity right


def test_a_robot_that_moves_is_not_stalled_even_if_its_estimate_says_zero():
    controller = RobotController(CONFIG, key="a")
    controller.set_path([(1.0, 0.0)])
    for step in range(20):
        x = step * 0.05 * CONFIG.time_step  # half the preferred speed
        controller.preferred_velocity(RobotState((x, 0.0), velocity=(0.0, 0.0)))
    assert controller.path.stalled_time == 0.0


def test_a_new_path_starts_without_a_stall():
    controller = RobotController(CONFIG, key="a")
    controller.set_path([(1.0, 0.0)])
    for _ in range(5):
        controller.preferred_velocity(RobotState((0.0, 0.0)))
    assert controller.path.stalled_time > 0.0
    controller.set_path([(0.0, 1.0)])
    assert controller.path.stalled_time == 0.0


@pytest.mark.parametrize("name", ["toio_boids_tutorial", "toio_e_4v4_longitudinal"])
def test_cubes_with_cube_dynamics_all_park_around_shared_targets(name):
    """In the world with toio cube dynamics every cube of these scenes arrives (with
    stalls judged by the velocity estimate: 5 of 6 and 5 of 8)."""
    scenario = load_scenario(resolve_scenario(name))
    result = World(scenario, WorldOptions(kinematics="toio")).run()
    assert (result.reached, result.collisions) == (len(scenario.agents), 0)


def test_two_unicycles_rushing_at_each_other_brake_in_time_on_the_safety_layer_alone():
    """ORCA blind (no neighbours), only the hard safety half-planes: two unicycles at
    2 m/s head-on, braking at 4 m/s^2, need 0.7 m each to stop. Covering only pairs one
    command apart (2 v_max dt = 0.4 m) let them meet; covering their closing distances
    stops them apart."""
    import math

    from orca_ros.core.robot.state import Neighbor
    from orca_ros.core.models.bodies import unicycle_step

    config = ControllerConfig(radius=0.2, max_speed=2.0, pref_speed=2.0, time_step=0.1,
                              kinematics="diff_drive", max_linear_accel=4.0,
                              keep_right_deg=0.0, stall_escape_deg=0.0)
    robots = [[0.0, 0.0, 0.0, 2.0], [3.0, 0.0, math.pi, 2.0]]  # x, y, heading, speed
    controllers = [RobotController(config, key=k) for k in "ab"]
    controllers[0].set_path([(10.0, 0.0)])
    controllers[1].set_path([(-7.0, 0.0)])
    closest = math.inf
    for _ in range(40):
        states = [RobotState((x, y), (v * math.cos(h), v * math.sin(h)), h, v, 0.0)
                  for x, y, h, v in robots]
        commands = []
        for i, controller in enumerate(controllers):
            other = states[1 - i]
            seen = Neighbor(other.position, other.velocity, config.radius, "ba"[i])
            commands.append(controller.compute(states[i], [], close=[seen]))
        for robot, command in zip(robots, commands):
            robot[0], robot[1], robot[2] = unicycle_step(robot[0], robot[1], robot[2],
                                                         command.linear, command.angular,
                                                         config.time_step)
            robot[3] = command.linear
        closest = min(closest, math.dist(robots[0][:2], robots[1][:2]) - 2 * config.radius)
    assert closest > 0.0


def _stand(controller, position, periods):
    for _ in range(periods):
        controller.preferred_velocity(RobotState(position))


def test_a_robot_stalled_near_its_goal_releases_its_margin_then_takes_it_back():
    """Near the goal (within time_horizon * pref_speed) a stall longer than
    stall_escape_time lets the planning margin go, over stall_escape_time; moving
    brings it back at the same rate."""
    config = ControllerConfig(radius=0.2, max_speed=2.0, pref_speed=1.0, time_step=0.1,
                              time_horizon=2.0, safety_margin_ratio=0.1,
                              stall_escape_time=3.0)
    controller = RobotController(config, key="a")
    controller.set_path([(1.5, 0.0)])  # 1.5 m away: within 2 s at 1 m/s
    _stand(controller, (0.0, 0.0), 29)
    assert controller.path.margin.held == 1.0  # a stall no longer than stall_escape_time
    _stand(controller, (0.0, 0.0), 15)
    assert 0.4 < controller.path.margin.held < 0.6
    _stand(controller, (0.0, 0.0), 20)
    assert controller.path.margin.held == 0.0
    # A neighbour 1 m away now looks its true size plus tracking error, no margin.
    from orca_ros.core.robot.state import Neighbor
    view = controller.neighbor_view(RobotState((0.0, 0.0)), config.radius,
                                     Neighbor((1.0, 0.0), (0.0, 0.0), 0.2, "b"))
    assert view.radius == pytest.approx(0.2 + config.tracking_error
                                        - config.margin_ratio * config.radius)
    for step in range(1, 16):  # moving at the preferred speed
        controller.preferred_velocity(RobotState((0.1 * step, 0.0)))
    assert 0.4 < controller.path.margin.held < 0.6
    controller.set_path([(0.0, 5.0)])
    assert controller.path.margin.held == 1.0


def test_a_robot_shuffling_near_its_goal_without_getting_nearer_releases_its_margin():
    """Moving is not progress: a unicycle that shuffles sideways between parked
    neighbours, faster than a stall, but no nearer its goal, lets its margin go after
    stall_escape_time (menge_circle diff-drive: one robot shuffled 0.4-0.7 m short of
    its goal for the last 20 s of the minute, its margin held). Getting a radius
    nearer brings the margin back."""
    config = ControllerConfig(radius=0.2, max_speed=2.0, pref_speed=1.0, time_step=0.1,
                              time_horizon=2.0, safety_margin_ratio=0.1,
                              stall_escape_time=3.0)
    controller = RobotController(config, key="a")
    controller.set_path([(1.0, 0.0)])
    for step in range(60):  # 0.3 m/s to and fro across the line to the goal
        controller.preferred_velocity(RobotState((0.0, 0.03 * (step % 2))))
    assert controller.path.stalled_time == 0.0
    assert controller.path.unprogressed_time > 5.0
    assert controller.path.margin.held < 0.2
    for step in range(1, 16):  # on towards the goal
        controller.preferred_velocity(RobotState((0.05 * step, 0.0)))
    assert controller.path.unprogressed_time < 1.0
    assert controller.path.margin.held > 0.2


def test_with_progress_escape_time_0_only_a_stall_releases_the_margin():
    """Cubes run with progress_escape_time 0: near their tightly packed goals, moving
    without progress is no sign of being stuck, and their margin stays while they move."""
    config = ControllerConfig(radius=0.2, max_speed=2.0, pref_speed=1.0, time_step=0.1,
                              time_horizon=2.0, safety_margin_ratio=0.1,
                              stall_escape_time=3.0, progress_escape_time=0.0)
    controller = RobotController(config, key="a")
    controller.set_path([(1.0, 0.0)])
    for step in range(60):
        controller.preferred_velocity(RobotState((0.0, 0.03 * (step % 2))))
    assert controller.path.unprogressed_time > 5.0
    assert controller.path.margin.held == 1.0


def test_a_robot_stalled_far_from_its_goal_keeps_its_margin():
    """In traffic, away from the goal, a stalled robot keeps its margin: released
    there, stalled robots press into crossing crowds (block crowd cross 99 -> 77)."""
    config = ControllerConfig(radius=0.2, max_speed=2.0, pref_speed=1.0, time_step=0.1,
                              time_horizon=2.0, stall_escape_time=3.0)
    controller = RobotController(config, key="a")
    controller.set_path([(2.5, 0.0)])
    _stand(controller, (0.0, 0.0), 100)
    assert controller.path.stalled_time > 9.0
    assert controller.path.margin.held == 1.0


def test_menge_circle_diff_drive_every_robot_reaches_its_goal():
    """Robots stood short of their goals among parked neighbours for the last 13-20 s of
    the minute (98/100) while they held their planning margins, or shuffled there, moving
    but getting no nearer, and kept them (99/100). Every robot arrives within the
    scenario's own 60 s."""
    scenario = load_scenario(resolve_scenario("menge_circle"))
    assert scenario.max_time == 60.0
    result = World(scenario, WorldOptions(kinematics="diff_drive")).run()
    assert (result.reached, result.collisions) == (100, 0)


def _escape_turn_deg(controller, position, goal) -> float:
    """How far right of the goal (degrees) the robot's preferred velocity points."""
    import math

    pref = controller.preferred_velocity(RobotState(position))
    to_goal = math.atan2(goal[1] - position[1], goal[0] - position[0])
    return math.degrees(to_goal - math.atan2(pref[1], pref[0]))


def test_the_stall_escape_starts_over_after_twice_its_time_near_a_goal_and_on_the_way():
    """Held at the full turn, stalled robots pressed sideways for good. toio_cross_4v4
    through fleet_sim (2 of 6 runs): a unicycle that had reached its goal stood 31 mm
    off it for the rest of the run, its preferred velocity turned 75 degrees into a
    parked neighbour, where ORCA left it no speed. Block crowd converge diff-drive
    seed 5: robots pressed round a shared goal that others stood on stood motionless
    from about t = 80 s (50 of 100 arrived in 300 s). The escape's count starts over
    after twice stall_escape_time: the robot looks at its target again."""
    config = ControllerConfig(radius=0.0225, max_speed=0.15, pref_speed=0.1, time_step=0.05,
                              keep_right_deg=8.0, stall_escape_deg=75.0,
                              stall_escape_time=3.0, goal_tolerance=0.01)
    goal = (0.5175, -0.16375)
    pushed_off = (0.4871, -0.1690)  # 31 mm from the goal, within two radii
    on_the_way = (0.2, -0.1)

    held = RobotController(config, key="cube1")
    held.set_path([goal])
    held.path.goal_reached = True
    held.path.stalled_time = 1.45
    assert _escape_turn_deg(held, pushed_off, goal) == pytest.approx(8.0 + 67.0 / 2.0)
    held.path.stalled_time = 6.45  # past twice the escape time: 0.5 s into the next count
    assert _escape_turn_deg(held, pushed_off, goal) == pytest.approx(8.0 + 67.0 / 6.0)

    for position in (pushed_off, on_the_way):  # a goal not yet reached
        jammed = RobotController(config, key="cube1")
        jammed.set_path([goal])
        jammed.path.stalled_time = 4.45
        assert _escape_turn_deg(jammed, position, goal) == pytest.approx(75.0)
        jammed.path.stalled_time = 6.45
        assert _escape_turn_deg(jammed, position, goal) == pytest.approx(8.0 + 67.0 / 6.0)
