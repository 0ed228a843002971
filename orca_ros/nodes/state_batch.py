"""The states of one process's robots announced together: one message per control period.

``orca_robots`` hosts several robots in one process. Announced one by one on
``/orca/states``, every robot's state is a message that every other process takes,
wakes for and hands to Python: at 100 robots, ten to a process, each process took
1,000 states a second, and the message handling (DDS's receive thread, the executor's
take and dispatch, the callback) was over half of the robots' CPU. Here the robots of
one process put their states into one message, ``/orca/state_batches``, and the fleet
takes a tenth as many.

**On the wire** a batch is a ``std_msgs/UInt8MultiArray`` (an existing type, so any ROS
tool can record and replay it):

* ``layout.dim[i].label``: the i-th robot's name; ``size`` and ``stride``: the byte
  count of its state;
* ``layout.data_offset``: 0;
* ``data``: the states back to back, each exactly what orca_node announces on
  ``/orca/states`` alone: a nav_msgs/Odometry in the shared frame named by its
  ``child_frame_id``, serialized as CDR with its 4-byte encapsulation header.

A reader takes each state as if it had come on ``/orca/states``, so a state keeps its
own stamp and each robot's clock is judged as before. orca_node, the supervisor and
``orca_robots`` read both topics; a robot alone in its process (``orca_node``,
``orca_lifecycle_node``, ``orca_robots`` with one robot) announces on ``/orca/states``.

**When a batch goes** is :class:`~orca_ros.core.robot.batching.StateBatcher`'s rule
(as soon as every robot of the process heard from lately is in, before a robot's second
state, at the latest :data:`~orca_ros.core.robot.batching.MAX_WAIT` s after the first);
:func:`attach` makes the process's publisher its way out.
"""

from __future__ import annotations

import struct
from typing import List, Sequence, Tuple

from .ros_common import _CDR_LE, RELIABLE_10, _cdr_string

STATE_BATCHES_TOPIC = "/orca/state_batches"

_U32 = struct.Struct("<I")
_U32x2 = struct.Struct("<II")


class BadBatch(ValueError):
    """A state batch that cannot be read (what is wrong with it)."""


def _align4(out: bytearray) -> None:
    out += bytes(-(len(out) - 4) % 4)


def batch_cdr(states: Sequence[Tuple[str, bytes]]) -> bytes:
    """``(robot, serialized state)`` pairs as one serialized std_msgs/UInt8MultiArray
    (plain little-endian CDR, the layout above)."""
    out = bytearray(_CDR_LE + b"\x00\x00")
    out += _U32.pack(len(states))
    for name, state in states:
        _cdr_string(out, name)
        _align4(out)
        out += _U32x2.pack(len(state), len(state))
    _align4(out)
    out += _U32.pack(0)  # data_offset
    out += _U32.pack(sum(len(state) for _, state in states))
    for _, state in states:
        out += state
    return bytes(out)


def batch_states(data: bytes) -> List[Tuple[str, bytes]]:
    """The ``(robot, serialized state)`` pairs of a serialized batch. Raises
    :class:`BadBatch`, saying what is wrong, on a truncated or inconsistent one (the
    sizes must add up to the data's length). Anything but plain little-endian CDR is
    deserialized the usual way."""
    data = bytes(data)
    if data[:2] != _CDR_LE:
        from rclpy.serialization import deserialize_message
        from std_msgs.msg import UInt8MultiArray

        try:
            msg = deserialize_message(data, UInt8MultiArray)
        except Exception as error:  # rclpy raises its own types for malformed bytes
            raise BadBatch(f"unreadable state batch ({len(data)} bytes): {error}") from None
        return _split([d.label for d in msg.layout.dim], [d.size for d in msg.layout.dim],
                      msg.layout.data_offset, bytes(msg.data))
    try:
        (count,) = _U32.unpack_from(data, 4)
        if count > len(data) // 12:  # a dimension takes at least 12 bytes
            raise BadBatch(f"state batch of {len(data)} bytes says it holds {count} states")
        offset, labels, sizes = 8, [], []
        for _ in range(count):
            offset = 4 + ((offset - 4 + 3) & ~3)
            (length,) = _U32.unpack_from(data, offset)
            end = offset + 4 + length
            if length == 0 or end > len(data):
                raise BadBatch(f"state batch label of {length} bytes at byte {offset} "
                               f"runs past its {len(data)} bytes")
            labels.append(data[offset + 4:end - 1].decode("utf-8", "replace"))
            offset = 4 + ((end - 4 + 3) & ~3)
            size, _ = _U32x2.unpack_from(data, offset)
            sizes.append(size)
            offset += 8
        offset = 4 + ((offset - 4 + 3) & ~3)
        data_offset, length = _U32x2.unpack_from(data, offset)
    except struct.error as error:
        raise BadBatch(f"truncated state batch ({len(data)} bytes): {error}") from None
    start = offset + 8
    if start + length != len(data):
        raise BadBatch(f"state batch says {length} bytes of data, holds "
                       f"{len(data) - start}")
    return _split(labels, sizes, data_offset, data[start:])


def _split(labels: Sequence[str], sizes: Sequence[int], data_offset: int,
           payload: bytes) -> List[Tuple[str, bytes]]:
    if data_offset != 0:
        raise BadBatch(f"state batch with data_offset {data_offset}: expected 0")
    if sum(sizes) != len(payload):
        raise BadBatch(f"state batch sizes add up to {sum(sizes)} bytes, its data holds "
                       f"{len(payload)}")
    states, start = [], 0
    for label, size in zip(labels, sizes):
        states.append((label, payload[start:start + size]))
        start += size
    return states


def attach(batcher, node) -> None:
    """Send ``batcher``'s batches (:class:`~orca_ros.core.robot.batching.StateBatcher`)
    from ``node``, the process's node that owns the shared subscriptions (again when
    that node is gone), serialized by :func:`batch_cdr`."""
    from std_msgs.msg import UInt8MultiArray

    publisher = node.create_publisher(UInt8MultiArray, STATE_BATCHES_TOPIC, RELIABLE_10)
    batcher.send = lambda states: publisher.publish(batch_cdr(states))
