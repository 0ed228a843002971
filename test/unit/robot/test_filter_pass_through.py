"""The robot cycle (orca_ros/core/robot/cycle.py): filter mode's pass-through."""

import pytest

from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.cycle import Preferred, RobotCycle
from orca_ros.core.robot.state import Command


def _backing(config, speed):
    """A unicycle facing +x given ``speed`` backwards, nothing near: avoidance left the
    preferred velocity alone, while its tracking turned it round (velocity 0)."""
    back = (speed, 0.0)
    command = Command((0.0, 0.0), 0.0, 3.0, back, back, None, False)
    return RobotCycle._pass_through(config, command, Preferred(back, (speed, 0.0, 0.0)))


@pytest.mark.parametrize("reverse, expected, limited", [
    (0.0, 0.0, True), (0.26, -0.05, False), (0.03, -0.03, True), (None, -0.05, False)])
def test_a_reversing_input_passes_within_reverse_speed_and_a_cut_is_said(
        reverse, expected, limited):
    config = ControllerConfig(radius=0.2, pref_speed=0.5, time_step=0.1, max_speed=1.0,
                              kinematics="diff_drive",
                              max_reverse_speed=reverse)
    command = _backing(config, -0.05)
    assert command.passed_through == (pytest.approx(expected), 0.0, 0.0)
    assert (command.linear, command.angular) == (pytest.approx(expected), 0.0)
    assert command.reverse_limited is limited
