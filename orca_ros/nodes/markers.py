"""RViz markers: what ORCA saw and chose, and the robots of the simulator."""

from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

from geometry_msgs.msg import Point
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

from ..core.robot.state import Command, Neighbor, RobotState

HALF_PLANE_LENGTH = 2.0  # m of each half-plane boundary drawn, in velocity units around the robot


def _marker(frame: str, stamp, ns: str, marker_id: int, kind: int,
            rgba: Tuple[float, float, float, float], width: float = 0.02) -> Marker:
    marker = Marker()
    marker.header.frame_id = frame
    marker.header.stamp = stamp
    marker.ns = ns
    marker.id = marker_id
    marker.type = kind
    marker.action = Marker.ADD
    marker.pose.orientation.w = 1.0
    marker.scale.x = width
    marker.scale.y = width * 2
    marker.scale.z = width * 2
    marker.color = ColorRGBA(r=rgba[0], g=rgba[1], b=rgba[2], a=rgba[3])
    marker.lifetime.nanosec = 500_000_000
    return marker


def _circle(center: Tuple[float, float], radius: float, segments: int = 24):
    return [Point(x=center[0] + radius * math.cos(2 * math.pi * k / segments),
                  y=center[1] + radius * math.sin(2 * math.pi * k / segments), z=0.0)
            for k in range(segments + 1)]


TETHER_RGBA = (1.0, 0.2, 0.8, 0.9)  # this robot's tethers: magenta
LINK_RGBA = (0.1, 0.8, 0.8, 0.9)  # other groups' links it keeps off: cyan


def link_markers(frame: str, stamp, robot: str, position: Tuple[float, float],
                 tethers: Sequence = (), links: Sequence = ()) -> list:
    """Two LINE_LIST markers in namespace ``<robot>/links``: id 0 the robot's tethers
    (from ``position`` to each partner of its :class:`~orca_ros.core.methods.TetherView`
    list), id 1 the other groups' links it sees (:class:`~orca_ros.core.methods.LinkView`:
    end to end). Both are sent even when empty, so a link that went stops showing."""
    own = _marker(frame, stamp, f"{robot}/links", 0, Marker.LINE_LIST, TETHER_RGBA, 0.03)
    for tether in tethers:
        own.points.extend((Point(x=float(position[0]), y=float(position[1]), z=0.0),
                           Point(x=float(tether.position[0]), y=float(tether.position[1]),
                                 z=0.0)))
    others = _marker(frame, stamp, f"{robot}/links", 1, Marker.LINE_LIST, LINK_RGBA, 0.02)
    for link in links:
        others.points.extend((Point(x=float(link.a[0]), y=float(link.a[1]), z=0.0),
                              Point(x=float(link.b[0]), y=float(link.b[1]), z=0.0)))
    return [own, others]


def footprint(frame: str, stamp, center: Tuple[float, float], radius: float,
              sides: int = 16):
    """A robot's disc as geometry_msgs/PolygonStamped: ``sides`` points at ``radius``
    round ``center`` in ``frame`` (the farthest point of a footprint is its radius)."""
    from geometry_msgs.msg import Point32, PolygonStamped

    polygon = PolygonStamped()
    polygon.header.frame_id = frame
    if stamp is not None:
        polygon.header.stamp = stamp
    polygon.polygon.points = [
        Point32(x=center[0] + radius * math.cos(2.0 * math.pi * k / sides),
                y=center[1] + radius * math.sin(2.0 * math.pi * k / sides), z=0.0)
        for k in range(sides)]
    return polygon


SCAN_WALL_RGBA = (1.0, 0.85, 0.1, 0.9)  # walls of the robot's own laser: yellow


