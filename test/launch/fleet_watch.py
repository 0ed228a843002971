"""An in-test subscriber for launch tests: robots' odometry in its own rclpy context."""

from __future__ import annotations

import itertools
import math
import threading
import time
from typing import Callable, Dict, List, Tuple

from orca_ros.testing.audit import polygon_signed_distance
from orca_ros.core.scenario.loader import load_scenario, resolve_scenario

CONTACT_TOLERANCE = 1e-6  # m of overlap that counts as contact


class SpunNode:
    """A node in an rclpy context of its own, spun on a thread until :meth:`close`:
    what a launch test's own participants (observers, stand-ins) are made of."""

    def __init__(self, node_name: str) -> None:
        import rclpy
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor

        self.context = Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(node_name, context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.running = True
        self.thread = threading.Thread(target=self._spin, daemon=True)

    def start(self) -> None:
        """Spin, once the subclass has made its subscriptions."""
        self.thread.start()

    def _spin(self) -> None:
        while self.running:
            self.executor.spin_once(timeout_sec=0.05)

    def close(self) -> None:
        import rclpy

        self.running = False
        self.thread.join(timeout=5)
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        rclpy.try_shutdown(context=self.context)


class FleetWatch(SpunNode):
    """Subscribes every scenario robot's ``/<robot>/odom`` (reliable, depth 50; or
    ``pose_topic``: ``ground_truth`` where odometry is in each robot's own frame) and keeps
    poses by header stamp: contact is two discs overlapping at the same stamp, or a disc
    overlapping one of the scenario's wall polygons; arrival is the latest pose within the
    scenario's goal tolerance."""

    def __init__(self, scenario: str, node_name: str = "launch_test_watch",
                 pose_topic: str = "odom") -> None:
        from nav_msgs.msg import Odometry
        from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy

        loaded = load_scenario(resolve_scenario(scenario))
        self.radius = {a.name: a.radius for a in loaded.agents}
        self.goal = {a.name: a.goal for a in loaded.agents}
        self.tolerance = {a.name: loaded.goal_tolerance_of(a) for a in loaded.agents}
        self.walls = [list(outline) for outline in loaded.wall_outlines]
        self.by_stamp: Dict[int, Dict[str, Tuple[float, float]]] = {}
        self.latest: Dict[str, Tuple[float, float]] = {}
        self.lock = threading.Lock()
        super().__init__(node_name)
        qos = QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE,
                         history=HistoryPolicy.KEEP_LAST)
        for name in self.radius:
            self.node.create_subscription(Odometry, f"/{name}/{pose_topic}",
                                          lambda msg, name=name: self._on_odom(name, msg), qos)
        self.start()

    def _on_odom(self, name: str, msg) -> None:
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        position = (msg.pose.pose.position.x, msg.pose.pose.position.y)
        with self.lock:
            self.by_stamp.setdefault(stamp, {})[name] = position
            self.latest[name] = position

    def arrived(self) -> List[str]:
        with self.lock:
            return sorted(n for n, p in self.latest.items()
                          if math.dist(p, self.goal[n]) <= self.tolerance[n] + 1e-9)

    def stamps_compared(self) -> int:
        with self.lock:
            return sum(1 for poses in self.by_stamp.values() if len(poses) > 1)

    def contacts(self) -> List[Tuple[float, str, str, float]]:
        """(stamp s, robot, robot or ``wall<k>``, overlap m) for every pair overlapping at
        one stamp, and every pose overlapping a wall."""
        found = []
        with self.lock:
            for stamp, poses in sorted(self.by_stamp.items()):
                for a, b in itertools.combinations(sorted(poses), 2):
                    overlap = self.radius[a] + self.radius[b] - math.dist(poses[a], poses[b])
                    if overlap > CONTACT_TOLERANCE:
                        found.append((stamp * 1e-9, a, b, overlap))
                for name, position in sorted(poses.items()):
                    for k, wall in enumerate(self.walls):
                        overlap = self.radius[name] - float(
                            polygon_signed_distance([position], wall)[0])
                        if overlap > CONTACT_TOLERANCE:
                            found.append((stamp * 1e-9, name, f"wall{k}", overlap))
        return found

    def check_all_arrive_without_contact(self, test, timeout: float) -> None:
        """``test`` (a unittest.TestCase) fails unless every robot reaches its goal within
        ``timeout`` s, with poses compared at more than 30 common stamps (3 s of the run at
        10 Hz: a 4-robot crossing at speed factor 2 gives about 50) and no contact."""
        everyone = sorted(self.goal)
        arrived = self.wait_for(lambda: self.arrived() == everyone, timeout)
        test.assertTrue(arrived, f"arrived only {self.arrived()} of {everyone}")
        test.assertGreater(self.stamps_compared(), 30)
        test.assertEqual(self.contacts(), [])

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate():
                return True
            time.sleep(0.1)
        return predicate()



def node_parameters(node, full_name: str, names, timeout: float = 10.0) -> Dict[str, object]:
    """Parameters of a running node, through its ``get_parameters`` service (the caller's
    executor must be spinning ``node``)."""
    from rcl_interfaces.srv import GetParameters
    from rclpy.parameter import parameter_value_to_python

    client = node.create_client(GetParameters, f"{full_name}/get_parameters")
    try:
        if not client.wait_for_service(timeout_sec=timeout):
            raise AssertionError(f"{full_name}/get_parameters: no such service")
        future = client.call_async(GetParameters.Request(names=list(names)))
        end = time.monotonic() + timeout
        while not future.done() and time.monotonic() < end:
            time.sleep(0.02)
        if not future.done():
            raise AssertionError(f"{full_name}/get_parameters did not answer")
        values = [parameter_value_to_python(v) for v in future.result().values]
        return {name: (list(v) if isinstance(v, (list, tuple)) else v)
                for name, v in zip(names, values)}
    finally:
        node.destroy_client(client)
