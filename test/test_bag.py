"""ROS 2 bags: ``orca-ros sim --record`` read back by an independent reader (rosbags), and
``orca-ros plot`` on our bags and on a bag written by another library (rosbags' writer)."""

import math
import pathlib

import numpy as np
import pytest

pytest.importorskip("rclpy", reason="rclpy not installed (pip install .[ros])")
pytest.importorskip("mcap_ros2", reason="mcap-ros2-support not installed (pip install .[bag])")
rosbags_highlevel = pytest.importorskip("rosbags.highlevel",
                                        reason="rosbags not installed (pip install .[test])")

from rosbags.rosbag2 import StoragePlugin, Writer  # noqa: E402
from rosbags.typesys import Stores, get_types_from_msg, get_typestore  # noqa: E402

from orca_ros.tools.bag import _wheel_distro, message_definition, read_bag  # noqa: E402
from orca_ros.tools.cli import main  # noqa: E402
from orca_ros.tools.plotting import closest_approach, mark_interval  # noqa: E402

ROBOTS = ("east", "north", "south", "west")  # crossing_4


def distro_store():
    return {"jazzy": Stores.ROS2_JAZZY}.get(_wheel_distro(), Stores.ROS2_KILTED)


def read_with_rosbags(path):
    """Every message of the bag, decoded with types built from the bag's own schemas only."""
    typestore = get_typestore(Stores.EMPTY)
    with rosbags_highlevel.AnyReader([pathlib.Path(path)]) as reader:
        connections = {c.topic: c for c in reader.connections}
        for connection in reader.connections:
            typestore.register(get_types_from_msg(connection.msgdef.data, connection.msgtype))
        messages = [(c.topic, t, typestore.deserialize_cdr(raw, c.msgtype))
                    for c, t, raw in reader.messages()]
    return connections, messages, typestore


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """crossing_4 with the supervisor through real nodes, recorded."""
    from orca_ros.fleet.plan import FleetOptions
    from orca_ros.tools.harness import run_fleet

    path = tmp_path_factory.mktemp("bag") / "run.mcap"
    run = run_fleet("crossing_4", FleetOptions(speed_factor=4.0, supervisor=True),
                    record=str(path))
    return path, run


def test_a_recorded_run_opens_with_rosbags_with_every_stream_and_its_qos(recorded):
    path, run = recorded
    assert run.summary["reached"] == 4
    connections, messages, _ = read_with_rosbags(path)
    expected = {"/clock": "rosgraph_msgs/msg/Clock",
                "/diagnostics": "diagnostic_msgs/msg/DiagnosticArray",
                "/obstacles": "visualization_msgs/msg/Marker",
                "/fleet_sim/robots": "visualization_msgs/msg/MarkerArray",
                "/supervisor/markers": "visualization_msgs/msg/MarkerArray"}
    for robot in ROBOTS:
        expected.update({f"/{robot}/odom": "nav_msgs/msg/Odometry",
                         f"/{robot}/cmd_vel": "geometry_msgs/msg/TwistStamped",
                         f"/{robot}/goal_pose": "geometry_msgs/msg/PoseStamped",
                         f"/{robot}/orca/markers": "visualization_msgs/msg/MarkerArray",
                         f"/{robot}/supervisor/speed_limit": "std_msgs/msg/Float64"})
    for topic, kind in expected.items():
        assert topic in connections, topic
        assert connections[topic].msgtype == kind
        assert connections[topic].msgdef.format.name == "MSG"  # ros2msg schema
        assert connections[topic].ext.serialization_format == "cdr"
    counted = {topic: sum(1 for t, _, _ in messages if t == topic) for topic in expected}
    for topic in ("/clock", "/diagnostics", "/fleet_sim/robots", "/supervisor/markers") + tuple(
            f"/{r}/{s}" for r in ROBOTS for s in ("odom", "cmd_vel", "goal_pose", "orca/markers")):
        assert counted[topic] > 0, topic
    # The supervisor's decisions: each yielding robot's speed limit, and its diagnostics.
    assert run.conflicts
    for conflict in run.conflicts:
        assert counted[f"/{conflict['yielding']}/supervisor/speed_limit"] > 0
    assert any(status.name == "supervisor" for topic, _, msg in messages
               if topic == "/diagnostics" for status in msg.status)
    # The publishers' QoS, so that ros2 bag play offers it again: /obstacles is latched.
    obstacles_qos = connections["/obstacles"].ext.offered_qos_profiles
    assert obstacles_qos and all(q.durability.name == "TRANSIENT_LOCAL" for q in obstacles_qos)
    odom_qos = connections["/east/odom"].ext.offered_qos_profiles
    assert odom_qos and all(q.reliability.name == "RELIABLE" for q in odom_qos)


