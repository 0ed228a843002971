"""A robot's cycle timing (core.robot.timing), with a clock given in nanoseconds."""

import collections

from hypothesis import given, strategies as st

from orca_ros.core.robot.timing import CycleTiming, percentiles_ms

PERIOD = 100_000_000  # 10 Hz


def test_a_cycle_more_than_one_and_a_half_periods_late_counts_unless_waiting():
    timing = CycleTiming()
    timing.start(0, PERIOD)
    timing.start(PERIOD, PERIOD)
    timing.start(PERIOD + 150_000_000, PERIOD)  # exactly 1.5 periods: on time
    timing.start(PERIOD + 310_000_000, PERIOD, counts_late=False)  # waiting for odometry
    timing.start(PERIOD + 470_000_000, PERIOD)
    assert (timing.cycles, timing.late_cycles) == (5, 1)


def test_a_cycle_is_due_after_the_given_periods_and_before_the_first():
    timing = CycleTiming()
    assert timing.due(0, 1.25, PERIOD)
    timing.start(1_000_000_000, PERIOD)
    assert not timing.due(1_124_000_000, 1.25, PERIOD)
    assert timing.due(1_125_000_000, 1.25, PERIOD)


def test_odometry_heard_within_a_wall_window_and_not_before_any(monkeypatch):
    from orca_ros.core.robot import timing as timing_module

    wall = [5_000_000_000]
    monkeypatch.setattr(timing_module.time, "perf_counter_ns", lambda: wall[0])
    timing = CycleTiming()
    assert not timing.odometry_heard_within(PERIOD / 2)  # none yet: the watchdog looks
    timing.odometry_heard()
    wall[0] += PERIOD / 2 - 1
    assert timing.odometry_heard_within(PERIOD / 2)
    wall[0] += 1
    assert not timing.odometry_heard_within(PERIOD / 2)


def test_odometry_starts_a_cycle_only_when_spaced_by_its_own_stamps():
    timing = CycleTiming()
    spacing = 0.5 * PERIOD
    assert timing.odometry_starts(1_000_000_000, spacing)
    assert not timing.odometry_starts(1_040_000_000, spacing)
    assert timing.odometry_starts(1_050_000_000, spacing)


def test_latency_counts_from_the_odometry_and_cpu_only_inside_its_callback():
    timing = CycleTiming()
    timing.odometry_heard()
    with timing.cpu():
        timing.command_sent()
    timing.command_sent()  # a watchdog cycle: wall latency only
    assert len(timing.latencies_s) == 2 and len(timing.cycle_cpu_s) == 1
    assert all(0.0 <= s < 1.0 for s in timing.latencies_s)
    assert timing.cycle_cpu_start_ns is None


def test_percentiles_are_in_milliseconds_and_empty_before_the_first():
    assert percentiles_ms([]) == {"odom_to_cmd_ms_p50": "", "odom_to_cmd_ms_p99": ""}
    figures = percentiles_ms([i / 1000 for i in range(1, 101)], "k")  # 1..100 ms
    assert figures == {"k_p50": 51.0, "k_p99": 100.0}


@given(st.lists(st.floats(0.0, 10.0), min_size=1, max_size=300))
def test_percentiles_are_the_values_at_their_rank_in_ascending_order(seconds):
    ordered = sorted(seconds)
    expected = {q: round(1e3 * ordered[min(len(seconds) - 1, int(q * len(seconds)))], 2)
                for q in (0.5, 0.99)}
    assert percentiles_ms(collections.deque(seconds), "k") == {
        "k_p50": expected[0.5], "k_p99": expected[0.99]}
