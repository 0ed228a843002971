"""What the nodes share: QoS profiles, message <-> core conversion, parameter descriptors."""

from __future__ import annotations

import math
import struct
import weakref
from types import SimpleNamespace as NS
from typing import Callable, Dict, Iterable, Mapping, NamedTuple, Optional, Sequence, Tuple

from geometry_msgs.msg import Quaternion, Twist, TwistStamped
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import (FloatingPointRange, IntegerRange, ParameterDescriptor,
                                SetParametersResult)
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from visualization_msgs.msg import Marker

from ..core.errors import InputError
from ..core.geometry.frames import wrap_angle
from ..core.robot.obstacle_registry import ObstacleAction, ObstacleUpdate

# cmd_vel and odom interoperate with Gazebo bridges and diff_drive_controller.
RELIABLE_10 = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.VOLATILE, history=HistoryPolicy.KEEP_LAST)
# Subscribing to a stream of states (odometry, cmd_vel, shared predictions), where
# only the newest message counts. A process that falls behind takes the latest one,
# never a queue of stale ones: with RELIABLE_10, fleet_sim at 100 robots took each
# robot's commands oldest first, one per executor turn, and braked 80% of its
# robot-steps on commands past their validity. A best-effort reader also costs
# its (reliable or best-effort) publisher no acknowledgements.
LATEST = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT,
                    durability=DurabilityPolicy.VOLATILE, history=HistoryPolicy.KEEP_LAST)
# A neighbour cell's topic (orca_ros.core.robot.cells), on which every robot in or near the
# cell publishes its odometry: best effort like LATEST, but several robots share the
# topic and a keyless reader's history holds that many samples in all, so a depth of 1
# would drop one robot's message whenever another's came before the callback.
CELL = QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT,
                  durability=DurabilityPolicy.VOLATILE, history=HistoryPolicy.KEEP_LAST)
# Latched data (obstacles): late joiners get the last message.
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL, history=HistoryPolicy.KEEP_LAST)
# Subscribing to a latched topic every robot publishes once (footprints): each
# publisher's last message, for up to 100 publishers met at once.
LATCHED_MANY = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                          durability=DurabilityPolicy.TRANSIENT_LOCAL,
                          history=HistoryPolicy.KEEP_LAST)
# Subscribing to /obstacles, which several sources publish (transient-local,
# reliable, as LATCHED): a late joiner gets each publisher's kept history, and
# a burst of markers (a tracker's MODIFYs, a map's many ids) is not cut to the
# last one between two callbacks. Publishers must offer transient-local and
# reliable, or DDS does not connect them (rclpy logs "incompatible QoS").
OBSTACLES_SUBSCRIPTION = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                                    durability=DurabilityPolicy.TRANSIENT_LOCAL,
                                    history=HistoryPolicy.KEEP_LAST)


class BadMessage(InputError):
    """A message that cannot be used, with the reason (goes into a diagnostic)."""


class GuardedCallbacks:
    """A node mixin (``class MyNode(GuardedCallbacks, Node)``): every subscription's and
    timer's callback runs guarded. A callback that raises is a bug in orca_ros (bad
    input is refused where it is read, with a diagnostic): its traceback is logged once
    per callback, naming the callback and what it was handling, later failures of it
    are counted (:attr:`callback_errors`), and the node goes on with its next message or
    period. :meth:`callback_failed` is the node's hook to make itself safe (orca_node
    stops its robot). After SIGINT or SIGTERM an error is part of stopping and is raised
    as before (:func:`run_nodes`). With ``ORCA_ROS_CALLBACK_CPU`` set, each callback's
    calls and CPU time are counted as well (:mod:`.callback_cpu`)."""

    @property
    def callback_errors(self) -> Dict[str, int]:
        """How often each callback raised, by its name (empty while none did)."""
        return self.__dict__.setdefault("_callback_errors", {})

    def create_subscription(self, msg_type, topic, callback, *args, **kwargs):
        what = f"a {getattr(msg_type, '__name__', msg_type)} on '{topic}'"
        return super().create_subscription(msg_type, topic, self._guarded(callback, what),
                                           *args, **kwargs)

    def create_timer(self, timer_period_sec, callback, *args, **kwargs):
        what = f"its {timer_period_sec:g} s timer"
        return super().create_timer(timer_period_sec, self._guarded(callback, what),
                                    *args, **kwargs)

    def _guarded(self, callback, what: str):
        import functools

        name = getattr(callback, "__name__", repr(callback))

        @functools.wraps(callback)
        def guarded(*args):
            try:
                return callback(*args)
            except Exception:
                from . import stop

                if stop.requested():
                    raise
                self._report_callback_error(name, what)
                return None
        from .callback_cpu import accounting

        cpu = accounting()  # ORCA_ROS_CALLBACK_CPU: each callback's CPU, for the benches
        return guarded if cpu is None else cpu.timed(guarded, f"{name}: {what}")

    def _report_callback_error(self, name: str, what: str) -> None:
        import traceback

        errors = self.callback_errors
        errors[name] = errors.get(name, 0) + 1
        if errors[name] == 1:
            self.get_logger().error(
                f"internal error in {name} (handling {what}): a bug in orca_ros, not a "
                f"fault of the input; the node goes on, and later failures of {name} are "
                f"counted, not logged. Please report it with this traceback:\n"
                f"{traceback.format_exc()}")
        self.callback_failed(name)

    def callback_failed(self, name: str) -> None:
        """Called after the callback ``name`` raised (logged already): what the node does
        to stay safe. Nothing by default."""


