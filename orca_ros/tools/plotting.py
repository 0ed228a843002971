"""Pictures of runs (matplotlib, headless): paths with time marks, obstacles, starts, goals,
the closest approach and collisions; and animations.

One drawing serves every source: the pure-core world (``orca-ros bench``), a
run through ROS nodes (``orca-ros sim --plot``) and a recorded bag
(``orca-ros plot``). Each gives robot names, one time axis and positions on
it (NaN where a robot is not known), radii where known, and a scenario or
the obstacle segments a bag carried. Runs of aerial robots (positions with
three columns) are drawn from above and from two sides (:func:`plot_run_3d`).
"""

from __future__ import annotations

import math
import pathlib
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..core.scenario.loader import Scenario

Segment = Tuple[Tuple[float, float], Tuple[float, float]]
NICE_INTERVALS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0, 60.0, 120.0, 300.0,
                  600.0)
MAX_MARKS = 8  # time marks per path at most
MAX_NAMED = 12  # robots named in the legend at most


def _figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


@dataclass(frozen=True)
class Approach:
    """The closest two robots came: their indices, the time index and time, the distance
    between centres and the gap (distance minus both radii; negative: overlap)."""

    first: int
    second: int
    index: int
    time: float
    distance: float
    gap: float


def closest_approach(positions: np.ndarray, radii: Sequence[float],
                     times: np.ndarray) -> Optional[Approach]:
    """The smallest gap between any two robots at any common time (None: fewer than two
    robots ever known at once). ``positions`` is (T, N, 2), or (T, N, 3) for aerial
    robots, with NaN where unknown."""
    count = positions.shape[1] if positions.ndim == 3 else 0
    if count < 2 or len(times) == 0:
        return None
    radii = np.asarray(radii, dtype=float)
    sums = radii[:, None] + radii[None, :]
    upper = np.triu(np.ones((count, count), dtype=bool), 1)
    best: Optional[Approach] = None
    frames = max(1, min(256, 4_000_000 // (count * count)))
    for begin in range(0, len(times), frames):  # (chunk, N, N) at a time
        chunk = positions[begin:begin + frames]
        delta = chunk[:, :, None, :] - chunk[:, None, :, :]
        if delta.shape[-1] == 2:
            distance = np.hypot(delta[..., 0], delta[..., 1])
        else:
            distance = np.sqrt((delta * delta).sum(axis=-1))
        gap = np.where(upper[None] & np.isfinite(distance), distance - sums[None], np.inf)
        flat = int(np.argmin(gap))
        k, i, j = np.unravel_index(flat, gap.shape)
        if np.isfinite(gap[k, i, j]) and (best is None or gap[k, i, j] < best.gap):
            best = Approach(int(i), int(j), begin + int(k), float(times[begin + k]),
                            float(distance[k, i, j]), float(gap[k, i, j]))
    return best


def mark_interval(duration: float) -> float:
    """Seconds between time marks: the smallest round interval with at most MAX_MARKS
    marks over ``duration``."""
    for interval in NICE_INTERVALS:
        if duration / interval <= MAX_MARKS:
            return interval
    return NICE_INTERVALS[-1] * math.ceil(duration / (MAX_MARKS * NICE_INTERVALS[-1]))


def _colours(plt, count: int):
    if count <= 10:
        return plt.get_cmap("tab10")(np.arange(count))
    return plt.get_cmap("hsv")(np.linspace(0.0, 0.92, count))


def _bounds(positions: np.ndarray, scenario: Optional[Scenario], segments: Sequence[Segment],
            pad: float) -> Tuple[float, float, float, float]:
    """Where the robots were (and started and aimed), padded, with the obstacle corners
    near that (within a quarter of its span): obstacles farther out are cut off."""
    points = [positions[np.isfinite(positions[..., 0])]]
    if scenario is not None:
        points += [np.array([a.start for a in scenario.agents]),
                   np.array([a.goal for a in scenario.agents])]
    xy = np.concatenate([p.reshape(-1, 2) for p in points if p.size])
    low, high = xy.min(axis=0), xy.max(axis=0)
    corners = [np.asarray(s, dtype=float).reshape(-1, 2) for s in segments]
    if scenario is not None:
        corners += [np.asarray(p.vertices, dtype=float) for p in scenario.obstacles]
    if corners:
        corners = np.concatenate(corners)
        reach = 0.25 * float((high - low).max())
        near = np.all((corners >= low - reach) & (corners <= high + reach), axis=1)
        if near.any():
            low = np.minimum(low, corners[near].min(axis=0))
            high = np.maximum(high, corners[near].max(axis=0))
    low, high = low - pad, high + pad
    return float(low[0]), float(high[0]), float(low[1]), float(high[1])


def _draw_scene(ax, scenario: Optional[Scenario], segments: Sequence[Segment],
                firsts: np.ndarray) -> None:
    """Obstacles (scenario polygons and mat edges, or a bag's segments), starts and goals."""
    from matplotlib.patches import Polygon as PolygonPatch

    if scenario is not None:
        for polygon in scenario.obstacles:
            ax.add_patch(PolygonPatch(polygon.vertices, closed=True, facecolor="0.6",
                                      edgecolor="0.25", linewidth=0.8, zorder=1))
        for edge in scenario.mat_edges:  # a toio mat's edge: a wall
            ax.plot([edge.a[0], edge.b[0]], [edge.a[1], edge.b[1]], color="0.25",
                    linewidth=1.5, zorder=1)
        starts = np.array([a.start for a in scenario.agents])
        goals = np.array([a.goal for a in scenario.agents])
    else:
        for (ax_, ay), (bx, by) in segments:
            ax.plot([ax_, bx], [ay, by], color="0.25", linewidth=2.0, solid_capstyle="butt",
                    zorder=1)
        starts, goals = firsts, np.zeros((0, 2))
    if len(starts):
        ax.scatter(starts[:, 0], starts[:, 1], marker="o", s=16, facecolors="none",
                   edgecolors="k", linewidths=0.7, zorder=4, label="start")
    if len(goals):
        ax.scatter(goals[:, 0], goals[:, 1], marker="x", s=18, c="k", linewidths=0.8, zorder=4,
                   label="goal")


def _firsts_lasts(positions: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    firsts, lasts = [], []
    for i in range(positions.shape[1]):
        valid = positions[np.isfinite(positions[:, i, 0]), i]
        if len(valid):
            firsts.append(valid[0])
            lasts.append(valid[-1])
    return np.array(firsts).reshape(-1, 2), np.array(lasts).reshape(-1, 2)


def plot_run(path: str | pathlib.Path, times: np.ndarray, positions: np.ndarray,
             names: Sequence[str], radii: Optional[Sequence[Optional[float]]] = None,
             title: str = "", scenario: Optional[Scenario] = None,
             segments: Sequence[Segment] = (), collision_points: Sequence = (),
             final_radius: bool = True) -> pathlib.Path:
    """One PNG of a run: each robot's path in its colour with dots every few seconds
    (labelled on the first path), starts (o), goals (x), its final disc, obstacles, the
    closest approach (both discs then, and the gap) and collisions (red stars).

    ``times`` (T,), ``positions`` (T, N, 2) with NaN where a robot is unknown; ``radii``
    per robot (None or missing: unknown, the approach is then between centres)."""
    plt = _figure()
    from matplotlib.patches import Circle

    positions = np.asarray(positions, dtype=float)
    times = np.asarray(times, dtype=float)
    count = positions.shape[1]
    known = _known_radii(radii, count)
    pad = max(max(known, default=0.0) * 1.5, 0.03 * float(np.ptp(
        positions[np.isfinite(positions[..., 0])].reshape(-1, 2), axis=0).max(initial=1.0)))
    x0, x1, y0, y1 = _bounds(positions, scenario, segments, pad)
    aspect = (y1 - y0) / max(x1 - x0, 1e-9)
    width = 8.0
    height = min(max(width * aspect, 2.4), 9.0)
    fig, ax = plt.subplots(figsize=(width, height + 1.0), dpi=110, layout="constrained")
    firsts, lasts = _firsts_lasts(positions)
    _draw_scene(ax, scenario, segments, firsts)
    colours = _colours(plt, count)
    line_width = 1.5 if count <= 12 else (0.8 if count <= 100 else 0.5)
    finite_times = times[np.isfinite(times)]
    duration = float(finite_times.max() - finite_times.min()) if len(finite_times) else 0.0
    interval = mark_interval(duration) if duration > 0 else 0.0
    offsets = np.arange(interval, duration + 1e-9, interval) if interval else np.zeros(0)
    mark_indices = np.array([int(np.nanargmin(np.abs(times - finite_times.min() - offset)))
                             for offset in offsets], dtype=int)
    labelled = False
    for i in range(count):
        xy = positions[:, i, :]
        ax.plot(xy[:, 0], xy[:, 1], color=colours[i], linewidth=line_width, zorder=2,
                label=names[i] if count <= MAX_NAMED else None)
        dots = xy[mark_indices]
        dots = dots[np.isfinite(dots[:, 0])]
        if len(dots) and count <= 40:
            ax.plot(dots[:, 0], dots[:, 1], linestyle="none", marker="o", markersize=2.6,
                    markerfacecolor=colours[i], markeredgecolor="k", markeredgewidth=0.4,
                    zorder=3, label=None if labelled else f"every {interval:g} s")
            if not labelled:
                for offset, (x, y) in zip(offsets, xy[mark_indices]):
                    if math.isfinite(x):
                        ax.annotate(f"{offset:g} s", (x, y),
                                    textcoords="offset points", xytext=(3, 3), fontsize=6,
                                    color="0.15", zorder=5)
                labelled = True
        valid = xy[np.isfinite(xy[:, 0])]
        if final_radius and count <= 24 and len(valid) and known[i] > 0:
            ax.add_patch(Circle(valid[-1], known[i], fill=False, color=colours[i],
                                linewidth=0.8, zorder=2))
    approach = closest_approach(positions, known, times)
    if approach is not None:
        a, b = positions[approach.index, approach.first], positions[approach.index, approach.second]
        for who, centre in ((approach.first, a), (approach.second, b)):
            if known[who] > 0:
                ax.add_patch(Circle(centre, known[who], fill=True, facecolor=colours[who],
                                    alpha=0.25, edgecolor="k", linestyle="--", linewidth=0.8,
                                    zorder=4))
        what = "gap" if any(known) else "distance"
        value = approach.gap if any(known) else approach.distance
        ax.plot([a[0], b[0]], [a[1], b[1]], color="k", linewidth=1.0, zorder=5,
                label=f"closest approach: {what} {value:.3f} m, {names[approach.first]}–"
                      f"{names[approach.second]} at {approach.time - finite_times.min():.1f} s")
    if len(collision_points):
        points = np.asarray(collision_points)
        ax.scatter(points[:, 0], points[:, 1], c="red", s=20, marker="*", zorder=6,
                   label=f"collision ({len(points)} samples)")
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.tick_params(labelsize=8)
    if title:
        ax.set_title(title, fontsize=8.5)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=max(min(len(labels), 5), 1),
               fontsize=7, frameon=False, handlelength=1.6, columnspacing=1.2)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, bbox_inches="tight", pad_inches=0.06)
    plt.close(fig)
    return path


def _known_radii(radii: Optional[Sequence[Optional[float]]], count: int) -> List[float]:
    """Each robot's radius, 0 where it is unknown (None, NaN, or no radii at all)."""
    if radii is None:
        return [0.0] * count
    return [float(r) if r is not None and math.isfinite(r) else 0.0 for r in radii]


def animate_run(path: str | pathlib.Path, times: np.ndarray, positions: np.ndarray,
                names: Sequence[str], radii: Optional[Sequence[Optional[float]]] = None,
                title: str = "", scenario: Optional[Scenario] = None,
                segments: Sequence[Segment] = (), max_frames: int = 150,
                fps: int = 15) -> pathlib.Path:
    """An animated GIF (Pillow): discs (or dots, radius unknown) moving with fading trails."""
    plt = _figure()
    from matplotlib.animation import FuncAnimation, PillowWriter
    from matplotlib.patches import Circle

    positions = np.asarray(positions, dtype=float)
    times = np.asarray(times, dtype=float)
    count = positions.shape[1]
    known = _known_radii(radii, count)
    finite = positions[np.isfinite(positions[..., 0])].reshape(-1, 2)
    dot = 0.01 * float(np.ptp(finite, axis=0).max(initial=1.0))
    pad = max(max(known, default=0.0) * 2, dot * 3)
    x0, x1, y0, y1 = _bounds(positions, scenario, segments, pad)
    aspect = (y1 - y0) / max(x1 - x0, 1e-9)
    width = 6.0
    fig, ax = plt.subplots(figsize=(width, min(max(width * aspect, 2.2), 7.0) + 0.6), dpi=80)
    firsts, _ = _firsts_lasts(positions)
    _draw_scene(ax, scenario, segments, firsts)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.tick_params(labelsize=7)
    colours = _colours(plt, count)
    trails = [ax.plot([], [], color=colours[i], linewidth=0.8, alpha=0.6)[0]
              for i in range(count)]
    discs = [ax.add_patch(Circle((0, 0), known[i] or dot, color=colours[i], alpha=0.85))
             for i in range(count)]
    frames = np.unique(np.linspace(0, len(times) - 1, min(max_frames, len(times))).astype(int))
    start = float(np.nanmin(times)) if len(times) else 0.0
    fig.tight_layout()

    def draw(frame: int):
        for i, (disc, trail) in enumerate(zip(discs, trails)):
            x, y = positions[frame, i]
            disc.set_visible(not math.isnan(x))
            if not math.isnan(x):
                disc.center = (x, y)
            trail.set_data(positions[:frame + 1, i, 0], positions[:frame + 1, i, 1])
        ax.set_title(f"{title}  t = {times[frame] - start:.1f} s", fontsize=8)
        return discs + trails

    animation = FuncAnimation(fig, draw, frames=frames, blit=False)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    animation.save(path, writer=PillowWriter(fps=fps))
    plt.close(fig)
    return path


VIEWS_3D = (("top view", 0, 1), ("side view (from -y)", 0, 2), ("side view (from +x)", 1, 2))
"""The projections of a 3D run: title, horizontal and vertical axis (0 x, 1 y, 2 z)."""
AXIS_NAMES = "xyz"


def plot_run_3d(path: str | pathlib.Path, times: np.ndarray, positions: np.ndarray,
                names: Sequence[str], radii: Optional[Sequence[Optional[float]]] = None,
                title: str = "", starts: Optional[np.ndarray] = None,
                goals: Optional[np.ndarray] = None,
                collision_points: Sequence = ()) -> pathlib.Path:
    """One PNG of an aerial run, three panels: from above (x-y) and from two sides (x-z,
    y-z). Each robot's path in its colour with dots every few seconds, starts (o), goals
    (x), its final sphere as a circle, the closest approach in 3D (both spheres then
    and the line between them, in every panel) and collisions (red stars).

    ``positions`` (T, N, 3) with NaN where a robot is unknown."""
    plt = _figure()
    from matplotlib.patches import Circle

    positions = np.asarray(positions, dtype=float)
    times = np.asarray(times, dtype=float)
    count = positions.shape[1]
    known = _known_radii(radii, count)
    finite = positions[np.isfinite(positions[..., 0])].reshape(-1, 3)
    points = [finite] + [np.asarray(p, dtype=float).reshape(-1, 3)
                         for p in (starts, goals) if p is not None and len(p)]
    cloud = np.concatenate(points) if points else np.zeros((1, 3))
    pad = max(max(known, default=0.0) * 1.5, 0.03 * float(np.ptp(cloud, axis=0).max(initial=1.0)))
    low, high = cloud.min(axis=0) - pad, cloud.max(axis=0) + pad
    fig, axes = plt.subplots(1, 3, figsize=(15.0, 5.6), dpi=100, layout="constrained")
    colours = _colours(plt, count)
    line_width = 1.3 if count <= 12 else (0.7 if count <= 100 else 0.4)
    finite_times = times[np.isfinite(times)]
    duration = float(finite_times.max() - finite_times.min()) if len(finite_times) else 0.0
    interval = mark_interval(duration) if duration > 0 else 0.0
    offsets = np.arange(interval, duration + 1e-9, interval) if interval else np.zeros(0)
    mark_indices = np.array([int(np.nanargmin(np.abs(times - finite_times.min() - offset)))
                             for offset in offsets], dtype=int)
    approach = closest_approach(positions, known, times)
    for panel, (ax, (label, h, v)) in enumerate(zip(axes, VIEWS_3D)):
        for i in range(count):
            xy = positions[:, i, :]
            ax.plot(xy[:, h], xy[:, v], color=colours[i], linewidth=line_width, zorder=2,
                    label=names[i] if count <= MAX_NAMED and panel == 0 else None)
            dots = xy[mark_indices]
            dots = dots[np.isfinite(dots[:, 0])]
            if len(dots) and count <= 40:
                ax.plot(dots[:, h], dots[:, v], linestyle="none", marker="o", markersize=2.2,
                        markerfacecolor=colours[i], markeredgecolor="k", markeredgewidth=0.3,
                        zorder=3, label=f"every {interval:g} s" if panel == 0 and i == 0
                        else None)
            valid = xy[np.isfinite(xy[:, 0])]
            if count <= 40 and len(valid) and known[i] > 0:
                ax.add_patch(Circle((valid[-1][h], valid[-1][v]), known[i], fill=False,
                                    color=colours[i], linewidth=0.6, zorder=2))
        for what, marker, style in (("start", "o", dict(facecolors="none", edgecolors="k")),
                                    ("goal", "x", dict(c="k"))):
            where = starts if what == "start" else goals
            if where is not None and len(where):
                where = np.asarray(where, dtype=float)
                ax.scatter(where[:, h], where[:, v], marker=marker, s=12, linewidths=0.6,
                           zorder=4, label=what if panel == 0 else None, **style)
        if approach is not None:
            a = positions[approach.index, approach.first]
            b = positions[approach.index, approach.second]
            for who, centre in ((approach.first, a), (approach.second, b)):
                if known[who] > 0:
                    ax.add_patch(Circle((centre[h], centre[v]), known[who], fill=True,
                                        facecolor=colours[who], alpha=0.25, edgecolor="k",
                                        linestyle="--", linewidth=0.8, zorder=4))
            what = "gap" if any(known) else "distance"
            value = approach.gap if any(known) else approach.distance
            ax.plot([a[h], b[h]], [a[v], b[v]], color="k", linewidth=1.0, zorder=5,
                    label=(f"closest approach (3D): {what} {value:.3f} m, "
                           f"{names[approach.first]}–{names[approach.second]} at "
                           f"{approach.time - finite_times.min():.1f} s") if panel == 0
                    else None)
        if len(collision_points):
            hits = np.asarray(collision_points, dtype=float).reshape(-1, 3)
            ax.scatter(hits[:, h], hits[:, v], c="red", s=18, marker="*", zorder=6,
                       label=f"collision ({len(hits)} samples)" if panel == 0 else None)
        ax.set_xlim(low[h], high[h])
        ax.set_ylim(low[v], high[v])
        ax.set_aspect("equal")
        ax.set_xlabel(f"{AXIS_NAMES[h]} [m]")
        ax.set_ylabel(f"{AXIS_NAMES[v]} [m]")
        ax.set_title(label, fontsize=9)
        ax.tick_params(labelsize=7)
    if title:
        fig.suptitle(title, fontsize=9)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=max(min(len(labels), 6), 1),
               fontsize=7, frameon=False, handlelength=1.6, columnspacing=1.2)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, bbox_inches="tight", pad_inches=0.06)
    plt.close(fig)
    return path


