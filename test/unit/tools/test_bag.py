"""ROS 2 bags without ROS: our bags' message definitions against rosbags' copy of the
distribution's types, and ``orca-ros plot`` on bags written by another library (rosbags'
writer). (``orca-ros sim --record`` read back and plotted: test/system/test_bag_recording.py.)"""

import importlib.util
import math

import numpy as np
import pytest

pytest.importorskip("mcap_ros2", reason="mcap-ros2-support not installed (pip install .[bag])")
pytest.importorskip("rosbags.highlevel", reason="rosbags not installed (pip install .[test])")

from rosbags.rosbag2 import StoragePlugin, Writer  # noqa: E402
from rosbags.typesys import Stores, get_types_from_msg, get_typestore  # noqa: E402

from orca_ros.tools.bag import _wheel_distro, message_definition, read_bag  # noqa: E402
from orca_ros.tools.cli import main  # noqa: E402
from orca_ros.tools.plotting import closest_approach, mark_interval  # noqa: E402


def distro_store():
    return {"jazzy": Stores.ROS2_JAZZY}.get(_wheel_distro(), Stores.ROS2_KILTED)


def test_bag_schemas_are_the_distributions_message_definitions():
    """Our ros2msg text parsed by rosbags gives the same fields as rosbags' own copy of the
    distribution's types."""
    if importlib.util.find_spec("nav_msgs") is None:  # the definitions come with the ROS wheels
        pytest.skip("the ROS message packages are not installed (pip install .[ros])")
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