def test_recorded_odometry_is_the_simulators_ground_truth_on_its_clock(recorded):
    path, run = recorded
    _, messages, _ = read_with_rosbags(path)
    frames = {round(float(t), 6): k for k, t in enumerate(run.frame_times)}
    names = [a.name for a in run.scenario.agents]
    compared = 0
    for topic, log_time, msg in messages:
        if not topic.endswith("/odom"):
            continue
        stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
        # logged on the simulated clock, when it arrived: at or after its stamp
        assert 0 <= log_time * 1e-9 - stamp < 1.0
        k = frames.get(round(stamp, 6))
        if k is None:
            continue
        i = names.index(topic.split("/")[1])
        truth = run.trajectory[k, i]
        assert (msg.pose.pose.position.x, msg.pose.pose.position.y) == pytest.approx(
            (truth[0], truth[1]), abs=1e-9)
        compared += 1
    assert compared > 100


def test_bag_schemas_are_the_distributions_message_definitions():
    """Our ros2msg text parsed by rosbags gives the same fields as rosbags' own copy of the
    distribution's types."""
    reference = get_typestore(distro_store())
    for kind in ("nav_msgs/msg/Odometry", "visualization_msgs/msg/MarkerArray",
                 "diagnostic_msgs/msg/DiagnosticArray", "geometry_msgs/msg/TwistStamped",
                 "rosgraph_msgs/msg/Clock", "nav_msgs/msg/Path", "std_msgs/msg/Float64"):
        parsed = get_types_from_msg(message_definition(kind), kind)
        assert kind in parsed
        for name, definition in parsed.items():
            assert reference.fielddefs[name] == definition, name


def test_a_type_without_a_definition_is_named():
    from orca_ros.tools.bag import BagError

    with pytest.raises(BagError, match="no definition of nope_msgs/msg/Thing"):
        message_definition("nope_msgs/msg/Thing")
    with pytest.raises(BagError, match="not a message type name"):
        message_definition("Odometry")


def test_plot_draws_our_bag(recorded, tmp_path, capsys):
    path, run = recorded
    png, gif = tmp_path / "run.png", tmp_path / "run.gif"
    assert main(["plot", str(path), "--out", str(png), "--gif", str(gif)]) == 0
    out = capsys.readouterr().out
    assert "4 robots (east, north, south, west)" in out
    assert png.stat().st_size > 10_000 and gif.stat().st_size > 10_000
    tracks = read_bag(path)
    assert tracks.names == sorted(ROBOTS)
    assert tracks.radii == {a.name: a.radius for a in run.scenario.agents}  # /fleet_sim/robots
    # each robot's last recorded pose is where the simulator left it
    names = [a.name for a in run.scenario.agents]
    for name, xy in zip(tracks.names, tracks.positions):
        assert np.hypot(*(xy[-1] - run.trajectory[-1, names.index(name)])) < 0.05


