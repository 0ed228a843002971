"""The social-navigation set (orca_ros/core/sim/motion_quality.py) on tracks whose answers
are computed by hand: success, time-out, failure to progress, stalled time, path length
and SPL, acceleration and jerk; and a bench row that carries them."""

import math

import numpy as np
import pytest

from orca_ros.core.sim.motion_quality import (
    MotionQuality, accelerations_and_jerks, failed_to_progress, motion_quality,
    path_length, run_motion_summary, spl, time_stalled, timed_out)

DT = 0.1


def test_a_track_at_constant_acceleration_has_that_acceleration_and_no_jerk():
    """x = a t^2 / 2, a = 0.8 m/s^2, sampled at uneven times: the second differences over
    the record's times are exact for a quadratic, the third are zero."""
    times = np.cumsum([0.0, 0.1, 0.05, 0.2, 0.1, 0.15, 0.1, 0.3, 0.1])
    positions = np.column_stack([0.4 * times ** 2, np.zeros(len(times))])
    acceleration, jerk = accelerations_and_jerks(times, positions)
    assert len(acceleration) == len(times) - 2 and len(jerk) == len(times) - 3
    assert acceleration == pytest.approx(np.full(len(times) - 2, 0.8))
    assert jerk == pytest.approx(np.zeros(len(times) - 3), abs=1e-9)
    figures = motion_quality(times, positions, [(100.0, 0.0)], 0.1, 0.1)
    assert figures.acceleration_mean_mps2 == pytest.approx(0.8)
    assert figures.acceleration_max_mps2 == pytest.approx(0.8)
    assert figures.jerk_max_mps3 == pytest.approx(0.0, abs=1e-9)


def test_a_track_at_constant_jerk_has_that_jerk_and_a_diagonal_one_counts_both_axes():
    """x = j t^3 / 6 with j = 1.2 m/s^3 along the diagonal (3, 4)/5: jerk 1.2 at every
    third difference; acceleration at the middle of each second difference is j t."""
    times = np.arange(12) * DT
    along = 1.2 * times ** 3 / 6.0
    positions = np.column_stack([0.6 * along, 0.8 * along])
    acceleration, jerk = accelerations_and_jerks(times, positions)
    assert jerk == pytest.approx(np.full(len(times) - 3, 1.2))
    assert acceleration == pytest.approx(1.2 * times[1:-1], abs=1e-9)  # at t_k, even steps
    assert accelerations_and_jerks(times[:2], positions[:2])[0].size == 0  # too few


def test_spl_is_the_shortest_over_the_driven_for_robots_that_arrived_and_zero_otherwise():
    """Anderson et al.'s S l / max(p, l)."""
    assert spl(True, 8.0, 10.0) == pytest.approx(0.8)  # drove 1.25 times its shortest
    assert spl(True, 8.0, 8.0) == 1.0
    assert spl(True, 8.0, 7.5) == 1.0  # cut a corner within its tolerance: capped at 1
    assert spl(False, 8.0, 3.0) == 0.0  # never arrived
    assert spl(True, 0.0, 0.0) == 1.0  # started on its goal
    assert path_length([(0.0, 0.0), (3.0, 4.0), (6.0, 0.0)]) == pytest.approx(10.0)


def test_a_robot_that_drove_a_quarter_longer_than_its_way_home_scores_0_8():
    """From (0, 0) to (8, 0) over (4, 3): 5 + 5 = 10 m driven against 8 m: SPL 0.8; the
    path is measured to the first arrival (goal tolerance 0.05 m: the last sample)."""
    legs = [np.linspace((0.0, 0.0), (4.0, 3.0), 51), np.linspace((4.0, 3.0), (8.0, 0.0), 51)[1:]]
    positions = np.vstack(legs)
    times = np.arange(len(positions)) * DT
    figures = motion_quality(times, positions, [(8.0, 0.0)], 0.05, 0.1, shortest_path=8.0,
                             max_time=30.0)
    assert figures.arrived is True and figures.timed_out is False
    assert figures.path_length_m == pytest.approx(10.0)
    assert figures.spl == pytest.approx(0.8)


def test_a_robot_that_never_arrives_scores_0_and_is_stuck_or_slow():
    """A robot stuck at 4 m from its goal for the last 20 s of a 30 s run: SPL 0, timed out
    (its record reached max_time), failed to progress; one still closing in at 0.05 m/s
    when time runs out timed out but did not fail to progress; a run stopped before
    max_time has no time-out."""
    times = np.arange(301) * DT  # 0 .. 30 s
    x = np.minimum(times, 6.0)  # drives 6 m in 6 s, then stands (goal at 10 m)
    stuck = np.column_stack([x, np.zeros(len(x))])
    figures = motion_quality(times, stuck, [(10.0, 0.0)], 0.1, 0.1, shortest_path=10.0,
                             max_time=30.0)
    assert (figures.arrived, figures.spl, figures.timed_out) == (False, 0.0, True)
    assert figures.failed_to_progress is True
    assert figures.time_stalled_s == pytest.approx(24.0)  # standing from 6 s to 30 s
    assert figures.path_length_m == pytest.approx(6.0)
    slow = np.column_stack([np.minimum(times, 6.0) + 0.05 * np.maximum(times - 6.0, 0.0),
                            np.zeros(len(times))])  # 0.5 m nearer over the last 10 s
    slow_figures = motion_quality(times, slow, [(10.0, 0.0)], 0.1, 0.1, shortest_path=10.0,
                                  max_time=30.0)
    assert (slow_figures.timed_out, slow_figures.failed_to_progress) == (True, False)
    stopped_early = motion_quality(times[:200], stuck[:200], [(10.0, 0.0)], 0.1, 0.1,
                                   shortest_path=10.0, max_time=30.0)  # to 19.9 s
    assert stopped_early.timed_out is False and stopped_early.failed_to_progress is True
    # the rule itself: less than 0.1 m nearer over the last 10 s than ever before
    assert failed_to_progress([0.0, 4.0, 15.0], [4.0, 3.0, 2.95], False)
    assert not failed_to_progress([0.0, 4.0, 15.0], [4.0, 3.0, 2.85], False)
    assert not failed_to_progress([0.0, 5.0], [4.0, 4.0], False)  # shorter than the window
    assert not failed_to_progress([0.0, 4.0, 15.0], [4.0, 4.0, 4.0], True)  # it arrived
    assert timed_out([0.0, 30.0], False, 30.0) and not timed_out([0.0, 30.0], True, 30.0)