def orca_markers(frame: str, stamp, robot: str, state: RobotState, command: Command,
                 neighbors: Sequence[Neighbor], tethers: Optional[Sequence] = None,
                 links: Optional[Sequence] = None,
                 tether_from: Optional[Tuple[float, float]] = None,
                 scan_walls: Optional[Sequence] = None) -> MarkerArray:
    """The method's half-planes (velocity space, drawn at the robot), preferred and chosen velocity,
    and the neighbours' radii; with ``tethers`` or ``links`` (a robot with ``links``), its
    tethers (drawn from ``tether_from``, default its position) and the other groups'
    links it sees (:func:`link_markers`); with ``scan_walls`` (``scan_obstacles``), the
    walls of its laser as a LINE_LIST in namespace ``<robot>/scan_walls`` (sent even when
    empty, so walls that went stop showing)."""
    px, py = state.position
    array = MarkerArray()
    lines = _marker(frame, stamp, f"{robot}/half_planes", 0, Marker.LINE_LIST, (1.0, 0.5, 0.0, 0.8))
    if command.output is not None:
        for h in command.output.half_planes:
            for sign in (-1.0, 1.0):
                lines.points.append(Point(
                    x=px + h.point_x + sign * HALF_PLANE_LENGTH * h.direction_x,
                    y=py + h.point_y + sign * HALF_PLANE_LENGTH * h.direction_y, z=0.0))
    array.markers.append(lines)
    for marker_id, (velocity, rgba) in enumerate(((command.pref_velocity, (0.1, 0.8, 0.1, 1.0)),
                                                  (command.velocity, (0.1, 0.3, 1.0, 1.0))), 1):
        arrow = _marker(frame, stamp, f"{robot}/velocity", marker_id, Marker.ARROW, rgba, 0.03)
        arrow.points = [Point(x=px, y=py, z=0.0),
                        Point(x=px + velocity[0], y=py + velocity[1], z=0.0)]
        array.markers.append(arrow)
    for marker_id, other in enumerate(neighbors):
        ring = _marker(frame, stamp, f"{robot}/neighbors", marker_id, Marker.LINE_STRIP,
                       (0.6, 0.6, 0.6, 0.8))
        ring.points = _circle(other.position, other.radius)
        array.markers.append(ring)
    if scan_walls is not None:
        walls = _marker(frame, stamp, f"{robot}/scan_walls", 0, Marker.LINE_LIST,
                        SCAN_WALL_RGBA, 0.03)
        for wall in scan_walls:
            walls.points.extend((Point(x=float(wall.a[0]), y=float(wall.a[1]), z=0.0),
                                 Point(x=float(wall.b[0]), y=float(wall.b[1]), z=0.0)))
        array.markers.append(walls)
    if tethers is not None or links is not None:
        array.markers.extend(link_markers(frame, stamp, robot,
                                          state.position if tether_from is None else tether_from,
                                          tethers or (), links or ()))
    return array


def robot_markers(frame: str, stamp, names: Sequence[str], positions, radii,
                  colliding: Sequence[bool]) -> MarkerArray:
    """The simulator's robots as discs (red while colliding) with their names; aerial
    robots (positions ``(x, y, z)``) as spheres at their height."""
    array = MarkerArray()
    for k, (name, position, radius, hit) in enumerate(zip(names, positions, radii, colliding)):
        x, y = position[0], position[1]
        z = float(position[2]) if len(position) > 2 else None
        disc = _marker(frame, stamp, "robots", k, Marker.CYLINDER if z is None else Marker.SPHERE,
                       (0.9, 0.1, 0.1, 0.9) if hit else (0.2, 0.5, 0.9, 0.8))
        disc.pose.position.x, disc.pose.position.y = float(x), float(y)
        disc.scale.x = disc.scale.y = 2.0 * float(radius)
        disc.scale.z = 0.05 if z is None else 2.0 * float(radius)
        if z is not None:
            disc.pose.position.z = z
        label = _marker(frame, stamp, "robot_names", k, Marker.TEXT_VIEW_FACING,
                        (1.0, 1.0, 1.0, 1.0))
        label.pose.position.x, label.pose.position.y = float(x), float(y)
        label.pose.position.z = 0.2 if z is None else z + float(radius) + 0.1
        label.scale.z = max(0.1, float(radius))
        label.text = name
        array.markers.extend((disc, label))
    return array
