"""Occupancy grids to wall segments: a map as map_server gives it, as ``orca_node`` avoids it.

A map comes as a map_server YAML file and its image (PGM or PNG), or as a
``nav_msgs/OccupancyGrid`` on ``/map``; both become an :class:`OccupancyMap`, a boolean
grid of occupied cells with its resolution and origin. :func:`map_segments` turns the
boundaries of its occupied regions into segments: the contours between occupied and free
cells (marching squares, ``skimage.measure.find_contours``), simplified within a
tolerance (Douglas-Peucker, shapely's ``simplify``). Segments are two-sided: a robot on
either side of a wall avoids it, as it does the segments of ``/obstacles``.

How a map_server YAML reads (the fields Nav2's ``map_server`` takes):

- ``image``: the image's path, relative to the YAML file;
- ``resolution`` (m per cell), ``origin`` ``[x, y, yaw]``: the pose of the image's
  lower-left cell's corner in the map frame (the grid is turned by ``yaw`` about it);
- ``negate``, ``occupied_thresh``, ``free_thresh``, ``mode`` (``trinary``, ``scale`` or
  ``raw``): a pixel's occupancy probability is ``p = (255 - v) / 255`` (``v / 255`` with
  ``negate``), the mean of its colour channels; a cell is occupied where ``p >
  occupied_thresh``; in ``raw`` mode the value itself is the occupancy in percent,
  occupied above ``100 occupied_thresh`` and unknown at 255.

Unknown cells are not walls: only what the map knows to be occupied is avoided.
"""

from __future__ import annotations

import math
import pathlib
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np
import yaml

from ..errors import InputError
from ..geometry.types import Segment

MODES = ("trinary", "scale", "raw")
"""map_server's ``mode`` values."""
OCCUPIED_PERCENT = 65
"""An OccupancyGrid cell at or above this (percent) is occupied (map_server's default
``occupied_thresh`` 0.65)."""
CONTOUR_CORNER_ERROR = math.sqrt(2.0) / 4.0
"""How far (in cells) a marching-squares contour cuts across a corner of an occupied
cell: its segments there stand off the occupied cells by at most this much."""


class MapError(InputError):
    """A map that cannot be read; the message names the file and the field."""


