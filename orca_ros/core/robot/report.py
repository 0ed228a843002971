"""What orca_node's diagnostics say (no ROS): the level, the message and the key/values
of one robot, from a :class:`RobotSnapshot` of its node, its cycle and inputs. The node
wraps them in a ``DiagnosticStatus``; ``doc/nodes/orca_node.md`` lists the keys."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Mapping, Optional, Tuple

import numpy as np

from .clocks import offset_text, offsets_beyond
from .cycle import AerialCycle, RobotCycle, Status
from .inputs import RobotInputs
from .link_groups import group_of
from .perception import NeighborReading
from .readings import ANNOUNCED, STAMP, Readings
from .timing import CycleTiming

OK, WARN, ERROR = 0, 1, 2  # diagnostic_msgs' levels

LISTED = 10
"""Per-neighbour figures listed in a robot's diagnostics (clock offsets, ages): the
:data:`LISTED` worst, worst first, then how many more. Bounded, so a robot of a fleet
of hundreds neither spends its CPU writing every neighbour out each second nor sends
a status no one reads."""


def worst_first(names, values: np.ndarray, text) -> str:
    """``text(name, value)`` of the :data:`LISTED` largest ``values`` (by size), largest
    first, names breaking ties; ``+K more`` after them when there are more."""
    count = len(values)
    if count == 0:
        return ""
    size = np.abs(values)
    picked = np.argsort(-size, kind="stable") if count <= LISTED else \
        np.argpartition(-size, LISTED - 1)[:LISTED]
    ranked = sorted(picked.tolist(), key=lambda k: (-size[k], names[k]))[:LISTED]
    listed = [text(names[k], float(values[k])) for k in ranked]
    if count > LISTED:
        listed.append(f"+{count - LISTED} more")
    return ",".join(listed)


@dataclass
class RobotSnapshot:
    """One robot as its node holds it at ``now`` (s). ``neighbors``: the readings that
    count; ``neighbor_messages`` and ``shared_by``: the neighbours' odometry taken in by
    the node's process and by how many nodes it is shared; ``commanders``: publishers
    on ``cmd_topic``; ``failed``: callbacks that raised, and how often; ``scan``: the
    laser's figures (None without ``scan_obstacles``); ``clock_offsets``: the
    neighbours' clock offsets (s, this clock minus theirs, :mod:`~.clocks`),
    ``own_clock_offset`` the own odometry's, warned of beyond ``clock_offset_warn``;
    ``stuck_for``: s the robot has driven no nearer its goal (:mod:`~.progress`), warned
    of from ``no_progress_warn`` (0: never) with ``stuck_reason`` and the neighbours that
    hold its goal (``goal_held_by``, :func:`~.progress.goal_held_by`)."""

    robot: str
    now: float
    status: Status
    goal: Optional[Tuple[float, ...]]
    dimensions: int
    cycle: RobotCycle
    aerial: Optional[AerialCycle]
    aerial_error: str
    inputs: RobotInputs
    timing: CycleTiming
    neighbors: Mapping[str, NeighborReading]
    neighbor_timeout: float
    neighbor_messages: int
    shared_by: int
    obstacle_edges: int
    rejected: Mapping[str, int]
    last_problem: str
    commanders: int
    cmd_topic: str
    reverse_limited: int
    max_reverse_speed: float
    failed: Mapping[str, int] = field(default_factory=dict)
    scan: Optional[dict] = None
    clock_offsets: Mapping[str, float] = field(default_factory=dict)
    own_clock_offset: Optional[float] = None
    clock_offset_warn: float = 0.1
    stuck_for: float = 0.0
    stuck_reason: str = ""
    no_progress_warn: float = 0.0
    goal_held_by: Tuple[str, ...] = ()


def _fallback_used(s: RobotSnapshot) -> bool:
    command = s.cycle.last_command
    if s.dimensions == 3:
        command = s.aerial.last_command if s.aerial is not None else None
    return bool(command and command.output and command.output.used_fallback)


def robot_report(s: RobotSnapshot) -> Tuple[int, str, Dict[str, object]]:
    """The level (:data:`OK`, :data:`WARN`, :data:`ERROR`), message and values."""
    goal_state = str(s.status)
    level, message = (WARN if s.status.warns else OK), goal_state
    if s.rejected:
        level = max(level, WARN)
        message = f"{goal_state}; rejected input: {s.last_problem}"
    if s.commanders > 1:
        level = max(level, WARN)
        message = (f"{message}; {s.commanders - 1} other publisher(s) on {s.cmd_topic}: the "
                   f"robot is commanded by another node too")
    if s.reverse_limited:
        level = max(level, WARN)
        message = (f"{message}; cmd_vel_in reversed faster than max_reverse_speed "
                   f"{s.max_reverse_speed:g} m/s allows, cut to it {s.reverse_limited} "
                   f"times (-1: up to max_speed)")
    cycle, inputs, now = s.cycle, s.inputs, s.now
    if cycle.links_error:
        level = ERROR
        message = f"{message}; parameter {cycle.links_error}"
    if s.aerial_error:
        level = ERROR
    if s.failed:
        level = ERROR
        message = (f"{message}; internal error in {', '.join(sorted(s.failed))} (a bug, its "
                   f"traceback logged once; the robot was stopped each time)")
    level, message = _clocks(s, level, message)
    if 0.0 < s.no_progress_warn <= s.stuck_for:
        level = max(level, WARN)
        held = f" (nearest: {s.stuck_reason})" if s.stuck_reason else ""
        message = f"{message}; no progress towards the goal for {s.stuck_for:.0f} s{held}"
        if s.goal_held_by:
            message = (f"{message}; its goal has no room within the goal tolerance at the "
                       f"safety distance from {', '.join(s.goal_held_by)}")
    group = group_of(cycle.link_groups, s.robot)
    rows = Readings.of(s.neighbors)  # read as arrays, not reading by reading
    ages = np.maximum(now - rows.data[:, STAMP], 0.0)
    stale = sorted(n for n, age in zip(rows.names, (ages > s.neighbor_timeout).tolist()) if age)
    offsets = s.clock_offsets
    localizer, own = inputs.localizer, inputs.own
    values = {
        "robot": s.robot, "goal": s.goal, "goal_state": goal_state,
        "neighbors_seen": len(s.neighbors), "neighbors_followed": len(inputs.followed),
        # Neighbours' odometry taken in by the node's process, and by how many orca_nodes
        # it is shared: each node's share is neighbor_messages / shared_by.
        "neighbor_messages": s.neighbor_messages, "neighbor_messages_shared_by": s.shared_by,
        "stale_neighbors": ",".join(stale), "lp_fallback_used": _fallback_used(s),
        "non_reciprocating_neighbors": ",".join(cycle.reciprocity.flagged),
        # Neighbours whose orca/prediction (share_predictions) is held, not yet stale.
        "neighbor_predictions": ",".join(sorted(
            n for n, p in cycle.predictions.items()
            if abs(now - p.time) <= s.neighbor_timeout)),
        "own_odom_age_s": round(now - own.stamp, 3) if own is not None else "",
        "obstacle_edges": s.obstacle_edges, "method": cycle.config.method,
        "dimensions": s.dimensions,
        "rejected_messages": sum(s.rejected.values()), "last_rejection": s.last_problem,
        "supervisor_speed_limit": cycle.speed_limit[0] if cycle.speed_limit else "",
        "supervisor_detour": bool(cycle.detour),
        "control_cycles": s.timing.cycles, "late_control_cycles": s.timing.late_cycles,
        "internal_errors": sum(s.failed.values()), "reverse_limited": s.reverse_limited,
        "cmd_vel_publishers": s.commanders,
        # links: this robot's group, its partners left out (and the robot held) for want
        # of fresh odometry, and other groups' links it kept off last cycle.
        "link_group": ",".join(group.agents) if group is not None else "",
        "link_groups": len(cycle.link_groups),
        "link_partners_missing": ",".join(cycle.link_missing),
        "link_partners_stale": ",".join(cycle.link_stale),
        "links_seen": cycle.links_seen, "links_error": cycle.links_error,
        # the pose in the shared frame: where it comes from, and the localization's
        "pose_source": localizer.source, "localization_fixes": localizer.fixes,
        "localization_jumps": localizer.jumps,
        "pose_uncertainty_m": round(localizer.uncertainty, 4),
        "pose_drift_m": round(localizer.drift_uncertainty, 4),
        "neighbors_announced": int(np.count_nonzero(rows.data[:, ANNOUNCED])),
        # announced robots whose orca_node left: kept standing where they stop
        "departed_robots": ",".join(sorted(inputs.departed)),
        "cmd_vel_in_age_s": round(now - inputs.cmd_vel_in[1], 3)
        if inputs.cmd_vel_in is not None else "",
        # The neighbours' clock offsets (this clock minus theirs: positive, its clock
        # lags) and their data's ages, aged from arrival, the LISTED largest first; the
        # own odometry's (its driver's clock).
        "clock_offsets": worst_first(list(offsets), np.fromiter(
            offsets.values(), float, len(offsets)), offset_text),
        "neighbor_ages_s": worst_first(rows.names, ages, lambda n, age: f"{n}:{age:.3f}"),
        "own_odom_clock_offset_s": round(s.own_clock_offset, 3)
        if s.own_clock_offset is not None else "",
        "no_progress_s": round(s.stuck_for, 1), "no_progress_nearest": s.stuck_reason,
        "goal_held_by": ",".join(s.goal_held_by),
        # a unicycle's turn commands: how late they show in its odometry (measured), and
        # the time its heading error is closed in since
        **_loop_delay(cycle),
        **s.timing.figures(),
    }
    if s.scan is not None:
        values.update(s.scan)
    return level, message, values


def _loop_delay(cycle: RobotCycle) -> Dict[str, object]:
    """``loop_delay_s`` and ``heading_time_constant_s`` of a unicycle that measures its
    loop's delay (:class:`~.tracking.LoopDelay`); empty values otherwise."""
    tracking = getattr(cycle.controller, "tracking", None)
    loop = tracking.loop_delay if tracking is not None else None
    if loop is None:
        return {"loop_delay_s": "", "heading_time_constant_s": ""}
    constant = max(cycle.config.time_step, tracking.heading_time_constant(cycle.config))
    return {"loop_delay_s": round(loop.delay, 3), "heading_time_constant_s": round(constant, 3)}


def _clocks(s: RobotSnapshot, level: int, message: str) -> Tuple[int, str]:
    """WARN, naming them, for the neighbours (and the own odometry) whose clock is off by
    more than ``clock_offset_warn``."""
    off = offsets_beyond(dict(s.clock_offsets), s.clock_offset_warn)
    if s.own_clock_offset is not None and \
            offsets_beyond({"": s.own_clock_offset}, s.clock_offset_warn):
        off[f"own odometry ({s.robot})"] = s.own_clock_offset
    if not off:
        return level, message
    named = ", ".join(f"{n} {o:+.2f} s" for n, o in sorted(off.items()))
    return max(level, WARN), (f"{message}; clocks off by more than clock_offset_warn "
                              f"{s.clock_offset_warn:g} s: {named} (synchronise the "
                              "computers' clocks: chrony or PTP)")