def _scenario_times(scenario: Scenario, trajectory: np.ndarray,
                    times: Optional[np.ndarray]) -> np.ndarray:
    if times is not None and len(times) == len(trajectory):
        return np.asarray(times, dtype=float)
    return np.arange(len(trajectory)) * scenario.time_step


def plot_trajectories(scenario: Scenario, trajectory: np.ndarray, path: str | pathlib.Path,
                      title: str, collision_points: Sequence = (),
                      final_radius: bool = True,
                      times: Optional[np.ndarray] = None) -> pathlib.Path:
    """:func:`plot_run` for a scenario's run: ``trajectory`` (T, N, 2) in the scenario's
    agent order, ``times`` (T,) (default: one time step per row); for a 3D scenario
    (T, N, 3), :func:`plot_run_3d`."""
    if scenario.dimensions == 3:
        return plot_run_3d(path, _scenario_times(scenario, trajectory, times), trajectory,
                           [a.name for a in scenario.agents],
                           [a.radius for a in scenario.agents], title,
                           np.array([a.start for a in scenario.agents]),
                           np.array([a.goal for a in scenario.agents]), collision_points)
    return plot_run(path, _scenario_times(scenario, trajectory, times), trajectory,
                    [a.name for a in scenario.agents], [a.radius for a in scenario.agents],
                    title, scenario, collision_points=collision_points,
                    final_radius=final_radius)