@dataclass(frozen=True)
class OccupancyMap:
    """Occupied cells ``occupied[row, col]`` (row 0 at the bottom, ``y`` growing with the
    row, as in ``nav_msgs/OccupancyGrid``), ``resolution`` (m per cell), and ``origin``
    ``(x, y, yaw)``: the pose of the corner of cell ``[0, 0]`` in the map frame."""

    occupied: np.ndarray
    resolution: float
    origin: Tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def size_m(self) -> Tuple[float, float]:
        rows, cols = self.occupied.shape
        return cols * self.resolution, rows * self.resolution

    def to_world(self, cols: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Points given in cells (``col``, ``row``: 0 at the grid's corner, fractions
        allowed) in the map frame, (N, 2)."""
        x = np.asarray(cols, dtype=float) * self.resolution
        y = np.asarray(rows, dtype=float) * self.resolution
        ox, oy, yaw = self.origin
        c, s = math.cos(yaw), math.sin(yaw)
        return np.column_stack([ox + c * x - s * y, oy + s * x + c * y])


    def to_cells(self, points: np.ndarray) -> np.ndarray:
        """Points of the map frame (N, 2) in cells (``col``, ``row``; fractions kept):
        the inverse of :meth:`to_world`."""
        points = np.asarray(points, dtype=float).reshape(-1, 2)
        ox, oy, yaw = self.origin
        c, s = math.cos(yaw), math.sin(yaw)
        dx, dy = points[:, 0] - ox, points[:, 1] - oy
        return np.column_stack([c * dx + s * dy, -s * dx + c * dy]) / self.resolution

    def occupied_distance(self, points: np.ndarray, reach: float) -> np.ndarray:
        """Distance (m) from each point to the nearest occupied cell, each cell a square
        of the grid, judged on the grid itself (not on :func:`map_segments`'s walls):
        0 on or inside one; ``reach`` where none is nearer than ``reach``. Off the grid
        there are no cells."""
        cells = self.to_cells(points)
        rows, cols = self.occupied.shape
        window = int(math.ceil(reach / self.resolution)) + 1
        out = np.full(len(cells), float(reach))
        for k, (x, y) in enumerate(cells):
            c0, c1 = max(int(math.floor(x)) - window, 0), min(int(math.floor(x)) + window + 1, cols)
            r0, r1 = max(int(math.floor(y)) - window, 0), min(int(math.floor(y)) + window + 1, rows)
            if c0 >= c1 or r0 >= r1:
                continue
            r, c = np.nonzero(self.occupied[r0:r1, c0:c1])
            if len(r) == 0:
                continue
            # the gap to each occupied square [c, c + 1] x [r, r + 1], per axis
            gx = np.maximum(np.maximum(c + c0 - x, x - (c + c0 + 1)), 0.0)
            gy = np.maximum(np.maximum(r + r0 - y, y - (r + r0 + 1)), 0.0)
            out[k] = min(float(np.sqrt(gx * gx + gy * gy).min()) * self.resolution, reach)
        return out


def _field(data: dict, name: str, where: str, default=None):
    if name in data:
        return data[name]
    if default is not None:
        return default
    raise MapError(f"{where}: field '{name}' is missing")


def _number(data: dict, name: str, where: str, default: Optional[float] = None,
            low: Optional[float] = None, high: Optional[float] = None,
            positive: bool = False) -> float:
    value = _field(data, name, where, default)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise MapError(f"{where}: field '{name}' must be a number, got {value!r}") from None
    if not math.isfinite(number) or (positive and number <= 0.0) or \
            (low is not None and number < low) or (high is not None and number > high):
        bounds = "> 0" if positive else f"in [{low}, {high}]"
        raise MapError(f"{where}: field '{name}' must be {bounds}, got {value!r}")
    return number


def occupied_from_pixels(pixels: np.ndarray, negate: bool, occupied_thresh: float,
                         mode: str) -> np.ndarray:
    """map_server's reading of an image (rows top to bottom, values 0-255, grey or the
    mean of its colour channels; an alpha channel is left out): occupied cells, rows
    top to bottom as in the image."""
    values = np.asarray(pixels, dtype=float)
    if values.ndim == 3:
        channels = values.shape[2]
        values = values[:, :, :3 if channels >= 3 else 1].mean(axis=2)
    if mode == "raw":
        return (values > 100.0 * occupied_thresh) & (values != 255.0)
    probability = values / 255.0 if negate else (255.0 - values) / 255.0
    return probability > occupied_thresh


def load_map(path: str | pathlib.Path) -> OccupancyMap:
    """A map_server YAML file and its image as an :class:`OccupancyMap`; a
    :class:`MapError` names the file and the field that is wrong."""
    from PIL import Image, UnidentifiedImageError

    path = pathlib.Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise MapError(f"{path}: {error}") from None
    if not isinstance(data, dict):
        raise MapError(f"{path}: a map_server YAML holds a mapping (image, resolution, "
                       f"origin, ...), got {type(data).__name__}")
    where = str(path)
    image_name = _field(data, "image", where)
    resolution = _number(data, "resolution", where, positive=True)
    origin = _field(data, "origin", where)
    try:
        ox, oy, yaw = (float(v) for v in origin)
    except (TypeError, ValueError):
        raise MapError(f"{where}: field 'origin' must be [x, y, yaw], got {origin!r}") from None
    if not all(math.isfinite(v) for v in (ox, oy, yaw)):
        raise MapError(f"{where}: field 'origin' must be finite, got {origin!r}")
    occupied_thresh = _number(data, "occupied_thresh", where, 0.65, 0.0, 1.0)
    _number(data, "free_thresh", where, 0.25, 0.0, 1.0)
    negate = _field(data, "negate", where, 0)
    if negate not in (0, 1, True, False):
        raise MapError(f"{where}: field 'negate' must be 0 or 1, got {negate!r}")
    mode = _field(data, "mode", where, "trinary")
    if mode not in MODES:
        raise MapError(f"{where}: field 'mode' must be one of {', '.join(MODES)}, got "
                       f"{mode!r}")
    image_path = (path.parent / str(image_name)).resolve()
    try:
        with Image.open(image_path) as image:
            pixels = np.asarray(image.convert("LA") if image.mode in ("P", "1")
                                else image)
    except FileNotFoundError:
        raise MapError(f"{where}: field 'image': {image_path} does not exist") from None
    except (OSError, UnidentifiedImageError, ValueError) as error:
        raise MapError(f"{where}: field 'image': {image_path} is not an image this can "
                       f"read ({error})") from None
    if pixels.ndim not in (2, 3) or min(pixels.shape[:2]) < 1 or pixels.dtype.kind not in "ui":
        raise MapError(f"{where}: field 'image': {image_path} is not a grid of 8-bit "
                       f"cells (shape {pixels.shape}, type {pixels.dtype})")
    if pixels.dtype.itemsize > 1:  # 16-bit greys: to 0-255 as map_server scales them
        pixels = pixels.astype(float) * (255.0 / np.iinfo(pixels.dtype).max)
    occupied = occupied_from_pixels(pixels, bool(negate), occupied_thresh, mode)
    return OccupancyMap(np.flipud(occupied), resolution, (ox, oy, yaw))


def map_from_grid(width: int, height: int, resolution: float,
                  origin: Tuple[float, float, float], data: Sequence[int],
                  occupied_percent: int = OCCUPIED_PERCENT) -> OccupancyMap:
    """An OccupancyGrid's fields (``data`` row-major from the origin's cell, -1 unknown,
    0-100 percent) as an :class:`OccupancyMap`."""
    if width < 0 or height < 0 or not (math.isfinite(resolution) and resolution > 0.0):
        raise MapError(f"OccupancyGrid: width {width}, height {height} and resolution "
                       f"{resolution} must be >= 0, >= 0 and > 0")
    values = np.asarray(data, dtype=np.int16)
    if values.size != width * height:
        raise MapError(f"OccupancyGrid: {values.size} cells for {width} x {height}")
    if not all(math.isfinite(v) for v in origin):
        raise MapError(f"OccupancyGrid: origin must be finite, got {origin}")
    return OccupancyMap(values.reshape(height, width) >= occupied_percent, resolution,
                        tuple(float(v) for v in origin))


def effective_tolerance(resolution: float, tolerance: Optional[float] = None) -> float:
    """The tolerance (m) :func:`map_segments` keeps for a map of ``resolution``: the one
    asked for (default one cell), at least twice the contour's corner cut (0.71 cells)."""
    tolerance = resolution if tolerance is None else float(tolerance)
    return max(tolerance, 2.0 * CONTOUR_CORNER_ERROR * resolution)


