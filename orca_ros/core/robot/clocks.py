"""When another computer's data was measured, on this computer's clock (no ROS).

A neighbour's state is stamped by its own computer's clock (its orca_node's host, or
the driver's board that stamped the odometry it announces); so may a robot's own
odometry be (a base controller board). Clocks of different computers disagree unless
synchronised (chrony, PTP): a stamp taken at face value makes the data of a neighbour
whose clock lags by ``d`` look ``d`` s old (its disc grows with its age:
:func:`~.perception.position_uncertainty`), and that of one whose clock runs ahead
look fresh whatever its real age.

So every sender's clock offset is estimated from the messages themselves
(:class:`ClockOffset`): each message gives ``arrival - stamp`` = ``offset + latency``
(``arrival`` on this clock, ``latency`` its delay on the way); the smallest over the
last :data:`WINDOW` s is ``offset + L_min``, ``L_min`` the least latency of the
messages in the window. A message is then taken as measured at

    ``measured = min(stamp + estimate, arrival)``   (and never after ``now``)

on this clock, so its age is ``now - measured``: its arrival time plus the latency it
had beyond the least one. Bounds, while the sender's offset holds still over the
window: the age is at most the true age and at least the true age less ``L_min``
(which is at most the latency of this very message), and never less than the time since
it arrived. An estimate in ``[0, AGREEMENT]`` is taken as latency on agreeing clocks
(:data:`AGREEMENT`): the stamp is used as it is, so with synchronised clocks (and in
one simulation) ages are exactly the stamps' ages. A sender whose clock jumps ahead (its
``arrival - stamp`` falls) is followed at its next message; one whose clock jumps back
(it rises) is followed once the older samples leave the window, within :data:`WINDOW`
s, its data meanwhile looking older than it is (the safe side).

A stamp of zero (never set) or a clock of its own not started (zero, a simulated clock
before its first ``/clock``) gives no sample: the data counts as measured on arrival.
A clock that goes back (a simulation restarted) starts the estimate anew.

**One clock** (``one_clock``: the nodes run on a simulated clock, ``use_sim_time``):
every stamp is of the same clock, so there is no offset to estimate, and a stamp is
taken as it is (never after its arrival). Estimated there, a receiving process's
queue that keeps every message waiting more than :data:`AGREEMENT` s for a whole
window reads as a clock offset, and the data is then aged less than it is by that
wait: with 100 robots, ten a process, on two busy cores, 9 to 14 robots ended a run
reporting their neighbours' clocks 0.2-0.3 s off, all on one simulated clock. On
computers of their own the same queue cannot be told from a lagging clock by the
stamps alone: the estimate's lower bound on the age (the true age less the least
latency) is what holds there.

Stamps still order one sender's stream (an older stamp than the one held is ignored),
and place what a neighbour said it will do (its shared prediction) once corrected by
its sender's estimate (:meth:`SenderClocks.to_local`).
"""

from __future__ import annotations

import collections
from typing import Deque, Dict, Optional, Tuple

WINDOW = 10.0  # s of messages whose least arrival - stamp is the offset estimate
AGREEMENT = 0.2
"""s: a least ``arrival - stamp`` in ``[0, AGREEMENT]`` is taken as latency on clocks
that agree (a slow network, a busy host, a simulator's reading delay), and the stamp as
it is; beyond (or below 0: the sender's clock runs ahead) it is a clock offset and
corrected. So where clocks agree ages are the stamps' own, as in one simulation."""
NS = 1_000_000_000
AGREEMENT_NS = int(AGREEMENT * NS)


def _correction_ns(estimate_ns: Optional[int]) -> int:
    """What a stamp is moved by: the estimate, unless it says the clocks agree."""
    if estimate_ns is None or 0 <= estimate_ns <= AGREEMENT_NS:
        return 0
    return estimate_ns


def as_stamped_ns(stamp_ns: int, arrival_ns: int) -> int:
    """A message's stamp taken as it is (on one clock), never after its arrival; its
    arrival for an unset stamp (0) or arrival."""
    return arrival_ns if stamp_ns <= 0 or arrival_ns <= 0 else min(stamp_ns, arrival_ns)


