"""ROS 2 bags in MCAP: recording a run, and reading robots' tracks back for pictures.

Recording (``orca-ros sim --record run.mcap``) writes what ``ros2 bag record``
with the MCAP storage plugin writes: the ``ros2`` profile, one schema per
message type holding its full ``.msg`` definition (``ros2msg``: the type's
text, then each type it uses under a line of 80 ``=`` and ``MSG: pkg/Type``,
read from the ``share/<pkg>/msg`` folders of the ROS install or the wheels),
one channel per topic with the publishers' QoS (``offered_qos_profiles``, so
``ros2 bag play`` offers them again: ``/obstacles`` stays transient-local) and
their type hash (``topic_type_hash``), and the messages as the publishers
serialised them (CDR, taken raw off the wire). The file's ``rosbag2`` metadata
record holds ``ROS_DISTRO`` only, as rosbag2's MCAP storage wrote it up to Iron;
newer rosbag2 reads such files as metadata version 8, whose QoS policies are
the rmw enum numbers written here (it logs that ``serialized_metadata`` is
missing). ``ros2 bag info``, ``ros2 bag play`` and Foxglove open the file; so
does any MCAP reader.

Message times are the recorder's clock: simulated time under ``fleet_sim``
(as ``ros2 bag record --use-sim-time``), so ``ros2 bag play`` replays
simulated seconds in wall seconds.

Reading (:func:`read_bag`) takes any rosbag2 MCAP file or folder of them,
ours or a user's ``ros2 bag record`` of real robots' ``*/odom``: every
``nav_msgs/msg/Odometry`` topic is one robot (its name the topic's
namespace), timed by the header stamps, except orca_node's ``*/orca/prediction``
(where a robot says it will be, not a robot) and ``/orca/states`` (the fleet's announced
states); a robot with a ``ground_truth`` topic (its odometry in a frame of its own) is
drawn from that one alone; ``/obstacles`` line lists and
``/fleet_sim/robots`` discs are used when present.
"""

from __future__ import annotations

import importlib
import os
import pathlib
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np
from ..core.errors import InputError

SEPARATOR = "=" * 80
PRIMITIVES = frozenset({"bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16",
                        "uint16", "int32", "uint32", "int64", "uint64", "string", "wstring"})
INFINITE_NS = 9223372036854775807  # RMW_DURATION_INFINITE
EXCLUDED_TOPICS = ("/rosout", "/parameter_events")
ODOMETRY = "nav_msgs/msg/Odometry"
PREDICTION_TOPIC = "orca/prediction"  # orca_node's own Odometry stream: a plan, not a robot
STATES_TOPIC = "/orca/states"  # every robot's announced state on one topic: not one robot
TRUTH = "ground_truth"  # a robot's true pose, where its odom is in a frame of its own


class BagError(InputError, RuntimeError):
    """A bag that cannot be written or read (names the file and what is wrong)."""


# -- message definitions -------------------------------------------------------------

def _share_dirs(package: str) -> List[pathlib.Path]:
    """Where ``package``'s share folder may be: the ament index (AMENT_PREFIX_PATH), this
    Python's prefix (the wheels install there), and the prefix of the package's module."""
    prefixes = [p for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    prefixes.append(sys.prefix)
    try:
        module = importlib.import_module(package)
    except ImportError:
        module = None
    parents = pathlib.Path(getattr(module, "__file__", None) or "/").resolve().parents
    if len(parents) > 4:  # <prefix>/lib/pythonX.Y/site-packages/<package>/__init__.py
        prefixes.append(str(parents[4]))
    return [pathlib.Path(p) / "share" / package for p in prefixes]


def _msg_text(package: str, name: str) -> str:
    for share in _share_dirs(package):
        path = share / "msg" / f"{name}.msg"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise BagError(f"no definition of {package}/msg/{name}: {package}/msg/{name}.msg is in none "
                   f"of {[str(s / 'msg') for s in _share_dirs(package)]}")


_FIELD = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*(?:/[A-Za-z][A-Za-z0-9_]*)?)"
                    r"(?:\[[^\]]*\])?(?:<=\d+)?\s+[A-Za-z]")


