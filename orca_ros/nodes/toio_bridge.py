"""toio_bridge: Sony toio Core Cubes as ROS 2 robots, over BLE or simulated.

Per cube (namespace = its name): publishes ``odom`` (world frame, metres; twist
from successive positions), ``battery`` (sensor_msgs/BatteryState), ``button``
and ``collision`` (std_msgs/Bool, from the motion sensor); subscribes
``cmd_vel`` and sends timed motor commands whose duration doubles as a
watchdog, so a lost command stream stops the cube.

Position missed (lifted, off the mat): motors stopped, one odometry message
with a huge covariance, a diagnostic; it resumes when the cube is back. BLE
link lost: that cube's odometry stops, a diagnostic, reconnection with
back-off; other cubes go on. BLE runs on one asyncio thread; notifications
cross to the ROS thread through a queue.

Simulated cubes (``cubes: ['name=simulated', ...]`` or a scenario) are stepped
by this node, which then also publishes ``/clock``, like fleet_sim.
"""

from __future__ import annotations

import asyncio
import collections
import math
import threading
from dataclasses import dataclass, field
from typing import Deque, Dict, List, Optional, Tuple

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Twist, TwistStamped
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import SetParametersResult
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rclpy.qos import qos_profile_system_default
from rclpy.time import Time
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import BatteryState
from std_msgs.msg import Bool

from ..core.models.toio_cube import VelocityEstimator
from ..core.scenario.loader import load_scenario, resolve_scenario
from ..core.sim.metrics import FleetRecord
from ..toio import protocol as p
from ..core.models.toio_cube import twist_to_wheels
from ..core.models.toio_cube import DEFAULT_MM_PER_UNIT, MatFrame, mat_named
from ..toio.transport import BleakLink, CubeLink, SimulatedCube, parse_cube
from .params import check_start, check_values, declare_table, table_by_name
from .params.toio_bridge import PARAMETERS
from .ros_common import (GuardedCallbacks, LATEST, LEVEL_OK, LEVEL_WARN, RELIABLE_10, BadMessage,
                         GoalSender, diagnostics_cdr, quaternion_from_yaw,
                         run_node, twist_of)

BY_NAME = table_by_name(PARAMETERS)
STALE_COVARIANCE = 1e6


@dataclass
class Cube:
    """One cube as the bridge knows it."""

    name: str
    link: CubeLink
    simulated: bool
    pose: Optional[Tuple[float, float, float]] = None  # world x, y, yaw
    pose_time: float = 0.0
    velocity: Tuple[float, float] = (0.0, 0.0)  # body frame v, omega
    speed: VelocityEstimator = field(default_factory=VelocityEstimator)
    on_mat: bool = False
    command: Tuple[float, float, float] = (0.0, 0.0, -math.inf)  # v, omega, stamp (s)
    stopped: bool = True
    sent_at: float = -math.inf  # bridge time (s) of the last motor command written
    backoff: float = 1.0
    problems: Dict[str, int] = field(default_factory=dict)
    last_problem: str = ""
    publishers: Dict[str, object] = field(default_factory=dict)


