"""``orca-ros sim --record``: a run through real nodes recorded to MCAP, read back by an
independent reader (rosbags) and drawn by ``orca-ros plot``. (Bags written elsewhere, and
the message definitions: test/unit/tools/test_bag.py.)"""

import pathlib

import numpy as np
import pytest

pytest.importorskip("rclpy", reason="rclpy not installed (pip install .[ros])")
pytest.importorskip("mcap_ros2", reason="mcap-ros2-support not installed (pip install .[bag])")
rosbags_highlevel = pytest.importorskip("rosbags.highlevel",
                                        reason="rosbags not installed (pip install .[test])")

from rosbags.rosbag2 import StoragePlugin, Writer  # noqa: E402
from rosbags.typesys import Stores, get_types_from_msg, get_typestore  # noqa: E402

from orca_ros.tools.bag import read_bag  # noqa: E402
from orca_ros.tools.cli import main  # noqa: E402

pytestmark = pytest.mark.ros

ROBOTS = ("east", "north", "south", "west")  # crossing_4


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
    """crossing_4 with the supervisor through real nodes, recorded. The supervisor judges
    the four-robot crossing too (``pairs_only: false``; beside ORCA it judges pairs
    only by default, and the four robots meet as a crowd), so it decides."""
    import yaml

    from orca_ros.core.scenario.loader import resolve_scenario
    from orca_ros.fleet.plan import FleetOptions
    from orca_ros.tools.harness import run_fleet

    directory = tmp_path_factory.mktemp("bag")
    scenario = yaml.safe_load(resolve_scenario("crossing_4").read_text(encoding="utf-8"))
    scenario["supervisor"] = {"pairs_only": False}
    (directory / "crossing_4.yaml").write_text(yaml.safe_dump(scenario), encoding="utf-8")
    path = directory / "run.mcap"
    run = run_fleet(str(directory / "crossing_4.yaml"),
                    FleetOptions(speed_factor=4.0, supervisor=True), record=str(path))
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
    # The supervisor's decisions: each yielding robot's speed limit (stop, slow) or
    # detour (side step), and its diagnostics.
    assert run.conflicts
    for conflict in run.conflicts:
        directive = "detour" if conflict["resolution"] == "side_step" else "speed_limit"
        topic = f"/{conflict['yielding']}/supervisor/{directive}"
        assert sum(1 for t, _, _ in messages if t == topic) > 0, topic
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


def test_plot_with_the_scenario_gives_how_the_robots_drove_as_the_run_did(recorded, tmp_path,
                                                                          capsys):
    """With ``--scenario``, ``orca-ros plot`` gives the motion-quality figures of the
    bag's odometry: the same worst retreat as fleet_sim's record of the run, within the
    odometry's sampling."""
    import re

    path, run = recorded
    assert main(["plot", str(path), "--scenario", "crossing_4",
                 "--out", str(tmp_path / "run.png")]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("motion:"))
    assert line.endswith("(the bag's odometry)")
    retreat = float(re.search(r"worst retreat ([0-9.]+) m", line).group(1))
    assert retreat == pytest.approx(run.summary["retreat_max_m"], abs=0.02)


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
