"""``orca-ros bench-rfunction``: the R-function voxel template against the exact formula."""

from __future__ import annotations

import argparse

from .common import COUNT, POSITIVE, refused


def add_parser(sub) -> None:
    bench_rfunction = sub.add_parser(
        "bench-rfunction", help="the R-function voxel template against the exact formula: "
                                "error, fallbacks, memory, build time, time per query")
    bench_rfunction.add_argument("--queries", type=COUNT, default=200000,
                                 help="queries uniform over the grid and beta (error)")
    bench_rfunction.add_argument("--scene-queries", type=COUNT, default=20000,
                                 help="random robot pairs (error, fallbacks, timing)")
    bench_rfunction.add_argument("--slices", type=COUNT, default=100, help="beta-slices")
    bench_rfunction.add_argument("--step", type=POSITIVE, default=0.08,
                                 help="grid step, in units of rho")
    bench_rfunction.add_argument("--extent", type=POSITIVE, default=16.0,
                                 help="grid: q_x in [-E, E/2], q_y in [0, E/2] (units of rho)")
    bench_rfunction.add_argument("--seed", type=int, default=1)
    bench_rfunction.add_argument("scenarios", nargs="*", metavar="SCENARIO.yaml",
                                 help="also run these in the world with the exact formula and "
                                      "with the template (variant orca), side by side")
    bench_rfunction.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..timing import format_rfunction_figures, rfunction_benchmark

    from ...core.errors import InputError
    from ...core.scenario.loader import load_scenario, resolve_scenario
    from ..timing import format_rfunction_world_table, rfunction_world_comparison

    try:
        for path in args.scenarios:  # read before the figures' minutes, not after
            load_scenario(resolve_scenario(path))
    except ValueError as error:
        return refused("bench-rfunction", error)
    figures = rfunction_benchmark(args.queries, args.scene_queries, args.slices, args.step,
                                  args.extent, args.seed)
    print(format_rfunction_figures(figures))
    if args.scenarios:
        try:
            rows = rfunction_world_comparison(args.scenarios, args.slices, args.step,
                                              args.extent)
        except InputError as error:
            return refused("bench-rfunction", error)
        print()
        print(format_rfunction_world_table(rows))
    return 0