class ToioBridge(GuardedCallbacks, Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("toio_bridge", **kwargs)
        declare_table(self, PARAMETERS)
        problem = check_start(self, BY_NAME)
        if problem is not None:
            raise ValueError(problem)
        self.add_on_set_parameters_callback(self._check_parameters)

        scenario_path = self.get_parameter("scenario").value
        self.scenario = load_scenario(resolve_scenario(scenario_path)) if scenario_path else None
        toio_block = self.scenario.toio if self.scenario else {}
        self.mat = mat_named(self.get_parameter("mat").value or
                             toio_block.get("mat", "collection_ring"))
        self.frame = MatFrame(self.get_parameter("mm_per_unit").value or
                              float(toio_block.get("mm_per_unit", DEFAULT_MM_PER_UNIT)))
        self.cubes: Dict[str, Cube] = {}
        for name, kind, arg in self._cube_entries():
            self.cubes[name] = Cube(name, self._make_link(name, kind, arg), kind == "sim")
        self.inbox: Deque[Tuple[str, str, bytes]] = collections.deque()
        self.sim_time = 0.0
        self.simulated = [c for c in self.cubes.values() if c.simulated]
        self.record = None
        if self.scenario is not None and len(self.simulated) == len(self.cubes) and \
                {c.name for c in self.simulated} == {a.name for a in self.scenario.agents}:
            self.record = FleetRecord(self.scenario, self._true_positions())

        stamped = bool(self.get_parameter("enable_stamped_cmd_vel").value)
        for cube in self.cubes.values():
            cube.publishers = {
                "odom": self.create_publisher(Odometry, f"/{cube.name}/odom", RELIABLE_10),
                "battery": self.create_publisher(BatteryState, f"/{cube.name}/battery", 10),
                "button": self.create_publisher(Bool, f"/{cube.name}/button", 10),
                "collision": self.create_publisher(Bool, f"/{cube.name}/collision", 10)}
            self.create_subscription(TwistStamped if stamped else Twist, f"/{cube.name}/cmd_vel",
                                     lambda msg, c=cube: self._on_cmd(c, msg), LATEST)
        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics",
                                              qos_profile_system_default)
        self.clock_pub = self.create_publisher(ClockMsg, "/clock", 10) if self.simulated else None
        self.goal_sender = GoalSender(self, self.scenario,
                                      self.get_parameter("goal_subscribers").value,
                                      self.get_parameter("world_frame").value) \
            if self.scenario is not None and self.get_parameter("send_goals").value else None

        # One asyncio thread for every link (BLE, or simulated).
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="toio-ble",
                                       daemon=True)
        self.thread.start()
        self.keepers = [self._schedule(self._keep_connected(cube)) for cube in self.cubes.values()]

        wall = Clock(clock_type=ClockType.STEADY_TIME)
        factor = self.get_parameter("speed_factor").value
        if self.simulated:
            self.create_timer(self.get_parameter("sim_step").value / factor, self._step_simulation,
                              clock=wall)
        self.create_timer(1.0 / self.get_parameter("command_rate").value / factor,
                          self._send_commands, clock=wall)
        self.create_timer(0.005, self._drain, clock=wall)
        self.create_timer(1.0, self._publish_diagnostics, clock=wall)
        if self.goal_sender is not None:
            self.create_timer(0.1, lambda: self.goal_sender.send(self._stamp()), clock=wall)

    # --- set-up ----------------------------------------------------------------------

    @staticmethod
    def _check_parameters(params) -> SetParametersResult:
        reason = check_values(BY_NAME, {p.name: p.value for p in params})
        return SetParametersResult(successful=reason is None, reason=reason or "")

    def _cube_entries(self) -> List[Tuple[str, str, str]]:
        entries = [e for e in self.get_parameter("cubes").value if e]
        if entries:
            return [parse_cube(e) for e in entries]
        if self.scenario is None:
            raise ValueError("toio_bridge needs 'cubes' or a 'scenario'")
        return [(a.name, "sim", "") for a in self.scenario.agents]

    def _make_link(self, name: str, kind: str, arg: str) -> CubeLink:
        if kind == "ble":
            return BleakLink(arg)
        if arg:
            try:
                x, y, yaw = (float(v) for v in arg.split(","))
            except ValueError:
                raise ValueError(f"cube {name}: 'sim:x,y,yaw' needs three numbers, "
                                 f"got {arg!r}") from None
        elif self.scenario is not None and name in {a.name for a in self.scenario.agents}:
            agent = self.scenario.agent(name)
            (x, y), yaw = agent.start, agent.start_heading
        else:
            raise ValueError(f"cube {name}: simulated, but no start pose (sim:x,y,yaw) and "
                             "not in the scenario")
        mx, my, angle = self.frame.to_mat(x, y, yaw)
        return SimulatedCube(self.mat, self.frame, mx, my, angle)

    def _schedule(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    async def _keep_connected(self, cube: Cube) -> None:
        """Connect, and reconnect with back-off (1, 2, 4 ... 8 s) whenever the link drops."""
        while True:
            if not cube.link.connected:
                try:
                    await cube.link.connect(
                        lambda c, data, name=cube.name: self.inbox.append((name, c, data)))
                    await cube.link.write(p.CONFIGURATION, p.encode(p.ConfigureIdNotification(
                        10, 0x00)))
                    cube.backoff = 1.0
                    self._problem(cube, "link", "connected", count=False)
                except Exception as error:  # BLE stacks raise many kinds; report, retry
                    self._problem(cube, "link", f"connection failed: {error}")
                    await asyncio.sleep(cube.backoff)
                    cube.backoff = min(cube.backoff * 2.0, 8.0)
                    continue
            await asyncio.sleep(0.1)

    # --- time -------------------------------------------------------------------------------

    def now(self) -> float:
        if self.simulated:
            return self.sim_time
        return self.get_clock().now().nanoseconds * 1e-9

    def _stamp(self):
        return Time(nanoseconds=int(round(self.now() * 1e9))).to_msg()

    def _true_positions(self) -> np.ndarray:
        return np.array([self.cubes[a.name].link.world_pose()[:2] for a in self.scenario.agents])

    def _step_simulation(self) -> None:
        step = self.get_parameter("sim_step").value
        for cube in self.simulated:
            cube.link.advance(step)
        self.sim_time += step
        if self.clock_pub is not None:
            self.clock_pub.publish(ClockMsg(clock=self._stamp()))
        if self.record is not None and round(self.sim_time / step) % 5 == 0:
            self.record.record(self.sim_time, self._true_positions())

    # --- cube -> ROS -----------------------------------------------------------------------

    def _problem(self, cube: Cube, what: str, text: str, count: bool = True) -> None:
        if count:
            cube.problems[what] = cube.problems.get(what, 0) + 1
            self.get_logger().warning(f"{cube.name}: {text}", throttle_duration_sec=2.0)
        cube.last_problem = text

    def _drain(self) -> None:
        while self.inbox:
            name, characteristic, data = self.inbox.popleft()
            cube = self.cubes[name]
            try:
                message = p.decode_notification(characteristic, data)
            except p.ProtocolError as error:
                self._problem(cube, "malformed", str(error))
                continue
            self._handle(cube, message)

    def _handle(self, cube: Cube, message) -> None:
        if isinstance(message, p.PositionId):
            x, y, yaw = self.frame.to_world(message.x, message.y, message.angle)
            t = self.now()
            if not cube.on_mat:
                cube.speed.reset()  # back on the mat: no speed across the gap
            if cube.pose is None or t - cube.pose_time > 1e-6:
                cube.velocity = cube.speed.update((x, y, yaw), t)
            cube.pose, cube.pose_time, cube.on_mat = (x, y, yaw), t, True
            self._publish_odom(cube, stale=False)
        elif isinstance(message, p.PositionIdMissed):
            cube.on_mat = False
            cube.velocity = (0.0, 0.0)
            self._problem(cube, "position missed", "position missed (lifted or off the mat): "
                          "motors stopped")
            self._write(cube, p.MotorBasic(0, 0))
            if cube.pose is not None:
                self._publish_odom(cube, stale=True)
        elif isinstance(message, p.Battery):
            battery = BatteryState()
            battery.header.stamp = self._stamp()
            battery.percentage = message.percent / 100.0
            battery.present = True
            cube.publishers["battery"].publish(battery)
        elif isinstance(message, p.Button):
            cube.publishers["button"].publish(Bool(data=message.pressed))
        elif isinstance(message, p.MotionDetection):
            cube.publishers["collision"].publish(Bool(data=message.collision))

    def _publish_odom(self, cube: Cube, stale: bool) -> None:
        x, y, yaw = cube.pose
        odom = Odometry()
        odom.header.stamp = self._stamp()
        odom.header.frame_id = self.get_parameter("world_frame").value
        odom.child_frame_id = f"{cube.name}/base_link"
        odom.pose.pose.position.x, odom.pose.pose.position.y = x, y
        odom.pose.pose.orientation = quaternion_from_yaw(yaw)
        odom.twist.twist.linear.x, odom.twist.twist.angular.z = cube.velocity
        variance = STALE_COVARIANCE if stale else 1e-6
        odom.pose.covariance = [variance if i in (0, 7, 35) else 0.0 for i in range(36)]
        cube.publishers["odom"].publish(odom)

    # --- ROS -> cube -----------------------------------------------------------------------

    def _on_cmd(self, cube: Cube, msg) -> None:
        try:
            twist = twist_of(msg)
        except BadMessage as error:
            self._problem(cube, "bad cmd_vel", str(error))
            return
        stamp = now = self.now()
        if isinstance(msg, TwistStamped):
            stamped = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
            if 0.0 < stamped <= now + 1e-6:
                stamp = stamped  # a stamp from the future (another clock) counts from arrival
        cube.command = (twist.linear.x, twist.angular.z, stamp)
        self._send_command(cube)  # at once: the controller's lag compensation counts from now

    def _write(self, cube: Cube, message) -> None:
        if not cube.link.connected:
            return
        future = self._schedule(cube.link.write(p.MOTOR, p.encode(message)))
        future.add_done_callback(lambda f, c=cube: self._write_done(c, f))

    def _write_done(self, cube: Cube, future) -> None:
        if future.cancelled():  # shutting down (destroy_node)
            return
        error = future.exception()
        if error is not None:
            self._problem(cube, "write", f"write failed: {error}")

    def _send_commands(self) -> None:
        """Each cube's command again, unless one went out within the last period.

        A timed command whose duration is up stops the cube by itself, so this
        keeps a cube moving while commands arrive, and stops it (within the
        command's validity) when they do not.
        """
        period = 1.0 / self.get_parameter("command_rate").value
        now = self.now()
        for cube in self.cubes.values():
            if now - cube.sent_at >= 0.9 * period:
                self._send_command(cube, now)

    def _send_command(self, cube: Cube, now: Optional[float] = None) -> None:
        """The cube's current command as a timed motor command (or a stop once it is invalid).

        Sent when a ``cmd_vel`` arrives, so the cube's own lag is all there is
        between the controller and the wheels (a command held for the next
        20 Hz tick would act up to 50 ms later than the controller planned),
        and re-sent by :meth:`_send_commands`.
        """
        if not cube.link.connected or not cube.on_mat:
            return
        now = self.now() if now is None else now
        v, omega, stamp = cube.command
        # The cube stops by itself when the timed command ends: never later than
        # the command's validity (10 ms is the protocol's unit; 0 would mean forever).
        remaining_ms = (stamp + self.get_parameter("command_validity").value - now) * 1000.0
        if remaining_ms < 10.0:
            if not cube.stopped:
                self._write(cube, p.MotorBasic(0, 0))
                cube.stopped = True
                cube.sent_at = now
            return
        left, right = twist_to_wheels(v, omega)
        duration_ms = self.get_parameter("command_duration_ms").value
        self._write(cube, p.MotorTimed(left, right, min(duration_ms, int(remaining_ms))))
        cube.stopped = False
        cube.sent_at = now

    def _publish_diagnostics(self) -> None:
        statuses = []
        for cube in self.cubes.values():
            level = LEVEL_OK
            if not cube.link.connected or not cube.on_mat or cube.problems:
                level = LEVEL_WARN
            state = ("disconnected" if not cube.link.connected else
                     "position missed" if not cube.on_mat else "ok")
            statuses.append((
                f"toio_bridge: {cube.name}", level, f"{state}; {cube.last_problem}".strip("; "),
                cube.name, {"connected": cube.link.connected, "on_mat": cube.on_mat,
                            "simulated": cube.simulated, "problems": cube.problems}))
        self.diag_pub.publish(diagnostics_cdr(int(round(self.now() * 1e9)), statuses))

    def destroy_node(self):
        """Disconnect the cubes, then end the BLE thread: its tasks, its loop, the thread."""
        for keeper in self.keepers:
            keeper.cancel()
        for step in [cube.link.disconnect() for cube in self.cubes.values()] + [self._finish()]:
            try:
                self._schedule(step).result(timeout=2.0)
            except Exception:  # shutting down: nothing more to do for a dead link
                pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=2.0)
        if not self.thread.is_alive():
            self.loop.close()
        return super().destroy_node()

    @staticmethod
    async def _finish() -> None:
        """Cancel what still runs on the BLE loop (reconnections, writes) and let it unwind."""
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def main(args=None) -> None:
    run_node(ToioBridge, args)


if __name__ == "__main__":
    import sys

    main(sys.argv)
