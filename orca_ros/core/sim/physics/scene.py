"""A scenario's static world as MJCF: a floor and every solid outline as walls.

Each outline of :attr:`~orca_ros.core.scenario.loader.Scenario.solid_outlines` (polygons,
the toio mat's edges, the map's walls, the unmapped obstacles) becomes thin boxes, one
per edge, :data:`WALL_HEIGHT` tall: a polygon's edges lie inside it (their outer faces on
the polygon's outline, so a robot touches the box where it touches the polygon), a
lone segment (two vertices) is a box centred on it, :data:`SEGMENT_THICKNESS` thick.
Geoms are named ``wall<k>_<e>`` (outline ``k``, edge ``e``) so a contact names its
outline as the collision ledger does (``obstacle<k>``).

The floor has no friction of its own: MuJoCo takes the larger friction of two geoms in
contact, so a wheel grips with its tyre's friction and a caster with its own (none).
"""

from __future__ import annotations

import math
from typing import List, Sequence, Tuple

WALL_HEIGHT = 0.5  # m: above every robot's laser and body
POLYGON_EDGE_THICKNESS = 0.01  # m, inside the polygon
SEGMENT_THICKNESS = 0.002  # m, centred on the segment

WallBox = Tuple[int, int, Tuple[float, float], float, float, float]
"""``(outline, edge, centre, half_length, half_thickness, yaw)``."""


def _signed_area(points: Sequence[Tuple[float, float]]) -> float:
    return 0.5 * sum(x0 * y1 - x1 * y0
                     for (x0, y0), (x1, y1) in zip(points, list(points[1:]) + [points[0]]))


def wall_boxes(outlines: Sequence[Sequence[Tuple[float, float]]]) -> List[WallBox]:
    """The boxes of every outline's edges (module docstring); degenerate edges are left
    out."""
    boxes: List[WallBox] = []
    for k, outline in enumerate(outlines):
        points = [(float(p[0]), float(p[1])) for p in outline]
        if len(points) == 2:
            edges, inward, half = [(points[0], points[1])], 0.0, SEGMENT_THICKNESS / 2.0
        else:
            edges = list(zip(points, points[1:] + points[:1]))
            # interior on the left of each edge when counter-clockwise
            inward = 1.0 if _signed_area(points) > 0.0 else -1.0
            half = POLYGON_EDGE_THICKNESS / 2.0
        for e, ((x0, y0), (x1, y1)) in enumerate(edges):
            length = math.hypot(x1 - x0, y1 - y0)
            if length < 1e-9:
                continue
            ux, uy = (x1 - x0) / length, (y1 - y0) / length
            shift = inward * half  # along the left normal (-uy, ux)
            centre = ((x0 + x1) / 2.0 - uy * shift, (y0 + y1) / 2.0 + ux * shift)
            boxes.append((k, e, centre, length / 2.0, half, math.atan2(uy, ux)))
    return boxes


def scene_mjcf(outlines: Sequence[Sequence[Tuple[float, float]]], timestep: float) -> str:
    """The static world as an MJCF document: options (``timestep``, the implicit-fast
    integrator, which keeps stiff velocity actuators stable, and elliptic friction cones),
    the floor and the walls.

    With MuJoCo's default pyramidal cones, two diff-drive robots pressed into each other
    by their motors went unstable within a second of touching (the engine then resets
    every body to its model's origin): side by side, head on, at every radius tried, and
    in 2 of 6 menge_circle runs through the nodes. Elliptic cones (the friction cone as
    it is, not its pyramid's approximation) kept all of them stable; they cost the engine
    about twice the CPU per step with every robot's wheels on the floor."""
    if not (math.isfinite(timestep) and timestep > 0.0):
        raise ValueError(f"physics timestep must be > 0 s, got {timestep}")
    lines = ['<mujoco model="orca_scene">', '  <compiler angle="radian"/>',
             f'  <option timestep="{timestep!r}" integrator="implicitfast" '
             'cone="elliptic"/>',
             '  <worldbody>',
             '    <geom name="floor" type="plane" size="0 0 0.05" friction="0 0 0"/>']
    z = WALL_HEIGHT / 2.0
    for k, e, (cx, cy), half_length, half, yaw in wall_boxes(outlines):
        lines.append(f'    <geom name="wall{k}_{e}" type="box" size="{half_length!r} {half!r} '
                     f'{z!r}" pos="{cx!r} {cy!r} {z!r}" euler="0 0 {yaw!r}" '
                     'friction="0.5 0.005 0.0001" rgba="0.5 0.5 0.5 1"/>')
    lines += ['  </worldbody>', '</mujoco>']
    return "\n".join(lines) + "\n"
