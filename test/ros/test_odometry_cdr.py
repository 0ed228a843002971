"""Neighbours' odometry is read straight from its serialized bytes
(``orca_ros.nodes.ros_common.odometry_from_cdr``), and a robot's state is serialized by
hand (``odometry_cdr``); rclpy's own (de)serialization is the reference here."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("rclpy", reason="rclpy not installed (pip install .[ros])")

from nav_msgs.msg import Odometry  # noqa: E402
from rclpy.serialization import deserialize_message, serialize_message  # noqa: E402

from orca_ros.nodes.ros_common import (BadMessage, odometry_cdr, odometry_fields,  # noqa: E402
                                        odometry_from_cdr, odometry_state)

pytestmark = pytest.mark.ros

finite = st.floats(-1e6, 1e6, allow_nan=False)
names = st.text(alphabet="abcdefghij/_0123456789", max_size=13)


@settings(max_examples=150, deadline=None)
@given(names, names, st.lists(finite, min_size=13, max_size=13),
       st.integers(0, 2**31 - 1), st.integers(0, 999_999_999))
def test_the_fields_match_rclpys_deserialization(frame, child, numbers, sec, nanosec):
    msg = Odometry()
    msg.header.stamp.sec, msg.header.stamp.nanosec = sec, nanosec
    msg.header.frame_id, msg.child_frame_id = frame, child  # every alignment of the strings
    p, q = msg.pose.pose.position, msg.pose.pose.orientation
    lin, ang = msg.twist.twist.linear, msg.twist.twist.angular
    (p.x, p.y, p.z, q.x, q.y, q.z, q.w, lin.x, lin.y, lin.z, ang.x, ang.y, ang.z) = numbers
    msg.pose.covariance[0] = msg.twist.covariance[35] = 7.0
    data = serialize_message(msg)
    fast, reference = odometry_from_cdr(data), deserialize_message(data, Odometry)
    assert (fast.header.stamp.sec, fast.header.stamp.nanosec) == (sec, nanosec)
    assert fast.child_frame_id == reference.child_frame_id  # names a robot in cells
    for path in ("pose.pose.position", "pose.pose.orientation", "twist.twist.linear",
                 "twist.twist.angular"):
        ours, theirs = fast, reference
        for part in path.split("."):
            ours, theirs = getattr(ours, part), getattr(theirs, part)
        for axis in ("x", "y", "z") + (("w",) if path.endswith("orientation") else ()):
            assert getattr(ours, axis) == getattr(theirs, axis), (path, axis)
    assert _state_or_refusal(fast) == _state_or_refusal(reference)


def _state_or_refusal(msg):
    """What odometry_state makes of a message: its state, or why it refused it (a
    quaternion too small to have a yaw, as hypothesis finds)."""
    try:
        return odometry_state(msg)
    except BadMessage as error:
        return str(error)


def test_a_truncated_message_is_a_bad_message_and_nan_still_is_one():
    msg = Odometry()
    msg.header.frame_id = "world"
    data = serialize_message(msg)
    with pytest.raises(BadMessage, match="truncated"):
        odometry_from_cdr(data[:60])
    msg.pose.pose.position.x = math.nan
    msg.pose.pose.orientation.w = 1.0
    with pytest.raises(BadMessage, match="non-finite"):
        odometry_state(odometry_from_cdr(serialize_message(msg)))


@settings(max_examples=100, deadline=None)
@given(names, names, st.lists(finite, min_size=13, max_size=13), st.floats(0.0, 10.0),
       st.integers(0, (2**31 - 1) * 10**9))
def test_a_state_serialized_by_hand_is_what_rclpy_serializes(frame, child, numbers,
                                                             variance, stamp_ns):
    """rclpy reads odometry_cdr's bytes as the Odometry they stand for (every alignment
    of the two strings; as long as serialize_message's, whose padding bytes are not
    always zero), and so does odometry_fields."""
    msg = Odometry()
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, 10**9)
    msg.header.frame_id, msg.child_frame_id = frame, child
    p, q = msg.pose.pose.position, msg.pose.pose.orientation
    lin, ang = msg.twist.twist.linear, msg.twist.twist.angular
    (p.x, p.y, p.z, q.x, q.y, q.z, q.w, lin.x, lin.y, lin.z, ang.x, ang.y, ang.z) = numbers
    msg.pose.covariance[0] = msg.pose.covariance[7] = variance
    ours = odometry_cdr(stamp_ns, frame, child, numbers[:3], numbers[3:7], variance,
                        numbers[7:])
    assert deserialize_message(ours, Odometry) == msg
    assert len(ours) == len(serialize_message(msg))
    fields = odometry_fields(ours)
    assert (fields.frame_id, fields.child_frame_id, fields.cxx, fields.cyy) == \
        (frame, child, variance, variance)


@settings(max_examples=50, deadline=None)
@given(st.lists(finite, min_size=4, max_size=4), st.booleans(), names,
       st.integers(0, (2**31 - 1) * 10**9))
def test_a_command_serialized_by_hand_is_what_twist_message_makes(numbers, stamped, frame,
                                                                  stamp_ns):
    from builtin_interfaces.msg import Time
    from geometry_msgs.msg import Twist, TwistStamped

    from orca_ros.nodes.ros_common import twist_cdr, twist_message

    sec, nanosec = divmod(stamp_ns, 10**9)
    x, y, w, z = numbers
    expected = twist_message(x, y, w, stamped, Time(sec=sec, nanosec=nanosec), frame, z)
    ours = twist_cdr(x, y, w, stamped, stamp_ns, frame, z)
    assert deserialize_message(ours, TwistStamped if stamped else Twist) == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(names, st.integers(0, 3), names, names,
                          st.dictionaries(names, st.one_of(names, finite, st.booleans()),
                                          max_size=5)), max_size=3),
       st.integers(0, 2**31 * 10**9 - 1))
def test_diagnostics_serialized_by_hand_read_back_as_the_message(statuses, stamp_ns):
    """(rclpy's own bytes leave its padding unset: compared as what rclpy reads.)"""
    from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue

    from orca_ros.nodes.ros_common import diagnostics_cdr

    msg = DiagnosticArray()
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, 1_000_000_000)
    for name, level, message, hardware_id, values in statuses:  # every string's alignment
        status = DiagnosticStatus(name=name, message=message, hardware_id=hardware_id)
        status.level = bytes([level]) if isinstance(DiagnosticStatus.OK, bytes) else level
        status.values = [KeyValue(key=k, value=str(v)) for k, v in values.items()]
        msg.status.append(status)
    assert deserialize_message(diagnostics_cdr(stamp_ns, statuses), DiagnosticArray) == msg
