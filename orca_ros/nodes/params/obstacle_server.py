"""obstacle_server's parameters (node ``obstacle_server``, executable ``obstacle_server``)."""

from ...core.models.toio_cube import DEFAULT_MM_PER_UNIT
from . import Param

PARAMETERS = (
    Param("scenario", "",
          "a scenario file's path or a built-in scenario's name whose obstacle polygons are "
          "the walls (and, with a toio block, its mat's edges); empty = none",
          read_only=True),
    Param("obstacles_file", "",
          "a YAML file of walls in metres: obstacles: [{vertices: [[x, y], ...]}] polygons "
          "and/or segments: [[[x, y], [x, y]], ...]; used instead of scenario; empty = none",
          read_only=True),
    Param("map_file", "",
          "a map_server YAML file (image, resolution, origin, negate, occupied_thresh, "
          "free_thresh, mode) whose occupied cells' boundaries are the walls, added to "
          "scenario's or obstacles_file's; empty = none", read_only=True),
    Param("map_topic", "",
          "a nav_msgs/OccupancyGrid topic (map_server's /map, transient-local) whose maps' "
          "occupied boundaries are walls; each map replaces the last; empty = none",
          read_only=True),
    Param("map_tolerance", 0.0,
          "how far (m) the map's segments may stray from the occupied cells' boundary "
          "(into free space only; at least 0.71 cells); 0 = one cell",
          range=(0.0, 10.0), read_only=True),
    Param("world_frame", "world", "frame_id of the marker's points"),
    Param("republish_period", 0.0,
          "publish the walls again every so many seconds; 0 = once (the marker is latched)",
          range=(0.0, 3600.0), read_only=True),
    Param("toio_mat", "",
          "a toio mat whose edges are walls (with no scenario, or one without a toio block), "
          "e.g. collection_ring; empty = none", read_only=True),
    Param("mm_per_unit", DEFAULT_MM_PER_UNIT,
          "the toio_mat's scale (mm per mat unit)", range=(0.1, 100.0), read_only=True),
)
