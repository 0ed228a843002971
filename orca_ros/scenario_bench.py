"""``orca-ros bench``: run scenarios in the pure-core world and report what happened."""

from __future__ import annotations

import json
import pathlib
from typing import Dict, List, Optional, Sequence

from dataclasses import replace

from tqdm import tqdm

from .core.cocoon import config_from_scenario
from .core.methods import method_spec
from .core.scenario import load_scenario, resolve_scenario
from .core.world import RunResult, WorldOptions
from .core.world3d import create_world
from .plotting import animate_trajectories, plot_trajectories, run_title

tqdm.monitor_interval = 0  # no monitor thread: our bars update from the loop they measure


def run_scenario(path: str, options: WorldOptions, progress: bool = True,
                 supervisor: bool = False) -> RunResult:
    scenario = load_scenario(resolve_scenario(path))
    if supervisor:
        options = replace(options, supervisor=config_from_scenario(
            scenario.supervisor, f"{path}: supervisor",
            with_orca=method_spec(options.method).avoids))
    world = create_world(scenario, options)
    if not progress:
        return world.run()
    with tqdm(total=round(scenario.max_time, 2), unit="sim s", leave=False,
              desc=f"{scenario.name} [{options.method}/{options.kinematics}]",
              bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total:.0f} {unit} "
                         "[{elapsed}<{remaining}]") as bar:
        def advance(sim_time: float) -> None:
            bar.update(sim_time - bar.n)

        result = world.run(progress=advance)
    return result


def markdown_table(rows: Sequence[Dict[str, object]]) -> str:
    header = ("| scenario | method | kinematics | reached | colliding pairs | min separation m "
              "| makespan s | mean time s | path ratio | µs/agent-step | link crossings "
              "| over-stretched links |")
    lines = [header, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def num(value, digits=2):
        return "-" if value is None else f"{value:.{digits}f}"

    for row in rows:
        lines.append(
            f"| {row['scenario']} | {row['method']} | {row['kinematics']} | "
            f"{row['reached']}/{row['agents']} | {row['collisions']} | "
            f"{num(row['min_separation'], 3)} | {num(row['makespan'], 1)} | "
            f"{num(row['mean_time_to_goal'], 1)} | {num(row['path_length_ratio'], 3)} | "
            f"{num(row['compute_us_per_agent_step'], 1)} | {row.get('link_crossings', '-')} | "
            f"{row.get('link_overstretches', '-')} |")
    return "\n".join(lines)


def bench(paths: Sequence[str], options: WorldOptions, json_out: Optional[str] = None,
          plot_dir: Optional[str] = None, gif: bool = False, progress: bool = True,
          supervisor: bool = False) -> List[Dict[str, object]]:
    rows = []
    results = []
    for path in tqdm(paths, desc="scenarios", unit="scenario",
                     disable=not progress or len(paths) < 2):
        result = run_scenario(path, options, progress=progress, supervisor=supervisor)
        summary = result.summary()
        if result.conflicts is not None:
            summary["conflicts"] = result.conflicts
        rows.append(summary)
        results.append(result)
        if plot_dir:
            scenario = load_scenario(resolve_scenario(path))
            stem = f"{scenario.name}_{options.method}_{options.kinematics}"
            title = run_title(summary, result.deepest_penetration)
            plot_trajectories(scenario, result.trajectory, pathlib.Path(plot_dir) / f"{stem}.png",
                              title, result.collision_points, times=result.frame_times)
            if gif:
                animate_trajectories(scenario, result.trajectory, result.frame_times,
                                     pathlib.Path(plot_dir) / f"{stem}.gif",
                                     f"{scenario.name} [{options.method}]")
    if json_out:
        pathlib.Path(json_out).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(json_out).write_text(json.dumps(rows, indent=2) + "\n")
    return rows
