"""obstacle_server: publishes the obstacles on ``/obstacles`` as one latched LINE_LIST Marker.

Each consecutive point pair is one segment (RViz shows it as is). The marker's
namespace is the node's name (``obstacle_server``, or ``robots/walls`` for a node
named ``walls`` in namespace ``/robots``) and its id is 0, so other sources of
obstacles (a map, a tracker) publish next to it without replacing it. The source is
a scenario file's polygons (``scenario``), or a YAML file (``obstacles_file``)
with ``obstacles: [{vertices: [[x, y], ...]}]`` polygons and/or
``segments: [[[x, y], [x, y]], ...]``, and a map_server map (``map_file``: the
occupied cells' boundaries, ``orca_ros.core.maps``) or the maps on ``map_topic``
(``nav_msgs/OccupancyGrid``, as map_server publishes ``/map``; each replaces the last).
"""

from __future__ import annotations

import math
import sys
import time
from typing import List

import yaml
from geometry_msgs.msg import Point
from nav_msgs.msg import OccupancyGrid
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from visualization_msgs.msg import Marker

from ..core.maps import MapError, load_map, map_from_grid, map_segments
from ..core.models.toio_cube import mat_border
from ..core.scenario.loader import ScenarioError, load_scenario, resolve_scenario
from ..core.geometry.types import Polygon, Segment
from .params import check_start, check_values, declare_table, table_by_name
from .params.obstacle_server import PARAMETERS
from .ros_common import GuardedCallbacks, LATCHED, run_node

BY_NAME = table_by_name(PARAMETERS)


def segments_of(polygons: List[Polygon], segments: List[Segment]) -> List[Segment]:
    edges = list(segments)
    for polygon in polygons:
        v = polygon.vertices
        edges.extend(Segment(v[i], v[(i + 1) % len(v)]) for i in range(len(v)))
    return edges


def load_obstacles_file(path: str) -> List[Segment]:
    """Polygons and segments of an obstacles YAML file; errors name the file and entry."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle) or {}
    except (OSError, yaml.YAMLError) as error:
        raise ScenarioError(f"{path}: {error}") from None
    unknown = set(data) - {"obstacles", "segments"}
    if unknown:
        raise ScenarioError(f"{path}: unknown key(s) {sorted(unknown)}")
    try:
        polygons = [Polygon(tuple(o["vertices"])) for o in data.get("obstacles") or []]
        segments = [Segment(a, b) for a, b in data.get("segments") or []]
    except (KeyError, TypeError, ValueError) as error:
        raise ScenarioError(f"{path}: {error}") from None
    return segments_of(polygons, segments)


class ObstacleServer(GuardedCallbacks, Node):
    """Publishes the walls as one latched marker (ns = the node's name, id 0).

    The publisher keeps one message (transient-local, reliable, depth 1:
    ``LATCHED``), and a late subscriber gets only that one. That is enough
    because this node owns a single key and each message holds all of it.
    A publisher that keeps several ids alive on ``/obstacles`` needs a depth
    of at least the number of ids, or late subscribers get only the last id.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__("obstacle_server", **kwargs)
        declare_table(self, PARAMETERS)
        problem = check_start(self, BY_NAME)
        if problem is not None:
            raise ValueError(problem)
        self.add_on_set_parameters_callback(self._check_parameters)
        scenario = self.get_parameter("scenario").value
        obstacles_file = self.get_parameter("obstacles_file").value
        mat_edges: List[Segment] = []
        if obstacles_file:
            self.segments = load_obstacles_file(obstacles_file)
        elif scenario:
            loaded = load_scenario(resolve_scenario(scenario))
            self.segments = segments_of(list(loaded.obstacles), list(loaded.map_walls))
            # With a toio block, the mat's edges too (a cube off its mat is lost).
            mat_edges = list(loaded.mat_edges)
        else:
            self.segments = []
        mat = self.get_parameter("toio_mat").value
        if mat and not mat_edges:  # unknown mat names raise ValueError: exit 2, named
            mat_edges = mat_border({"mat": mat,
                                    "mm_per_unit": self.get_parameter("mm_per_unit").value})
        self.segments += mat_edges
        map_file = self.get_parameter("map_file").value
        if map_file:  # a MapError names the file and the field: exit 2
            started = time.perf_counter()
            walls = map_segments(load_map(map_file),
                                 self.get_parameter("map_tolerance").value or None)
            self.get_logger().info(f"map {map_file}: {len(walls)} segments in "
                                   f"{time.perf_counter() - started:.3f} s")
            self.segments += walls
        self.fixed_segments = list(self.segments)  # all but the /map topic's
        self.map_updates = 0
        self.publisher = self.create_publisher(Marker, "/obstacles", LATCHED)
        map_topic = self.get_parameter("map_topic").value
        if map_topic:  # map_server's /map: transient-local, reliable, the latest map
            self.create_subscription(OccupancyGrid, map_topic, self._on_map, LATCHED)
        self.publish()
        period = self.get_parameter("republish_period").value
        if period > 0:
            self.create_timer(period, self.publish)
        self.get_logger().info(f"publishing {len(self.segments)} obstacle segments on /obstacles")

    def _on_map(self, msg) -> None:
        """A map on ``map_topic``: its walls replace the last map's (the marker is sent
        again whole, the fixed walls with them). A map that cannot be read is logged,
        naming what is wrong, and the last map's walls stay."""
        info = msg.info
        origin = info.origin
        yaw = 2.0 * math.atan2(origin.orientation.z, origin.orientation.w)
        started = time.perf_counter()
        try:
            walls = map_segments(map_from_grid(
                info.width, info.height, info.resolution,
                (origin.position.x, origin.position.y, yaw), msg.data),
                self.get_parameter("map_tolerance").value or None)
        except MapError as error:
            self.get_logger().error(f"map on {self.get_parameter('map_topic').value} "
                                    f"ignored: {error}")
            return
        self.map_updates += 1
        self.segments = self.fixed_segments + walls
        self.get_logger().info(
            f"map {self.map_updates} on {self.get_parameter('map_topic').value} "
            f"({info.width} x {info.height} cells of {info.resolution:g} m): {len(walls)} "
            f"segments in {time.perf_counter() - started:.3f} s; publishing "
            f"{len(self.segments)} obstacle segments")
        self.publish()

    @staticmethod
    def _check_parameters(params) -> SetParametersResult:
        reason = check_values(BY_NAME, {p.name: p.value for p in params})
        return SetParametersResult(successful=reason is None, reason=reason or "")

    def marker(self) -> Marker:
        marker = Marker()
        marker.header.frame_id = self.get_parameter("world_frame").value
        marker.header.stamp = self.get_clock().now().to_msg()
        marker.ns = self.get_fully_qualified_name().lstrip("/")
        marker.id = 0
        marker.type = Marker.LINE_LIST
        marker.action = Marker.ADD
        marker.pose.orientation.w = 1.0
        marker.scale.x = 0.03
        marker.color.r = marker.color.g = marker.color.b = 0.2
        marker.color.a = 1.0
        for segment in self.segments:
            marker.points.append(Point(x=segment.a[0], y=segment.a[1], z=0.0))
            marker.points.append(Point(x=segment.b[0], y=segment.b[1], z=0.0))
        return marker

    def publish(self) -> None:
        self.publisher.publish(self.marker())


def main(args=None) -> None:
    run_node(ObstacleServer, args)


if __name__ == "__main__":
    main(sys.argv)
