"""The robot cycle on its own: it holds, and says why, until it can act; then it perceives
(its own state carried over the lag, its neighbours nearest first) and hands that to the
controller's stages."""

import pytest

from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.cycle import GoalState, OwnReading, Preferred, RobotCycle
from orca_ros.core.robot.perception import NeighborReading
from orca_ros.core.robot.state import RobotState

CONFIG = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=0.8, time_step=0.1)


def _own(position=(0.0, 0.0), stamp=0.0, velocity=(0.0, 0.0)):
    return OwnReading(RobotState(position, velocity), stamp)


def test_the_cycle_holds_without_odometry_goal_or_awaited_walls():
    cycle = RobotCycle(CONFIG, key="a")
    assert cycle.step(0.0, None, {}).status.state is GoalState.WAITING_FOR_ODOM
    assert cycle.step(5.0, _own(stamp=0.0), {}).status.state is GoalState.OWN_ODOM_STALE
    assert cycle.step(0.0, _own(), {}).status.state is GoalState.NO_GOAL
    cycle.set_path([(5.0, 0.0)])
    result = cycle.step(0.0, _own(), {}, awaited_obstacles=["map"])
    assert result.holds and "map" in str(result.status)


def test_a_cycle_drives_and_records_its_command():
    cycle = RobotCycle(CONFIG, key="a")
    cycle.set_path([(5.0, 0.0)])
    result = cycle.step(0.0, _own(), {})
    assert result.status.state is GoalState.DRIVING and not result.holds
    assert cycle.last_command is result.command and result.command.velocity[0] > 0.5


def test_perception_sorts_the_neighbours_nearest_first_and_drops_those_out_of_reach():
    cycle = RobotCycle(CONFIG, key="a")
    cycle.set_path([(5.0, 0.0)])
    readings = {"far": NeighborReading(0.0, (3.0, 0.0), (0.0, 0.0)),
                "near": NeighborReading(0.0, (0.0, 2.0), (0.0, 0.0)),
                "gone": NeighborReading(0.0, (500.0, 0.0), (0.0, 0.0))}
    perceived = cycle.step(0.0, _own(), readings).perceived
    assert [n.key for n in perceived.neighbors] == ["near", "far"]


def test_the_own_state_is_carried_over_the_odometrys_age():
    cycle = RobotCycle(CONFIG, key="a")
    cycle.set_path([(5.0, 0.0)])
    perceived = cycle.step(0.2, _own(stamp=0.0, velocity=(1.0, 0.0)), {}).perceived
    assert perceived.state.position[0] == pytest.approx(0.2)
    assert perceived.own_uncertainty > 0.0


def test_at_the_goal_the_cycle_says_so():
    cycle = RobotCycle(CONFIG, key="a")
    cycle.set_path([(0.0, 0.0)])
    assert cycle.step(0.0, _own(), {}).status.state is GoalState.GOAL_REACHED


def test_filter_mode_passes_the_input_on_when_avoidance_leaves_it():
    cycle = RobotCycle(CONFIG, key="a")
    command = cycle.step(0.0, _own(), {}, preferred=Preferred((0.3, 0.0),
                                                              (0.3, 0.0, 0.1))).command
    assert command.passed_through == (0.3, 0.0, 0.1)


def test_a_speed_limit_reaches_the_controller_and_expires():
    cycle = RobotCycle(CONFIG, key="a")
    cycle.set_path([(5.0, 0.0)])
    cycle.set_speed_limit(0.2, received=0.0)
    cycle.step(0.0, _own(), {})
    assert cycle.controller.speed_limit == 0.2
    cycle.step(2.0, _own(stamp=2.0), {})
    assert cycle.controller.speed_limit is None


def test_the_own_localization_margin_meets_the_neighbours_in_quadrature():
    # Both robots placed to within 6 cm: the pair keeps 0.4 m of radii and 8.5 cm, so
    # at 0.5 m it may still close in a little (the half-plane: 7.5 mm/s). Told none of
    # its uncertainty is the fix's, the margins add up to 12 cm: it is inside them.
    cycle = RobotCycle(CONFIG, key="a")
    cycle.set_path([(5.0, 0.0)])
    ahead = {"b": NeighborReading(0.0, (0.5, 0.0), (0.0, 0.0), uncertainty=0.06,
                                  announced=True)}
    result = cycle.step(0.0, OwnReading(RobotState((0.0, 0.0)), 0.0, uncertainty=0.06), ahead)
    assert result.perceived.localization == 0.06
    assert result.command.velocity[0] == pytest.approx(0.0075)
    assert cycle.decide(result.perceived._replace(localization=0.0)).velocity[0] <= 0.0
