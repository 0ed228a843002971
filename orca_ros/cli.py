"""The ``orca-ros`` command: conformance replay, benchmarks, and scenario runs."""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional


def _cmd_conformance(args: argparse.Namespace) -> int:
    from .core.conformance import load_cases, run_cases

    try:
        cases = load_cases(args.file)
    except (OSError, ValueError) as error:
        print(f"orca-ros conformance: {error}", file=sys.stderr)
        return 2
    reports = run_cases(cases, tolerance=args.tolerance)
    total_passed = total_failed = 0
    for category, report in reports.items():
        total_passed += report.passed
        total_failed += report.failed
        print(f"{category:<26} {report.passed:>4}/{len(report.outcomes):<4} passed   "
              f"worst error {report.worst_error:.2e} (vs float64 RVO2 {report.worst_error_f64:.2e})")
        if args.verbose:
            for outcome in report.outcomes:
                if not outcome.passed:
                    print(f"    FAIL {outcome.case_id}: error {outcome.error:.3e}, fallback "
                          f"expected {outcome.fallback_expected} used {outcome.fallback_used}")
    print(f"{total_passed} passed, {total_failed} failed")
    return 0 if total_failed == 0 and total_passed > 0 else 1


def _cmd_bench_step(args: argparse.Namespace) -> int:
    from .benchmarks import format_step_table, pyrvo, step_benchmark

    if pyrvo is None:
        print("pyrvo is not installed: RVO2 columns stay empty "
              "(pip install --no-deps pyrvo)", file=sys.stderr)
    results = step_benchmark(cases=args.cases, repeats=args.repeats, seed=args.seed)
    print(format_step_table(results))
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from .bench import bench, markdown_table
    from .core.scenario import ScenarioError
    from .core.world import WorldOptions

    try:
        options = WorldOptions(method=args.method, kinematics=args.kinematics)
        rows = bench(args.scenarios, options, json_out=args.json, plot_dir=args.plot,
                     gif=args.gif, progress=not args.no_progress)
    except (ScenarioError, ValueError, RuntimeError) as error:
        print(f"orca-ros bench: {error}", file=sys.stderr)
        return 2
    print(markdown_table(rows))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="orca-ros", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    conformance = sub.add_parser("conformance", help="replay single-step RVO2 cases (JSON Lines)")
    conformance.add_argument("file", help="cases file, e.g. test/data/rvo2_single_step.jsonl")
    conformance.add_argument("--tolerance", type=float, default=1e-3,
                             help="Euclidean velocity tolerance (default 1e-3)")
    conformance.add_argument("-v", "--verbose", action="store_true", help="list failing cases")
    conformance.set_defaults(func=_cmd_conformance)

    bench = sub.add_parser("bench", help="run scenarios in the pure-core world (no ROS)")
    bench.add_argument("scenarios", nargs="+", metavar="SCENARIO.yaml",
                       help="scenario files, or names of built-in scenarios")
    bench.add_argument("--method", default="orca", choices=["orca", "orca_strict", "rvo2"],
                       help="orca (default), orca_strict (exactly RVO2) or rvo2 (pyrvo)")
    bench.add_argument("--kinematics", default="holonomic", choices=["holonomic", "diff_drive"])
    bench.add_argument("--json", metavar="OUT", help="write one summary object per scenario")
    bench.add_argument("--plot", metavar="DIR", help="write one PNG per scenario")
    bench.add_argument("--gif", action="store_true", help="with --plot, also an animated GIF")
    bench.add_argument("--no-progress", action="store_true", help="no progress bars")
    bench.set_defaults(func=_cmd_bench)

    bench_step = sub.add_parser(
        "bench-step", help="time one compute_new_velocity call (0/5/10/20 neighbours, "
                           "10 segments) beside RVO2 through pyrvo")
    bench_step.add_argument("--cases", type=int, default=100, help="random scenes per row")
    bench_step.add_argument("--repeats", type=int, default=50, help="timed calls per scene")
    bench_step.add_argument("--seed", type=int, default=1)
    bench_step.set_defaults(func=_cmd_bench_step)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
