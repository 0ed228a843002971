"""The margin hold on its own: the share of its planning margin a robot keeps falls
while it is stuck near its goal or near the point it heads for, and comes back once it
moves on."""

from dataclasses import replace

import pytest

from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.preferred_velocity import MarginHold, ProgressClock, StallClock

CONFIG = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=0.8, time_step=0.1)
HERE = (0.0, 0.0)
NEAR_GOAL = (1.0, 0.0)  # within one time horizon (2 s x 0.8 m/s) of HERE
FAR_GOAL = (5.0, 0.0)
PERIODS_TO_HALF = 15  # half of stall_escape_time (3 s) in periods of 0.1 s


def _periods(hold, count, stalled, stall, progress=None, goal=NEAR_GOAL, config=CONFIG,
             target=FAR_GOAL):
    for _ in range(count):
        hold.update(config, stalled, stall, progress or ProgressClock(), goal, HERE, target)
    return hold.held


def test_stalled_near_the_goal_the_margin_falls_to_none_over_the_escape_time():
    stall = StallClock(stalled_time=CONFIG.stall_escape_time + 0.1)
    hold = MarginHold()
    assert _periods(hold, PERIODS_TO_HALF, True, stall) == pytest.approx(0.5)
    assert _periods(hold, PERIODS_TO_HALF + 5, True, stall) == 0.0


def test_no_nearer_the_target_near_the_goal_releases_it_too():
    progress = ProgressClock(unprogressed_time=CONFIG.progress_escape_time)
    hold = MarginHold()
    assert _periods(hold, PERIODS_TO_HALF, False, StallClock(), progress) == pytest.approx(0.5)


def test_a_stall_no_longer_than_the_escape_time_or_far_from_the_goal_keeps_it():
    brief = StallClock(stalled_time=CONFIG.stall_escape_time)
    assert _periods(MarginHold(), 10, True, brief) == 1.0
    long = StallClock(stalled_time=CONFIG.stall_escape_time + 0.1)
    assert _periods(MarginHold(), 10, True, long, goal=FAR_GOAL) == 1.0
    assert _periods(MarginHold(), 10, True, long, goal=None) == 1.0


def test_moving_on_takes_it_back_at_the_same_rate_and_a_short_stall_holds_it_where_it_is():
    hold = MarginHold(held=0.0)
    assert _periods(hold, PERIODS_TO_HALF, False, StallClock()) == pytest.approx(0.5)
    # stalled, but not for long: neither released nor taken back
    assert _periods(hold, 5, True, StallClock(stalled_time=0.5)) == pytest.approx(0.5)
    assert _periods(hold, PERIODS_TO_HALF + 5, False, StallClock()) == 1.0


def test_with_no_stall_escape_time_the_share_never_changes():
    config = replace(CONFIG, stall_escape_time=0.0)
    stuck = StallClock(stalled_time=10.0)
    assert _periods(MarginHold(held=0.3), 10, True, stuck, config=config) == 0.3


def test_stuck_near_the_point_it_heads_for_far_from_its_goal_releases_it():
    """A waypoint or corner where ways meet (a door's mouth) counts as the goal does."""
    stall = StallClock(stalled_time=CONFIG.stall_escape_time + 0.1)
    assert _periods(MarginHold(), PERIODS_TO_HALF, True, stall, goal=FAR_GOAL,
                    target=NEAR_GOAL) == pytest.approx(0.5)
    assert _periods(MarginHold(), 10, True, stall, goal=FAR_GOAL, target=FAR_GOAL) == 1.0
