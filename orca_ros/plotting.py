"""Pictures of runs (matplotlib, headless): trajectories, obstacles, starts, goals, collisions."""

from __future__ import annotations

import math
import pathlib
from typing import Optional, Sequence

import numpy as np

from .core.scenario import Scenario


def _figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _draw_static(ax, scenario: Scenario) -> None:
    from matplotlib.patches import Polygon as PolygonPatch

    for polygon in scenario.obstacles:
        ax.add_patch(PolygonPatch(polygon.vertices, closed=True, facecolor="0.55",
                                  edgecolor="0.2", zorder=1))
    for edge in scenario.mat_edges:  # a toio mat's edge: a wall
        ax.plot([edge.a[0], edge.b[0]], [edge.a[1], edge.b[1]], color="0.2", linewidth=1.5,
                zorder=1)
    starts = np.array([a.start for a in scenario.agents])
    goals = np.array([a.goal for a in scenario.agents])
    ax.scatter(starts[:, 0], starts[:, 1], marker="o", s=14, facecolors="none",
               edgecolors="k", linewidths=0.7, zorder=3, label="start")
    ax.scatter(goals[:, 0], goals[:, 1], marker="x", s=16, c="k", linewidths=0.8, zorder=3,
               label="goal")
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")


def plot_trajectories(scenario: Scenario, trajectory: np.ndarray, path: str | pathlib.Path,
                      title: str, collision_points: Sequence = (),
                      final_radius: bool = True) -> pathlib.Path:
    """One PNG: agent paths in per-agent colours, starts (o), goals (x), collisions in red."""
    plt = _figure()
    from matplotlib.patches import Circle

    fig, ax = plt.subplots(figsize=(7.5, 7.0), dpi=110)
    _draw_static(ax, scenario)
    n = trajectory.shape[1]
    colours = plt.get_cmap("hsv")(np.linspace(0.0, 0.92, max(n, 1)))
    width = 1.4 if n <= 12 else (0.8 if n <= 100 else 0.5)
    for i in range(n):
        xy = trajectory[:, i, :]
        ax.plot(xy[:, 0], xy[:, 1], color=colours[i], linewidth=width, zorder=2)
        if final_radius and n <= 24:
            valid = xy[~np.isnan(xy[:, 0])]
            if len(valid):
                ax.add_patch(Circle(valid[-1], scenario.agents[i].radius, fill=False,
                                    color=colours[i], linewidth=0.8, zorder=2))
    if len(collision_points):
        points = np.asarray(collision_points)
        ax.scatter(points[:, 0], points[:, 1], c="red", s=20, marker="*", zorder=4,
                   label=f"collision ({len(points)} samples)")
    ax.set_title(title, fontsize=9)
    ax.legend(loc="upper right", fontsize=7)
    ax.autoscale_view()
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def animate_trajectories(scenario: Scenario, trajectory: np.ndarray, times: np.ndarray,
                         path: str | pathlib.Path, title: str,
                         max_frames: int = 150) -> pathlib.Path:
    """An animated GIF of the discs moving (Pillow writer)."""
    plt = _figure()
    from matplotlib.animation import FuncAnimation, PillowWriter
    from matplotlib.patches import Circle

    fig, ax = plt.subplots(figsize=(6, 6), dpi=80)
    _draw_static(ax, scenario)
    finite = trajectory[np.isfinite(trajectory[..., 0])]
    pad = max(a.radius for a in scenario.agents) * 2
    ax.set_xlim(finite[:, 0].min() - pad, finite[:, 0].max() + pad)
    ax.set_ylim(finite[:, 1].min() - pad, finite[:, 1].max() + pad)
    n = trajectory.shape[1]
    colours = plt.get_cmap("hsv")(np.linspace(0.0, 0.92, max(n, 1)))
    discs = [ax.add_patch(Circle((0, 0), a.radius, color=colours[i], alpha=0.8))
             for i, a in enumerate(scenario.agents)]
    frames = np.unique(np.linspace(0, len(trajectory) - 1, min(max_frames, len(trajectory)))
                       .astype(int))

    def draw(frame: int):
        for i, disc in enumerate(discs):
            x, y = trajectory[frame, i]
            disc.set_visible(not math.isnan(x))
            if not math.isnan(x):
                disc.center = (x, y)
        ax.set_title(f"{title}  t = {times[frame]:.1f} s", fontsize=8)
        return discs

    animation = FuncAnimation(fig, draw, frames=frames, blit=False)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    animation.save(path, writer=PillowWriter(fps=15))
    plt.close(fig)
    return path


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