def yaw_from_quaternion(q: Quaternion) -> float:
    """Rotation about z (rad, in (-pi, pi]) of a quaternion; any tilt is ignored."""
    return wrap_angle(math.atan2(2.0 * (q.w * q.z + q.x * q.y),
                                 1.0 - 2.0 * (q.y * q.y + q.z * q.z)))


def quaternion_from_yaw(yaw: float) -> Quaternion:
    return Quaternion(x=0.0, y=0.0, z=math.sin(yaw / 2.0), w=math.cos(yaw / 2.0))


def odometry_state(msg: Odometry) -> Tuple[Tuple[float, float], Tuple[float, float], float,
                                            float, float]:
    """``(position, world velocity, yaw, v, omega)`` of an Odometry message.

    The pose is in the common world frame; the twist is in the child (body)
    frame, as Gazebo and diff_drive_controller publish it, so it is rotated by
    the yaw into the world frame. Raises :class:`BadMessage` on NaN/infinite
    numbers or a zero quaternion.
    """
    p = msg.pose.pose.position
    q = msg.pose.pose.orientation
    t = msg.twist.twist
    return state_of(p.x, p.y, p.z, q.x, q.y, q.z, q.w, t.linear.x, t.linear.y, t.linear.z,
                    t.angular.z)


def state_of(px: float, py: float, pz: float, qx: float, qy: float, qz: float, qw: float,
             vx: float, vy: float, vz: float, wz: float):
    """:func:`odometry_state` of an odometry's numbers (pose, orientation, body twist)."""
    numbers = (px, py, pz, qx, qy, qz, qw, vx, vy, vz, wz)
    if not all(map(math.isfinite, numbers)):
        raise BadMessage(f"non-finite number in odometry: position ({px}, {py}, {pz}), "
                         f"orientation ({qx}, {qy}, {qz}, {qw}), twist "
                         f"({vx}, {vy}, {vz}, {wz})")
    if qx * qx + qy * qy + qz * qz + qw * qw < 1e-12:
        raise BadMessage("odometry orientation is a zero quaternion")
    yaw = wrap_angle(math.atan2(2.0 * (qw * qz + qx * qy), 1.0 - 2.0 * (qy * qy + qz * qz)))
    c, s = math.cos(yaw), math.sin(yaw)
    return (px, py), (c * vx - s * vy, s * vx + c * vy), yaw, vx, wz


def odometry_height(msg: Odometry) -> Tuple[float, float]:
    """``(z, vz)`` of an Odometry message that :func:`odometry_state` accepted: the
    height and the climb rate (the twist's ``linear.z``; an aerial robot's body frame
    turns about z only, so its z is the world's)."""
    return msg.pose.pose.position.z, msg.twist.twist.linear.z


_CDR_LE = b"\x00\x01"  # the encapsulation of plain little-endian CDR (XCDR1)


_ODOMETRY_NUMBERS = struct.Struct("<7d2d40xd224x6d")  # pose, covariance xx xy . yy, twist


class OdometryFields(NamedTuple):
    """What a neighbour's nav_msgs/Odometry says that orca_node reads: the stamp, the
    frames, the pose, the pose covariance's ``xx``, ``xy``, ``yy`` and the body twist
    (angular ``x``, ``y`` left out)."""

    sec: int
    nanosec: int
    frame_id: str
    child_frame_id: str
    px: float
    py: float
    pz: float
    qx: float
    qy: float
    qz: float
    qw: float
    cxx: float
    cxy: float
    cyy: float
    vx: float
    vy: float
    vz: float
    wx: float
    wy: float
    wz: float

    @classmethod
    def of(cls, msg) -> "OdometryFields":
        """The fields of a message (a deserialized nav_msgs/Odometry)."""
        h, p, q = msg.header, msg.pose.pose.position, msg.pose.pose.orientation
        c, t = msg.pose.covariance, msg.twist.twist
        return cls(h.stamp.sec, h.stamp.nanosec, h.frame_id, msg.child_frame_id, p.x, p.y,
                   p.z, q.x, q.y, q.z, q.w, c[0], c[1], c[7], t.linear.x, t.linear.y,
                   t.linear.z, t.angular.x, t.angular.y, t.angular.z)