class ClockOffset:
    """One sender's clock offset to this clock (ns): the least ``arrival - stamp`` of its
    messages that arrived within the last ``window`` s (a monotonic deque: each
    message is added and dropped once). ``one_clock``: the sender's stamps are of this
    very clock (a simulated one): nothing is estimated (module docstring)."""

    def __init__(self, window: float = WINDOW, one_clock: bool = False) -> None:
        self.window_ns = int(window * NS)
        self.one_clock = one_clock
        self._samples: Deque[Tuple[int, int]] = collections.deque()  # (arrival, difference)
        self.last_arrival_ns: Optional[int] = None
        self.last_stamp_ns: Optional[int] = None

    @property
    def estimate_ns(self) -> Optional[int]:
        """``offset + L_min`` (ns; this clock minus the sender's), None before a sample."""
        return self._samples[0][1] if self._samples else None

    def add(self, stamp_ns: int, arrival_ns: int) -> None:
        """A message stamped ``stamp_ns`` (the sender's clock) arrived at ``arrival_ns``."""
        if self.last_arrival_ns is not None and arrival_ns < self.last_arrival_ns:
            self._samples.clear()  # this clock went back: start anew
        self.last_arrival_ns, self.last_stamp_ns = arrival_ns, stamp_ns
        difference = arrival_ns - stamp_ns
        samples = self._samples
        while samples and samples[-1][1] >= difference:
            samples.pop()
        samples.append((arrival_ns, difference))
        while samples[0][0] < arrival_ns - self.window_ns:
            samples.popleft()

    def measured_ns(self, stamp_ns: int, arrival_ns: int) -> int:
        """When a message stamped ``stamp_ns``, arriving at ``arrival_ns``, was measured on
        this clock (the module's rule); the message is taken into the estimate."""
        if self.one_clock or stamp_ns <= 0 or arrival_ns <= 0:
            return as_stamped_ns(stamp_ns, arrival_ns)
        self.add(stamp_ns, arrival_ns)
        return min(stamp_ns + _correction_ns(self.estimate_ns), arrival_ns)

    def to_local_ns(self, stamp_ns: int) -> int:
        """A stamp of the sender's clock on this clock (unchanged before any sample)."""
        return stamp_ns + _correction_ns(self.estimate_ns)


class SenderClocks:
    """Every sender's :class:`ClockOffset`, by name (one per process: its nodes share
    the clock), and the last data age of each; ``one_clock`` as there (every sender's)."""

    def __init__(self, window: float = WINDOW, one_clock: bool = False) -> None:
        self.window = window
        self.one_clock = one_clock
        self.offsets: Dict[str, ClockOffset] = {}

    def measured_ns(self, sender: str, stamp_ns: int, arrival_ns: int) -> int:
        """:meth:`ClockOffset.measured_ns` of ``sender``'s clock."""
        if self.one_clock:
            return as_stamped_ns(stamp_ns, arrival_ns)
        clock = self.offsets.get(sender)
        if clock is None:
            clock = self.offsets[sender] = ClockOffset(self.window)
        return clock.measured_ns(stamp_ns, arrival_ns)

    def to_local(self, sender: str, stamp: float) -> float:
        """A stamp of ``sender``'s clock (s) on this clock (s)."""
        clock = self.offsets.get(sender)
        if clock is None:
            return stamp
        return stamp + _correction_ns(clock.estimate_ns) * 1e-9

    def offset(self, sender: str) -> Optional[float]:
        """``sender``'s estimated offset (s: this clock minus its; least latency
        included), None while unknown."""
        clock = self.offsets.get(sender)
        estimate = clock.estimate_ns if clock is not None else None
        return None if estimate is None else estimate * 1e-9

    def forget(self, sender: str) -> None:
        self.offsets.pop(sender, None)


def offset_text(name: str, offset: float) -> str:
    """``name:+0.52s``: a sender's clock offset as the diagnostics list it (positive:
    its clock lags this one)."""
    return f"{name}:{offset:+.3f}s"


def offsets_beyond(offsets: Dict[str, float], threshold: float) -> Dict[str, float]:
    """The offsets whose size exceeds ``threshold`` (s); none when it is 0 or less."""
    if threshold <= 0.0:
        return {}
    return {name: o for name, o in offsets.items() if abs(o) > threshold}