def _dependencies(text: str, package: str) -> List[str]:
    """The message types a ``.msg`` text uses, as ``pkg/Type``, in order of appearance."""
    found: List[str] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        match = _FIELD.match(line)
        if not match:
            continue
        kind = match.group(1)
        if kind in PRIMITIVES or kind.split("<", 1)[0] in PRIMITIVES:
            continue
        kind = kind if "/" in kind else ("std_msgs/Header" if kind == "Header"
                                         else f"{package}/{kind}")
        if kind not in found:
            found.append(kind)
    return found


def message_definition(type_name: str) -> str:
    """The full ``ros2msg`` definition of ``pkg/msg/Type``: its text, then every type it
    uses (depth first, each once) under the separator and ``MSG: pkg/Type``, as rosbag2
    stores it in an MCAP schema."""
    parts = type_name.split("/")
    if len(parts) != 3 or parts[1] != "msg":
        raise BagError(f"not a message type name (pkg/msg/Type): {type_name!r}")
    seen = set()

    def expand(package: str, name: str) -> str:
        text = _msg_text(package, name)
        out = text
        for dependency in _dependencies(text, package):
            if dependency in seen:
                continue
            seen.add(dependency)
            dep_package, dep_name = dependency.split("/")
            out += f"\n{SEPARATOR}\nMSG: {dependency}\n" + expand(dep_package, dep_name)
        return out

    return expand(parts[0], parts[2])


def message_class(type_name: str):
    """The rclpy message class of ``pkg/msg/Type``."""
    package, _, name = type_name.split("/")
    return getattr(importlib.import_module(f"{package}.msg"), name)


# -- QoS as rosbag2 stores it ------------------------------------------------------------

