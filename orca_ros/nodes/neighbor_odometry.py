"""Neighbours' odometry for every orca_node of one process: one subscription per topic.

Every orca_node needs every other robot's ``odom``. Subscribed node by node, a
process hosting K robots (``orca_robots``) took each message K times: at 100
robots, 10 per process, 99,000 deliveries per second on two cores. Here the
process subscribes each ``/<robot>/odom`` once (as serialized bytes, their fields
read by :func:`~orca_ros.nodes.ros_common.odometry_fields`), keeps the latest state
of each robot as a row of an array (:class:`~orca_ros.core.robot.readings.ReadingTable`),
and its orca_nodes read those rows when they plan. Deliveries become
N topics x 10 Hz per process; nothing central is added (each process still
listens to the robots directly, as each node did).

With neighbour cells (orca_node's ``neighbor_cell_size``, see
:mod:`orca_ros.core.robot.cells`) the process subscribes instead to the cell topics near
its robots (:meth:`NeighborOdometry.watch`), on which the robots publish their own
odometry named by ``child_frame_id``: a far robot's messages no longer reach it.

Robots that run orca_node announce themselves (:meth:`NeighborOdometry.use_states`):
each publishes its state in the shared frame on one topic for the whole fleet,
``/orca/states`` (nav_msgs/Odometry named by ``child_frame_id``, its pose covariance
its localization's), and its footprint once, latched, on ``/orca/footprints``
(geometry_msgs/PolygonStamped in its base frame ``<robot>/base_link``: the radius is
the farthest point's distance). A process subscribes each of the two once, so
discovery grows with the number of processes, not with its square, and a robot's
radius needs no configuration. A robot heard both ways is taken from its state while
that is at least as new as its odometry; from its odometry otherwise (its orca_node
is gone: it no longer reciprocates).

Every pose must be in the shared frame (the owning node's ``world_frame``): an
odometry or a state in another frame is refused, naming both frames (a robot whose
odometry is in its own ``odom`` frame announces its shared-frame state instead).

A message that cannot be used (malformed, not finite, beyond the coordinate
bound, in another frame, on a cell topic without a robot's name) is reported by every
node following that robot, or every node of the process when no robot can be named
(their diagnostics say which), and changes nothing; an older stamp than the one held
is ignored.

Each robot's stamps are its computer's clock, which may disagree with this one: a
reading is aged from its arrival, its stamp corrected by the robot's estimated clock
offset where that is beyond what latency explains (:attr:`NeighborOdometry.clocks`,
:mod:`orca_ros.core.robot.clocks`: within 0.2 s the stamp stands), while the
stamps as sent order its stream.
"""

from __future__ import annotations

import math
import time
from typing import Callable, Dict, List, Optional, Tuple

from ..core.robot.batching import StateBatcher
from ..core.robot.clocks import SenderClocks
from ..core.robot.cells import (Cell, CellGrid, cell_topic, publication_reach,
                                subscription_reach)
from ..core.robot.localization import UNCERTAINTY_DEVIATIONS, position_deviation
from ..core.robot.readings import ReadingTable
from ._state_batch import read_state_batch
from .state_batch import STATE_BATCHES_TOPIC, BadBatch, attach, batch_states
from .ros_common import (CELL, LATCHED_MANY, LATEST, BadMessage, OdometryFields,
                         odometry_fields_of, state_of)

STATES_TOPIC = "/orca/states"
FOOTPRINT_GRACE = 4.0
"""Cell match times after its footprint came by which a robot counts as heard with
neighbour cells though no state of it came (:meth:`NeighborOdometry.heard`)."""
FOOTPRINTS_TOPIC = "/orca/footprints"
GRAPH_REUSE_S = 0.5  # wall s the nodes of a process share a look at the graph


