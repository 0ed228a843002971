"""What a robot's cycle is fed, and whether it may run (no ROS): the own odometry in the
shared frame, filter mode's ``cmd_vel_in``, the reasons to hold for want of input, the
neighbours that count, and the robots to follow.

:class:`RobotInputs` reads orca_node's parameters through ``params`` (a mapping of
parameter name to value, read when asked: a ``ros2 param set`` counts at once); the
node turns messages into its arguments and its answers into messages.
"""

from __future__ import annotations

from typing import (Any, Callable, Iterable, List, Mapping, Optional, Sequence, Set, Sized,
                    Tuple)

import numpy as np

from ..geometry.frames import Pose2, body_to_world, world_to_body
from .cycle import OwnReading, Preferred
from .localization import SharedFramePose
from .perception import NeighborReading, OdometryGate, stopped_reading
from .readings import ANNOUNCED, STAMP, Readings, ReadingTable, readings_of
from .settings import command_validity
from .state import RobotState

QUIET_STOPS = 3  # filter mode: stop commands sent once cmd_vel_in times out, then none

Twist3 = Tuple[float, float, float]  # body frame (vx, vy, omega)


def robots_publishing_odometry(topics: Iterable[Tuple[str, Sequence[str]]]) -> List[str]:
    """The robots with a ``/<robot>/odom`` topic of nav_msgs/Odometry, from a graph's
    ``(topic, types)`` pairs."""
    names = []
    for topic, types in topics:
        if topic.endswith("/odom") and "nav_msgs/msg/Odometry" in types:
            name = topic[:-len("/odom")].strip("/")
            if name:
                names.append(name)
    return names


