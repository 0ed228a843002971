"""A state batch read in one call into C (``NeighborOdometry`` through
``_state_batch.read_state_batch``) against the same batch read state by state in Python
(``NeighborOdometry.on_state``, the reference): the same tables, number for number, and
the same states refused with the same reasons."""

import math
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

serialization = pytest.importorskip("rclpy.serialization")

from nav_msgs.msg import Odometry  # noqa: E402

from orca_ros.nodes.neighbor_odometry import NeighborOdometry  # noqa: E402
from orca_ros.nodes.state_batch import batch_cdr, batch_states  # noqa: E402

_FLAWS = ("frame", "child", "nan_pose", "beyond_bound", "inf_twist", "zero_quaternion",
          "nan_covariance", "cut")
_state = st.fixed_dictionaries({
    "sec": st.integers(0, 2**31 - 1), "nanosec": st.integers(0, 999_999_999),
    "frame": st.sampled_from(["world", "/world", "world\0"]),
    "child": st.sampled_from(["r1", "/r2", "r3/", "r1", "bée", "a/b"]),
    "pose": st.lists(st.floats(-50.0, 50.0), min_size=3, max_size=3),
    "quaternion": st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4).filter(
        lambda q: sum(c * c for c in q) > 1e-6),
    "covariance": st.tuples(st.floats(0.0, 0.1), st.floats(-0.01, 0.01), st.floats(0.0, 0.1)),
    "twist": st.lists(st.floats(-5.0, 5.0), min_size=6, max_size=6),
    # most states good; some with one flaw that the Python rules refuse or read otherwise
    "flaw": st.sampled_from((None,) * len(_FLAWS) + _FLAWS),
    "cut": st.integers(0, 400),
})


def _serialized(s) -> bytes:
    flaw = s["flaw"]
    msg = Odometry()
    msg.header.stamp.sec, msg.header.stamp.nanosec = s["sec"], s["nanosec"]
    msg.header.frame_id = "map" if flaw == "frame" else s["frame"]
    msg.child_frame_id = "//" if flaw == "child" else s["child"]
    p = msg.pose.pose
    p.position.x, p.position.y, p.position.z = s["pose"]
    if flaw == "nan_pose":
        p.position.y = math.nan
    if flaw == "beyond_bound":
        p.position.x = 2e4
    p.orientation.x, p.orientation.y, p.orientation.z, p.orientation.w = \
        [0.0] * 4 if flaw == "zero_quaternion" else s["quaternion"]
    covariance = [0.0] * 36
    covariance[0], covariance[1], covariance[7] = s["covariance"]
    covariance[6] = covariance[1]
    if flaw == "nan_covariance":
        covariance[7] = math.nan
    msg.pose.covariance = covariance
    t = msg.twist.twist
    t.linear.x, t.linear.y, t.linear.z, t.angular.x, t.angular.y, t.angular.z = s["twist"]
    if flaw == "inf_twist":
        t.angular.z = math.inf
    data = bytes(serialization.serialize_message(msg))
    return data[:s["cut"]] if flaw == "cut" else data


class _Owner:
    """What NeighborOdometry asks of the node that holds its subscriptions."""

    shared_frame = "world"
    odometry_gate = types.SimpleNamespace(max_coordinate=1e4)

    def __init__(self):
        self.problems = []
        self.ns = 10**12

    def _now_ns(self):
        return self.ns

    def report_bad_neighbor_odometry(self, name, reason):
        self.problems.append((name, reason))


def _reader():
    shared = NeighborOdometry()
    shared.owner = _Owner()
    shared.nodes = [shared.owner]
    return shared


def _tables(shared):
    return [(t.names, np.array(t.data)) for t in (shared.states, shared.odometry, shared.latest)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_state, max_size=5), min_size=1, max_size=3))
def test_a_batch_read_in_c_fills_the_tables_as_reading_each_state_in_python(batches):
    fast, slow = _reader(), _reader()
    for batch in batches:
        data = batch_cdr([(f"robot{k}", _serialized(s)) for k, s in enumerate(batch)])
        fast.owner.ns = slow.owner.ns = fast.owner.ns + 100_000_000
        fast.on_batch(data)
        for _, state in batch_states(data):  # the reference: each state as if alone
            slow.on_state(state, slow.owner.ns)
    for (names, got), (want_names, want) in zip(_tables(fast), _tables(slow)):
        assert names == want_names
        assert np.array_equal(got, want, equal_nan=True)
    assert fast.owner.problems == slow.owner.problems
    assert (fast.messages, fast.messages_from) == (slow.messages, slow.messages_from)


def test_a_batch_read_in_c_takes_its_good_states_and_names_the_bad_one():
    good = {"sec": 5, "nanosec": 0, "frame": "world", "child": "/r1", "pose": [1.0, 2.0, 0.0],
            "quaternion": [0.0, 0.0, 0.7071067811865476, 0.7071067811865476],
            "covariance": [0.0004, 0.0, 0.0001], "twist": [0.5, 0.0, 0.0, 0.0, 0.0, 0.0],
            "flaw": None, "cut": 0}
    bad = dict(good, child="r2", pose=[math.nan, 0.0, 0.0])
    shared = _reader()
    shared.on_batch(batch_cdr([("r1", _serialized(good)), ("r2", _serialized(bad))]))
    reading = shared.latest["r1"]
    assert reading.position == (1.0, 2.0) and reading.announced
    assert reading.velocity == pytest.approx((0.0, 0.5))  # heading 90 degrees
    assert reading.uncertainty == pytest.approx(3.0 * 0.02)
    assert "r2" not in shared.latest
    assert shared.owner.problems == [("r2", "non-finite number in odometry: position "
                                      "(nan, 0.0, 0.0), orientation (0.0, 0.0, "
                                      "0.7071067811865476, 0.7071067811865476), twist "
                                      "(0.5, 0.0, 0.0, 0.0)")]


@settings(max_examples=400, deadline=None)
@given(st.lists(_state, min_size=1, max_size=3), st.data())
def test_c_takes_a_batch_as_one_exactly_when_python_reads_it_as_one(batch, data):
    """A damaged batch (bytes changed, cut or added): the C reader reads it as a batch of
    the same states where Python's reader does, and leaves it whole to Python where that
    refuses it, so that the refusal is reported as before."""
    from orca_ros.nodes._state_batch import read_state_batch
    from orca_ros.nodes.state_batch import BadBatch

    raw = bytearray(batch_cdr([(f"robot{k}", _serialized(s)) for k, s in enumerate(batch)]))
    for _ in range(data.draw(st.integers(0, 3))):
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] = data.draw(st.integers(0, 255))
    raw = bytes(raw[:data.draw(st.integers(0, len(raw)))] + data.draw(st.binary(max_size=8)))
    try:
        want = len(batch_states(raw))
    except BadBatch:
        want = None
    rows = read_state_batch(raw, "world", 1e4, 3.0)
    if raw[:2] != b"\x00\x01":
        assert rows is None  # not plain CDR: rclpy's deserializer, in Python
    else:
        assert (None if rows is None else len(rows)) == want
