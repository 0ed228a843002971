"""A simulated 2D laser: what each robot's LaserScan reads among walls and other robots.

Rays leave the laser (at the robot's centre unless the spec's ``mount`` puts it elsewhere
on the robot), ``rays`` of them evenly round the full circle from angle 0 (the laser's
straight ahead), as a TurtleBot3's LDS scans (360 rays, 0.12-3.5 m,
5 Hz, about 1 cm of noise: :data:`LDS`). A ray's range is its first hit: a wall segment
(ray against segment, solved with 2D cross products) or another robot's disc (ray
against circle); a ray that hits nothing within ``range_max`` reads ``inf`` (REP 117:
no return). Gaussian noise of ``noise`` m is added to every hit. Everything is
vectorised over rays and obstacles; segments farther than ``range_max`` from the laser
are left out first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

import numpy as np

from ..geometry.frames import Pose2
from ..geometry.segment_index import SegmentIndex


@dataclass(frozen=True)
class LaserSpec:
    """A laser's rays (evenly over 360 degrees from straight ahead), its ranges (m), its
    scan rate (Hz), the standard deviation of its range noise (m) and its ``mount``: its
    x, y (m) and yaw (rad) on the robot (in the robot's body frame, ``base_link``: what a
    URDF's fixed joint to ``base_scan`` says; a TurtleBot3 Burger's LDS sits 32 mm behind
    its centre)."""

    rays: int = 360
    range_min: float = 0.12
    range_max: float = 3.5
    rate_hz: float = 5.0
    noise: float = 0.01
    mount: Tuple[float, float, float] = (0.0, 0.0, 0.0)

    def __post_init__(self) -> None:
        if self.rays < 1:
            raise ValueError(f"laser rays must be >= 1, got {self.rays}")
        if len(self.mount) != 3 or not all(math.isfinite(v) for v in self.mount):
            raise ValueError(f"laser mount must be [x, y, yaw], finite, got {list(self.mount)}")
        for name in ("range_min", "range_max", "rate_hz", "noise"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0.0:
                raise ValueError(f"laser {name} must be a finite number >= 0, got {value}")
        if not 0.0 <= self.range_min < self.range_max or self.rate_hz <= 0.0:
            raise ValueError(f"laser needs 0 <= range_min < range_max and rate_hz > 0, got "
                             f"{self.range_min}, {self.range_max}, {self.rate_hz}")

    @property
    def angle_increment(self) -> float:
        return 2.0 * math.pi / self.rays

    @property
    def angles(self) -> np.ndarray:
        """Every ray's angle in the body frame (rad), from 0."""
        return np.arange(self.rays) * self.angle_increment


LDS = LaserSpec()
"""A TurtleBot3's LDS-01/02: 360 rays, 0.12-3.5 m, 5 Hz, 1 cm of noise."""


def segments_within(segments: np.ndarray, origin: np.ndarray, reach: float) -> np.ndarray:
    """The segments ``(S, 2, 2)`` that come within ``reach`` (m) of ``origin``."""
    if not len(segments):
        return segments
    a, b = segments[:, 0], segments[:, 1]
    ab = b - a
    length2 = np.einsum("ij,ij->i", ab, ab)
    t = np.clip(np.einsum("ij,ij->i", origin - a, ab) / np.where(length2 > 0, length2, 1.0),
                0.0, 1.0)
    nearest = a + t[:, None] * ab
    return segments[np.linalg.norm(nearest - origin, axis=1) <= reach]


def cast(origin, heading: float, spec: LaserSpec, segments: np.ndarray,
         discs: Optional[np.ndarray] = None,
         rng: Optional[np.random.Generator] = None) -> np.ndarray:
    """The ranges (m) a laser at ``origin`` (x, y) facing ``heading`` (rad) reads:
    ``segments`` (S, 2, 2) walls, ``discs`` (D, 3) other robots as ``x, y, radius``.
    ``inf`` where a ray hits nothing within ``range_max``; noise from ``rng`` (none
    without one)."""
    origin = np.asarray(origin, dtype=float)
    angles = heading + spec.angles
    d = np.column_stack([np.cos(angles), np.sin(angles)])  # (R, 2)
    best = np.full(spec.rays, np.inf)
    near = segments_within(np.asarray(segments, dtype=float).reshape(-1, 2, 2), origin,
                           spec.range_max)
    if len(near):
        a = near[:, 0] - origin  # (S, 2), relative to the laser
        e = near[:, 1] - near[:, 0]
        denom = d[:, None, 0] * e[None, :, 1] - d[:, None, 1] * e[None, :, 0]  # d x e
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (a[None, :, 0] * e[None, :, 1] - a[None, :, 1] * e[None, :, 0]) / denom
            u = (a[None, :, 0] * d[:, None, 1] - a[None, :, 1] * d[:, None, 0]) / denom
        hit = (np.abs(denom) > 1e-12) & (t >= 0.0) & (u >= 0.0) & (u <= 1.0)
        best = np.minimum(best, np.where(hit, t, np.inf).min(axis=1))
    if discs is not None and len(discs):
        discs = np.asarray(discs, dtype=float).reshape(-1, 3)
        f = origin - discs[:, :2]  # (D, 2)
        b = d @ f.T  # (R, D): d . f
        c = np.einsum("ij,ij->i", f, f) - discs[:, 2] ** 2  # (D,)
        disc = b * b - c[None, :]
        with np.errstate(invalid="ignore"):
            t = -b - np.sqrt(disc)
        hit = (disc >= 0.0) & (t >= 0.0) & (c[None, :] > 0.0)  # not from inside a disc
        best = np.minimum(best, np.where(hit, t, np.inf).min(axis=1))
    best[best > spec.range_max] = np.inf
    if rng is not None and spec.noise > 0.0:
        finite = np.isfinite(best)
        best[finite] += rng.normal(0.0, spec.noise, int(finite.sum()))
    return best


class FleetLasers:
    """Every robot's laser in a simulated fleet: the same :class:`LaserSpec` for all,
    the scene's solid walls (``outlines``: the scenario's walls and unmapped obstacles,
    each a vertex list; a two-vertex outline is one segment) and the other robots'
    discs. Noise is reproducible from ``seed``."""

    def __init__(self, spec: LaserSpec, outlines, seed: int = 0) -> None:
        self.spec = spec
        edges = []
        for outline in outlines:
            points = [tuple(p) for p in outline]
            pairs = [(points[0], points[1])] if len(points) == 2 else \
                list(zip(points, points[1:] + points[:1]))
            edges.extend(pairs)
        self.segments = np.array(edges, dtype=float).reshape(-1, 2, 2)
        self.index = SegmentIndex(self.segments[:, 0], self.segments[:, 1])
        self.rng = np.random.default_rng(seed)

    def scan(self, positions: np.ndarray, headings: Sequence[float],
             radii: Sequence[float], k: int) -> np.ndarray:
        """Robot ``k``'s ranges, from its laser where the spec's ``mount`` puts it on the
        robot, seeing every other robot's disc."""
        discs = np.column_stack([np.asarray(positions, dtype=float)[:, :2],
                                 np.asarray(radii, dtype=float)])
        others = np.delete(discs, k, axis=0)
        heading = float(headings[k])
        mount_x, mount_y, mount_yaw = self.spec.mount
        origin = discs[k, :2] + Pose2(yaw=heading).rotate((mount_x, mount_y))
        near = self.index.near(origin, self.spec.range_max)  # a map's: from its index
        return cast(origin, heading + mount_yaw, self.spec, self.segments[near], others,
                    self.rng)
