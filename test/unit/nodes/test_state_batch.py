"""A process's robots' states in one message (orca_ros.nodes.state_batch): the wire
format, read back by rclpy's own deserializer, and when a batch goes."""

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.nodes.state_batch import (IDLE_WAIT, BadBatch, StateBatcher, batch_cdr,
                                        batch_states)

_names = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF), min_size=1,
                 max_size=12)
_states = st.lists(st.tuples(_names, st.binary(min_size=0, max_size=40)), max_size=6)


@settings(max_examples=200, deadline=None)
@given(_states)
def test_a_batch_reads_back_as_the_states_it_was_made_of(states):
    assert batch_states(batch_cdr(states)) == states


@settings(max_examples=50, deadline=None)
@given(_states)
def test_a_batch_is_a_uint8multiarray_as_rclpy_reads_and_writes_it(states):
    serialization = pytest.importorskip("rclpy.serialization")
    from std_msgs.msg import UInt8MultiArray

    msg = serialization.deserialize_message(batch_cdr(states), UInt8MultiArray)
    assert [d.label for d in msg.layout.dim] == [name for name, _ in states]
    assert [d.size for d in msg.layout.dim] == [len(state) for _, state in states]
    assert msg.layout.data_offset == 0
    assert bytes(msg.data) == b"".join(state for _, state in states)
    # rclpy's own bytes (its padding is not zeroed) read back the same.
    assert batch_states(serialization.serialize_message(msg)) == states


def test_a_batch_made_by_rclpy_is_read():
    serialization = pytest.importorskip("rclpy.serialization")
    from std_msgs.msg import MultiArrayDimension, UInt8MultiArray

    msg = UInt8MultiArray()
    msg.layout.dim = [MultiArrayDimension(label="a", size=2, stride=2),
                      MultiArrayDimension(label="robot_b", size=3, stride=3)]
    msg.data = b"\x01\x02\x03\x04\x05"
    assert batch_states(serialization.serialize_message(msg)) == \
        [("a", b"\x01\x02"), ("robot_b", b"\x03\x04\x05")]


@pytest.mark.parametrize("cut", [3, 7, 9, 20, -1])
def test_a_truncated_batch_is_refused_saying_so(cut):
    data = batch_cdr([("a", b"\x01" * 8), ("b", b"\x02" * 8)])
    with pytest.raises(BadBatch, match="state batch"):
        batch_states(data[:cut])


def test_sizes_that_do_not_add_up_to_the_data_are_refused():
    good = bytearray(batch_cdr([("a", b"\x01" * 8)]))
    size_at = good.index(struct.pack("<II", 8, 8))
    good[size_at:size_at + 4] = struct.pack("<I", 9)
    with pytest.raises(BadBatch, match="add up to 9 bytes"):
        batch_states(bytes(good))


def test_a_count_beyond_the_bytes_is_refused_before_reading_on():
    with pytest.raises(BadBatch, match="says it holds"):
        batch_states(b"\x00\x01\x00\x00" + struct.pack("<I", 10 ** 9) + bytes(8))


class _Publisher:
    def __init__(self):
        self.sent = []

    def publish(self, data):
        self.states = batch_states(data)
        self.sent.append([name for name, _ in self.states])


def _batcher(now):
    batcher = StateBatcher(max_wait=0.01, clock=lambda: now[0])
    batcher.publisher = _Publisher()
    return batcher


def test_a_batch_goes_once_it_holds_every_robot_heard_of_lately():
    now = [0.0]
    batcher = _batcher(now)
    batcher.put("a", b"1")  # a alone is every robot heard of: it goes
    assert batcher.publisher.sent == [["a"]]
    batcher.put("b", b"2")
    batcher.put("a", b"3")
    assert batcher.publisher.sent == [["a"], ["b", "a"]]
    now[0] = 0.1
    batcher.put("a", b"4")
    assert batcher.publisher.sent == [["a"], ["b", "a"]]  # b is waited for
    batcher.put("b", b"5")
    assert batcher.publisher.sent == [["a"], ["b", "a"], ["a", "b"]]


def test_a_second_state_of_a_robot_sends_the_first_before_it():
    now = [0.0]
    batcher = _batcher(now)
    batcher.put("b", b"0")
    batcher.put("a", b"1")  # waits for b
    batcher.publisher.sent.clear()
    batcher.put("a", b"2")
    assert batcher.publisher.sent == [["a"]] and batcher.publisher.states == [("a", b"1")]
    assert batcher.pending == {"a": b"2"}


def test_a_late_robot_holds_the_batch_back_only_until_its_time_and_then_rejoins():
    now = [0.0]
    batcher = _batcher(now)
    batcher.put("a", b"1")
    batcher.put("b", b"1")
    now[0] = 0.05
    batcher.due()  # b's went on its time
    batcher.publisher.sent.clear()
    now[0] = 0.1
    batcher.put("a", b"2")
    now[0] = 0.104
    assert batcher.due() == pytest.approx(0.006)
    assert batcher.publisher.sent == []
    now[0] = 0.110
    assert batcher.due() == IDLE_WAIT
    assert batcher.publisher.sent == [["a"]]
    now[0] = 0.2
    batcher.put("b", b"3")  # late: the next one takes both again
    batcher.put("a", b"3")
    assert batcher.publisher.sent == [["a"], ["b", "a"]]


def test_a_robot_quiet_for_a_second_or_whose_node_is_gone_is_not_waited_for():
    now = [0.0]
    batcher = _batcher(now)
    for robot in "abc":
        batcher.put(robot, b"1")
    now[0] = 0.05
    batcher.due()
    batcher.publisher.sent.clear()
    batcher.forget("c")
    now[0] = 1.05
    batcher.put("a", b"2")  # b last put its state 1.05 s ago
    assert batcher.publisher.sent == [["a"]]