def rosbags_odometry_bag(folder, typestore, tracks, extra_topic=True):
    """A rosbag2 folder (MCAP storage) written by rosbags, as ``ros2 bag record`` of real
    robots' odometry would be: ``tracks`` maps a topic to (stamps, xy)."""
    Odometry = typestore.types["nav_msgs/msg/Odometry"]
    Header = typestore.types["std_msgs/msg/Header"]
    Time = typestore.types["builtin_interfaces/msg/Time"]
    PoseWithCovariance = typestore.types["geometry_msgs/msg/PoseWithCovariance"]
    TwistWithCovariance = typestore.types["geometry_msgs/msg/TwistWithCovariance"]
    Pose = typestore.types["geometry_msgs/msg/Pose"]
    Point = typestore.types["geometry_msgs/msg/Point"]
    Quaternion = typestore.types["geometry_msgs/msg/Quaternion"]
    Twist = typestore.types["geometry_msgs/msg/Twist"]
    Vector3 = typestore.types["geometry_msgs/msg/Vector3"]
    zero = Vector3(x=0.0, y=0.0, z=0.0)
    with Writer(folder, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        for topic, (stamps, xy) in tracks.items():
            connection = writer.add_connection(topic, "nav_msgs/msg/Odometry", typestore=typestore)
            for t, (x, y) in zip(stamps, xy):
                ns = int(round(t * 1e9)) + 1_700_000_000_000_000_000
                msg = Odometry(
                    header=Header(stamp=Time(sec=ns // 10**9, nanosec=ns % 10**9),
                                  frame_id="odom"),
                    child_frame_id="base_link",
                    pose=PoseWithCovariance(pose=Pose(position=Point(x=x, y=y, z=0.0),
                                                      orientation=Quaternion(x=0.0, y=0.0, z=0.0,
                                                                             w=1.0)),
                                            covariance=np.zeros(36)),
                    twist=TwistWithCovariance(twist=Twist(linear=zero, angular=zero),
                                              covariance=np.zeros(36)))
                writer.write(connection, ns + 3_000_000,
                             typestore.serialize_cdr(msg, "nav_msgs/msg/Odometry"))
        if extra_topic:
            connection = writer.add_connection("/tb3_1/cmd_vel", "geometry_msgs/msg/Twist",
                                               typestore=typestore)
            writer.write(connection, 1_700_000_000_000_000_000,
                         typestore.serialize_cdr(Twist(linear=zero, angular=zero),
                                                 "geometry_msgs/msg/Twist"))


def test_plot_draws_a_bag_recorded_elsewhere_and_finds_the_closest_approach(tmp_path, capsys):
    """Two robots crossing at 1 m/s, their odometry unsynchronised (stamps 25 ms apart): the
    centres come closest, 0.25·√2 m, at t = 2.25 s (r1 = (-2 + t, 0), r2 = (0.5, -2 + t))."""
    typestore = get_typestore(Stores.ROS2_JAZZY)
    t1 = np.arange(0.0, 4.0001, 0.05)
    t2 = np.arange(0.025, 4.0001, 0.05)
    folder = tmp_path / "user_bag"
    rosbags_odometry_bag(folder, typestore, {
        "/tb3_1/odom": (t1, np.stack([-2.0 + t1, 0.0 * t1], axis=1)),
        "/tb3_2/odom": (t2, np.stack([0.5 + 0.0 * t2, -2.0 + t2], axis=1))})
    tracks = read_bag(folder)
    assert tracks.names == ["tb3_1", "tb3_2"]
    assert tracks.radii == {} and tracks.segments == []
    assert tracks.times[1][0] == pytest.approx(0.025)
    png = tmp_path / "user.png"
    assert main(["plot", str(folder), "--out", str(png)]) == 0
    out = capsys.readouterr().out
    assert "closest approach: distance between centres 0.3536 m, tb3_1 and tb3_2 at 2.25 s" \
        in out
    import matplotlib.image

    image = matplotlib.image.imread(png)
    assert image.shape[0] > 200 and image.shape[1] > 400 and image.std() > 0.05


def test_a_robots_own_prediction_stream_is_not_another_robot(tmp_path):
    """orca_node publishes where it will be as nav_msgs/Odometry on ``orca/prediction``
    (cubes share them): read as a robot, it came 0 m close to its own robot at every stamp."""
    typestore = get_typestore(Stores.ROS2_JAZZY)
    t = np.arange(0.0, 1.0001, 0.1)
    xy = np.stack([t, 0.0 * t], axis=1)
    folder = tmp_path / "cubes"
    rosbags_odometry_bag(folder, typestore, {"/cube0/odom": (t, xy),
                                             "/cube0/orca/prediction": (t, xy + 0.01),
                                             "/cube1/odom": (t, xy + 1.0)})
    assert read_bag(folder).names == ["cube0", "cube1"]


def test_a_robot_with_ground_truth_is_drawn_from_it_and_the_fleets_states_are_no_robot(
        tmp_path):
    """With each robot's odometry in its own frame (from its start), only the truth says
    where it is; /orca/states holds every robot's state on one topic."""
    typestore = get_typestore(Stores.ROS2_JAZZY)
    t = np.arange(0.0, 1.0001, 0.1)
    xy = np.stack([t, 0.0 * t], axis=1)
    folder = tmp_path / "per_robot"
    rosbags_odometry_bag(folder, typestore, {"/a/odom": (t, xy),
                                             "/a/ground_truth": (t, xy + 5.0),
                                             "/orca/states": (t, xy + 2.0),
                                             "/b/odom": (t, xy + 1.0)})
    tracks = read_bag(folder)
    assert tracks.names == ["a", "b"]
    assert tracks.topics["a"] == "/a/ground_truth"
    assert tracks.positions[0][0] == pytest.approx((5.0, 5.0))


def test_plot_takes_radii_and_obstacles_from_a_scenario(tmp_path, capsys):
    typestore = get_typestore(Stores.ROS2_KILTED)
    t = np.arange(0.0, 2.0001, 0.1)
    folder = tmp_path / "two"
    rosbags_odometry_bag(folder, typestore, {
        "/north/odom": (t, np.stack([0.0 * t, 2.0 - t], axis=1)),
        "/south/odom": (t, np.stack([0.0 * t, -2.0 + t], axis=1))}, extra_topic=False)
    bag_file = next(folder.glob("*.mcap"))
    assert main(["plot", str(bag_file), "--out", str(tmp_path / "two.png"),
                 "--scenario", "crossing_4"]) == 0
    # crossing_4's robots have 0.2 m radii: centres 0 m apart at 2 s, a gap of -0.4 m
    assert "closest approach: gap -0.4000 m, north and south at 2.00 s" in capsys.readouterr().out


def test_plot_refuses_what_is_not_a_readable_bag(tmp_path, recorded, capsys):
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    assert main(["plot", str(text), "--out", str(tmp_path / "x.png")]) == 2
    assert "not an MCAP file" in capsys.readouterr().err
    truncated = tmp_path / "cut.mcap"
    data = recorded[0].read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    assert main(["plot", str(truncated), "--out", str(tmp_path / "x.png")]) == 2
    assert "cut.mcap: cannot be read as a ROS 2 MCAP bag" in capsys.readouterr().err
    empty = tmp_path / "empty"
    assert main(["plot", str(empty), "--out", str(tmp_path / "x.png")]) == 2
    assert "no such file" in capsys.readouterr().err
    no_odometry = tmp_path / "no_odom"
    with Writer(no_odometry, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        store = get_typestore(Stores.ROS2_KILTED)
        connection = writer.add_connection("/chatter", "std_msgs/msg/String", typestore=store)
        writer.write(connection, 1, store.serialize_cdr(store.types["std_msgs/msg/String"](
            data="hi"), "std_msgs/msg/String"))
    assert main(["plot", str(no_odometry), "--out", str(tmp_path / "x.png")]) == 2
    assert "no nav_msgs/msg/Odometry messages" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_sim_refuses_a_record_path_that_is_not_mcap(capsys):
    assert main(["sim", "crossing_4", "--record", "run.bag", "--no-progress"]) == 2
    assert "its name ending in .mcap" in capsys.readouterr().err


def test_closest_approach_between_discs_skips_unknown_positions():
    times = np.array([0.0, 1.0, 2.0])
    positions = np.array([[[0.0, 0.0], [3.0, 0.0], [np.nan, np.nan]],
                          [[0.0, 0.0], [1.0, 0.0], [0.1, 0.0]],   # third robot unknown before
                          [[0.0, 0.0], [2.0, 0.0], [np.nan, np.nan]]])
    approach = closest_approach(positions, [0.2, 0.3, 0.1], times)
    assert (approach.first, approach.second, approach.index) == (0, 2, 1)
    assert approach.distance == pytest.approx(0.1) and approach.gap == pytest.approx(-0.2)
    assert closest_approach(positions[:, :1], [0.2], times) is None
    nowhere = np.full((3, 2, 2), np.nan)
    assert closest_approach(nowhere, [0.1, 0.1], times) is None


def test_time_marks_are_round_and_few():
    assert mark_interval(10.0) == 2.0
    assert mark_interval(32.1) == 5.0
    assert mark_interval(3.0) == 0.5
    for duration in (0.3, 7.0, 95.0, 400.0, 10_000.0):
        interval = mark_interval(duration)
        assert math.floor(duration / interval) <= 8