def _duration(nanoseconds: int) -> Dict[str, int]:
    nanoseconds = min(int(nanoseconds), INFINITE_NS)
    return {"sec": nanoseconds // 1_000_000_000, "nsec": nanoseconds % 1_000_000_000}


def offered_qos_yaml(profiles: Sequence[Any]) -> str:
    """``offered_qos_profiles`` of an MCAP channel: the publishers' rclpy QoS profiles as a
    YAML list, policies as the rmw enum numbers (the form every rosbag2 since Foxy reads
    when a file carries no metadata version of its own)."""
    import yaml

    rows = []
    for p in profiles:
        rows.append({
            "history": int(p.history), "depth": int(p.depth),
            "reliability": int(p.reliability), "durability": int(p.durability),
            "deadline": _duration(p.deadline.nanoseconds),
            "lifespan": _duration(p.lifespan.nanoseconds),
            "liveliness": int(p.liveliness),
            "liveliness_lease_duration": _duration(p.liveliness_lease_duration.nanoseconds),
            "avoid_ros_namespace_conventions": bool(p.avoid_ros_namespace_conventions)})
    return yaml.safe_dump(rows, sort_keys=False)


# -- writing ------------------------------------------------------------------------------

class BagWriter:
    """One MCAP file in the rosbag2 layout (``ros2`` profile, ``ros2msg`` schemas, CDR)."""

    def __init__(self, path: str | os.PathLike, ros_distro: Optional[str] = None) -> None:
        from mcap.writer import Writer

        from .. import __version__

        self.path = pathlib.Path(path)
        if self.path.suffix != ".mcap":
            raise BagError(f"{self.path}: a bag file here is MCAP and ends in .mcap")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._stream = open(self.path, "wb")
        self._writer = Writer(self._stream)
        self._writer.start(profile="ros2", library=f"orca_ros {__version__}")
        self._schemas: Dict[str, int] = {}
        self.channels: Dict[str, int] = {}
        self.counts: Dict[str, int] = {}
        self._sequence = 0
        self._closed = False
        self.ros_distro = ros_distro or os.environ.get("ROS_DISTRO") or _wheel_distro()

    def add_topic(self, topic: str, type_name: str, offered_qos: str = "",
                  type_hash: str = "") -> int:
        """A channel for ``topic`` (once); returns its id."""
        if topic in self.channels:
            return self.channels[topic]
        if type_name not in self._schemas:
            self._schemas[type_name] = self._writer.register_schema(
                name=type_name, encoding="ros2msg",
                data=message_definition(type_name).encode("utf-8"))
        metadata = {"offered_qos_profiles": offered_qos}
        if type_hash:
            metadata["topic_type_hash"] = type_hash
        self.channels[topic] = self._writer.register_channel(
            topic=topic, message_encoding="cdr", schema_id=self._schemas[type_name],
            metadata=metadata)
        self.counts[topic] = 0
        return self.channels[topic]

    def write(self, topic: str, log_time_ns: int, data: bytes) -> None:
        """One serialised message on a topic added before."""
        self._sequence += 1
        self.counts[topic] += 1
        self._writer.add_message(channel_id=self.channels[topic], log_time=int(log_time_ns),
                                 publish_time=int(log_time_ns), data=bytes(data),
                                 sequence=self._sequence)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._writer.add_metadata("rosbag2", {"ROS_DISTRO": self.ros_distro})
        self._writer.finish()
        self._stream.close()


def _wheel_distro() -> str:
    """The ROS 2 distribution of the rclpy in use (the PyPI wheels set no ROS_DISTRO)."""
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return "unknown"
    for name, distro in (("ros-jazzy-rclpy", "jazzy"), ("ros-rclpy", "kilted")):
        try:
            version(name)
        except PackageNotFoundError:
            continue
        return distro
    return "unknown"


class Recorder:
    """An rclpy node that records every topic published in the ROS graph (as ``ros2 bag
    record -a``, without ``/rosout`` and ``/parameter_events``) into a :class:`BagWriter`.

    It subscribes raw (the publishers' CDR bytes) with the QoS the publishers offer
    (reliable if all are, transient-local if all are), and looks for new topics at
    :meth:`scan`: call it once the nodes exist, and now and then while they run.
    Message times are the node's clock (``use_sim_time``: simulated time).
    """

    def __init__(self, context, path: str | os.PathLike, use_sim_time: bool = True,
                 exclude: Iterable[str] = EXCLUDED_TOPICS, node_name: str = "orca_recorder"):
        from rclpy.node import Node
        from rclpy.parameter import Parameter

        self.writer = BagWriter(path)
        self.exclude = set(exclude)
        self.node = Node(node_name, context=context, parameter_overrides=[
            Parameter("use_sim_time", value=use_sim_time)])
        self._subscriptions: Dict[str, Any] = {}

    def scan(self) -> List[str]:
        """Subscribe to topics that have publishers and are not recorded yet; returns them."""
        from rclpy.qos import (DurabilityPolicy, HistoryPolicy, QoSProfile,
                               ReliabilityPolicy)

        added = []
        for topic, types in self.node.get_topic_names_and_types():
            if topic in self._subscriptions or topic in self.exclude or len(types) != 1:
                continue
            if any(part.startswith("_") for part in topic.split("/")):
                continue  # hidden topics
            offers = [info for info in self.node.get_publishers_info_by_topic(topic)
                      if info.node_name != self.node.get_name()]
            if not offers:
                continue
            profiles = [info.qos_profile for info in offers]
            reliable = all(p.reliability == ReliabilityPolicy.RELIABLE for p in profiles)
            latched = all(p.durability == DurabilityPolicy.TRANSIENT_LOCAL for p in profiles)
            qos = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=100,
                             reliability=ReliabilityPolicy.RELIABLE if reliable
                             else ReliabilityPolicy.BEST_EFFORT,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL if latched
                             else DurabilityPolicy.VOLATILE)
            try:
                kind = message_class(types[0])
                type_hash = str(getattr(offers[0], "topic_type_hash", "") or "")
                self.writer.add_topic(topic, types[0], offered_qos_yaml(profiles), type_hash)
            except (ImportError, AttributeError, BagError) as error:
                self.node.get_logger().warn(f"not recording {topic}: {error}")
                self.exclude.add(topic)
                continue
            self._subscriptions[topic] = self.node.create_subscription(
                kind, topic, lambda data, topic=topic: self._on_message(topic, data), qos,
                raw=True)
            added.append(topic)
        return added

    def _on_message(self, topic: str, data: bytes) -> None:
        self.writer.write(topic, self.node.get_clock().now().nanoseconds, data)

    @property
    def counts(self) -> Dict[str, int]:
        return dict(self.writer.counts)

    def close(self) -> Dict[str, int]:
        """Finish the file and destroy the node; returns messages per topic."""
        counts = self.counts
        self.writer.close()
        self.node.destroy_node()
        return counts


