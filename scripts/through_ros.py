"""Through ROS as in the world: each scenario run ``--runs`` times through the nodes
(``orca-ros sim``, real rclpy nodes over DDS, ``--speed-factor``) beside the world's run
with ideal timing and as through ROS (``orca-ros bench --ros-timing``), and the rows of
doc/results.md's table printed.

    python scripts/through_ros.py OUT_DIR SCENARIO... [--kinematics diff_drive]
        [--runs 5] [--speed-factor 4]

Every run writes its JSON into ``OUT_DIR`` (``world_K.json``, ``rt_K.json``,
``ros_NAME_K_I.json``); a run whose file is there already is not run again, so an
interrupted series goes on where it stopped and a finished one only prints its table.
The node runs are one after the other, on one ``ROS_DOMAIN_ID`` (``$ROS_DOMAIN_ID`` or
52): runs side by side would hear each other.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Sequence

HEADER = ("| scenario | kinematics | world: makespan, retreat | as through ROS: makespan "
          "| ROS: arrived, pairs | ROS makespans s (median) | median / as through ROS "
          "| ROS retreat m | pushed off the goal m |\n"
          "|---|---|---|---:|---|---|---:|---|---|")


def name_of(scenario: str) -> str:
    """The scenario's name as the runs' files carry it: a path's stem, or a built-in name."""
    return Path(scenario).stem


def orca_ros(*argv: str, env=None) -> None:
    subprocess.run([sys.executable, "-m", "orca_ros.tools.cli", *argv], check=True,
                   stdout=subprocess.DEVNULL, env=env)


def run(out: Path, scenarios: Sequence[str], kinematics: str, runs: int,
        speed_factor: float) -> None:
    """The world's two runs of every scenario and its ``runs`` node runs, those not done."""
    for flags, stem in (((), "world"), (("--ros-timing",), "rt")):
        path = out / f"{stem}_{kinematics}.json"
        if not path.exists():
            orca_ros("bench", *scenarios, "--kinematics", kinematics, *flags,
                     "--no-progress", "--json", str(path))
    env = dict(os.environ, ROS_DOMAIN_ID=os.environ.get("ROS_DOMAIN_ID", "52"))
    for scenario in scenarios:
        for i in range(1, runs + 1):
            path = out / f"ros_{name_of(scenario)}_{kinematics}_{i}.json"
            if not path.exists():
                orca_ros("sim", scenario, "--kinematics", kinematics, "--speed-factor",
                         str(speed_factor), "--no-progress", "--json", str(path), env=env)


def _span(values: Sequence[float], spec: str = ".2f") -> str:
    """``low-high``, or the one value where they are equal, each formatted by ``spec``."""
    low, high = format(min(values), spec), format(max(values), spec)
    return low if low == high else f"{low}-{high}"


def row(name: str, kinematics: str, world: Dict, as_ros: Dict, ros: List[Dict]) -> str:
    """One table row: the world's makespan and worst retreat with ideal timing, its
    makespan as through ROS, and over the node runs: robots arrived and colliding pairs,
    makespans (median), the median over the world's as through ROS, the worst retreat
    on the way and the farthest a robot was pushed off its goal (ranges)."""
    makespans = [r["makespan"] for r in ros]
    median = statistics.median(makespans)
    agents = {r["agents"] for r in ros}
    reached = sum(r["reached"] for r in ros)
    arrived = f"all of {agents.pop()}" if reached == sum(r["agents"] for r in ros) and \
        len(agents) == 1 else f"{reached} of {sum(r['agents'] for r in ros)}"
    spread = f"{_span(makespans, 'g')} ({median:g})"
    return (f"| {name} | {kinematics.replace('_', '-')} | {world['makespan']:g}, "
            f"{world['retreat_max_m']:.2f} | {as_ros['makespan']:g} | {arrived}, "
            f"{sum(r['collisions'] for r in ros)} | {spread} | "
            f"{median / as_ros['makespan']:.2f} | {_span([r['retreat_max_m'] for r in ros])} "
            f"| {_span([r['off_goal_max_m'] for r in ros])} |")


def table(out: Path, scenarios: Sequence[str], kinematics: str, runs: int) -> List[str]:
    """The rows of ``scenarios`` from the files in ``out``."""
    def by_name(stem: str) -> Dict[str, Dict]:
        rows = json.loads((out / f"{stem}_{kinematics}.json").read_text())
        return {r["scenario"]: r for r in rows}

    world, as_ros = by_name("world"), by_name("rt")
    lines = []
    for scenario in scenarios:
        ros = [json.loads((out / f"ros_{name_of(scenario)}_{kinematics}_{i}.json").read_text())
               for i in range(1, runs + 1)]
        name = ros[0]["scenario"]
        lines.append(row(name, kinematics, world[name], as_ros[name], ros))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("scenarios", nargs="+")
    parser.add_argument("--kinematics", default="holonomic",
                        choices=("holonomic", "diff_drive"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--speed-factor", type=float, default=4.0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        run(args.out, args.scenarios, args.kinematics, args.runs, args.speed_factor)
    except subprocess.CalledProcessError as error:
        sys.exit(f"through_ros: {' '.join(error.cmd[3:])} ended with status "
                 f"{error.returncode}")
    except KeyboardInterrupt:
        sys.exit(0)
    print(HEADER)
    print("\n".join(table(args.out, args.scenarios, args.kinematics, args.runs)))


if __name__ == "__main__":
    main()
