"""Neighbours' odometry for every orca_node of one process: one subscription per topic.

Every orca_node needs every other robot's ``odom``. Subscribed node by node, a
process hosting K robots (``orca_robots``) took each message K times: at 100
robots, 10 per process, 99,000 deliveries per second on two cores. Here the
process subscribes each ``/<robot>/odom`` once (as serialized bytes, parsed by
:func:`~orca_ros.nodes.ros_common.odometry_from_cdr`), keeps the latest state
of each robot, and its orca_nodes read that when they plan. Deliveries become
N topics x 10 Hz per process; nothing central is added (each process still
listens to the robots directly, as each node did).

A message that cannot be used (malformed, not finite, beyond the coordinate
bound) is reported by every node following that robot (its diagnostics name
it) and changes nothing; an older stamp than the one held is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Tuple

from .ros_common import LATEST, BadMessage, odometry_from_cdr, odometry_height, odometry_state


@dataclass(frozen=True)
class Seen:
    """A robot's last odometry: when it was measured (its stamp, on the owning node's
    clock; see :meth:`NeighborOdometry.measured_ns`) and what it said: the position and
    world velocity on the floor, and the height ``z`` and climb rate ``vz`` (what
    aerial robots, ``dimensions: 3``, plan with too)."""

    stamp_ns: int
    position: Tuple[float, float]
    velocity: Tuple[float, float]
    z: float = 0.0
    vz: float = 0.0


class NeighborOdometry:
    """The latest odometry of each followed robot, for the orca_nodes of one process.

    The subscriptions belong to the first node that follows a robot (``owner``);
    ``max_coordinate`` (m) and ``max_age`` (s, a stamp older than that, zero or in
    the future counts as received now) are that node's bounds.
    """

    def __init__(self) -> None:
        self.owner = None
        self.latest: Dict[str, Seen] = {}
        self.subscriptions: Dict[str, object] = {}
        self.followers: Dict[str, List[object]] = {}  # robot -> the nodes following it
        self.messages = 0  # messages taken in by this process
        self.nodes: List[object] = []  # every node reading this (for diagnostics)

    def join(self, node) -> None:
        """``node`` reads from here (the first one owns the subscriptions)."""
        if self.owner is None:
            self.owner = node
        if node not in self.nodes:
            self.nodes.append(node)

    def follow(self, name: str, node) -> None:
        """``node`` wants robot ``name``'s odometry: subscribe ``/<name>/odom`` once."""
        self.join(node)
        followers = self.followers.setdefault(name, [])
        if node not in followers:
            followers.append(node)
        if name not in self.subscriptions:
            from nav_msgs.msg import Odometry

            self.subscriptions[name] = self.owner.create_subscription(
                Odometry, f"/{name}/odom", lambda raw, name=name: self.on_odometry(name, raw),
                LATEST, raw=True)

    def on_odometry(self, name: str, msg) -> None:
        """One message of ``/<name>/odom`` (serialized bytes or a message)."""
        try:
            if isinstance(msg, (bytes, bytearray, memoryview)):
                msg = odometry_from_cdr(bytes(msg))
            position, velocity, _, _, _ = odometry_state(msg)
            z, vz = odometry_height(msg)
            bound = self.owner.odometry_gate.max_coordinate
            if max(abs(position[0]), abs(position[1]), abs(z)) > bound:
                raise BadMessage(f"position {position + (z,)} is beyond {bound:g} m")
        except BadMessage as error:
            for node in self.followers.get(name, ()):
                node.report_bad_neighbor_odometry(name, str(error))
            return
        self.messages += 1
        stamp_ns = self.owner.measured_ns(msg)
        previous = self.latest.get(name)
        if previous is not None and stamp_ns < previous.stamp_ns:
            return  # older than what we have
        self.latest[name] = Seen(stamp_ns, position, velocity, z, vz)