def odometry_fields(data: bytes) -> OdometryFields:
    """The fields of a serialized nav_msgs/Odometry that orca_node reads
    (:class:`OdometryFields`), without building the message: a neighbour's odometry
    arrives raw (``create_subscription(..., raw=True)``), because rclpy's
    deserialization of an Odometry (two 36-number covariances) costs about 67 us, this
    about 1 us, and a process takes every robot's at the control rate. Plain
    little-endian CDR, alignment counted from the end of the 4-byte encapsulation
    header; anything else is deserialized the usual way. Raises :class:`BadMessage` on
    a truncated message.
    """
    if data[:2] != _CDR_LE:
        from rclpy.serialization import deserialize_message

        try:
            msg = deserialize_message(data, Odometry)
        except Exception as error:  # rclpy raises its own types for malformed bytes
            raise BadMessage(f"unreadable odometry ({len(data)} bytes): {error}") from None
        return OdometryFields.of(msg)
    try:
        sec, nanosec, frame_length = struct.unpack_from("<iII", data, 4)
        offset = 16 + frame_length
        frame = data[16:offset]
        offset = 4 + ((offset - 4 + 3) & ~3)  # child_frame_id: a string, 4-aligned
        (child_length,) = struct.unpack_from("<I", data, offset)
        child = data[offset + 4:offset + 4 + child_length]
        offset += 4 + child_length
        offset = 4 + ((offset - 4 + 7) & ~7)  # the pose: doubles, 8-aligned
        numbers = _ODOMETRY_NUMBERS.unpack_from(data, offset)
    except struct.error as error:
        raise BadMessage(f"truncated odometry ({len(data)} bytes): {error}") from None
    return OdometryFields(sec, nanosec, frame.rstrip(b"\0").decode("utf-8", "replace"),
                          child.rstrip(b"\0").decode("utf-8", "replace"), *numbers)


def odometry_fields_of(msg) -> OdometryFields:
    """An odometry's fields, serialized (bytes, as a raw subscription hands it) or a
    message."""
    if isinstance(msg, (bytes, bytearray, memoryview)):
        return odometry_fields(bytes(msg))
    return OdometryFields.of(msg)


def own_odometry(msg, frame: str):
    """The robot's own odometry (serialized or a message, :func:`odometry_fields_of`) as
    ``(fields, position, velocity, yaw, v, omega)`` (:func:`state_of`); BadMessage when it
    is not in ``frame`` or has a non-finite number or a zero quaternion."""
    f = odometry_fields_of(msg)
    if f.frame_id != frame:
        raise BadMessage(f"odom in frame {f.frame_id!r}, expected {frame!r} (odom_frame, or "
                         "world_frame)")
    return (f,) + state_of(f.px, f.py, f.pz, f.qx, f.qy, f.qz, f.qw, f.vx, f.vy, f.vz, f.wz)


def odometry_on_cells(msg: OdometryFields, robot: str) -> bytes:
    """A robot's own odometry, as it is, named by the robot (``child_frame_id``),
    serialized: what a robot that does not announce its state shares on the neighbour
    cells' topics."""
    return odometry_cdr(msg.sec * 1_000_000_000 + msg.nanosec, msg.frame_id, robot,
                        (msg.px, msg.py, msg.pz), (msg.qx, msg.qy, msg.qz, msg.qw), 0.0,
                        (msg.vx, msg.vy, msg.vz, msg.wx, msg.wy, msg.wz))


def odometry_from_cdr(data: bytes):
    """A serialized nav_msgs/Odometry as an object with the message's attributes for the
    fields :func:`odometry_fields` reads (the pose covariance's other numbers zero)."""
    f = odometry_fields(data)
    covariance = [0.0] * 36
    covariance[0], covariance[1], covariance[6], covariance[7] = f.cxx, f.cxy, f.cxy, f.cyy
    return NS(header=NS(stamp=NS(sec=f.sec, nanosec=f.nanosec), frame_id=f.frame_id),
              child_frame_id=f.child_frame_id,
              pose=NS(pose=NS(position=NS(x=f.px, y=f.py, z=f.pz),
                              orientation=NS(x=f.qx, y=f.qy, z=f.qz, w=f.qw)),
                      covariance=covariance),
              twist=NS(twist=NS(linear=NS(x=f.vx, y=f.vy, z=f.vz),
                                angular=NS(x=f.wx, y=f.wy, z=f.wz))))


def twist_message(linear_x: float, linear_y: float, angular_z: float, stamped: bool,
                  stamp=None, frame_id: str = "", linear_z: float = 0.0
                  ) -> "Twist | TwistStamped":
    twist = Twist()
    twist.linear.x = float(linear_x)
    twist.linear.y = float(linear_y)
    twist.linear.z = float(linear_z)
    twist.angular.z = float(angular_z)
    if not stamped:
        return twist
    msg = TwistStamped()
    if stamp is not None:
        msg.header.stamp = stamp
    msg.header.frame_id = frame_id
    msg.twist = twist
    return msg


