"""Shared predictions without ROS: a cube's prediction carried along its command, the
world's cubes planning with what their neighbours share, and a prediction made before
the sent commands span the lag. (Through orca_node: test/ros/test_predictions.py.)"""

import math

import pytest

from orca_ros.core.robot.state import Neighbor
from orca_ros.core.robot.perception import (SharedPrediction, perceive_neighbor,
                                            perceive_predicted_neighbor)
from orca_ros.core.sim.world import World, WorldOptions

from helpers.scenarios import two_cube_scenario

A, V_MAX, OMEGA_MAX, LAG = 1.0, 0.12, 4.0, 0.14  # a cube's settings


def test_a_prediction_is_carried_along_its_command_and_grows_by_a_new_commands_reach():
    told = SharedPrediction(10.0, (1.0, 2.0), math.pi / 2, 0.1, 0.0, uncertainty=0.0005)
    seen = perceive_predicted_neighbor(Neighbor((0.0, 0.0), (0.0, 0.0), 0.02, "b"), told, 10.05,
                                       A, V_MAX, OMEGA_MAX)
    assert seen.position == pytest.approx((1.0, 2.005))
    assert seen.velocity == pytest.approx((0.0, 0.1))
    # 0.5 mm its own, plus (a + v_max omega_max) d^2 / 2 = 1.48 * 0.05^2 / 2 = 1.85 mm
    assert seen.uncertainty == pytest.approx(0.0005 + 0.00185)
    # From odometry alone, 30 ms old, over the lag: 0.5 a (0.17)^2 = 14.45 mm.
    guessed = perceive_neighbor(Neighbor((1.0, 2.0), (0.0, 0.1), 0.02, "b"), 0.03 + LAG, V_MAX, A,
                                1.0)
    assert guessed.uncertainty == pytest.approx(0.01445)


@pytest.mark.parametrize("share, low, high", [(True, 0.0, 0.003), (False, 0.0095, 0.015)])
def test_world_cubes_see_their_neighbours_as_sure_as_what_they_share(share, low, high):
    world = World(two_cube_scenario(), WorldOptions(kinematics="toio", share_predictions=share))
    seen = []
    original = world.controllers[0].compute

    def compute(state, neighbors, *args, **kwargs):
        seen.extend(n.uncertainty for n in neighbors)
        return original(state, neighbors, *args, **kwargs)

    world.controllers[0].compute = compute
    for _ in range(20):
        world.step()
    later = seen[5:]  # no prediction yet, then ones made before the sent commands span the lag
    assert later and all(low <= u <= high for u in later), (min(later), max(later))


def test_a_prediction_made_before_the_sent_commands_reach_back_over_the_lag_says_so():
    """Just started (or restarted while the robot still runs an older command), the
    prediction is partly a constant-velocity guess, and is published as uncertain as one."""
    from orca_ros.core.robot.perception import SentCommands
    sent = SentCommands(lag=LAG, validity=0.3)
    assert not sent.covers(1.0)
    sent.record(1.0, 0.1, 0.0)
    assert not sent.covers(1.1)
    assert sent.covers(1.0 + LAG)
    world = World(two_cube_scenario(), WorldOptions(kinematics="toio"))
    guess = world.controllers[0].config.lag_guess_error
    assert guess == pytest.approx(0.5 * (A + V_MAX * OMEGA_MAX) * LAG ** 2)
    world.step()
    assert world.predictions[0].uncertainty >= guess
    for _ in range(5):
        world.step()
    assert world.predictions[0].uncertainty < 0.001
