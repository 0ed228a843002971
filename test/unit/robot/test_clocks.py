"""Neighbours' data aged from its arrival, whatever their clocks say (core.robot.clocks)."""

import random

from orca_ros.core.robot.clocks import ClockOffset, SenderClocks, offsets_beyond

S = 1_000_000_000
MS = 1_000_000


def ages(offset_ns, latencies_ns, period_ns=100 * MS, start_ns=100 * S, window=5.0):
    """Each message's (true age, estimated age) when it arrives, the sender's clock
    ``offset_ns`` behind this one, message ``i`` measured at ``start + i period``."""
    clock = ClockOffset(window)
    out = []
    for i, latency in enumerate(latencies_ns):
        measured = start_ns + i * period_ns  # this clock
        arrival = measured + latency
        stamp = measured - offset_ns  # the sender's clock
        out.append((arrival - measured, arrival - clock.measured_ns(stamp, arrival)))
    return out


def test_a_synchronised_sender_keeps_its_stamps_and_one_off_by_2_s_is_aged_by_arrival():
    """Clocks that agree (the least delay within AGREEMENT): each age is the stamp's.
    A sender 2 s behind or ahead: once the window fills, each age is the true one less at
    most the least latency of the window, not 2 s off."""
    rng = random.Random(4)
    latencies = [rng.randrange(2 * MS, 40 * MS) for _ in range(120)]
    assert all(age == true for true, age in ages(0, latencies))
    for offset in (2 * S, -2 * S):
        for i, (true, age) in enumerate(ages(offset, latencies)):
            if i >= 50:  # 5 s of 100 ms messages: the window is full
                assert 0 <= true - age <= min(latencies[i - 49:i + 1])


def test_a_least_delay_beyond_the_agreement_is_taken_as_an_offset():
    from orca_ros.core.robot.clocks import AGREEMENT

    within = ClockOffset()
    beyond = ClockOffset()
    t = 100 * S
    assert within.measured_ns(t - int(0.9 * AGREEMENT * S), t) == t - int(0.9 * AGREEMENT * S)
    assert beyond.measured_ns(t - int(1.5 * AGREEMENT * S), t) == t  # all of it an offset


def test_the_age_is_bounded_by_the_true_age_and_the_least_latency():
    rng = random.Random(7)
    latencies = [rng.randrange(1 * MS, 80 * MS) for _ in range(300)]
    for offset in (0, 500 * MS, -1500 * MS):
        for i, (true_age, age) in enumerate(ages(offset, latencies, window=2.0)):
            window = latencies[max(0, i - 19):i + 1]  # 2 s of 100 ms messages
            assert 0 <= age <= true_age  # never older than it is, never in the future
            assert true_age - age <= min(window)  # off by at most the least latency


def test_a_step_of_the_senders_clock_is_followed_within_the_window():
    clock, latency, window = ClockOffset(2.0), 10 * MS, 2.0
    for i in range(50):  # the sender 1 s behind
        t = 100 * S + i * 100 * MS
        clock.measured_ns(t - S, t + latency)
    assert clock.estimate_ns == S + latency
    # Its clock jumps back 0.5 s more (it lags 1.5 s): the older samples leave the window.
    start = 105 * S
    for i in range(40):
        t = start + i * 100 * MS
        clock.measured_ns(t - 1500 * MS, t + latency)
        if i * 100 * MS > window * S:
            assert clock.estimate_ns == 1500 * MS + latency
    # It jumps ahead (it lags 0.2 s): followed at once.
    t = 110 * S
    clock.measured_ns(t - 200 * MS, t + latency)
    assert clock.estimate_ns == 200 * MS + latency


def test_no_stamp_or_no_clock_counts_as_arrival_and_a_clock_going_back_starts_anew():
    clock = ClockOffset()
    assert clock.measured_ns(0, 7 * S) == 7 * S and clock.estimate_ns is None
    assert clock.measured_ns(50 * S, 0) == 0 and clock.estimate_ns is None
    clock.measured_ns(40 * S, 50 * S)
    assert clock.estimate_ns == 10 * S
    clock.measured_ns(40 * S, 45 * S)  # this clock went back (a simulation restarted)
    assert clock.estimate_ns == 5 * S


def test_sender_clocks_put_stamps_on_this_clock_and_tell_large_offsets():
    clocks = SenderClocks()
    clocks.measured_ns("late", 10 * S, 12 * S)
    clocks.measured_ns("synced", 12 * S - MS, 12 * S)
    assert clocks.to_local("late", 11.0) == 13.0
    assert clocks.to_local("unheard", 11.0) == 11.0
    offsets = {n: clocks.offset(n) for n in ("late", "synced")}
    assert offsets_beyond(offsets, 0.1) == {"late": 2.0}
    assert offsets_beyond(offsets, 0.0) == {}


def test_on_one_clock_a_queue_that_keeps_every_message_waiting_is_not_taken_for_an_offset():
    """A simulated clock for all: a receiving process 0.3 s behind for longer than the
    window. Estimated, the wait reads as the sender's clock lagging and the data is aged
    0.3 s less than it is (the bound the estimate keeps between computers); on one clock
    every age is the true one, and no offset is reported."""
    wait, period = 300 * MS, 100 * MS
    estimated, one = SenderClocks(window=2.0), SenderClocks(window=2.0, one_clock=True)
    own_estimated, own_one = ClockOffset(2.0), ClockOffset(2.0, one_clock=True)
    for i in range(40):  # 4 s of messages, each arriving 0.3-0.35 s after its stamp
        stamp = 100 * S + i * period
        arrival = stamp + wait + (i % 6) * 10 * MS
        true_age = arrival - stamp
        assert arrival - one.measured_ns("r61", stamp, arrival) == true_age
        assert arrival - own_one.measured_ns(stamp, arrival) == true_age
        estimated_age = arrival - estimated.measured_ns("r61", stamp, arrival)
        own_estimated.measured_ns(stamp, arrival)
    assert true_age - estimated_age == wait  # what the estimate cannot tell from a clock
    assert one.offset("r61") is None and own_one.estimate_ns is None
    assert estimated.offset("r61") == wait * 1e-9 and own_estimated.estimate_ns == wait
    assert one.to_local("r61", 11.0) == 11.0


def report(**changed):
    from orca_ros.core.robot.report import robot_report

    from helpers.reports import snapshot
    return robot_report(snapshot(**changed))


def test_the_diagnostics_name_a_neighbour_whose_clock_is_off_and_warn():
    from orca_ros.core.robot.perception import NeighborReading
    from orca_ros.core.robot.report import OK, WARN

    neighbors = {"late": NeighborReading(9.97, (0.0, 0.0), (0.0, 0.0), sent=8.47),
                 "synced": NeighborReading(9.99, (1.0, 0.0), (0.0, 0.0), sent=9.985)}
    offsets = {"late": 1.502, "synced": 0.005}
    level, message, values = report(neighbors=neighbors, clock_offsets=offsets)
    assert level == WARN
    assert "late +1.50 s" in message and "synced" not in message
    assert "chrony" in message and "PTP" in message
    assert values["clock_offsets"] == "late:+1.502s,synced:+0.005s"
    assert values["neighbor_ages_s"] == "late:0.030,synced:0.010"
    assert report(neighbors=neighbors, clock_offsets=offsets, clock_offset_warn=2.0)[0] == OK
    level, message, values = report(own_clock_offset=-0.4)
    assert level == WARN and "own odometry (me) -0.40 s" in message
    assert values["own_odom_clock_offset_s"] == -0.4