def twist_of(msg) -> Twist:
    """The Twist inside a Twist or TwistStamped, checked for finite numbers."""
    twist = msg.twist if isinstance(msg, TwistStamped) else msg
    numbers = (twist.linear.x, twist.linear.y, twist.linear.z, twist.angular.z)
    if not all(math.isfinite(n) for n in numbers):
        raise BadMessage(f"non-finite number in cmd_vel: {numbers}")
    return twist


LEVEL_OK = 0
LEVEL_WARN = 1
LEVEL_ERROR = 2


def float_param(description: str, low: float, high: float,
                step: float = 0.0) -> ParameterDescriptor:
    return ParameterDescriptor(description=description, floating_point_range=[
        FloatingPointRange(from_value=float(low), to_value=float(high), step=float(step))])


def int_param(description: str, low: int, high: int) -> ParameterDescriptor:
    return ParameterDescriptor(description=description,
                               integer_range=[IntegerRange(from_value=low, to_value=high, step=1)])


def described(description: str, choices: Optional[Sequence[str]] = None) -> ParameterDescriptor:
    if choices:
        description = f"{description} (one of: {', '.join(choices)})"
    return ParameterDescriptor(description=description)


def check_choices(params, choices: Dict[str, Sequence[str]]) -> SetParametersResult:
    """Reject string parameters outside their allowed set, naming the parameter."""
    for param in params:
        allowed = choices.get(param.name)
        if allowed is not None and param.value not in allowed:
            return SetParametersResult(
                successful=False,
                reason=f"{param.name} must be one of {list(allowed)}, got {param.value!r}")
    return SetParametersResult(successful=True)


def deliver_waiting(subscription) -> bool:
    """Hand the message waiting in ``subscription``, that no executor handed over yet, to
    its callback as an executor would (through whatever wraps the callback: a guard, a
    fault injector's tap); whether there was one.

    For subscriptions of the newest message only (depth 1), called where a callback is
    overdue. On a loaded machine rclpy's EventsExecutor was seen to leave such messages
    in their subscriptions: at 200 robots on two cores fleet_sim's callbacks took 2,095
    of the robots' commands in 50 s of simulated time while about 1,600 a second were
    sent. A message is taken once, by whichever comes first."""
    with subscription.handle:
        taken = subscription.handle.take_message(subscription.msg_type, subscription.raw)
    if taken is None:
        return False
    from rclpy.subscription import Subscription

    with_info = getattr(getattr(Subscription, "CallbackType", None), "WithMessageInfo", None)
    if with_info is not None and getattr(subscription, "_callback_type", None) is with_info:
        subscription.callback(*taken)
    else:
        subscription.callback(taken[0])
    return True


_CLOCK_SOURCES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
"""The time source each node's clock follows where it is not its own (:func:`share_clock`)."""


def clock_source(node):
    """The rclpy ``TimeSource`` that sets ``node``'s clock: its own, or the one its
    process's nodes share (:func:`share_clock`). (rclpy keeps it private.)"""
    return _CLOCK_SOURCES.get(node) or getattr(node, "_time_source", None)


def share_clock(nodes: Sequence) -> int:
    """One ``/clock`` subscription for a process's nodes on simulated time
    (``use_sim_time``): the first one's time source sets every other one's clock, and
    theirs stop subscribing. Each subscription is a message per node per simulator step,
    taken and handled in Python: a third of an orca_robots process's messages at 10
    robots a process. Returns how many nodes follow another's clock.

    Nodes on wall time keep theirs. ``use_sim_time`` is read here, at the start: changed
    later on a following node it no longer moves that node's clock (orca_node warns of a
    process whose nodes disagree). rclpy without the time source this relies on
    (``Node._time_source``) keeps a subscription per node."""
    simulated = [node for node in nodes if on_sim_time(node)
                 and getattr(node, "_time_source", None) is not None]
    if len(simulated) < 2:
        return 0
    shared = simulated[0]._time_source
    for node in simulated[1:]:
        node._time_source.detach_node()  # its /clock subscription goes
        shared.attach_clock(node.get_clock())
        _CLOCK_SOURCES[node] = shared
    return len(simulated) - 1


def catch_up_clock(node) -> None:
    """Set ``node``'s simulated clock from a ``/clock`` message waiting in its time
    source's subscription (:func:`deliver_waiting`; ``use_sim_time`` only): a clock
    whose messages the executor left waiting stood 0.2-0.5 s behind the simulator at 200
    robots on two cores, and every command the node stamped looked that much older
    than it was."""
    subscription = getattr(clock_source(node), "_clock_sub", None)
    if subscription is not None:
        deliver_waiting(subscription)


def on_sim_time(node) -> bool:
    """Whether ``node`` runs on a simulated clock (``use_sim_time``, which rclpy declares
    for every node): then every stamp of the run is of that one clock."""
    return bool(node.get_parameter("use_sim_time").value)


