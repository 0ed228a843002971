"""The world with deliveries held (``WorldOptions.delay``, ``orca-ros bench --ros-timing
--delay S``): the timing itself, and unicycles that steer steadily through it because
their cycles measure the loop's delay (:class:`~orca_ros.core.robot.tracking.LoopDelay`)."""

import pytest

from orca_ros.core.scenario.loader import load_scenario, parse_scenario, resolve_scenario
from orca_ros.core.sim.world import World, WorldOptions

SQUARE = {  # a unicycle round three corners, all turns to the left: no reason to turn back
    "name": "square_route", "time_step": 0.1, "max_time": 60.0,
    "defaults": {"radius": 0.2, "max_speed": 0.5, "pref_speed": 0.4},
    "agents": [{"name": "a", "start": [0.0, 0.0], "waypoints": [[3.0, 0.0], [3.0, 3.0]],
                "goal": [0.0, 3.0]}],
}


@pytest.mark.parametrize("options", [dict(delay=0.1), dict(delay=-0.1, ros_timing=True),
                                     dict(delay=61.0, ros_timing=True)])
def test_a_delay_needs_ros_timing_and_a_sane_length(options):
    with pytest.raises(ValueError, match="delay"):
        WorldOptions(**options)


@pytest.mark.parametrize("delay, steps", [(0.0, 0), (0.1, 1), (0.15, 2), (0.2, 2)])
def test_a_delay_is_held_for_whole_time_steps_rounded_up(delay, steps):
    assert WorldOptions(ros_timing=True, delay=delay).delay_steps(0.1) == steps


def _first_move(delay: float) -> int:
    world = World(parse_scenario(SQUARE), WorldOptions(kinematics="diff_drive",
                                                       ros_timing=True, delay=delay))
    start = world.positions.copy()
    for step in range(1, 20):
        world.step()
        if (world.positions != start).any():
            return step
    raise AssertionError("the robot never moved")


def test_the_odometry_and_the_command_are_each_held_the_delay():
    """Without a delay the first command moves the robot in the first step. Held two
    steps each way, the first odometry reaches the cycle at the third step and its
    command reaches the body two steps later."""
    assert _first_move(0.0) == 1
    assert _first_move(0.2) == 5


def test_a_unicycle_held_a_tenth_of_a_second_each_way_steers_steadily():
    """Closing its heading error in one period while its turns show three periods later,
    the robot turned past each corner's heading and back: 66-93 turn-side changes a
    minute (six runs). Measuring the delay, it closes the error more slowly."""
    world = World(parse_scenario(SQUARE), WorldOptions(kinematics="diff_drive",
                                                       ros_timing=True, delay=0.1))
    summary = world.run().summary()
    assert summary["reached"] == 1 and summary["collisions"] == 0
    assert summary["steering_reversals_per_min_median"] <= 3.0, summary
    loop = world.cycles[0].controller.tracking.loop_delay
    assert loop.delay == pytest.approx(0.3)  # held 0.1 s each way, and the period


def test_unicycles_pass_in_the_corridor_with_deliveries_held():
    """corridor_wall, every delivery held 0.1 s (neighbours' states 0.3 s old): closing
    the heading in one period, the median robot's turn command changed side 127-152
    times a minute (five runs, starts moved 2 cm but the first); measuring the loop's
    delay, 36-51 (this run: 51). In this run the two middle robots stop 0.3 m short of
    goals between parked ones: a parked neighbour heard 0.3 s late may have moved
    0.15 m (``position_uncertainty``), and the gaps either side are 0.1 m. With the
    starts moved, 6 of 6 arrived in 4 runs of 4 (37-57 s); through the nodes (``orca-ros
    sim corridor_wall --kinematics diff_drive --faults delay=0.1``) 6 of 6 in 72 s."""
    world = World(load_scenario(resolve_scenario("corridor_wall")),
                  WorldOptions(kinematics="diff_drive", ros_timing=True, delay=0.1))
    summary = world.run().summary()
    assert summary["reached"] >= 4 and summary["collisions"] == 0
    assert summary["steering_reversals_per_min_median"] <= 60.0, summary


def test_without_a_delay_the_loop_is_the_cycle_s_own_period():
    """fleet_sim's timing and the ideal world: the odometry shows each command the
    period after it, so the heading is closed as configured."""
    for options in (WorldOptions(kinematics="diff_drive", ros_timing=True),
                    WorldOptions(kinematics="diff_drive")):
        world = World(load_scenario(resolve_scenario("corridor_wall")), options)
        for _ in range(150):
            world.step()
        for cycle in world.cycles:
            loop = cycle.controller.tracking.loop_delay
            assert loop.extra == 0.0
            assert cycle.controller.tracking.heading_time_constant(cycle.config) == \
                cycle.config.heading_time_constant


def test_holonomic_robots_and_replaying_cubes_do_not_measure_it():
    """A holonomic robot has no heading to close; a toio cube replays its commands over
    its known lag (``command_lag``, ``lag_error``), which makes up for the delay."""
    holonomic = World(load_scenario(resolve_scenario("corridor_wall")), WorldOptions())
    cubes = World(load_scenario(resolve_scenario("toio_a_to_target1")),
                  WorldOptions(kinematics="toio"))
    for world in (holonomic, cubes):
        assert all(c.controller.tracking.loop_delay is None for c in world.cycles)
