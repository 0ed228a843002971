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

from ..geometry.types import Segment

MODES = ("trinary", "scale", "raw")
"""map_server's ``mode`` values."""
OCCUPIED_PERCENT = 65
"""An OccupancyGrid cell at or above this (percent) is occupied (map_server's default
``occupied_thresh`` 0.65)."""
CONTOUR_CORNER_ERROR = math.sqrt(2.0) / 4.0
"""How far (in cells) a marching-squares contour cuts across a corner of an occupied
cell: its segments there stand off the occupied cells by at most this much."""


class MapError(ValueError):
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


def map_segments(occupancy: OccupancyMap, tolerance: Optional[float] = None) -> List[Segment]:
    """The boundaries of the occupied regions as segments, within ``tolerance`` (m;
    default one cell) of the cells' true boundary.

    The contour at level 1/2 between occupied (1) and free (0) cell centres runs along
    the cells' edges and cuts each corner at 45 degrees, at most
    :data:`CONTOUR_CORNER_ERROR` cells off it (``skimage.measure.find_contours`` on the
    grid padded with free cells, so every contour closes). Each contour is simplified
    (``shapely`` ``simplify``, Douglas-Peucker) by ``tolerance`` less that corner error,
    so no segment lies farther than ``tolerance`` from the occupied cells, and every
    boundary between an occupied and a free cell lies within ``tolerance`` of a segment.
    """
    from shapely.geometry import LineString
    from skimage.measure import find_contours

    resolution = occupancy.resolution
    tolerance = resolution if tolerance is None else float(tolerance)
    if not (math.isfinite(tolerance) and tolerance >= 0.0):
        raise MapError(f"tolerance must be a finite number >= 0 m, got {tolerance!r}")
    occupied = np.asarray(occupancy.occupied, dtype=bool)
    if not occupied.any():
        return []
    padded = np.pad(occupied, 1).astype(np.float32)
    simplify = max(tolerance - CONTOUR_CORNER_ERROR * resolution, 0.0)
    segments: List[Segment] = []
    for contour in find_contours(padded, 0.5):
        # padded index i is cell i - 1, whose centre lies at i - 1 + 1/2 cells
        points = occupancy.to_world(contour[:, 1] - 0.5, contour[:, 0] - 0.5)
        if simplify > 0.0 and len(points) > 2:
            simplified = np.asarray(LineString(points).simplify(
                simplify, preserve_topology=False).coords)
            # a closed contour (a speck, a one-cell hole) that would collapse stays whole
            closed = np.allclose(points[0], points[-1])
            points = points if closed and len(simplified) < 4 else simplified
        for a, b in zip(points[:-1], points[1:]):
            if math.dist(a, b) > 1e-9:
                segments.append(Segment((float(a[0]), float(a[1])),
                                        (float(b[0]), float(b[1]))))
    return segments