def make_executor(context=None):
    """rclpy's EventsExecutor where this rclpy has it (Jazzy, Kilted: about 2.3x the
    messages per core), else the SingleThreadedExecutor (Humble)."""
    try:
        from rclpy.experimental import EventsExecutor

        return EventsExecutor(context=context)
    except ImportError:
        from rclpy.executors import SingleThreadedExecutor

        return SingleThreadedExecutor(context=context)


def run_node(node_class, args=None) -> None:
    """The executables' ``main``: spin one node until SIGINT or SIGTERM, then exit 0
    (:func:`run_nodes`, with :func:`make_executor`'s executor)."""
    run_nodes(lambda: [node_class()], args, node_class.__name__)


def run_nodes(make_nodes, args=None, label: str = "", executor_factory=None,
              between_spins: Optional[Callable[[], float]] = None) -> None:
    """Spin the nodes ``make_nodes()`` returns, in one executor, until SIGINT or
    SIGTERM, then exit 0. ``executor_factory``: default :func:`make_executor`.
    ``between_spins``: called after every ``spin_once``, it returns the seconds the
    next may wait for work (default 0.1; orca_robots' state batches,
    :meth:`~orca_ros.core.robot.batching.StateBatcher.due`).

    rclpy's own signal handler is not used. On SIGINT or SIGTERM it shuts the
    context down from a thread of its own, while the executor may be inside a
    wait, a take or a callback, and rclpy then raises from wherever that was
    (``take_message``: "Unable to convert call argument '0' to Python object";
    "context is invalid" from a publisher or a node being created), so a node
    told to stop could exit 1 with a traceback. Here both signals only set a
    flag (:mod:`orca_ros.nodes.stop`), the loop sees it within 0.1 s, and the
    executor, the nodes and then the context are shut down in order. Anything
    raised once a stop was asked is part of stopping; an error before that
    still fails loudly.

    Should the DDS teardown hang (a Fast DDS deadlock seen when dozens of
    processes end together), the deadline :mod:`orca_ros.nodes.stop` armed at the
    signal ends the process, status 0, before launch would kill it.

    A node that refuses its configuration (a parameter out of its range, unknown
    robot names, an unreadable scenario) makes the process exit with status 2 and
    the reason.
    """
    import sys

    import rclpy
    from rclpy.exceptions import ParameterException
    from rclpy.executors import ExternalShutdownException
    from rclpy.signals import SignalHandlerOptions

    from ..core.collector import settle
    from . import stop

    stop.install()
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    nodes = []
    try:
        nodes = list(make_nodes())
    except (ValueError, ParameterException) as error:
        print(f"{label}: {error}", file=sys.stderr)
        for node in nodes:
            node.destroy_node()
        rclpy.try_shutdown()
        sys.exit(2)
    executor = None
    try:
        executor = (executor_factory or make_executor)()
        share_clock(nodes)
        for node in nodes:
            executor.add_node(node)
        settle()  # start-up done: the collector set for a control loop
        while not stop.requested():
            executor.spin_once(timeout_sec=between_spins() if between_spins else 0.1)
    except ExternalShutdownException:
        pass  # the context was shut down from elsewhere: a normal end
    except Exception:
        if not stop.requested():
            raise
    finally:
        try:
            # The executor first: left to the garbage collector after the context
            # is shut down, its __del__ destroys a guard condition whose handle is
            # already going ("Exception ignored in: Executor.__del__ ...
            # InvalidHandle" on stderr, seen in 1 of 31 interrupts).
            if executor is not None:
                executor.shutdown(timeout_sec=1.0)
            # Last created first: orca_robots' first node holds the subscriptions its
            # nodes share (NeighborOdometry), handed to the next node if it went first.
            for node in reversed(nodes):
                node.destroy_node()
            rclpy.try_shutdown()
        except Exception:
            if not stop.requested():
                raise
    stop.ignore()  # the process ends now: a second Ctrl-C must not kill it mid-exit


