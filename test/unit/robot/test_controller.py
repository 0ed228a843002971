"""The controller composes its stages in order: preferred velocity, method (behind the
safety filter's constraints), tracking; each stage is an object it holds."""

import math

import pytest

from orca_ros.core.methods import MethodOutput
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.controller import AvoidanceStage, RobotController
from orca_ros.core.robot.preferred_velocity import PreferredVelocity
from orca_ros.core.robot.state import Neighbor, RobotState
from orca_ros.core.robot.tracking import UnicycleTracking

CONFIG = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=0.8, time_step=0.1)


def test_the_controller_holds_one_object_per_stage():
    controller = RobotController(CONFIG, key="a")
    assert isinstance(controller.preferred, PreferredVelocity)
    assert isinstance(controller.avoidance, AvoidanceStage)
    assert isinstance(controller.tracking, UnicycleTracking)
    assert controller.path is controller.preferred and controller.preferred.key == "a"


def test_a_new_configuration_reaches_the_preferred_velocity():
    controller = RobotController(CONFIG, key="a")
    other = ControllerConfig(radius=0.3, max_speed=1.0, pref_speed=0.5, time_step=0.1)
    controller.config = other
    assert controller.preferred.config is other and controller.config is other


def test_alone_on_the_way_the_command_is_the_preferred_velocity():
    controller = RobotController(ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=0.8,
                                                  time_step=0.1, method="orca_strict"))
    controller.set_path([(5.0, 0.0)])
    command = controller.compute(RobotState((0.0, 0.0)), [])
    assert command.pref_velocity == pytest.approx((0.8, 0.0))
    assert command.velocity == pytest.approx(command.pref_velocity)
    assert controller.preferred.periods == 1 and not command.arrived


def test_with_no_path_the_robot_stands():
    command = RobotController(CONFIG).compute(RobotState((0.0, 0.0)), [])
    assert command.velocity == (0.0, 0.0) and command.output is None


def test_a_preferred_velocity_from_outside_replaces_the_path():
    controller = RobotController(CONFIG)
    command = controller.compute(RobotState((0.0, 0.0)), [], pref_velocity=(0.0, 0.5))
    assert command.pref_velocity == (0.0, 0.5) and controller.preferred.periods == 0
    assert command.velocity == pytest.approx((0.0, 0.5))


def test_the_safety_filter_holds_the_method_back_from_a_close_neighbour():
    """Behind a method that takes no constraints (``hrvo``) the safety filter projects
    the velocity: the robot never closes on a neighbour right in front faster than half
    the gap per period."""
    config = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              method="hrvo")
    controller = RobotController(config, key="a")
    controller.set_path([(5.0, 0.0)])
    gap = 0.05
    other = Neighbor((0.4 + gap, 0.0), (0.0, 0.0), 0.2, "b")
    command = controller.compute(RobotState((0.0, 0.0)), [other])
    assert command.pref_velocity[0] > 0.9
    assert command.velocity[0] * config.time_step <= 0.5 * gap


def test_the_method_stage_makes_its_instance_once_per_configuration():
    stage = AvoidanceStage()
    assert stage.instance is None
    method = stage.method(CONFIG)
    assert stage.method(CONFIG) is method
    assert stage.method(ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=0.8,
                                         time_step=0.1)) is method  # same method, same key


def test_the_method_stage_filters_a_method_that_takes_no_constraints():
    config = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              method="direct")

    class View:
        max_speed = 0.5
        hard_half_planes = ()

    stage = AvoidanceStage()
    stage.instance = type("Fast", (), {"compute_velocity": lambda self, view: MethodOutput(
        (3.0, 4.0))})()
    stage._config = config
    output = stage.run(config, View())
    assert math.hypot(*output.velocity) == pytest.approx(0.5)


def test_a_unicycle_gets_a_twist_from_tracking():
    config = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=0.8, time_step=0.1,
                              kinematics="diff_drive")
    controller = RobotController(config, key="a")
    controller.set_path([(0.0, 5.0)])  # to its left
    command = controller.compute(RobotState((0.0, 0.0), heading=0.0), [])
    assert command.angular > 0.0 and controller.drive_sign == 1
