"""What guidance costs on a map (``orca-ros map-segments --robot-radius``): building its
planner, once per robot size, and the way to one goal, once per goal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class GuidanceCost:
    """One robot size's planner on one map, and the way from a free place near the map's
    lower-left corner to one near its centre (``start``/``goal`` None: no such place)."""

    radius: float
    clearance: float
    planner: str  # what was built: a grid and its cells, or a roadmap and its corners
    built_s: float
    start: Optional[Tuple[float, float]] = None
    goal: Optional[Tuple[float, float]] = None
    first_s: float = 0.0  # the way's first query (once per goal)
    again_s: float = 0.0  # the same query again
    corner: Optional[Tuple[float, ...]] = None  # where the way heads first (None: no way)


def guidance_cost(occupancy, segments, radius: float) -> GuidanceCost:
    """How long guidance takes on this map for robots of ``radius`` (the default
    configuration otherwise): building its planner, and the way to one goal, twice."""
    import time

    import numpy as np
    from scipy import ndimage

    from ..core.geometry.obstacles import build_obstacle_edges
    from ..core.robot.config import ControllerConfig
    from ..core.robot.navigation_grid import NavigationGrid
    from ..core.robot.preferred_velocity import Guidance

    config = ControllerConfig(radius=radius, max_speed=1.0, pref_speed=1.0, time_step=0.1)
    edges = build_obstacle_edges(segments)
    started = time.perf_counter()
    planner = Guidance().planner(config, edges)
    built = time.perf_counter() - started
    if isinstance(planner, NavigationGrid):
        what = (f"a grid of {planner.shape[1]} x {planner.shape[0]} cells of "
                f"{planner.cell:.3f} m")
    else:
        what = f"a visibility roadmap of {len(planner.nodes)} corners"
    cost = GuidanceCost(radius, planner.clearance, what, built)
    clear = ndimage.distance_transform_edt(~occupancy.occupied) * occupancy.resolution
    rows, cols = np.nonzero(clear > 2.0 * planner.clearance)
    if len(rows) == 0:
        return cost
    places = occupancy.to_world(cols + 0.5, rows + 0.5)
    middle = places.mean(axis=0)
    goal = places[np.argmin(np.linalg.norm(places - middle, axis=1))]
    start = places[np.argmin(np.linalg.norm(places - places.min(axis=0), axis=1))]
    timings = []
    for _ in range(2):
        started = time.perf_counter()
        corner = planner.next_corner(tuple(start), tuple(goal))
        timings.append(time.perf_counter() - started)
    return GuidanceCost(radius, planner.clearance, what, built, tuple(start), tuple(goal),
                        timings[0], timings[1], None if corner is None else tuple(corner))


def format_guidance_cost(cost: GuidanceCost) -> str:
    lines = [f"guidance for robots of radius {cost.radius} m (clearance {cost.clearance} m): "
             f"{cost.planner}, built in {cost.built_s:.3f} s"]
    if cost.start is None:
        lines.append("no place on the map is two clearances from every occupied cell")
        return "\n".join(lines)
    start, goal = cost.start, cost.goal
    way = ("no way" if cost.corner is None
           else "heading for " + ", ".join(f"{v:.2f}" for v in cost.corner))
    lines.append(f"the way from ({start[0]:.2f}, {start[1]:.2f}) to ({goal[0]:.2f}, "
                 f"{goal[1]:.2f}): {cost.first_s:.3f} s the first time (once per goal), "
                 f"{1e3 * cost.again_s:.2f} ms after ({way})")
    return "\n".join(lines)