class GoalSender:
    """Sends each scenario robot its goal once (``goal_pose``, or ``plan`` when it has
    waypoints), as soon as ``subscribers`` nodes listen, as a user would in RViz.

    Used by the simulators when they run a scenario (``send_goals``). A
    publisher whose goal every subscriber has acknowledged is destroyed: a
    simulator of 40 robots otherwise spends seconds at shutdown tearing down
    40 idle publishers on a loaded machine, and ``ros2 launch`` kills it."""

    def __init__(self, node, scenario, subscribers: int, frame: str) -> None:
        from geometry_msgs.msg import PoseStamped
        from nav_msgs.msg import Path

        self.node, self.scenario, self.subscribers, self.frame = node, scenario, subscribers, frame
        self.sent = set()
        self.publishers = {}
        for agent in scenario.agents:
            topic, kind = ("plan", Path) if len(agent.waypoints) > 1 else ("goal_pose", PoseStamped)
            self.publishers[agent.name] = node.create_publisher(kind, f"/{agent.name}/{topic}",
                                                                RELIABLE_10)

    def send(self, stamp) -> None:
        from geometry_msgs.msg import PoseStamped
        from nav_msgs.msg import Path

        for agent in self.scenario.agents:
            if agent.name in self.sent:
                continue
            publisher = self.publishers[agent.name]
            if publisher.get_subscription_count() < self.subscribers:
                continue
            poses = []
            for point in agent.waypoints:  # (x, y), or (x, y, z) for aerial robots
                pose = PoseStamped()
                pose.header.frame_id = self.frame
                pose.header.stamp = stamp
                pose.pose.position.x, pose.pose.position.y = float(point[0]), float(point[1])
                if len(point) > 2:
                    pose.pose.position.z = float(point[2])
                pose.pose.orientation.w = 1.0
                poses.append(pose)
            if len(poses) > 1:
                plan = Path()
                plan.header = poses[0].header
                plan.poses = poses
                publisher.publish(plan)
            else:
                publisher.publish(poses[0])
            self.sent.add(agent.name)
        self._release_delivered()

    def _release_delivered(self) -> None:
        from rclpy.duration import Duration

        for name in [n for n in self.sent if n in self.publishers]:
            if self.publishers[name].wait_for_all_acked(Duration(seconds=0)):
                self.node.destroy_publisher(self.publishers.pop(name))


# RViz treats a marker lifetime of at most 100 us as "forever" (MarkerCommon::configureMarker).
MARKER_LIFETIME_FOREVER_S = 1e-4


def obstacle_update(msg: Marker) -> ObstacleUpdate:
    """A ``/obstacles`` Marker as an obstacle update: ``(ns, id, action, points, lifetime)``.

    ADD (= MODIFY) must be a LINE_LIST; each consecutive point pair is one
    segment. DELETE and DELETEALL may be of any type, since only their ns and
    id count. The marker's pose is applied to its points as RViz does
    (translation in x, y and rotation about z; z and any tilt are dropped).
    The header's frame is the caller's to check (orca_node refuses walls in
    another frame than its ``world_frame``). A lifetime of at most 100 us
    (negative included) means forever, as in RViz. Raises :class:`BadMessage`
    for any other type or action and for a non-finite pose. The points are
    checked (finite, paired, no zero-length segment) by
    :meth:`ObstacleRegistry.apply`, which refuses a bad update whole.
    """
    name = f"ns {msg.ns!r} id {msg.id}"
    if msg.action == Marker.DELETE:
        return ObstacleUpdate(msg.ns, msg.id, ObstacleAction.DELETE)
    if msg.action == Marker.DELETEALL:
        return ObstacleUpdate(msg.ns, msg.id, ObstacleAction.DELETE_ALL)
    if msg.action != Marker.ADD:
        raise BadMessage(f"obstacles {name}: unknown marker action {msg.action} (ADD/MODIFY "
                         f"{Marker.ADD}, DELETE {Marker.DELETE}, DELETEALL {Marker.DELETEALL})")
    if msg.type != Marker.LINE_LIST:
        raise BadMessage(f"obstacles {name}: marker type {msg.type} is not LINE_LIST "
                         f"({Marker.LINE_LIST})")
    p, q = msg.pose.position, msg.pose.orientation
    pose = (p.x, p.y, q.x, q.y, q.z, q.w)
    if not all(math.isfinite(n) for n in pose):
        raise BadMessage(f"obstacles {name}: non-finite marker pose: position ({p.x}, {p.y}), "
                         f"orientation ({q.x}, {q.y}, {q.z}, {q.w})")
    # An all-zero quaternion carries no rotation: read it as none.
    yaw = yaw_from_quaternion(q) if q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w > 1e-12 else 0.0
    if p.x == 0.0 and p.y == 0.0 and yaw == 0.0:
        points = tuple((point.x, point.y) for point in msg.points)
    else:
        c, s = math.cos(yaw), math.sin(yaw)
        points = tuple((p.x + c * point.x - s * point.y, p.y + s * point.x + c * point.y)
                       for point in msg.points)
    lifetime = msg.lifetime.sec + msg.lifetime.nanosec * 1e-9
    if lifetime <= MARKER_LIFETIME_FOREVER_S:
        lifetime = 0.0
    return ObstacleUpdate(msg.ns, msg.id, ObstacleAction.ADD, points, lifetime)


def header_seconds(msg) -> float:
    """A message's header stamp in seconds."""
    return msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9


def _cdr_string(out: bytearray, text: str) -> None:
    """A CDR string (4-aligned length with its terminating NUL, then the bytes)."""
    data = text.encode("utf-8")
    out += _PADDING[len(out) % 4]  # (4-aligned from the 4-byte encapsulation: len % 4)
    out += (len(data) + 1).to_bytes(4, "little")
    out += data
    out += b"\0"


