"""orca_robots' state batches over DDS (orca_ros.nodes.state_batch): two robots of one
process announce in one message a period; a robot of another process, and the
supervisor, hear both; a batch that cannot be read is reported and changes nothing."""

import pytest

from helpers.ros_helpers import params  # first: skips the module without rclpy
from helpers.orca_rig import odom  # noqa: E402

pytestmark = pytest.mark.ros

FLEET = dict(neighbors=[""], discover_odometry=False, control_rate=20.0, radius=0.3,
             max_speed=1.0)


def test_two_robots_of_one_process_announce_together_and_the_others_hear_both(ros):
    from nav_msgs.msg import Odometry
    from std_msgs.msg import UInt8MultiArray

    from orca_ros.nodes.neighbor_odometry import NeighborOdometry
    from orca_ros.nodes.orca_node import OrcaNode
    from orca_ros.nodes.ros_common import RELIABLE_10, odometry_fields
    from orca_ros.nodes.state_batch import STATE_BATCHES_TOPIC, batch_states
    from orca_ros.nodes.supervisor_node import SupervisorNode

    shared = NeighborOdometry(batch_states=True)
    a, b = (ros.add(OrcaNode(context=ros.context, namespace=name, neighbor_odometry=shared,
                             parameter_overrides=params(**FLEET))) for name in ("a", "b"))
    c = ros.add(OrcaNode(context=ros.context, namespace="c",  # another process
                         parameter_overrides=params(**FLEET)))
    supervisor = ros.add(SupervisorNode(context=ros.context, parameter_overrides=params(
        world_frame="world")))
    assert a.state_pub is None and b.state_pub is None and c.state_pub is not None
    tester = ros.node("tester")
    odoms = {name: tester.create_publisher(Odometry, f"/{name}/odom", RELIABLE_10)
             for name in "abc"}
    batches, alone = [], []
    tester.create_subscription(UInt8MultiArray, STATE_BATCHES_TOPIC,
                               batches.append, 10)
    tester.create_subscription(Odometry, "/orca/states", alone.append, 10)
    assert ros.spin_until(lambda: all(p.get_subscription_count() for p in odoms.values()), 10.0)
    places = {"a": (0.0, 0.0), "b": (2.0, 0.0), "c": (0.0, 3.0)}

    def tick():  # one control period: each robot's odometry, then the batch's turn
        for name, (x, y) in places.items():
            odoms[name].publish(odom(x, y))
        ros.spin_for(0.05)
        shared.batch.due()

    for _ in range(20):
        tick()
        if len(batches) >= 3 and "a" in c.neighbors and "b" in c.neighbors:
            break
    assert ros.spin_until(lambda: "a" in c.neighbors and "b" in c.neighbors, 3.0)
    assert c.neighbors["a"].position == (0.0, 0.0) and c.neighbors["b"].position == (2.0, 0.0)
    assert ros.spin_until(lambda: "c" in a.neighbors and "b" in a.neighbors
                          and "a" in b.neighbors, 3.0)
    # a and b come in batches of both, never alone on /orca/states; c alone.
    assert {m.child_frame_id for m in alone} == {"c"}
    robots = [tuple(d.label for d in m.layout.dim) for m in batches]
    assert robots and all(set(r) <= {"a", "b"} for r in robots)
    both = [m for m, r in zip(batches, robots) if sorted(r) == ["a", "b"]]
    assert both  # once both are known, they go together
    states = dict(batch_states(bytes(_serialized(both[-1]))))
    assert odometry_fields(states["b"]).child_frame_id == "b"
    assert ros.spin_until(lambda: {"a", "b", "c"} <= supervisor.announced, 5.0)

    # A batch that cannot be read: reported by c, which keeps what it had.
    bad = tester.create_publisher(UInt8MultiArray, STATE_BATCHES_TOPIC, RELIABLE_10)
    junk = UInt8MultiArray()
    junk.layout.dim = [_dimension("a", 900)]
    junk.data = b"\x01\x02"
    assert ros.spin_until(lambda: bad.get_subscription_count() >= 3, 10.0)
    bad.publish(junk)
    assert ros.spin_until(lambda: "odom of /orca/state_batches" in c.rejected, 5.0)
    assert "sizes add up to 900 bytes" in c.last_problem
    assert ros.spin_until(lambda: supervisor.rejected >= 1, 5.0)
    assert "sizes add up to 900 bytes" in supervisor.last_problem
    assert c.neighbors["a"].position == (0.0, 0.0)


def _dimension(label, size):
    from std_msgs.msg import MultiArrayDimension

    return MultiArrayDimension(label=label, size=size, stride=size)


def _serialized(msg):
    from rclpy.serialization import serialize_message

    return serialize_message(msg)