# -- reading ------------------------------------------------------------------------------

@dataclass
class BagTracks:
    """Robots' odometry from a bag: per robot its stamps (s, from the bag's first) and
    positions, and what else the bag tells about the scene."""

    names: List[str]
    times: List[np.ndarray]
    positions: List[np.ndarray]  # (k, 2) per robot
    start_ns: int
    radii: Dict[str, float] = field(default_factory=dict)  # /fleet_sim/robots discs
    segments: List[Tuple[Tuple[float, float], Tuple[float, float]]] = field(default_factory=list)
    topics: Dict[str, str] = field(default_factory=dict)  # odometry topic per robot
    message_count: int = 0

    def resampled(self, step: Optional[float] = None) -> Tuple[np.ndarray, np.ndarray]:
        """Every robot on one time grid (linear between its own stamps, NaN outside them):
        times (T,), positions (T, N, 2). ``step``: the median odometry period."""
        if not self.names:
            return np.zeros(0), np.zeros((0, 0, 2))
        if step is None:
            periods = np.concatenate([np.diff(t) for t in self.times if len(t) > 1]
                                     or [np.array([0.1])])
            periods = periods[periods > 0]
            step = float(np.median(periods)) if len(periods) else 0.1
        end = max(float(t[-1]) for t in self.times)
        begin = min(float(t[0]) for t in self.times)
        grid = np.arange(begin, end + step * 0.5, step)
        out = np.full((len(grid), len(self.names), 2), np.nan)
        for i, (t, xy) in enumerate(zip(self.times, self.positions)):
            inside = (grid >= t[0]) & (grid <= t[-1])
            for axis in (0, 1):
                out[inside, i, axis] = np.interp(grid[inside], t, xy[:, axis])
        return grid, out


def _bag_files(path: pathlib.Path) -> List[pathlib.Path]:
    if path.is_dir():
        files = sorted(path.glob("*.mcap"))
        if not files:
            raise BagError(f"{path}: a folder with no .mcap file (only MCAP bags are read; "
                           "convert others with `ros2 bag convert`)")
        return files
    if not path.exists():
        raise BagError(f"{path}: no such file")
    if path.suffix != ".mcap":
        raise BagError(f"{path}: not an MCAP file (only MCAP bags are read; convert others "
                       "with `ros2 bag convert`)")
    return [path]


def robot_name(topic: str) -> str:
    """``/robot1/odom`` -> ``robot1``; ``/a/b/odom`` -> ``a/b``; ``/odom`` -> ``odom``."""
    parts = [p for p in topic.split("/") if p]
    return "/".join(parts[:-1]) or parts[-1]