_PADDING = (b"", b"\0\0\0", b"\0\0", b"\0")  # to the next multiple of 4 from len % 4


_ZERO_COVARIANCE = bytes(36 * 8)


def odometry_cdr(stamp_ns: int, frame: str, child: str, pose: Sequence[float],
                 orientation: Sequence[float], variance: float,
                 twist: Sequence[float]) -> bytes:
    """A nav_msgs/Odometry serialized as plain little-endian CDR (what
    ``serialize_message`` makes of it, ``Publisher.publish`` sends as it is): stamped
    ``stamp_ns``, in ``frame``, named ``child``, at ``pose`` ``(x, y, z)`` with
    ``orientation`` ``(x, y, z, w)``, the position's covariance ``variance`` on x and y
    (the rest 0), and the body ``twist`` ``(vx, vy, vz, wx, wy, wz)``. Building a
    message and letting rclpy convert it cost about ten times as much, once per robot
    per odometry."""
    sec, nanosec = divmod(stamp_ns, 1_000_000_000)
    out = bytearray(_CDR_LE + b"\x00\x00")
    out += struct.pack("<iI", sec, nanosec)
    _cdr_string(out, frame)
    _cdr_string(out, child)
    out += bytes(-(len(out) - 4) % 8)
    out += struct.pack("<7d", *pose, *orientation)
    if variance:
        out += struct.pack("<d48xd", variance, variance)  # covariance[0], [7] (x, y)
        out += bytes(28 * 8)
    else:
        out += _ZERO_COVARIANCE
    out += struct.pack("<6d", *twist)
    out += _ZERO_COVARIANCE
    return bytes(out)


def diagnostics_cdr(stamp_ns: int, statuses: Iterable[Tuple[str, int, str, str,
                                                              Dict[str, object]]]) -> bytes:
    """A diagnostic_msgs/DiagnosticArray stamped ``stamp_ns`` of ``statuses`` (``(name,
    level, message, hardware_id, values)``: a DiagnosticStatus's fields, each value
    written as ``str`` makes it)
    serialized as plain little-endian CDR, sent as it is: building its KeyValues as
    rclpy messages cost an orca_node about 0.15 ms of its second's diagnostics."""
    out = bytearray(_CDR_LE + b"\x00\x00")
    out += struct.pack("<iI", *divmod(stamp_ns, 1_000_000_000))
    _cdr_string(out, "")
    statuses = list(statuses)
    out += _PADDING[len(out) % 4]
    out += struct.pack("<I", len(statuses))
    for name, level, message, hardware_id, values in statuses:
        out.append(level)
        for text in (name, message, hardware_id):
            _cdr_string(out, text)
        out += _PADDING[len(out) % 4]
        out += struct.pack("<I", len(values))
        for key, value in values.items():
            _cdr_string(out, str(key))
            _cdr_string(out, str(value))
    return bytes(out)


def twist_cdr(linear_x: float, linear_y: float, angular_z: float, stamped: bool,
              stamp_ns: int = 0, frame_id: str = "", linear_z: float = 0.0) -> bytes:
    """:func:`twist_message`'s Twist or TwistStamped serialized as plain little-endian
    CDR (``stamp_ns``: the stamp), sent as it is: what orca_node publishes on
    ``cmd_vel`` every cycle."""
    out = bytearray(_CDR_LE + b"\x00\x00")
    if stamped:
        out += struct.pack("<iI", *divmod(stamp_ns, 1_000_000_000))
        _cdr_string(out, frame_id)
        out += bytes(-(len(out) - 4) % 8)
    out += struct.pack("<6d", float(linear_x), float(linear_y), float(linear_z), 0.0, 0.0,
                       float(angular_z))
    return bytes(out)


def announced_state(msg: OdometryFields, frame: str, robot: str, pose, deviation: float,
                    stamp_ns: Optional[int] = None) -> bytes:
    """A robot's state in the shared ``frame``, named by its robot (``child_frame_id``),
    serialized (:func:`odometry_cdr`): what orca_node announces on /orca/states (or on
    the cell topics). ``msg``: its own odometry's fields (stamp, height, body-frame
    twist); ``pose``: its pose in the shared frame (Pose2); ``deviation`` (m): its
    localization's, as the position covariance; ``stamp_ns``: when it was measured on
    the node's clock (default: the odometry's stamp), so that its states and
    predictions carry one clock."""
    if stamp_ns is None:
        stamp_ns = msg.sec * 1_000_000_000 + msg.nanosec
    half = pose.yaw / 2.0
    return odometry_cdr(stamp_ns, frame, robot, (pose.position[0], pose.position[1], msg.pz),
                        (0.0, 0.0, math.sin(half), math.cos(half)), deviation ** 2,
                        (msg.vx, msg.vy, msg.vz, msg.wx, msg.wy, msg.wz))


