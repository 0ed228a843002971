"""A robot's walls (no ROS): every obstacle source's, kept by (ns, id) in an
:class:`~.obstacle_registry.ObstacleRegistry`, the laser's among them, and the guidance
roadmaps built round them dropped when the walls guidance plans round change.

The laser's walls (``scan_obstacles``) are the returns no known neighbour explains
(:mod:`orca_ros.core.maps.scan`, imported with the first scan), under ns
``<robot>/scan``, replaced by each scan; rays with no valid range are left out and
counted in :attr:`RobotWalls.figures`.
"""

from __future__ import annotations

import math
import time
from typing import Callable, Iterable, MutableMapping, Optional, Sequence, Tuple

from ..geometry.frames import Pose2
from ..geometry.obstacles import ObstacleVertex
from .guidance import same_guidance_walls
from .obstacle_registry import ObstacleAction, ObstacleRegistry, ObstacleUpdate
from .state import RobotState

Disc = Tuple[float, float, float]  # a neighbour's (x, y, radius) in the shared frame


def scan_problem(frame: str, robot_frames: Iterable[str], angle_min: float,
                 angle_increment: float, range_min: float, range_max: float) -> Optional[str]:
    """Why a scan cannot be used (None: it can): given in one of the ``robot_frames``
    (the shared or odom frame: a laser's own frame is expected), or its angles and
    range limits are not finite."""
    if frame and frame in robot_frames:
        return (f"scan in frame {frame!r}: a laser's own frame is expected (placed on the "
                f"robot by scan_pose), not the shared or odom frame")
    if not (math.isfinite(angle_min) and math.isfinite(angle_increment)
            and math.isfinite(range_min) and math.isfinite(range_max)):
        return (f"scan with angle_min {angle_min}, angle_increment {angle_increment}, "
                f"range_min {range_min}, range_max {range_max}: not finite")
    return None


class RobotWalls:
    """The walls one robot avoids; ``roadmaps``: its controller's guidance roadmaps,
    cached by (clearance, len(edges), id(edges[0])): the address of a freed edge list is
    often reused by the next one, so a moved obstacle could otherwise meet the old
    roadmap."""

    def __init__(self, robot: str, roadmaps: MutableMapping) -> None:
        self.registry = ObstacleRegistry()
        self.edges: Sequence[ObstacleVertex] = self.registry.edges  # the union, for the cycle
        self.roadmaps = roadmaps
        self.scan_key = (f"{robot}/scan", 0)
        self.figures = {"scans": 0, "rays_ignored": 0, "rays_not_finite": 0, "segments": 0,
                        "ms": []}

    def apply(self, update: ObstacleUpdate, now: float) -> bool:
        """One source's update at ``now`` (s): whether the walls changed.
        Raises ObstacleUpdateError for a bad one (nothing changes)."""
        changed = self.registry.apply(update, now)
        if changed:
            self._changed()
        return changed

    def expire(self, now: float) -> bool:
        """Drop the walls whose lifetime ran out: whether any did."""
        changed = self.registry.expire(now)
        if changed:
            self._changed()
        return changed

    def _changed(self) -> None:
        before, self.edges = self.edges, self.registry.edges
        # A laser's walls beside a map's leave the walls guidance plans round (and their
        # roadmap) as they were.
        if not same_guidance_walls(before, self.edges):
            self.roadmaps.clear()

    def scan(self, ranges: Sequence[float], angle_min: float, angle_increment: float,
             range_min: float, range_max: float, state: RobotState, mount: Pose2,
             discs: Callable[[], Sequence[Disc]], cluster_gap: float, tolerance: float,
             lifetime: float, now: float) -> bool:
        """A laser scan taken by the robot in ``state``, the laser at ``mount`` on it,
        ``discs`` the known neighbours: its walls replace the laser's last, lasting
        ``lifetime`` (s). Whether the walls changed; raises ObstacleUpdateError for a
        degenerate fit (this scan adds nothing)."""
        from ..maps.scan import scan_walls  # only with scan_obstacles

        started = time.perf_counter()
        pose = Pose2(state.position[0], state.position[1], state.heading).compose(mount)
        walls, found = scan_walls(ranges, angle_min, angle_increment, range_min, range_max,
                                  pose, discs(), cluster_gap, tolerance)
        figures = self.figures
        figures["scans"] += 1
        figures["rays_ignored"] += found.ignored
        figures["rays_not_finite"] += found.not_finite
        figures["segments"] = len(walls)
        update = ObstacleUpdate(*self.scan_key, ObstacleAction.ADD,
                                tuple(p for w in walls for p in (w.a, w.b)), lifetime)
        changed = self.apply(update, now)
        figures["ms"] = (figures["ms"] + [(time.perf_counter() - started) * 1e3])[-200:]
        return changed

    def scan_report(self) -> dict:
        """The laser's figures as the diagnostics give them."""
        scans = self.figures
        return {"scans": scans["scans"], "scan_rays_ignored": scans["rays_ignored"],
                "scan_rays_not_finite": scans["rays_not_finite"],
                "scan_segments": scans["segments"],
                "scan_ms_median": round(sorted(scans["ms"])[len(scans["ms"]) // 2], 3)
                if scans["ms"] else ""}
