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
        options = WorldOptions(method=args.method, kinematics=args.kinematics,
                               planner=args.planner)
        rows = bench(args.scenarios, options, json_out=args.json, plot_dir=args.plot,
                     gif=args.gif, progress=not args.no_progress, supervisor=args.supervisor)
    except (ScenarioError, ValueError, RuntimeError) as error:
        print(f"orca-ros bench: {error}", file=sys.stderr)
        return 2
    print(markdown_table(rows))
    return 0


def _cmd_sim(args: argparse.Namespace) -> int:
    import json
    import pathlib

    from tqdm import tqdm

    from .core.scenario import ScenarioError, load_scenario, resolve_scenario
    from .fleet import FleetOptions, run_fleet
    from .plotting import plot_trajectories, run_title

    try:
        scenario = load_scenario(resolve_scenario(args.scenario))
        options = FleetOptions(planner=args.planner, kinematics=args.kinematics,
                               speed_factor=args.speed_factor,
                               enable_stamped_cmd_vel=args.stamped, supervisor=args.supervisor,
                               backend=args.backend)
    except (ScenarioError, ValueError) as error:
        print(f"orca-ros sim: {error}", file=sys.stderr)
        return 2
    limit = args.max_time or scenario.max_time
    with tqdm(total=round(limit, 1), unit="sim s", disable=args.no_progress, mininterval=0.5,
              bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total:.0f} sim s "
                         "[{elapsed}<{remaining}] {postfix}", desc=scenario.name) as bar:
        def progress(sim_time: float, arrived: int) -> None:
            bar.update(sim_time - bar.n)
            bar.set_postfix_str(f"arrived {arrived}/{len(scenario.agents)}", refresh=False)

        try:
            run = run_fleet(args.scenario, options, progress=progress, max_time=args.max_time)
        except (ScenarioError, ValueError, RuntimeError) as error:
            print(f"orca-ros sim: {error}", file=sys.stderr)
            return 2
    summary = run.summary
    print(f"{summary['scenario']}: {summary['reached']}/{summary['agents']} robots arrived, "
          f"{summary['collisions']} colliding pairs, makespan "
          f"{summary['makespan'] if summary['makespan'] is not None else '-'} s (sim), "
          f"min separation {summary['min_separation']} m, wall time {summary['wall_time_s']} s")
    if args.json:
        pathlib.Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    if args.plot:
        path = plot_trajectories(run.scenario, run.trajectory, args.plot,
                                 run_title(summary, run.deepest_penetration) + "\n(ROS 2 nodes over DDS)",
                                 run.collision_points)
        print(f"picture: {path}")
    return 0


def _cmd_bench_ros(args: argparse.Namespace) -> int:
    from .benchmarks import format_ros_table, ros_fleet_benchmark

    rows = ros_fleet_benchmark(args.robots, duration=args.duration,
                               speed_factor=args.speed_factor, kinematics=args.kinematics)
    print(format_ros_table(rows))
    return 0


def _cmd_bench_scaling(args: argparse.Namespace) -> int:
    from .benchmarks import format_scaling_table, scaling_benchmark

    print(format_scaling_table(scaling_benchmark(args.agents, steps=args.steps)))
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
    bench.add_argument("--planner", default="orca", choices=["orca", "direct"],
                       help="direct: straight at the goals, no avoidance")
    bench.add_argument("--supervisor", action="store_true",
                       help="also run the cocoon supervisor (the scenario's supervisor: block)")
    bench.add_argument("--json", metavar="OUT", help="write one summary object per scenario")
    bench.add_argument("--plot", metavar="DIR", help="write one PNG per scenario")
    bench.add_argument("--gif", action="store_true", help="with --plot, also an animated GIF")
    bench.add_argument("--no-progress", action="store_true", help="no progress bars")
    bench.set_defaults(func=_cmd_bench)

    sim = sub.add_parser("sim", help="run a scenario through real ROS 2 nodes (fleet_sim, "
                                     "obstacle_server, one orca_node per robot)")
    sim.add_argument("scenario", metavar="SCENARIO.yaml", help="scenario file or built-in name")
    sim.add_argument("--planner", default="orca", choices=["orca", "direct"])
    sim.add_argument("--kinematics", default="holonomic", choices=["holonomic", "diff_drive"])
    sim.add_argument("--speed-factor", type=float, default=4.0,
                     help="sim seconds per wall second (default 4)")
    sim.add_argument("--supervisor", action="store_true", help="also run the cocoon supervisor")
    sim.add_argument("--backend", default="sim", choices=["sim", "toio-sim"],
                     help="robots: fleet_sim (default), or simulated toio cubes behind "
                          "toio_bridge (diff-drive, the scenario's toio: block names the mat)")
    sim.add_argument("--stamped", action="store_true", help="cmd_vel as TwistStamped")
    sim.add_argument("--max-time", type=float, help="stop after this many sim seconds")
    sim.add_argument("--json", metavar="OUT", help="write the summary as JSON")
    sim.add_argument("--plot", metavar="PNG", help="write a trajectory picture")
    sim.add_argument("--no-progress", action="store_true")
    sim.set_defaults(func=_cmd_sim)

    bench_ros = sub.add_parser("bench-ros", help="control-loop timing of N robots through real "
                                                 "nodes in one process, on sim time")
    bench_ros.add_argument("--robots", type=int, nargs="+", default=[10, 20, 40])
    bench_ros.add_argument("--duration", type=float, default=20.0, help="sim seconds per run")
    bench_ros.add_argument("--speed-factor", type=float, default=1.0)
    bench_ros.add_argument("--kinematics", default="holonomic", choices=["holonomic", "diff_drive"])
    bench_ros.set_defaults(func=_cmd_bench_ros)

    bench_scaling = sub.add_parser("bench-scaling", help="world step time per agent for N "
                                                         "agents on a circle, beside RVO2")
    bench_scaling.add_argument("--agents", type=int, nargs="+", default=[100, 1000, 5000])
    bench_scaling.add_argument("--steps", type=int, default=30, help="timed steps per size")
    bench_scaling.set_defaults(func=_cmd_bench_scaling)

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
