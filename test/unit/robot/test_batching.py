"""When the states of one process's robots go out together
(orca_ros.core.robot.batching), on a driven clock."""

import pytest

from orca_ros.core.robot.batching import IDLE_WAIT, StateBatcher


class _Sent:
    """The batches sent: each one's robots (``sent``) and the last one's states."""

    def __init__(self):
        self.sent = []
        self.states = []

    def __call__(self, states):
        self.states = states
        self.sent.append([name for name, _ in states])


def _batcher(now):
    return StateBatcher(max_wait=0.01, clock=lambda: now[0], send=_Sent())


def test_a_batch_goes_once_it_holds_every_robot_heard_of_lately():
    now = [0.0]
    batcher = _batcher(now)
    batcher.put("a", b"1")  # a alone is every robot heard of: it goes
    assert batcher.send.sent == [["a"]]
    batcher.put("b", b"2")
    batcher.put("a", b"3")
    assert batcher.send.sent == [["a"], ["b", "a"]]
    now[0] = 0.1
    batcher.put("a", b"4")
    assert batcher.send.sent == [["a"], ["b", "a"]]  # b is waited for
    batcher.put("b", b"5")
    assert batcher.send.sent == [["a"], ["b", "a"], ["a", "b"]]


def test_a_second_state_of_a_robot_sends_the_first_before_it():
    now = [0.0]
    batcher = _batcher(now)
    batcher.put("b", b"0")
    batcher.put("a", b"1")  # waits for b
    batcher.send.sent.clear()
    batcher.put("a", b"2")
    assert batcher.send.sent == [["a"]] and batcher.send.states == [("a", b"1")]
    assert batcher.pending == {"a": b"2"}


def test_a_late_robot_holds_the_batch_back_only_until_its_time_and_then_rejoins():
    now = [0.0]
    batcher = _batcher(now)
    batcher.put("a", b"1")
    batcher.put("b", b"1")
    now[0] = 0.05
    batcher.due()  # b's went on its time
    batcher.send.sent.clear()
    now[0] = 0.1
    batcher.put("a", b"2")
    now[0] = 0.104
    assert batcher.due() == pytest.approx(0.006)
    assert batcher.send.sent == []
    now[0] = 0.110
    assert batcher.due() == IDLE_WAIT
    assert batcher.send.sent == [["a"]]
    now[0] = 0.2
    batcher.put("b", b"3")  # late: the next one takes both again
    batcher.put("a", b"3")
    assert batcher.send.sent == [["a"], ["b", "a"]]


def test_a_robot_quiet_for_a_second_or_whose_node_is_gone_is_not_waited_for():
    now = [0.0]
    batcher = _batcher(now)
    for robot in "abc":
        batcher.put(robot, b"1")
    now[0] = 0.05
    batcher.due()
    batcher.send.sent.clear()
    batcher.forget("c")
    now[0] = 1.05
    batcher.put("a", b"2")  # b last put its state 1.05 s ago
    assert batcher.send.sent == [["a"]]
