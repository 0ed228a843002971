"""A stand-in for Nav2 around orca_node, for launch tests: per robot namespace a
controller behind its velocity smoother (``cmd_vel_smoothed``), a BackUp behaviour, a
collision monitor that passes ``cmd_vel_orca`` on to ``cmd_vel``, a teleop on ``cmd_vel``,
and a lifecycle manager calling ``<robot>/orca_node/change_state``, with Nav2's topic
names and QoS (Twist, reliable, keep last 10). It reads each robot's pose from the
simulator's ``ground_truth`` (a controller's view, not the judge's: the test judges with
its own observer) and records every command orca_node sends."""

from __future__ import annotations

import math
import threading
import time
from typing import Dict, List, Tuple

from fleet_watch import SpunNode

RATE_HZ = 10.0  # controller_frequency of the stand-in
CRUISE = 0.22  # m/s the controller asks for
BACKUP_SPEED = 0.1  # m/s of the BackUp behaviour (Nav2's backup_speed)
ROTATE_FIRST = 0.6  # rad of heading error above which the controller turns in place
TURN_RATE = 0.8  # rad/s of the in-place turn


def _wrap(angle: float) -> float:
    return math.atan2(math.sin(angle), math.cos(angle))


class Nav2StandIn(SpunNode):
    """Nav2 for ``robots`` (namespaces) in a context of its own, spun on a thread.

    Each robot is in one of these modes, set by the test: ``idle`` (nothing sent),
    ``backup`` (BackUp: ``-BACKUP_SPEED`` until ``backup_distance`` driven, then idle),
    ``drive`` (to ``goals[robot]``, forward, or backwards for robots in ``reversing``
    as a controller with allow_reversing whose path is behind it; nothing once within
    ``arrive_within``)."""

    def __init__(self, robots: List[str], goals: Dict[str, Tuple[float, float]],
                 reversing=(), arrive_within: float = 0.05) -> None:
        from geometry_msgs.msg import Twist
        from lifecycle_msgs.srv import ChangeState, GetState
        from nav_msgs.msg import Odometry

        self.robots, self.goals = list(robots), dict(goals)
        self.reversing, self.arrive_within = set(reversing), arrive_within
        self.mode = {r: "idle" for r in robots}
        self.backup_from: Dict[str, Tuple[float, float]] = {}
        self.backup_distance = 0.3
        self.teleop: Dict[str, Tuple[float, float]] = {}  # robot -> (linear.x, angular.z)
        self.pose: Dict[str, Tuple[float, float, float]] = {}
        self.orca: Dict[str, List[Tuple[float, float, float]]] = {r: [] for r in robots}
        self.lock = threading.Lock()
        super().__init__("nav2_stand_in")
        self.smoothed, self.to_robot, self.change, self.get_state = {}, {}, {}, {}
        for robot in robots:
            self.smoothed[robot] = self.node.create_publisher(
                Twist, f"/{robot}/cmd_vel_smoothed", 10)
            self.to_robot[robot] = self.node.create_publisher(Twist, f"/{robot}/cmd_vel", 10)
            self.node.create_subscription(
                Twist, f"/{robot}/cmd_vel_orca",
                lambda msg, r=robot: self._collision_monitor(r, msg), 10)
            self.node.create_subscription(
                Odometry, f"/{robot}/ground_truth",
                lambda msg, r=robot: self._on_truth(r, msg), 10)
            self.change[robot] = self.node.create_client(
                ChangeState, f"/{robot}/orca_node/change_state")
            self.get_state[robot] = self.node.create_client(
                GetState, f"/{robot}/orca_node/get_state")
        self.node.create_timer(1.0 / RATE_HZ, self._control)
        self.start()

    # --- the chain --------------------------------------------------------------------

    def _collision_monitor(self, robot: str, msg) -> None:
        """collision_monitor: orca_node's command goes on to the robot (nothing to stop)."""
        with self.lock:
            self.orca[robot].append((time.monotonic(), msg.linear.x, msg.angular.z))
        self.to_robot[robot].publish(msg)

    def _on_truth(self, robot: str, msg) -> None:
        p, q = msg.pose.pose.position, msg.pose.pose.orientation
        yaw = math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))
        with self.lock:
            self.pose[robot] = (p.x, p.y, yaw)

    def _control(self) -> None:
        from geometry_msgs.msg import Twist

        with self.lock:
            poses, modes, teleop = dict(self.pose), dict(self.mode), dict(self.teleop)
        for robot, (linear, angular) in teleop.items():
            self.to_robot[robot].publish(Twist(linear=_vector(linear),
                                               angular=_vector(0.0, angular)))
        for robot, mode in modes.items():
            if robot not in poses or mode == "idle":
                continue
            twist = self._backup(robot, poses[robot]) if mode == "backup" \
                else self._drive(robot, poses[robot])
            if twist is not None:
                self.smoothed[robot].publish(Twist(linear=_vector(twist[0]),
                                                   angular=_vector(0.0, twist[1])))

    def _backup(self, robot, pose):
        start = self.backup_from.setdefault(robot, pose[:2])
        if math.dist(start, pose[:2]) >= self.backup_distance:
            with self.lock:
                self.mode[robot] = "idle"
            return None
        return -BACKUP_SPEED, 0.0

    def _drive(self, robot, pose):
        goal = self.goals[robot]
        distance = math.dist(goal, pose[:2])
        if distance <= self.arrive_within:
            return None  # goal reached: the controller goes quiet
        bearing = math.atan2(goal[1] - pose[1], goal[0] - pose[0])
        backwards = robot in self.reversing
        error = _wrap(bearing - pose[2] - (math.pi if backwards else 0.0))
        if abs(error) > ROTATE_FIRST:
            return 0.0, math.copysign(TURN_RATE, error)
        speed = min(CRUISE, 0.6 * distance + 0.03) * math.cos(error)
        return (-speed if backwards else speed), 1.5 * error

    # --- the test's side --------------------------------------------------------------

    def set_mode(self, robot: str, mode: str) -> None:
        with self.lock:
            self.mode[robot] = mode

    def set_teleop(self, robot: str, linear: float = 0.0, angular: float = 0.0,
                   on: bool = True) -> None:
        with self.lock:
            if on:
                self.teleop[robot] = (linear, angular)
            else:
                self.teleop.pop(robot, None)

    def commands(self, robot: str, since: float = 0.0) -> List[Tuple[float, float, float]]:
        """(monotonic time, linear.x, angular.z) of orca_node's commands after ``since``."""
        with self.lock:
            return [c for c in self.orca[robot] if c[0] > since]

    def position(self, robot: str) -> Tuple[float, float]:
        with self.lock:
            return self.pose[robot][:2]

    def wait_for(self, predicate, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate():
                return True
            time.sleep(0.05)
        return predicate()

    def services_ready(self, timeout: float) -> bool:
        return self.wait_for(lambda: all(c.service_is_ready() for c in self.change.values())
                             and len(self.pose) == len(self.robots), timeout)

    def transition(self, robot: str, transition_id: int, timeout: float = 10.0) -> bool:
        """lifecycle_manager's call: ChangeState on the robot's orca_node."""
        from lifecycle_msgs.msg import Transition
        from lifecycle_msgs.srv import ChangeState

        future = self.change[robot].call_async(
            ChangeState.Request(transition=Transition(id=transition_id)))
        return self.wait_for(future.done, timeout) and future.result().success

    def state(self, robot: str, timeout: float = 10.0) -> str:
        from lifecycle_msgs.srv import GetState

        future = self.get_state[robot].call_async(GetState.Request())
        return future.result().current_state.label if self.wait_for(future.done, timeout) \
            else "?"


def _vector(x: float = 0.0, z: float = 0.0):
    from geometry_msgs.msg import Vector3

    return Vector3(x=float(x), y=0.0, z=float(z))
