"""``orca-ros bench --compare``: the peers on the same file, judged as ours is.

For every scenario, beside our row: RVO2 (``rvo2``: the reference C++ library through
pyrvo, the world's ``--method rvo2`` backend, holonomic) and navground's ORCA, HRVO and
HL (``navground``: :func:`~orca_ros.tools.peers.navground_run`, holonomic). Every row is
a bench row (:meth:`~orca_ros.core.sim.world.RunResult.summary`): the world judges its
own runs and :func:`~orca_ros.tools.peers.judge_tracks` navground's recorded tracks with
the same :class:`~orca_ros.core.sim.metrics.CollisionLedger` and the same figures, so one
contact rule applies to everyone. Both peers are optional installs: a peer that is not
installed is said, and the other rows stand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

PEERS = ("navground", "rvo2")
"""What ``--compare`` takes."""


@dataclass
class Comparison:
    """Rows to print side by side (ours first per scenario), and notes for stderr
    (a peer not installed, a peer that could not run a file)."""

    rows: List[Dict[str, object]] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)


def compare(paths: Sequence[str], ours: Sequence[Dict[str, object]], peers: Sequence[str],
            progress: bool = False, wall_limit: Optional[float] = None) -> Comparison:
    """Per scenario file in ``paths``: our row (from ``ours``, by scenario name; a file
    without one, because ours failed, is left out), then each peer's rows. A navground
    run still going after ``wall_limit`` s of wall time gives a row that says where it
    stopped (``stopped``) and no figures."""
    from ..core.scenario.loader import load_scenario, resolve_scenario
    from ..core.sim.world import WorldOptions
    from .peers import NAVGROUND_BEHAVIORS, PeerTimeout, navground_modules, navground_run
    from .scenario_bench import run_scenario

    result = Comparison()
    peers = [p for p in PEERS if p in peers]
    navground = "navground" in peers and navground_modules() is not None
    if "navground" in peers and not navground:
        result.notes.append("navground is not installed (pip install .[peers]): its rows "
                            "are left out")
    for path in paths:
        try:
            scenario = load_scenario(resolve_scenario(path))
        except ValueError:
            continue  # refused already, with its reason, by the bench
        mine = [row for row in ours if row.get("scenario") == scenario.name]
        if not mine:
            continue
        result.rows.append(mine[0])
        if "rvo2" in peers:
            try:
                run = run_scenario(path, WorldOptions(method="rvo2"), progress=progress)
            except (ImportError, ValueError, RuntimeError) as error:
                result.notes.append(f"{scenario.name}: rvo2 did not run: {error}")
            else:
                result.rows.append(run.summary())
        if navground:
            for behavior in NAVGROUND_BEHAVIORS:
                try:
                    result.rows.append(navground_run(scenario, behavior,
                                                     wall_limit).summary())
                except PeerTimeout as error:  # a row that says so: the page shows it
                    result.rows.append({"scenario": scenario.name,
                                        "method": f"navground-{behavior}",
                                        "kinematics": "holonomic", "stopped": str(error)})
                except ValueError as error:
                    result.notes.append(f"{scenario.name}: navground-{behavior} did not "
                                        f"run: {error}")
    return result


def _number(value, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def comparison_table(rows: Sequence[Dict[str, object]]) -> str:
    """One Markdown table, a line per row: arrivals, colliding pairs robot-robot and
    robot-wall, the smallest separation (negative: an overlap), makespan, SPL,
    time-outs and failures to progress, the worst retreat, turn reversals per minute,
    stalled time, mean acceleration and jerk; a run that stopped at its wall-time limit
    says so in the arrivals' cell, and has no figures."""
    from .scenario_bench import _table

    def cells(row):
        if "stopped" in row:
            return [row["scenario"], row["method"], row["kinematics"], row["stopped"]] + \
                ["-"] * 12
        return [row["scenario"], row["method"], row["kinematics"],
                f"{row['reached']}/{row['agents']}", row.get("robot_collisions", "-"),
                row.get("wall_collisions", "-"), _number(row["min_separation"], 3),
                _number(row["makespan"], 1), _number(row.get("spl"), 3),
                _number(row.get("timeouts"), 0), _number(row.get("failed_to_progress"), 0),
                _number(row.get("retreat_max_m")),
                _number(row.get("turn_reversals_per_min"), 1),
                _number(row.get("time_stalled_s"), 1),
                _number(row.get("acceleration_mean_mps2")),
                _number(row.get("jerk_mean_mps3"), 1)]

    return _table(
        ["scenario", "method", "kinematics", "reached:", "robot-robot pairs:",
         "robot-wall pairs:", "min separation m:", "makespan s:", "SPL:", "timed out:",
         "failed to progress:", "worst retreat m:", "turn reversals /min:", "stalled s:",
         "mean accel m/s²:", "mean jerk m/s³:"], rows, cells)