class NeighborOdometry:
    """The latest odometry of each followed robot, for the orca_nodes of one process.

    The subscriptions belong to the first node that follows a robot (``owner``);
    ``max_coordinate`` (m) is that node's bound, and its clock times the arrivals.
    """

    def __init__(self, batch_states: bool = False) -> None:
        """``batch_states``: this process's robots announce their states together
        (:mod:`~orca_ros.nodes.state_batch`; ``orca_robots`` with two robots or more)."""
        self.owner = None
        self.subscriptions: Dict[str, object] = {}
        self.followers: Dict[str, List[object]] = {}  # robot -> the nodes following it
        self.messages = 0  # messages taken in by this process
        self.messages_from: Dict[str, int] = {}  # of those, by robot
        self.nodes: List[object] = []  # every node reading this (for diagnostics)
        # Neighbour cells (None: one subscription per robot): the grid, each node's
        # robot position and subscription reach, and the cells subscribed.
        self.grid: Optional[CellGrid] = None
        self.reaches: Dict[object, Tuple[Tuple[float, float], float]] = {}
        self.cell_subscriptions: Dict[Cell, object] = {}
        # Announced robots: their latest states, their radii (footprints), the topics.
        # Readings as arrays (:class:`~orca_ros.core.robot.readings.ReadingTable`): the
        # states, the odometry, and the latest of each robot (its state while that is at
        # least as new as its odometry, else its odometry), kept as messages come.
        self.states = ReadingTable()
        self.odometry = ReadingTable()
        self.latest = ReadingTable()
        self.radii: Dict[str, float] = {}
        self.footprints_at: Dict[str, int] = {}  # when each robot's footprint first came
        self.state_subscription = None
        self.batch_subscription = None
        self.footprint_subscription = None
        self.batch = StateBatcher() if batch_states else None
        self.announced = False  # the robots announce themselves (states, or cells of states)
        self.clocks = SenderClocks()  # each robot's clock offset to the process's clock
        self._odometry_look: Tuple[float, object] = (-math.inf, ())  # (wall s, answer)

    def robots_publishing_odometry(self, ask: Callable[[], object]) -> object:
        """``ask()``, a look at the ROS graph for the robots publishing odometry (the
        process's graph, whichever node asks), shared by the process's nodes for
        :data:`GRAPH_REUSE_S` of wall time: at 200 robots a look at every topic costs
        about 0.4 ms, and each of ten nodes a process hosts looked once a second.
        (Departures are not looked for here: a look even half a second old counts a
        robot whose node came since as departed.)"""
        now = time.monotonic()
        if now - self._odometry_look[0] >= GRAPH_REUSE_S:
            self._odometry_look = (now, ask())
        return self._odometry_look[1]

    def join(self, node) -> None:
        """``node`` reads from here (the first one owns the subscriptions)."""
        if self.owner is None:
            self.owner = node
        if node not in self.nodes:
            self.nodes.append(node)

    def leave(self, node) -> None:
        """``node`` reads from here no more (it is being destroyed): it follows no robot,
        and if it owned the subscriptions (they go with it), the next node of the process
        subscribes the same topics anew, so one robot's node that stops (killed, or
        shut down alone) leaves the others their neighbours."""
        if node in self.nodes:
            self.nodes.remove(node)
        if self.batch is not None:
            self.batch.forget(getattr(node, "robot", ""))
        for followers in self.followers.values():
            if node in followers:
                followers.remove(node)
        self.reaches.pop(node, None)
        if node is not self.owner:
            return
        names, cells = list(self.subscriptions), list(self.cell_subscriptions)
        states = self.footprint_subscription is not None
        if self.batch is not None:
            self.batch.flush()  # from the publisher that goes with this node
            self.batch.send = None
        for subscription in (*self.subscriptions.values(), *self.cell_subscriptions.values(),
                             self.state_subscription, self.batch_subscription,
                             self.footprint_subscription):
            if subscription is not None:
                node.destroy_subscription(subscription)
        self.subscriptions, self.cell_subscriptions = {}, {}
        self.state_subscription = self.batch_subscription = self.footprint_subscription = None
        self.owner = self.nodes[0] if self.nodes else None
        if self.owner is None:
            return
        for name in names:
            self._subscribe_odometry(name)
        for cell in cells:
            self._subscribe_cell(cell)
        if states:
            self.use_states()

    def use_states(self) -> None:
        """Hear the robots that announce themselves: ``/orca/states`` and
        ``/orca/state_batches`` (with neighbour cells: their states come on the cell
        topics instead) and ``/orca/footprints``, once for the process; with
        :attr:`batch`, publish this process's batches."""
        if self.footprint_subscription is not None:
            return
        from geometry_msgs.msg import PolygonStamped
        from nav_msgs.msg import Odometry
        from std_msgs.msg import UInt8MultiArray

        self.announced = True
        if self.grid is None:
            self.state_subscription = self.owner.create_subscription(
                Odometry, STATES_TOPIC, self.on_state, CELL, raw=True)
            self.batch_subscription = self.owner.create_subscription(
                UInt8MultiArray, STATE_BATCHES_TOPIC, self.on_batch, CELL, raw=True)
            if self.batch is not None:
                attach(self.batch, self.owner)
        self.footprint_subscription = self.owner.create_subscription(
            PolygonStamped, FOOTPRINTS_TOPIC, self.on_footprint, LATCHED_MANY)

    def _shared_frame(self) -> str:
        return self.owner.shared_frame

    def on_state(self, msg, now_ns: Optional[int] = None) -> None:
        """One robot's announced state (serialized bytes or a message); ``now_ns``: when
        it came (default: now on the owner's clock)."""
        try:
            fields = odometry_fields_of(msg)
            name = fields.child_frame_id.strip("/")
            if not name:
                raise BadMessage("a state on /orca/states names no robot (child_frame_id)")
        except BadMessage as error:
            for node in self.nodes:
                node.report_bad_neighbor_odometry(STATES_TOPIC, str(error))
            return
        self._take(name, fields, announced=True, now_ns=now_ns)

    def on_batch(self, raw) -> None:
        """Several robots' announced states in one message (:mod:`.state_batch`), each
        taken as if it had come alone; a batch that cannot be read is reported."""
        if self._read_batch(raw):
            return
        try:
            states = batch_states(raw)
        except BadBatch as error:
            for node in self.nodes:
                node.report_bad_neighbor_odometry(STATE_BATCHES_TOPIC, str(error))
            return
        now_ns = self.owner._now_ns()  # they came together
        for _, state in states:
            self.on_state(state, now_ns)

    def _read_batch(self, raw) -> bool:
        """A batch of plain CDR read in one call into C (``_state_batch.read_state_batch``,
        the rules of :meth:`on_state` number for number; a thousand states a second per
        process at 100 robots); a state it leaves (None) goes through :meth:`on_state`,
        which says what is wrong with it. False when the batch is not for this path."""
        if not isinstance(raw, bytes):
            return False
        rows = read_state_batch(raw, self._shared_frame(),
                                self.owner.odometry_gate.max_coordinate,
                                UNCERTAINTY_DEVIATIONS)
        if rows is None:
            return False
        now_ns = self.owner._now_ns()  # they came together
        states = None
        for k, row in enumerate(rows):
            if row is not None:
                self._store(*row, True, now_ns)
                continue
            if states is None:
                states = batch_states(raw)
            self.on_state(states[k][1], now_ns)
        return True

    @property
    def batching(self) -> bool:
        """This process's robots announce their states in batches."""
        return self.batch is not None and self.grid is None

    def on_footprint(self, msg) -> None:
        """A robot's footprint: its radius, the farthest point from its base frame."""
        name = msg.header.frame_id.rsplit("/base_link", 1)[0].strip("/")
        points = [(p.x, p.y) for p in msg.polygon.points]
        if not name or not points or not all(math.isfinite(c) for p in points for c in p):
            for node in self.nodes:
                node.report_bad_neighbor_odometry(FOOTPRINTS_TOPIC, (
                    f"footprint in frame {msg.header.frame_id!r} with {len(points)} points: "
                    "a robot's footprint is finite points in its '<robot>/base_link' frame"))
            return
        self.radii[name] = max(math.hypot(x, y) for x, y in points)
        self.footprints_at.setdefault(name, self.owner._now_ns())

    def use_cells(self, grid: CellGrid) -> None:
        """Take neighbours' odometry from the cell topics of ``grid`` (the first node
        to ask sets it for the process) instead of ``/<robot>/odom``."""
        if self.grid is None:
            self.grid = grid

    def share(self, node, msg: bytes, position: Tuple[float, float], neighbor_dist: float,
              fastest: float, match_time: float) -> None:
        """Publish ``node``'s own odometry ``msg`` (serialized, named by its
        ``child_frame_id``: :func:`~orca_ros.nodes.ros_common.odometry_cdr`) on the
        topic of the cell its robot stands in, with publishers (``node.cell_publishers``)
        made ahead for every cell within the publication reach (so each is connected
        before the robot enters its cell), and subscribe the process to the cells within
        the subscription reach (:mod:`orca_ros.core.robot.cells`)."""
        from nav_msgs.msg import Odometry

        self.watch(node, position, subscription_reach(neighbor_dist, fastest, match_time))
        publishers = node.cell_publishers
        for cell in self.grid.cells_within(position[0], position[1],
                                           publication_reach(fastest, match_time)):
            if cell not in publishers:
                publishers[cell] = node.create_publisher(Odometry, cell_topic(cell), CELL)
        publishers[self.grid.cell_of(position[0], position[1])].publish(msg)

    def watch(self, node, position: Tuple[float, float], reach: float) -> None:
        """``node``'s robot stands at ``position`` and needs the robots within ``reach``:
        subscribe to the cells that meet that disc, and let go of those no node of the
        process needs within ``reach`` and half a cell more. Worked out anew only once
        the robot has moved a tenth of a cell (the disc is taken that much larger)."""
        grid = self.grid
        if grid is None:
            return
        slack = 0.1 * grid.size
        last = self.reaches.get(node)
        if last is not None and last[1] == reach and \
                math.dist(last[0], position) < slack:
            return
        self.reaches[node] = ((float(position[0]), float(position[1])), float(reach))
        wanted = frozenset().union(*(grid.cells_within(p[0], p[1], r + slack)
                                     for p, r in self.reaches.values()))
        for cell in wanted - self.cell_subscriptions.keys():
            self._subscribe_cell(cell)
        if len(self.cell_subscriptions) > len(wanted):
            kept = frozenset().union(*(grid.cells_within(p[0], p[1], r + 0.5 * grid.size)
                                       for p, r in self.reaches.values()))
            for cell in [c for c in self.cell_subscriptions if c not in kept]:
                self.owner.destroy_subscription(self.cell_subscriptions.pop(cell))

    def _subscribe_cell(self, cell: Cell) -> None:
        from nav_msgs.msg import Odometry

        topic = cell_topic(cell)
        self.cell_subscriptions[cell] = self.owner.create_subscription(
            Odometry, topic, lambda raw, topic=topic: self.on_cell(topic, raw), CELL, raw=True)

    def on_cell(self, topic: str, msg) -> None:
        """One message of a cell topic: a robot's state (its odometry, when the robots do
        not announce themselves), named by its child_frame_id."""
        try:
            fields = odometry_fields_of(msg)
            name = fields.child_frame_id.strip("/")
            if not name:
                raise BadMessage("no robot named in child_frame_id")
        except BadMessage as error:
            for node in self.nodes:
                node.report_bad_neighbor_odometry(topic, str(error))
            return
        self._take(name, fields, announced=self.announced)

    def heard(self, name: str) -> bool:
        """Whether robot ``name``'s state or odometry has come; with neighbour cells, or
        its footprint :data:`FOOTPRINT_GRACE` cell match times ago: the states of a robot
        beyond the cells this process listens to never come, and its footprint (latched,
        on the fleet's one topic) says its node is up and discovered by this one (a robot
        that holds until its fleet is heard would otherwise hold for good); a near
        robot's states come on the cells they share within that time."""
        if name in self.states or name in self.odometry:
            return True
        since = self.footprints_at.get(name) if self.grid is not None else None
        return since is not None and self.owner._now_ns() - since >= \
            FOOTPRINT_GRACE * self.owner._param("neighbor_cell_match_time") * 1e9

    def follow(self, name: str, node) -> None:
        """``node`` wants robot ``name``'s odometry: subscribe ``/<name>/odom`` once
        (with cells: its odometry comes on the cell topics)."""
        self.join(node)
        followers = self.followers.setdefault(name, [])
        if node not in followers:
            followers.append(node)
        if name not in self.subscriptions and self.grid is None:
            self._subscribe_odometry(name)

    def _subscribe_odometry(self, name: str) -> None:
        from nav_msgs.msg import Odometry

        self.subscriptions[name] = self.owner.create_subscription(
            Odometry, f"/{name}/odom", lambda raw, name=name: self.on_odometry(name, raw),
            LATEST, raw=True)

    def on_odometry(self, name: str, msg) -> None:
        """One message of ``/<name>/odom`` (serialized bytes or a message)."""
        try:
            fields = odometry_fields_of(msg)
        except BadMessage as error:
            for node in self.followers.get(name, ()):
                node.report_bad_neighbor_odometry(name, str(error))
            return
        self._take(name, fields, announced=False)

    def _take(self, name: str, f: OdometryFields, announced: bool,
              now_ns: Optional[int] = None) -> None:
        """A robot's odometry or state into the tables (:attr:`latest` too), or
        reported when it cannot be used; one older than the reading held is ignored."""
        try:
            shared = self._shared_frame()
            if f.frame_id != shared:
                raise BadMessage(f"{'state' if announced else 'odometry'} in frame "
                                 f"{f.frame_id!r}, not the shared frame {shared!r}")
            (x, y), (vx, vy), _, _, _ = state_of(f.px, f.py, f.pz, f.qx, f.qy, f.qz, f.qw,
                                                 f.vx, f.vy, f.vz, f.wz)
            bound = self.owner.odometry_gate.max_coordinate
            if max(abs(x), abs(y), abs(f.pz)) > bound:
                raise BadMessage(f"position {(x, y, f.pz)} is beyond {bound:g} m")
            uncertainty = 0.0
            if announced:
                if not (math.isfinite(f.cxx) and math.isfinite(f.cxy) and
                        math.isfinite(f.cyy)):
                    raise BadMessage("non-finite pose covariance")
                uncertainty = UNCERTAINTY_DEVIATIONS * position_deviation(f.cxx, f.cxy, f.cyy)
        except BadMessage as error:
            nodes = self.nodes if announced else self.followers.get(name, ())
            for node in nodes:
                node.report_bad_neighbor_odometry(name, str(error))
            return
        self._store(name, f.sec * 1_000_000_000 + f.nanosec, x, y, vx, vy, f.pz, f.vz,
                    uncertainty, announced, now_ns)

    def _store(self, name: str, sent_ns: int, x: float, y: float, vx: float, vy: float,
               z: float, vz: float, uncertainty: float, announced: bool,
               now_ns: Optional[int]) -> None:
        """A reading that passed :meth:`_take`'s checks into the tables (velocity in the
        shared frame)."""
        self.messages += 1
        self.messages_from[name] = self.messages_from.get(name, 0) + 1
        # Aged from its arrival: its stamp on this clock (:mod:`..core.robot.clocks`).
        stamp = self.clocks.measured_ns(
            name, sent_ns, self.owner._now_ns() if now_ns is None else now_ns) * 1e-9
        sent = sent_ns * 1e-9
        table, other = (self.states, self.odometry) if announced else \
            (self.odometry, self.states)
        previous = table.order(name)
        if previous is not None and sent < previous:
            return
        table.put(name, stamp, sent, x, y, vx, vy, z, vz, uncertainty, announced)
        rival = other.stamp(name)  # a state counts while at least as new as the odometry
        newer = rival is None or (stamp >= rival if announced else stamp > rival)
        self.latest.copy_row(name, table if newer else other)
