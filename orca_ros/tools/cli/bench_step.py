"""``orca-ros bench-step``: one compute_new_velocity call timed beside RVO2 (pyrvo)."""

from __future__ import annotations

import argparse
import sys

from .common import COUNT


def add_parser(sub) -> None:
    bench_step = sub.add_parser(
        "bench-step", help="time one compute_new_velocity call (0/5/10/20 neighbours, "
                           "10 segments) beside RVO2 through pyrvo")
    bench_step.add_argument("--cases", type=COUNT, default=100, help="random scenes per row")
    bench_step.add_argument("--repeats", type=COUNT, default=50, help="timed calls per scene")
    bench_step.add_argument("--seed", type=int, default=1)
    bench_step.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..timing import format_step_table, node_period_benchmark, pyrvo, step_benchmark

    if pyrvo is None:
        print("pyrvo is not installed: RVO2 columns stay empty "
              "(pip install --no-deps pyrvo)", file=sys.stderr)
    from ..peers import navground_modules

    if navground_modules() is None:
        print("navground is not installed: its columns stay empty (pip install .[peers])",
              file=sys.stderr)
    results = step_benchmark(cases=args.cases, repeats=args.repeats, seed=args.seed)
    print(format_step_table(results))
    periods = {kinematics: node_period_benchmark(100, kinematics, seed=args.seed)
               for kinematics in ("holonomic", "diff_drive")}
    print(f"\norca_node's period at 100 robots (the readings that count chosen from 99 "
          f"announced states, then the cycle; no ROS; "
          f"{periods['holonomic'][1]} neighbours perceived), median CPU µs: "
          + ", ".join(f"{kinematics} {median:.1f}" for kinematics, (median, _) in periods.items()))
    return 0

