"""``orca-ros bench``: run scenarios in the pure-core world and report what happened."""

from __future__ import annotations

import json
import os
import pathlib
import sys
import traceback
from typing import Dict, List, Optional, Sequence, Union

from dataclasses import dataclass, field, replace

from tqdm import tqdm

from ..core.supervisor.cocoon import config_from_scenario
from ..core.methods import world_spec
from ..core.scenario.loader import jitter_starts, load_scenario, resolve_scenario
from ..core.geometry.types import as_finite
from ..core.sim.world import RunResult, WorldOptions
from ..core.sim.world3d import create_world
from .plotting import animate_trajectories, plot_trajectories, run_title

tqdm.monitor_interval = 0  # no monitor thread: our bars update from the loop they measure


@dataclass(frozen=True)
class Runs:
    """How often each scenario runs: ``count`` runs, run ``k`` (1..count) with every
    start moved by up to ``jitter`` m in x and y (:func:`jitter_starts`, seed ``k``);
    ``full_time``: on to the scenario's ``max_time`` after all have arrived, counting
    who stands on its goal at the end."""

    count: int = 1
    jitter: float = 0.0
    full_time: bool = False

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError(f"runs must be at least 1, got {self.count}")
        as_finite(self.jitter, "start jitter", minimum=0.0)

    @property
    def repeated(self) -> bool:
        return self.count > 1 or self.jitter > 0.0


def prepare_world(path: str, options: WorldOptions, supervisor: bool = False,
                  jitter: float = 0.0, seed: int = 1):
    """The scenario at ``path`` (starts moved by up to ``jitter`` m, seed ``seed``) and its
    world, ready to run. Everything here reads input: a file or an option it cannot use
    raises ``ValueError`` (:class:`~orca_ros.core.errors.InputError` for the file)."""
    scenario = load_scenario(resolve_scenario(path))
    if jitter > 0.0:
        scenario = jitter_starts(scenario, jitter, seed)
    if supervisor:
        options = replace(options, supervisor=config_from_scenario(
            scenario.supervisor, f"{path}: supervisor",
            with_orca=world_spec(options.method).avoids))
    return scenario, create_world(scenario, options)


def run_world(scenario, world, options: WorldOptions, progress: bool = True,
              full_time: bool = False) -> RunResult:
    """Run a prepared world to its end (with a progress bar)."""
    if not progress:
        return world.run(full_time=full_time)
    with tqdm(total=round(scenario.max_time, 2), unit="sim s", leave=False,
              desc=f"{scenario.name} [{options.method}/{options.kinematics}]",
              bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total:.0f} {unit} "
                         "[{elapsed}<{remaining}]") as bar:
        def advance(sim_time: float) -> None:
            bar.update(sim_time - bar.n)

        return world.run(progress=advance, full_time=full_time)


def run_scenario(path: str, options: WorldOptions, progress: bool = True,
                 supervisor: bool = False, jitter: float = 0.0, seed: int = 1,
                 full_time: bool = False) -> RunResult:
    """One run of the scenario at ``path`` (:func:`prepare_world`, :func:`run_world`)."""
    scenario, world = prepare_world(path, options, supervisor, jitter, seed)
    return run_world(scenario, world, options, progress, full_time)


def runs_summary(rows: Sequence[Dict[str, object]]) -> str:
    """Per scenario, what its runs add up to: arrivals, colliding pairs (and runs with
    any), the smallest separation, the longest makespan, who stood on its goal at the
    end."""
    lines = []
    for name in dict.fromkeys(row["scenario"] for row in rows):
        mine = [row for row in rows if row["scenario"] == name]
        separations = [row["min_separation"] for row in mine if row["min_separation"] is not None]
        makespans = [row["makespan"] for row in mine if row["makespan"] is not None]
        line = (f"{name}: {len(mine)} runs, {sum(r['reached'] for r in mine)}/"
                f"{sum(r['agents'] for r in mine)} arrived, "
                f"{sum(r['collisions'] for r in mine)} colliding pairs in "
                f"{sum(1 for r in mine if r['collisions'])} runs")
        if separations:
            line += f", min separation {min(separations):.4f} m"
        if makespans:
            line += f", longest makespan {max(makespans):.1f} s"
        at_goal = [r["at_goal_at_end"] for r in mine if "at_goal_at_end" in r]
        if at_goal:
            line += f", {sum(at_goal)}/{sum(r['agents'] for r in mine)} on their goals at the end"
        lines.append(line)
    return "\n".join(lines)


def lag_prediction_summary(rows: Sequence[Dict[str, object]]) -> Optional[str]:
    """For toio cubes: how far from the controllers' predictions the cubes were when
    their commands acted, over all rows (the worst row's max and p99)."""
    errors = [row["lag_prediction_error"] for row in rows if row.get("lag_prediction_error")]
    if not errors:
        return None
    return (f"toio cubes, position when each command acted against the controller's "
            f"prediction: max {1000 * max(e['max'] for e in errors):.2f} mm, p99 up to "
            f"{1000 * max(e['p99'] for e in errors):.2f} mm, median up to "
            f"{1000 * max(e['median'] for e in errors):.2f} mm "
            f"({sum(e['count'] for e in errors)} predictions)")