def read_bag(path: str | os.PathLike) -> BagTracks:
    """Odometry tracks (and obstacles, robot radii) from an MCAP bag file or folder."""
    from mcap.exceptions import McapError
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory

    path = pathlib.Path(path)
    poses: Dict[str, List[Tuple[int, float, float]]] = {}
    topic_of: Dict[str, str] = {}
    radii: Dict[str, float] = {}
    obstacles: Dict[Tuple[str, int], List[Tuple[Tuple[float, float], Tuple[float, float]]]] = {}
    count = 0
    for file in _bag_files(path):
        try:
            with open(file, "rb") as stream:
                reader = make_reader(stream, decoder_factories=[DecoderFactory()])
                wanted = _wanted_topics(reader)
                for schema, channel, message, decoded in reader.iter_decoded_messages(
                        topics=wanted or ["/nothing to read"]):
                    count += 1
                    if schema.name == ODOMETRY:
                        stamp = decoded.header.stamp
                        t_ns = stamp.sec * 1_000_000_000 + stamp.nanosec or message.log_time
                        p = decoded.pose.pose.position
                        if not (np.isfinite(p.x) and np.isfinite(p.y)):
                            continue
                        name = robot_name(channel.topic)
                        truth = channel.topic.endswith("/" + TRUTH)
                        if truth and not topic_of.get(name, "").endswith("/" + TRUTH):
                            poses[name] = []  # the truth replaces its odometry
                            topic_of[name] = channel.topic
                        elif not truth and topic_of.get(name, "").endswith("/" + TRUTH):
                            continue
                        topic_of.setdefault(name, channel.topic)
                        poses.setdefault(name, []).append((t_ns, p.x, p.y))
                    elif channel.topic == "/obstacles":
                        _take_obstacle(decoded, obstacles)
                    elif channel.topic == "/fleet_sim/robots":
                        _take_discs(decoded, radii)
        except (McapError, OSError, ValueError, KeyError) as error:
            raise BagError(f"{file}: cannot be read as a ROS 2 MCAP bag: {error}") from None
    if not poses:
        raise BagError(f"{path}: no {ODOMETRY} messages (record the robots' */odom topics)")
    names = sorted(poses)
    start_ns = min(min(t for t, _, _ in poses[n]) for n in names)
    times, positions = [], []
    for name in names:
        rows = sorted(poses[name])
        stamps = np.array([t for t, _, _ in rows], dtype=np.int64)  # float64 would lose ns
        _, unique = np.unique(stamps, return_index=True)
        times.append((stamps[unique] - start_ns) * 1e-9)
        positions.append(np.array([(x, y) for _, x, y in rows], dtype=float)[unique])
    segments = [s for key in sorted(obstacles) for s in obstacles[key]]
    return BagTracks(names, times, positions, int(start_ns),
                     {n: radii[n] for n in names if n in radii}, segments,
                     {n: topic_of[n] for n in names}, count)


def _wanted_topics(reader) -> List[str]:
    summary = reader.get_summary()
    if summary is None:
        raise ValueError("no summary section (an unfinished recording?)")
    schemas = summary.schemas
    wanted = []
    for channel in summary.channels.values():
        schema = schemas.get(channel.schema_id)
        if schema is None:
            continue
        if (schema.name == ODOMETRY and not channel.topic.endswith("/" + PREDICTION_TOPIC)
                and channel.topic != STATES_TOPIC) \
                or channel.topic in ("/obstacles", "/fleet_sim/robots"):
            wanted.append(channel.topic)
    return wanted


def _take_obstacle(marker, obstacles) -> None:
    """One ``/obstacles`` Marker, kept per (ns, id) as orca_node keeps them."""
    key = (marker.ns, marker.id)
    if marker.action == 3:  # DELETEALL
        for k in [k for k in obstacles if not marker.ns or k[0] == marker.ns]:
            del obstacles[k]
        return
    if marker.action == 2:  # DELETE
        obstacles.pop(key, None)
        return
    if marker.type != 5:  # LINE_LIST
        return
    points = [(p.x, p.y) for p in marker.points]
    obstacles[key] = [(points[k], points[k + 1]) for k in range(0, len(points) - 1, 2)]


def _take_discs(array, radii: Dict[str, float]) -> None:
    """fleet_sim's robots: disc ``robots``/k and its label ``robot_names``/k (the name)."""
    discs = {m.id: m.scale.x / 2.0 for m in array.markers if m.ns == "robots" and m.scale.x > 0}
    for marker in array.markers:
        if marker.ns == "robot_names" and marker.id in discs and marker.text:
            radii[marker.text] = discs[marker.id]


def motion_summary(tracks: BagTracks, scenario) -> dict:
    """The motion-quality fields of a bag's robots that the scenario names, from each
    one's recorded odometry (turning from its direction of motion)."""
    from ..core.sim.motion_quality import RobotTrack, fleet_motion_quality, run_motion_summary

    return run_motion_summary(fleet_motion_quality(scenario, {
        name: RobotTrack(times, positions)
        for name, times, positions in zip(tracks.names, tracks.times, tracks.positions)}))
