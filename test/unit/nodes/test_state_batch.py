"""A process's robots' states in one message (orca_ros.nodes.state_batch): the wire
format, read back by rclpy's own deserializer."""

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.nodes.state_batch import BadBatch, batch_cdr, batch_states

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
