"""Giving way in a passage one robot wide: who backs out, when, where to and for how
long, on its own and as the preferred velocity runs it."""

from dataclasses import replace

import pytest

from orca_ros.core.geometry.obstacles import build_obstacle_edges
from orca_ros.core.geometry.types import Segment
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.preferred_velocity import (GiveWay, PreferredVelocity, ProgressClock,
                                                    StallClock, StandingRobot)
from orca_ros.core.robot.state import RobotState
from orca_ros.core.scenario.loader import load_scenario, resolve_scenario
from orca_ros.core.sim.world import World, WorldOptions

CONFIG = ControllerConfig(radius=0.2, max_speed=0.5, pref_speed=0.4, time_step=0.1)
PATIENCE = 2.0 * CONFIG.progress_escape_time  # 6 s without progress
AHEAD = (4.0, 0.0)  # the target, along the passage


def test_the_robot_whose_name_sorts_after_gives_way_once_its_patience_is_out():
    r0 = StandingRobot((0.5, 0.0), 0.48, "r0")
    assert not GiveWay.due(CONFIG, "r2", r0, PATIENCE - 0.1)
    assert GiveWay.due(CONFIG, "r2", r0, PATIENCE)
    r2 = StandingRobot((0.5, 0.0), 0.48, "r2")
    assert not GiveWay.due(CONFIG, "r0", r2, PATIENCE)  # the blocker's turn to back out
    assert GiveWay.due(CONFIG, "r0", r2, 2.0 * PATIENCE)  # the blocker may be boxed in


def test_without_names_or_without_a_progress_escape_time_nobody_gives_way():
    assert not GiveWay.due(CONFIG, "r2", StandingRobot((0.5, 0.0), 0.48, ""), 100.0)
    assert not GiveWay.due(CONFIG, "r2", ((0.5, 0.0), 0.48), 100.0)  # a wall's disc
    never = replace(CONFIG, progress_escape_time=0.0)
    assert not GiveWay.due(never, "r2", StandingRobot((0.5, 0.0), 0.48, "r0"), 100.0)


def test_it_backs_out_by_two_combined_radii_unless_robots_stand_behind():
    give = GiveWay()
    blocker = StandingRobot((0.5, 0.0), 0.48, "r0")
    assert not give.begin(CONFIG, "r2", (0.0, 0.0), AHEAD, [blocker], 0, PATIENCE - 0.1)
    queue = [blocker, StandingRobot((-0.6, 0.0), 0.48, "q")]
    assert not give.begin(CONFIG, "r2", (0.0, 0.0), AHEAD, queue, 0, PATIENCE)
    assert give.backing is None
    assert give.begin(CONFIG, "r2", (0.0, 0.0), AHEAD, [blocker], 0, PATIENCE)
    back, seconds = give.backing
    assert back == pytest.approx((-0.96, 0.0)) and seconds == 2.0 * CONFIG.time_horizon


def test_after_twice_the_time_horizon_it_heads_on_with_its_clocks_started_over():
    give = GiveWay(backing=((-0.96, 0.0), 2.0 * CONFIG.time_horizon))
    stall = StallClock(stalled_time=5.0, last_position=(0.0, 0.0))
    progress = ProgressClock(unprogressed_time=PATIENCE, mark=(AHEAD, 4.0))
    heads = []
    while give.backing is not None and len(heads) < 100:
        heads.append(give.keep(CONFIG, AHEAD, stall, progress))
        if give.backing is not None:
            assert stall.stalled_time == 5.0  # the clocks run on while it backs out
    assert heads[:-1] == [(-0.96, 0.0)] * (len(heads) - 1) and heads[-1] == AHEAD
    assert abs(len(heads) - 2.0 * CONFIG.time_horizon / CONFIG.time_step) <= 1  # 40 periods
    assert stall.stalled_time == 0.0
    assert progress.unprogressed_time == 0.0 and progress.mark is None


def _passage_blocked(own_key, blocker_key, unprogressed_s, behind=()):
    """A robot in a passage one robot wide (walls 0.45 m either side of its axis) with a
    robot standing 0.5 m ahead in it, both with a planning margin of 0.24 m, after
    ``unprogressed_s`` without getting nearer its goal: where it heads."""
    config = CONFIG
    path = PreferredVelocity(config, key=own_key)
    path.set_path([(4.0, 0.0)])
    walls = build_obstacle_edges([Segment((-2.0, 0.45), (3.0, 0.45)),
                                  Segment((3.0, -0.45), (-2.0, -0.45))])
    state = RobotState((0.0, 0.0), (0.0, 0.0), 0.0, 0.0, 0.0)
    path.stalled_time = config.stall_detour_time
    path.unprogressed_time = unprogressed_s
    path.progress.mark = ((4.0, 0.0), 4.0)
    path.compute(config, state, walls, [StandingRobot((0.5, 0.0), 0.48, blocker_key)]
                 + [StandingRobot(centre, 0.48, "q") for centre in behind])
    return path.target


def test_in_a_blocked_passage_the_robot_whose_name_sorts_after_backs_out():
    """Two unicycles pressed at each other in a gap one robot wide (with the margins):
    the robot whose name sorts after the other's backs out along its way, by two of the
    pair's combined radii; the other keeps its heading; neither before its patience
    (twice the progress escape time) is out."""
    back = _passage_blocked("r2", "r0", 6.1)
    assert back[0] < -0.9 and abs(back[1]) < 1e-6  # back along the passage, not at a wall
    # (not backing out: a way round, however shut, beside the robot ahead)
    assert _passage_blocked("r0", "r2", 6.1)[0] > -0.1  # the other does not back out
    assert _passage_blocked("r2", "r0", 5.0)[0] > -0.1  # nor before its patience is out
    assert _passage_blocked("r0", "r2", 12.1)[0] < -0.9  # the blocker may be boxed in
    assert _passage_blocked("r2", "", 6.1)[0] > -0.1  # nameless: no order, no backing out


def test_no_robot_backs_out_into_robots_standing_behind_it():
    """Backing out frees a passage only where there is room behind: into a queue it would
    press the robot into those behind it."""
    assert _passage_blocked("r2", "r0", 6.1, behind=[(-0.6, 0.0)])[0] > -0.1
    assert _passage_blocked("r2", "r0", 6.1, behind=[(-0.6, 1.2)])[0] < -0.9  # beside: room


def test_unicycles_meeting_in_a_passage_one_robot_wide_all_arrive():
    result = World(load_scenario(resolve_scenario("walls_swap_6")),
                   WorldOptions(kinematics="diff_drive")).run()
    assert result.reached == 6
    assert result.collisions == 0