def animate_trajectories(scenario: Scenario, trajectory: np.ndarray, times: np.ndarray,
                         path: str | pathlib.Path, title: str,
                         max_frames: int = 150) -> pathlib.Path:
    """:func:`animate_run` for a scenario's run (a 3D run: seen from above)."""
    if scenario.dimensions == 3:
        from dataclasses import replace

        flat = replace(scenario, dimensions=2, agents=tuple(
            replace(a, start=a.start[:2], goal=a.goal[:2],
                    waypoints=tuple(w[:2] for w in a.waypoints)) for a in scenario.agents))
        return animate_trajectories(flat, np.asarray(trajectory)[..., :2], times, path,
                                    f"{title} (from above)", max_frames)
    return animate_run(path, _scenario_times(scenario, trajectory, times), trajectory,
                       [a.name for a in scenario.agents], [a.radius for a in scenario.agents],
                       title, scenario, max_frames=max_frames)


def bag_radii(names: Sequence[str], bag_radii_by_name: Dict[str, float],
              scenario: Optional[Scenario]) -> List[Optional[float]]:
    """Each robot's radius: the scenario's agent of that name, else the bag's
    ``/fleet_sim/robots`` disc, else unknown (None)."""
    agents = {a.name: a.radius for a in scenario.agents} if scenario is not None else {}
    return [agents.get(n, bag_radii_by_name.get(n)) for n in names]


def run_title(summary: dict, deepest: Optional[float] = None) -> str:
    def fmt(value, unit=""):
        return "-" if value is None else f"{value:.1f}{unit}"

    text = (f"{summary['scenario']} · {summary['method']} · {summary['kinematics']}\n"
            f"reached {summary['reached']}/{summary['agents']} · colliding pairs "
            f"{summary['collisions']}")
    if deepest:
        text += f" (deepest {deepest:.3f} m)"
    text += f" · makespan {fmt(summary['makespan'], ' s')}"
    if summary.get("min_separation") is not None:
        text += f" · min separation {summary['min_separation']:.3f} m"
    return text