def prediction_message(prediction, frame: str, robot: str) -> Odometry:
    """A :class:`~orca_ros.core.robot.perception.SharedPrediction` as nav_msgs/Odometry
    (``orca/prediction``): stamped when its command starts to act, the pose it will have
    then, the command's twist, the pose covariance its uncertainty squared."""
    msg = Odometry()
    stamp_ns = int(round(prediction.time * 1e9))
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, 1_000_000_000)
    msg.header.frame_id = frame
    msg.child_frame_id = f"{robot}/base_link"
    msg.pose.pose.position.x, msg.pose.pose.position.y = prediction.position
    msg.pose.pose.orientation = quaternion_from_yaw(prediction.heading)
    variance = prediction.uncertainty * prediction.uncertainty
    msg.pose.covariance[0] = msg.pose.covariance[7] = variance
    msg.twist.twist.linear.x = float(prediction.linear)
    msg.twist.twist.angular.z = float(prediction.angular)
    return msg


def shared_prediction(msg: Odometry, max_coordinate: float, now_ns: int, timeout: float,
                      offset: float = 0.0):
    """A neighbour's ``orca/prediction`` as a
    :class:`~orca_ros.core.robot.perception.SharedPrediction`, its stamp put on this
    clock by its sender's clock ``offset`` (s, :mod:`orca_ros.core.robot.clocks`);
    BadMessage when its variance is not finite in [0, 1e6], it lies beyond
    ``max_coordinate`` (m), or it is stamped more than ``timeout`` (s) from ``now_ns``."""
    from ..core.robot.perception import SharedPrediction

    position, _, yaw, v, omega = odometry_state(msg)
    variance = msg.pose.covariance[0]
    if not (math.isfinite(variance) and 0.0 <= variance <= 1e6):
        raise BadMessage(f"pose variance {variance} is not a finite number in [0, 1e6]")
    if max(abs(position[0]), abs(position[1])) > max_coordinate:
        raise BadMessage(f"position {position} is beyond {max_coordinate:g} m")
    stamp_ns = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec + \
        int(round(offset * 1e9))
    if abs(stamp_ns - now_ns) > timeout * 1e9:
        raise BadMessage(f"stamped {(stamp_ns - now_ns) * 1e-9:+.3f} s from now, beyond "
                         "neighbor_timeout")
    return SharedPrediction(stamp_ns * 1e-9, position, yaw, v, omega, math.sqrt(variance))


def localization_fix(msg, frame: str):
    """A localization fix (geometry_msgs/PoseWithCovarianceStamped, as AMCL publishes
    it) as ``(stamp s, Pose2 in the shared frame, position deviation m, heading
    deviation rad)``; BadMessage
    when it is not in the shared ``frame``, has a non-finite number or a zero quaternion."""
    from ..core.geometry.frames import Pose2
    from ..core.robot.localization import position_deviation

    if msg.header.frame_id != frame:
        raise BadMessage(f"localization in frame {msg.header.frame_id!r}, expected the "
                         f"shared frame {frame!r}")
    p, q, c = msg.pose.pose.position, msg.pose.pose.orientation, msg.pose.covariance
    numbers = (p.x, p.y, q.x, q.y, q.z, q.w, c[0], c[1], c[7], c[35])
    if not all(math.isfinite(n) for n in numbers):
        raise BadMessage(f"non-finite number in localization: position ({p.x}, {p.y}), "
                         f"orientation ({q.x}, {q.y}, {q.z}, {q.w}), covariance "
                         f"({c[0]}, {c[1]}, {c[7]}, {c[35]})")
    if q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w < 1e-12:
        raise BadMessage("localization orientation is a zero quaternion")
    return (header_seconds(msg), Pose2(p.x, p.y, yaw_from_quaternion(q)),
            position_deviation(c[0], c[1], c[7]), math.sqrt(max(c[35], 0.0)))


def path_points(msg, dimensions: int = 2, what: str = "plan") -> list:
    """A nav_msgs/Path's points (x, y), or (x, y, z) with ``dimensions`` 3; BadMessage
    for a non-finite one."""
    points = [(p.pose.position.x, p.pose.position.y) + (
        (p.pose.position.z,) if dimensions == 3 else ()) for p in msg.poses]
    if not all(math.isfinite(c) for point in points for c in point):
        raise BadMessage(f"non-finite point in {what}")
    return points


class NodeParameters(Mapping):
    """A node's declared parameters as a mapping of name to value, read when asked (what
    :mod:`orca_ros.core.robot.settings` and :class:`~orca_ros.core.robot.inputs.RobotInputs`
    read)."""

    def __init__(self, node) -> None:
        self.node = node

    def __getitem__(self, name: str):
        # The node's own table, as Node.get_parameter reads it for a declared name
        # (a cycle reads a dozen parameters; get_parameter costs microseconds each).
        try:
            return self.node._parameters[name].value
        except KeyError:
            raise KeyError(name) from None

    def __iter__(self):
        return iter(list(self.node._parameters))

    def __len__(self) -> int:
        return len(self.node._parameters)
