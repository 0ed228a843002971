"""``orca-ros bench-scaling``: world step time per agent for N agents on a circle,
beside RVO2."""

from __future__ import annotations

import argparse

from .common import COUNT


def add_parser(sub) -> None:
    bench_scaling = sub.add_parser("bench-scaling", help="world step time per agent for N "
                                                         "agents on a circle, beside RVO2")
    bench_scaling.add_argument("--agents", type=COUNT, nargs="+", default=[100, 1000, 5000])
    bench_scaling.add_argument("--steps", type=COUNT, default=30, help="timed steps per size")
    bench_scaling.add_argument("--phases", action="store_true",
                               help="also time each phase of the step (neighbour search, "
                                    "batch, preferred velocity, safety filter, method, "
                                    "tracking, ...), holonomic and diff-drive, ours only")
    bench_scaling.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..timing import format_scaling_table, scaling_benchmark

    print(format_scaling_table(scaling_benchmark(args.agents, steps=args.steps)))
    if args.phases:
        from ..phases import format_phases, world_phases

        print()
        print(format_phases([world_phases(count, args.steps, kinematics)
                             for count in args.agents
                             for kinematics in ("holonomic", "diff_drive")]))
    return 0