def _row_name(row: Dict[str, object]) -> str:
    return f"{row['scenario']} run {row['run']}" if "run" in row else str(row["scenario"])


def _number(value, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _table(columns: Sequence[str], rows: Sequence[Dict[str, object]], cells) -> str:
    """A Markdown table: ``columns`` (a name ending in ``:`` is right-aligned, the colon
    dropped), a line per row of ``cells(row)``."""
    names = [c.rstrip(":") for c in columns]
    align = ["---:" if c.endswith(":") else "---" for c in columns]
    lines = ["| " + " | ".join(names) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in cells(row)) + " |" for row in rows]
    return "\n".join(lines)


def markdown_table(rows: Sequence[Dict[str, object]]) -> str:
    """A row per bench row: arrivals, pairs, separation, times, cost, links."""
    return _table(
        ["scenario", "method", "kinematics", "reached:", "colliding pairs:",
         "min separation m:", "makespan s:", "mean time s:", "path ratio:", "µs/agent-step:",
         "link crossings:", "over-stretched links:"], rows,
        lambda row: [_row_name(row), row["method"], row["kinematics"],
                     f"{row['reached']}/{row['agents']}", row["collisions"],
                     _number(row["min_separation"], 3), _number(row["makespan"], 1),
                     _number(row["mean_time_to_goal"], 1),
                     _number(row["path_length_ratio"], 3),
                     _number(row["compute_us_per_agent_step"], 1),
                     row.get("link_crossings", "-"), row.get("link_overstretches", "-")])


def motion_table(rows: Sequence[Dict[str, object]]) -> str:
    """How the robots drove, a row per bench row: its motion-quality fields
    (:func:`~orca_ros.core.sim.motion_quality.run_motion_summary`)."""
    return _table(
        ["scenario", "worst retreat m:", "robot", "pushed off its goal m:", "stops:",
         "time standing s:", "turn reversals /min:", "worst /min:",
         "steering reversals /min (median):", "worst /min:"], rows,
        lambda row: [_row_name(row), _number(row.get("retreat_max_m")),
                     row.get("retreat_robot") or "-", _number(row.get("off_goal_max_m")),
                     _number(row.get("stops"), 0), _number(row.get("time_standing_s"), 1),
                     _number(row.get("turn_reversals_per_min"), 1),
                     _number(row.get("turn_reversals_per_min_max"), 1),
                     _number(row.get("steering_reversals_per_min_median"), 1),
                     _number(row.get("steering_reversals_per_min_max"), 1)])


@dataclass(frozen=True)
class Failure:
    """A scenario run that gave no row: ``kind`` ``"refused"`` (its file or an option
    cannot be used: ``message`` says why) or ``"internal"`` (a bug: ``message`` is the
    error, ``trace`` its traceback); ``run``: its number with repeated runs; ``stage``:
    what failed (``"run"``, or ``"picture"`` for a row whose picture failed)."""

    scenario: str
    kind: str
    message: str
    run: Optional[int] = None
    trace: str = ""
    stage: str = "run"

    def row(self, options: WorldOptions) -> Dict[str, object]:
        """Its object in ``--json``: the scenario, method, kinematics and the error."""
        row: Dict[str, object] = {"scenario": self.scenario, "method": options.method,
                                  "kinematics": options.kinematics}
        if self.run is not None:
            row["run"] = self.run
        row["error"] = {"kind": self.kind, "stage": self.stage, "message": self.message}
        return row