def map_segments(occupancy: OccupancyMap, tolerance: Optional[float] = None) -> List[Segment]:
    """The boundaries of the occupied regions as segments, within ``tolerance`` (m;
    default one cell) of the cells' true boundary, and standing off the occupied cells
    (never inside one) wherever a robot can reach.

    The contour at level 1/2 between occupied (1) and free (0) cell centres runs along
    the cells' edges and cuts each corner at 45 degrees, at most
    :data:`CONTOUR_CORNER_ERROR` cells (``c``) off it: into the occupied cells at their
    convex corners, into the free ones at their concave corners
    (``skimage.measure.find_contours`` on the grid padded with free cells, so every
    contour closes; in the map frame a contour round occupied cells runs anticlockwise,
    one round free cells clockwise). Each contour is pushed out into the free side by
    ``d = tolerance / 2`` (``shapely`` ``buffer``, corners mitred at ``d``: an occupied
    region grows, a free one shrinks) and then simplified (Douglas-Peucker,
    ``simplify``) by ``d - c``: the result lies between the cells' boundary and
    ``tolerance`` beyond it. A tolerance below ``2 c`` (0.71 cells) is taken as ``2 c``.
    A robot that keeps its radius from the segments keeps it from the cells (the
    contact that counts is judged on the cells: :meth:`OccupancyMap.occupied_distance`).

    Free space narrower than ``2 d`` (a one-cell hole, a notch in a wall) closes under
    the push: there the contour itself is kept, so every boundary between an occupied
    and a free cell still lies within ``tolerance`` of a segment.
    """
    import shapely
    from shapely.geometry import LineString, Polygon
    from skimage.measure import find_contours

    resolution = occupancy.resolution
    tolerance = resolution if tolerance is None else float(tolerance)
    if not (math.isfinite(tolerance) and tolerance >= 0.0):
        raise MapError(f"tolerance must be a finite number >= 0 m, got {tolerance!r}")
    occupied = np.asarray(occupancy.occupied, dtype=bool)
    if not occupied.any():
        return []
    padded = np.pad(occupied, 1).astype(np.float32)
    corner_cut = CONTOUR_CORNER_ERROR * resolution
    tolerance = effective_tolerance(resolution, tolerance)
    simplify = 0.5 * tolerance - corner_cut
    push = simplify + corner_cut
    contours = [occupancy.to_world(c[:, 1] - 0.5, c[:, 0] - 0.5)
                for c in find_contours(padded, 0.5)]
    pushed: List[np.ndarray] = []
    closed: List[np.ndarray] = []  # free space the push closed whole: kept as it is
    for points in contours:
        if len(points) < 4:
            closed.append(points)
            continue
        x, y = points[:, 0], points[:, 1]
        round_occupied = float(np.sum(x[:-1] * y[1:] - x[1:] * y[:-1])) > 0.0
        grown = Polygon(points).buffer(push if round_occupied else -push, join_style="mitre",
                                       mitre_limit=1.0)
        if grown.is_empty:
            closed.append(points)
            continue
        for part in getattr(grown, "geoms", [grown]):
            if part.is_empty:
                continue
            for ring in [part.exterior, *part.interiors]:
                ring = np.asarray(ring.coords)
                if simplify > 0.0:
                    simplified = np.asarray(LineString(ring).simplify(
                        simplify, preserve_topology=False).coords)
                    ring = ring if len(simplified) < 4 else simplified
                pushed.append(ring)
    # Where the push closed free space, the contour within ``tolerance`` of none of
    # the pushed walls stays as it is.
    kept = _segments_of(pushed) + _segments_of(closed)
    if kept:
        tree = shapely.STRtree(shapely.linestrings([[s.a, s.b] for s in kept]))
    for points in contours:
        if kept:
            _, distance = tree.query_nearest(shapely.points(points), return_distance=True,
                                             all_matches=False)
            far = distance > tolerance
            if not far.any():
                continue
            edges = far[:-1] | far[1:]
        else:
            edges = np.ones(len(points) - 1, dtype=bool)
        kept.extend(Segment((float(a[0]), float(a[1])), (float(b[0]), float(b[1])))
                    for a, b, keep in zip(points[:-1], points[1:], edges)
                    if keep and math.dist(a, b) > 1e-9)
    return kept


def _segments_of(polylines: Sequence[np.ndarray]) -> List[Segment]:
    return [Segment((float(a[0]), float(a[1])), (float(b[0]), float(b[1])))
            for points in polylines for a, b in zip(points[:-1], points[1:])
            if math.dist(a, b) > 1e-9]
