"""The tracking stage on its own: a unicycle's twist from the method's velocity."""

import math

import pytest

from orca_ros.core.methods import MethodOutput
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.state import RobotState
from orca_ros.core.robot.tracking import UnicycleTracking

CONFIG = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                          kinematics="diff_drive")


def test_the_method_runs_again_within_the_kinematic_half_planes():
    seen = []

    def replan(hard):
        seen.append(hard)
        return MethodOutput((0.1, 0.0))

    planned, v, omega = UnicycleTracking().command(
        CONFIG, RobotState((0.0, 0.0)), MethodOutput((1.0, 0.0)), (1.0, 0.0), False, [], [],
        replan)
    assert len(seen) == 1 and len(seen[0]) == 4  # lateral twice, longitudinal twice
    assert planned.velocity == (0.1, 0.0) and v == pytest.approx(0.1) and omega == 0.0


def test_it_turns_towards_the_free_velocity():
    free = MethodOutput((0.0, 1.0))  # to the left of the heading
    planned, v, omega = UnicycleTracking().command(
        CONFIG, RobotState((0.0, 0.0)), free, (0.0, 1.0), False, [], [],
        lambda hard: MethodOutput((0.0, 0.0)))
    assert omega > 0.0 and v == 0.0


def test_a_method_without_constraints_is_held_to_the_driving_limits_only():
    config = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              kinematics="diff_drive", method="hrvo")

    def replan(hard):
        raise AssertionError("a method that takes no constraints is not run again")

    result = MethodOutput((0.5, 0.0))
    assert UnicycleTracking().command(config, RobotState((0.0, 0.0)), result, (0.5, 0.0),
                                      False, [], [], replan)[0] is result


def test_a_unicycle_that_may_reverse_backs_off_and_keeps_the_direction():
    config = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              kinematics="diff_drive", max_reverse_speed=0.3)
    tracking = UnicycleTracking()
    back = MethodOutput((-0.3, 0.0))
    tracking.command(config, RobotState((0.0, 0.0)), back, (1.0, 0.0), False, [], [],
                     lambda hard: back)
    assert tracking.drive_sign == -1
    _, v, _ = tracking.command(config, RobotState((0.0, 0.0)), back, (1.0, 0.0), False,
                               [], [], lambda hard: back)
    assert v < 0.0 and tracking.drive_sign == -1


def test_held_on_its_goal_it_faces_the_preferred_velocity():
    tiny = MethodOutput((0.0, -0.001))
    _, _, omega = UnicycleTracking().command(
        CONFIG, RobotState((0.0, 0.0), heading=0.0), tiny, (0.0, 1.0), True, [], [],
        lambda hard: tiny)
    assert omega > 0.0  # to the preferred velocity's side, not the tiny velocity's
    assert math.isfinite(omega)