@dataclass
class BenchResult:
    """What ``orca-ros bench`` finished, in run order: a row (dict) per run that ran, a
    :class:`Failure` per run that did not or whose picture did not."""

    outcomes: List[Union[Dict[str, object], Failure]] = field(default_factory=list)

    @property
    def rows(self) -> List[Dict[str, object]]:
        return [o for o in self.outcomes if isinstance(o, dict)]

    @property
    def failures(self) -> List[Failure]:
        return [o for o in self.outcomes if isinstance(o, Failure)]

    def json_rows(self, options: WorldOptions) -> List[Dict[str, object]]:
        """``--json``'s list: the rows, and an object in place of each run that failed."""
        return [o if isinstance(o, dict) else o.row(options) for o in self.outcomes
                if isinstance(o, dict) or o.stage == "run"]

    def report_lines(self) -> List[str]:
        """For stderr: robots whose motion figures could not be computed, each failure
        (a refusal with its reason; an internal error with what failed), and how many
        runs gave their row."""
        lines = []
        unavailable = [f"{row['scenario']}: {robot} {', '.join(sorted(figures))}"
                       for row in self.rows
                       for robot, figures in (row.get("motion_unavailable") or {}).items()]
        if unavailable:
            lines.append("orca-ros bench: motion figures not computed (their reasons are in "
                         f"--json's motion_unavailable): {'; '.join(unavailable[:10])}"
                         + (f" and {len(unavailable) - 10} more" if len(unavailable) > 10
                            else ""))
        blind = [str(row["scenario"]) for row in self.rows if row.get("unmapped_obstacles")]
        if blind:
            lines.append("orca-ros bench: obstacles on no map, which only a laser sees, in "
                         f"{', '.join(dict.fromkeys(blind))}: the world gives its robots no "
                         "laser, so they drive into them blind (their wall contacts count); "
                         "through the nodes: orca-ros sim SCENARIO --scan-obstacles")
        for failure in self.failures:
            where = failure.scenario + (f" run {failure.run}" if failure.run is not None
                                        else "")
            if failure.kind == "refused":  # a ScenarioError names its file already
                lines.append("orca-ros bench: " + ("" if failure.message.startswith(
                    failure.scenario) else where + ": ") + failure.message)
            else:
                lines.append(f"orca-ros bench: {where}: internal error in its {failure.stage} "
                             "(a bug in orca_ros, not a fault of the input; its traceback is "
                             f"above): {failure.message}")
        if self.failures:
            ran = len(self.rows) + sum(f.stage == "run" for f in self.failures)
            lines.append(f"orca-ros bench: {len(self.rows)} of {ran} runs gave their row")
        return lines


def _internal(path: str, k: Optional[int], stage: str) -> Failure:
    """The exception being handled as an internal error of ``path``'s run, its traceback
    printed now (a run of many scenarios goes on; the summary names it again)."""
    error = sys.exc_info()[1]
    trace = traceback.format_exc()
    print(trace, file=sys.stderr, end="", flush=True)
    return Failure(path, "internal", f"{type(error).__name__}: {error}", k, trace, stage)


def bench(paths: Sequence[str], options: WorldOptions, json_out: Optional[str] = None,
          plot_dir: Optional[str] = None, gif: bool = False, progress: bool = True,
          supervisor: bool = False, runs: Runs = Runs()) -> BenchResult:
    """One row per scenario, or per run of each (``runs``: its ``run`` number and the
    ``start_jitter``). A scenario whose file or options cannot be used is refused, one
    whose run raises is an internal error; either is a :class:`Failure` and the others
    go on. With ``json_out`` the file is written again after every run, so what finished
    is kept whatever comes after."""
    from ..nodes import stop

    result = BenchResult()
    jobs = [(path, k) for path in paths for k in range(1, runs.count + 1)]
    for path, k in tqdm(jobs, desc="runs" if runs.repeated else "scenarios",
                        unit="run" if runs.repeated else "scenario",
                        disable=not progress or len(jobs) < 2):
        number = k if runs.repeated else None
        try:
            scenario, world = prepare_world(path, options, supervisor, runs.jitter, k)
        except ValueError as error:  # the file or an option: refused, the others go on
            result.outcomes.append(Failure(path, "refused", str(error), number))
        else:
            try:
                run = run_world(scenario, world, options, progress, runs.full_time)
                summary = run.summary()
                if runs.repeated:
                    summary.update(run=k, start_jitter=runs.jitter)
                if run.conflicts is not None:
                    summary["conflicts"] = run.conflicts
                if scenario.unmapped_obstacles:  # only a laser sees them; the world has none
                    summary["unmapped_obstacles"] = len(scenario.unmapped_obstacles)
            except Exception:
                if stop.requested():  # a signal's KeyboardInterrupt in another guise
                    raise
                result.outcomes.append(_internal(path, number, "run"))
            else:
                result.outcomes.append(summary)
                if plot_dir:
                    try:
                        _picture(scenario, run, summary, options, plot_dir, gif, number)
                    except Exception:
                        if stop.requested():
                            raise
                        result.outcomes.append(_internal(path, number, "picture"))
        if json_out:
            _write_json(json_out, result.json_rows(options))
    return result


def _picture(scenario, run: RunResult, summary: Dict[str, object], options: WorldOptions,
             plot_dir: str, gif: bool, number: Optional[int]) -> None:
    stem = f"{scenario.name}_{options.method}_{options.kinematics}"
    if number is not None:
        stem += f"_run{number}"
    title = run_title(summary, run.deepest_penetration)
    plot_trajectories(scenario, run.trajectory, pathlib.Path(plot_dir) / f"{stem}.png",
                      title, run.collision_points, times=run.frame_times)
    if gif:
        animate_trajectories(scenario, run.trajectory, run.frame_times,
                             pathlib.Path(plot_dir) / f"{stem}.gif",
                             f"{scenario.name} [{options.method}]")


def _write_json(path: str, rows: List[Dict[str, object]]) -> None:
    """The rows so far, written whole (through a file beside it, renamed into place: a
    reader never sees half a file)."""
    target = pathlib.Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.write_text(json.dumps(rows, indent=2) + "\n")
    os.replace(partial, target)
