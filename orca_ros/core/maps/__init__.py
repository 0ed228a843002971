"""Walls from maps: occupancy grids (map_server's YAML and image, ``/map``) to segments
(:mod:`.occupancy`)."""

from .occupancy import MapError, OccupancyMap, load_map, map_from_grid, map_segments

__all__ = ["MapError", "OccupancyMap", "load_map", "map_from_grid", "map_segments"]