class RobotInputs:
    """One robot's inputs between cycles and its readiness.

    ``robot``: its name; ``announcing``: whether the fleet announces itself
    (``announce``)."""

    def __init__(self, robot: str, params: Mapping[str, Any], announcing: bool) -> None:
        self.robot = robot
        self.params = params
        self.announcing = announcing
        self.localizer = SharedFramePose(
            params["pose_source"], Pose2(*(float(v) for v in params["odom_origin"])),
            params["max_pose_uncertainty"])
        self.gate = OdometryGate(max(params["max_speed"], 1e-3))
        self.own: Optional[OwnReading] = None
        self.odom_heard = False  # odometry came, but no pose in the shared frame yet
        self.shared_pose: Optional[Pose2] = None  # the latest odometry's, once localized
        self.position3: Optional[Tuple[float, float, float]] = None
        self.velocity3: Tuple[float, float, float] = (0.0, 0.0, 0.0)
        self.cmd_vel_in: Optional[Tuple[Twist3, float]] = None  # (twist, received s)
        self.quiet_stops = 0  # stop commands sent since cmd_vel_in went quiet
        self.followed: List[str] = []  # the robots followed (order of discovery)
        self.departed: Set[str] = set()  # announced robots whose orca_node left the graph
        self._counted_key: Optional[tuple] = None  # what _counted_rows was worked out for
        self._counted_rows: Optional[np.ndarray] = None
        self._all_heard: Optional[tuple] = None  # fleet_robots all heard once

    # --- the own odometry -----------------------------------------------------------------

    def restart_3d(self) -> None:
        """``dimensions`` changed: positions of the other kind mean nothing now."""
        self.position3 = None
        self.gate = OdometryGate(max(self.params["max_speed"], 1e-3))

    def older(self, stamp: float) -> bool:
        """Whether odometry measured at ``stamp`` is older than the reading held."""
        return self.own is not None and stamp < self.own.stamp

    def odometry(self, stamp: float, robot_stamp: float, pose: Pose2,
                 velocity: Tuple[float, float], v: float, omega: float,
                 height: Optional[Tuple[float, float]] = None) -> Optional[str]:
        """The own odometry (odom frame) measured at ``stamp`` (s, node clock;
        ``robot_stamp``: its own stamp, to match localization fixes); ``height``:
        ``(z, vz)`` of an aerial robot. Returns why it was refused, or None."""
        position = pose.position
        problem = self.gate.check(stamp, position if height is None else
                                  position + (height[0],))
        if problem is not None:
            return problem
        # A fix is matched with the odometry by the messages' own stamps (the robot's
        # clock, as TF matches them), not by when the node heard them.
        self.localizer.odometry(robot_stamp, pose)
        shared = self.shared_pose = self.localizer.in_shared_frame(pose)
        if shared is None:  # no localization yet: no pose in the shared frame
            self.own = None
            self.odom_heard = True
        else:
            velocity = self.localizer.velocity_in_shared_frame(velocity)
            self.own = OwnReading(RobotState(shared.position, velocity, shared.yaw, v, omega),
                                  stamp, self.localizer.uncertainty,
                                  self.localizer.drift_uncertainty)
        if height is not None:
            self.position3 = (position[0], position[1], height[0])
            self.velocity3 = (velocity[0], velocity[1], height[1])
        return None

    # --- filter mode: cmd_vel_in ----------------------------------------------------------

    @property
    def filtering(self) -> bool:
        """Filter mode: the preferred velocity comes on ``cmd_vel_in``."""
        return self.params["preferred_velocity"] == "topic"

    def command_in(self, twist: Twist3, now: float) -> None:
        """``cmd_vel_in`` (body frame), received at ``now`` (s)."""
        self.cmd_vel_in = (twist, now)

    def _fresh(self, now: float) -> bool:
        return self.cmd_vel_in is not None and \
            now - self.cmd_vel_in[1] <= self.params["cmd_vel_in_timeout"]

    def preferred(self) -> Optional[Preferred]:
        """Filter mode: cmd_vel_in turned into the shared frame with the robot's heading."""
        if not self.filtering or self.own is None:
            return None
        twist = self.cmd_vel_in[0]
        return Preferred(body_to_world(self.own.state.heading, twist[:2]), twist)

    def quiet(self, now: float) -> bool:
        """Filter mode, holding, with no fresh cmd_vel_in: a filter with nothing to pass
        sends nothing, so a teleop, the docking server or another commander behind the
        same collision monitor may drive. Before the first cmd_vel_in not a word,
        whatever it waits for (odometry, localization, the fleet, the walls); once
        cmd_vel_in stops, :data:`QUIET_STOPS` stop commands and then nothing, as Nav2's
        velocity smoother does when its input times out. With fresh cmd_vel_in a hold
        sends stop commands: the input cannot be vetted, so it must not pass."""
        if not self.filtering or self._fresh(now):
            self.quiet_stops = 0
            return False
        if self.cmd_vel_in is None:
            return True
        self.quiet_stops += 1
        return self.quiet_stops > QUIET_STOPS

    # --- readiness --------------------------------------------------------------------------

    def unheard(self, heard: Callable[[str], bool]) -> List[str]:
        """The robots of ``fleet_robots`` not ``heard`` yet (by state or odometry; with
        neighbour cells, a far robot by its footprint). A robot
        once heard stays heard (its reading is kept): once all were, the list is not
        gone through again while ``fleet_robots`` stays as it is."""
        fleet = tuple(self.params["fleet_robots"])
        if fleet == self._all_heard:
            return []
        unheard = [name for name in fleet if name and name != self.robot and not heard(name)]
        if not unheard:
            self._all_heard = fleet
        return unheard

    def hold(self, now: float, heard: Callable[[str], bool]) -> str:
        """Why the robot must hold for want of input ('' when it need not): odometry came
        but no localization yet, robots of the fleet unheard, or, in filter mode, no
        fresh cmd_vel_in."""
        if self.own is None and self.odom_heard and not self.localizer.known:
            return f"no localization yet on {self.params['localization_topic']}"
        unheard = self.unheard(heard)
        if unheard:
            more = f" and {len(unheard) - 5} more" if len(unheard) > 5 else ""
            return f"waiting to hear robots {', '.join(unheard[:5])}{more}"
        if self.filtering and self.own is not None:
            if self.cmd_vel_in is None:
                return "no cmd_vel_in yet"
            if not self._fresh(now):
                return f"no cmd_vel_in for {now - self.cmd_vel_in[1]:.1f} s"
        return ""

    # --- neighbours -----------------------------------------------------------------------

    def neighbors(self, now: float, latest: Mapping[str, NeighborReading],
                  announced: Iterable[str], cells: bool,
                  max_speed: float) -> Readings:
        """The neighbours' readings that count at ``now`` (s): of the followed robots
        (with ``cells``, and no listed ``neighbors``: of whoever is heard in them, a robot
        met for the first time at once), and of every robot ``announced``.

        A robot that runs orca_node (its reading ``announced``) is never forgotten: while
        its node is in the graph but silent here (a starved process, lost messages) it
        may still be driving, so its reading stays as it was and perception grows its
        disc with its age (:func:`~.perception.position_uncertainty`); once its node
        has left the graph (:meth:`departures`) its driver stops it, and it stands
        where that leaves it, having moved at most at ``max_speed`` until then. Other
        robots (odometry only) are forgotten after ``neighbor_forget_after`` of
        silence.

        ``latest``: a :class:`~.readings.ReadingTable` (orca_node's), or any mapping of
        name to reading (made one first). The rows are chosen with numpy over all of
        them (which robots count is worked out again only when the table, the followed
        or the announced robots grew)."""
        p = self.params
        table = latest if isinstance(latest, ReadingTable) else ReadingTable.of(latest)
        count = len(table)
        counted = self._counted(table, announced, cells and not any(p["neighbors"]),
                                table is latest and isinstance(announced, ReadingTable))
        data = table.data
        announced_rows = data[:, ANNOUNCED] != 0.0
        age = now - data[:, STAMP]
        keep = counted & (announced_rows | (age <= p["neighbor_forget_after"]))
        replaced = {}
        for name in self.departed:
            row = table.rows.get(name)
            if row is not None and row < count and keep[row] and announced_rows[row] and \
                    age[row] > p["neighbor_timeout"]:
                # Its orca_node has left the graph: its driver stops it; it stands.
                replaced[row] = stopped_reading(table.reading(row), now, command_validity(p),
                                                max_speed, p["max_linear_accel"])
        return readings_of(table, np.flatnonzero(keep), replaced)

    def _counted(self, table: ReadingTable, announced: Iterable[str], everyone: bool,
                 cacheable: bool) -> np.ndarray:
        """Which rows of ``table`` are of robots that count (followed, announced, or with
        ``everyone`` any robot heard), this robot's own not; kept while neither the
        table, the followed nor the announced robots changed (``cacheable``: both are
        tables, which only grow)."""
        key = (id(table), len(table), id(self.followed), len(self.followed), id(announced),
               len(announced) if isinstance(announced, Sized) else None, everyone,
               self.announcing)
        if cacheable and self._counted_key == key:
            return self._counted_rows
        rows = table.rows
        counted = np.zeros(len(table), dtype=bool)
        if everyone:
            counted[:] = True
        else:
            names = list(self.followed) + (list(announced) if self.announcing else [])
            counted[[rows[n] for n in names if n in rows]] = True
        own = rows.get(self.robot)
        if own is not None:
            counted[own] = False
        self._counted_key, self._counted_rows = key, counted
        return counted

    def departures(self, announced: Iterable[str], present: Set[str]) -> None:
        """The announced robots whose orca_node is not ``present`` in the graph: silent,
        they are kept as standing where their drivers stop them, never forgotten."""
        self.departed = {n for n in announced if n != self.robot and n not in present}

    def to_follow(self, discovered: Callable[[], List[str]], heard_in_cells: Iterable[str],
                  cells: bool, linked: Sequence[str]) -> List[str]:
        """The robots to follow from now on, added to :attr:`followed`: those listed in
        ``neighbors``, else (``discover_odometry``) those ``discovered`` publishing
        odometry, and with ``cells`` those heard in them; the ``linked`` partners; with
        ``pose_source`` odom the departed robots (their odometry, in the shared frame,
        says where they stand, better than a stopped reading's margin)."""
        p = self.params
        listed = [n.strip("/") for n in p["neighbors"] if n]
        names = listed or (list(discovered()) if p["discover_odometry"] else [])
        if not listed and cells:
            names += [n for n in heard_in_cells if n not in names]
        names += [n for n in linked if n not in names]
        if p["pose_source"] == "odom":
            names += sorted(n for n in self.departed if n not in names)
        new = [n for n in dict.fromkeys(names) if n != self.robot and n not in self.followed]
        self.followed += new
        return new


def command_twist(command, heading: float, diff_drive: bool) -> Twist3:
    """A cycle's command as the body-frame twist ``(vx, vy, omega)`` to send: the input
    unchanged in filter mode, the unicycle's ``(v, 0, omega)``, or a holonomic robot's
    velocity turned into its body frame."""
    if command.passed_through is not None:
        return tuple(command.passed_through)
    if diff_drive:
        return (command.linear, 0.0, command.angular)
    return world_to_body(heading, command.velocity) + (0.0,)