def test_time_stalled_counts_every_rest_away_from_the_goal_waiting_included():
    """Waits 2 s at its start, drives 3 m, rests 0.3 s, drives on: 2.3 s stalled (a rest
    too short to be a stop, and the wait before starting, count); nothing once on its
    goal."""
    xs = [0.0] * 21 + list(np.linspace(0.0, 3.0, 31)[1:]) + [3.0] * 3 + \
        list(np.linspace(3.0, 10.0, 71)[1:]) + [10.0] * 10
    times = np.arange(len(xs)) * DT
    positions = np.column_stack([xs, np.zeros(len(xs))])
    assert time_stalled(times, positions, (10.0, 0.0), 0.1) == pytest.approx(2.3)
    figures = motion_quality(times, positions, [(10.0, 0.0)], 0.1, 0.1)
    assert figures.time_stalled_s == pytest.approx(2.3)
    assert figures.time_standing_s == 0.0  # no rest of 0.5 s after moving


def test_the_run_summary_averages_spl_and_counts_time_outs_and_failures():
    def robot(spl_value, arrived, failed, accel, jerk):
        return MotionQuality(0.0, 0, 0.0, 0, 10.0, 0.0, arrived=arrived,
                             timed_out=not arrived, failed_to_progress=failed,
                             time_stalled_s=1.5, path_length_m=10.0, shortest_path_m=8.0,
                             spl=spl_value, acceleration_mean_mps2=accel,
                             acceleration_max_mps2=2 * accel, jerk_mean_mps3=jerk,
                             jerk_max_mps3=3 * jerk)
    row = run_motion_summary({"a": robot(1.0, True, False, 0.2, 1.0),
                              "b": robot(0.8, True, False, 0.4, 3.0),
                              "c": robot(0.0, False, True, 0.6, 2.0)})
    assert row["spl"] == pytest.approx(0.6)
    assert (row["timeouts"], row["failed_to_progress"]) == (1, 1)
    assert row["time_stalled_s"] == pytest.approx(4.5)
    assert row["path_length_mean_m"] == pytest.approx(10.0)
    assert row["acceleration_mean_mps2"] == pytest.approx(0.4)
    assert row["acceleration_max_mps2"] == pytest.approx(1.2)
    assert row["jerk_mean_mps3"] == pytest.approx(2.0) and row["jerk_max_mps3"] == 9.0


def test_a_bench_row_carries_the_set_with_collisions_split_robot_and_wall():
    """crossing_4 in the world: every robot home, no pair; the split adds up to the
    colliding pairs, and SPL is the mean of each robot's reference over its path."""
    from orca_ros.core.scenario.loader import load_scenario, resolve_scenario
    from orca_ros.core.sim.world import World, WorldOptions

    scenario = load_scenario(resolve_scenario("crossing_4"))
    result = World(scenario, WorldOptions()).run()
    row = result.summary()
    assert (row["robot_collisions"], row["wall_collisions"], row["collisions"]) == (0, 0, 0)
    assert row["success_rate"] == 1.0 and row["timeouts"] == 0
    assert row["failed_to_progress"] == 0
    expected = np.mean([f.shortest_path_m / max(f.path_length_m, f.shortest_path_m)
                        for f in result.motion_quality.values()])
    assert row["spl"] == pytest.approx(expected, abs=1e-6) and 0.5 < row["spl"] <= 1.0
    for agent in scenario.agents:
        assert result.motion_quality[agent.name].shortest_path_m == \
            pytest.approx(agent.reference_length)
    assert math.isfinite(row["acceleration_max_mps2"]) and row["jerk_max_mps3"] >= 0.0


def test_the_observer_and_sim_print_the_set_on_one_line():
    from orca_ros.testing.observer import social_line

    line = social_line({"spl": 0.8, "timeouts": 1, "failed_to_progress": 0,
                        "time_stalled_s": 2.34, "path_length_mean_m": 10.0,
                        "acceleration_mean_mps2": 0.4, "acceleration_max_mps2": 5.0,
                        "jerk_mean_mps3": 3.0, "jerk_max_mps3": 50.0,
                        "robot_collisions": 2, "wall_collisions": 1})
    assert line == ("social navigation: colliding pairs robot-robot 2, robot-wall 1, SPL "
                    "0.80, 1 timed out, 0 failed to progress, 2.3 s stalled, path 10.00 m "
                    "per robot, acceleration 0.40 mean / 5.00 max m/s^2, jerk 3.0 / 50.0 "
                    "m/s^3")
    assert social_line({}) == "social navigation: -"
