"""The planning margin is for robots moving relative to each other
(``ControllerConfig.margin_speed_ratio``): two toio cubes at rest side by side keep
only the hard layer's distance in ORCA, so cubes whose goals lie closer than their
full margins allow (``toio_cross_4v4``: 54 mm apart) can stand on them instead of
pushing each other off (the "goal dance")."""

import math

import pytest

from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.state import Neighbor, RobotState
from orca_ros.core.robot.controller import RobotController
from orca_ros.core.sim.world import CUBE_CONTROLLER

RADIUS = 0.0225
MAX_SPEED = 0.15


def cube_config(**overrides) -> ControllerConfig:
    return ControllerConfig(radius=RADIUS, max_speed=MAX_SPEED, pref_speed=MAX_SPEED,
                            time_step=0.05, **{**CUBE_CONTROLLER, **overrides})


def test_the_shortfall_worked_by_hand():
    # m = 0.5, k = 0.5, v_max = 0.15 m/s: full margin from 0.075 m/s apart; at rest the
    # pair keeps m (r_a + r_b) = 0.5 * 0.045 m less.
    config = cube_config(safety_margin_ratio=0.5, margin_speed_ratio=0.5)
    assert config.pair_margin_shortfall(RADIUS, RADIUS, 0.0) == pytest.approx(0.0225)
    assert config.pair_margin_shortfall(RADIUS, RADIUS, 0.0375) == pytest.approx(0.01125)
    assert config.pair_margin_shortfall(RADIUS, RADIUS, 0.075) == 0.0
    assert config.pair_margin_shortfall(RADIUS, RADIUS, 0.3) == 0.0
    assert cube_config(margin_speed_ratio=0.0).pair_margin_shortfall(RADIUS, RADIUS, 0.0) == 0.0
    # At rest the pair plans with the hard layer's radii (true size and tracking error).
    combined = 2 * config.avoidance_radius(RADIUS) - config.pair_margin_shortfall(
        RADIUS, RADIUS, 0.0)
    assert combined == pytest.approx(2 * (config.safety_radius(RADIUS) - 1e-4))


@pytest.mark.parametrize("value", [-0.1, math.nan, math.inf])
def test_a_bad_ratio_is_named(value):
    with pytest.raises(ValueError, match="margin_speed_ratio"):
        cube_config(margin_speed_ratio=value)


def free_velocity(margin_speed_ratio: float, neighbour_speed: float):
    """ORCA's velocity for a cube standing on its goal with a neighbour 62 mm away
    (17 mm between them) coming at it at ``neighbour_speed``."""
    controller = RobotController(cube_config(margin_speed_ratio=margin_speed_ratio), key="a")
    controller.set_path([(0.0, 0.0)])
    neighbour = Neighbor((0.062, 0.0), (-neighbour_speed, 0.0), RADIUS, "b")
    for _ in range(3):
        command = controller.compute(RobotState((0.0, 0.0)), [neighbour])
    assert command.arrived
    return command.free_velocity


def test_a_cube_on_its_goal_stays_beside_a_neighbour_at_rest():
    assert CUBE_CONTROLLER["margin_speed_ratio"] > 0.0
    assert free_velocity(CUBE_CONTROLLER["margin_speed_ratio"], 0.0) == (0.0, 0.0)
    # With the full margin at rest (the old rule) it flees: ORCA's half of the discs'
    # overlap in one period (13.75 mm / 2 / 0.05 s = 0.1375 m/s).
    assert math.hypot(*free_velocity(0.0, 0.0)) > 0.1


def test_a_neighbour_coming_at_full_relative_speed_gets_the_full_margin():
    ratio = CUBE_CONTROLLER["margin_speed_ratio"]
    closing = ratio * MAX_SPEED
    assert free_velocity(ratio, closing) == pytest.approx(free_velocity(0.0, closing))
    assert free_velocity(ratio, closing)[0] < -0.1

