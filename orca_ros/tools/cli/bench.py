"""``orca-ros bench``: scenarios run in the pure-core world (no ROS), their tables."""

from __future__ import annotations

import argparse
import sys

from .common import (COUNT, NON_NEGATIVE, POSITIVE, method_choice, method_help, name_values,
                     refused, robot_overrides)


def add_parser(sub) -> None:
    from ...core.methods import method_names
    from ...core.models.bodies import WORLD_KINEMATICS

    bench = sub.add_parser("bench", help="run scenarios in the pure-core world (no ROS)")
    bench.add_argument("scenarios", nargs="+", metavar="SCENARIO.yaml",
                       help="scenario files, or names of built-in scenarios")
    bench.add_argument("--method", default="orca", choices=method_names(),
                       help=method_help(method_names()))
    bench.add_argument("--kinematics", default="holonomic",
                       choices=WORLD_KINEMATICS,
                       help="toio: simulated toio Core Cubes (command lag, wheel dead zone, "
                            "position readings in mat units), controlled as diff_drive")
    bench.add_argument("--planner", choices=["orca", "direct"],
                       help="deprecated alias: --planner direct is --method direct")
    bench.add_argument("--supervisor", action="store_true",
                       help="also run the cocoon supervisor (the scenario's supervisor: block)")
    bench.add_argument("--method-param", action="append", metavar="NAME=VALUE",
                       help="a parameter of the method (repeatable), e.g. avoid_range=250")
    bench.add_argument("--safety-filter", action=argparse.BooleanOptionalAction, default=None,
                       help="run the one-step safety filter behind the method, or not "
                            "(default: as the method says)")
    bench.add_argument("--robot-param", action="append", metavar="NAME=VALUE",
                       help="an orca_node parameter for every robot (repeatable), of those "
                            "the world's controllers take (safety_margin_ratio, "
                            "stall_detour_time, max_reverse_speed, ...; the others come from "
                            "the scenario), e.g. stall_escape_deg=0")
    bench.add_argument("--max-reverse-speed", type=float, metavar="M",
                       help="unicycles back off at up to M m/s while avoidance sends them "
                            "back (-1: their max_speed; default 0: they never reverse)")
    bench.add_argument("--ros-timing", action="store_true",
                       help="time every robot's cycle as the ROS path through fleet_sim "
                            "times it (orca-ros sim): the neighbours' states one step "
                            "old (announced after their cycles), commands valid for two steps, "
                            "fleet_sim's bodies and orca_node's perception; the world then "
                            "predicts the nodes")
    bench.add_argument("--delay", type=NON_NEGATIVE, default=0.0, metavar="S",
                       help="with --ros-timing: every odometry and cmd_vel delivery held S "
                            "s (rounded up to a time step; the neighbours' announced states "
                            "arrive two delays and a step old), as orca-ros sim --faults "
                            "delay=S holds them")
    bench.add_argument("--command-validity-periods", type=POSITIVE, metavar="K",
                       help="plan as the ROS nodes do: commands act up to K time steps, "
                            "bodies brake at their acceleration limit (default: 1 step; 2 "
                            "with --ros-timing)")
    bench.add_argument("--runs", type=COUNT, default=1, metavar="N",
                       help="run each scenario N times (run k with seed k for --jitter-starts), "
                            "and sum the runs up per scenario")
    bench.add_argument("--jitter-starts", type=NON_NEGATIVE, default=0.0, metavar="M",
                       help="move every start by up to M metres in x and y (uniformly, seeded "
                            "by the run's number): a chaotic scene's spread")
    bench.add_argument("--full-time", action="store_true",
                       help="run to the scenario's max_time even when all have arrived, and "
                            "count who stands on its goal at the end (at_goal_at_end)")
    bench.add_argument("--json", metavar="OUT",
                       help="write one summary object per scenario (per run with --runs or "
                            "--jitter-starts: with run and start_jitter)")
    bench.add_argument("--plot", metavar="DIR", help="write one PNG per scenario")
    bench.add_argument("--gif", action="store_true", help="with --plot, also an animated GIF")
    bench.add_argument("--compare", nargs="+", action="extend", choices=["navground", "rvo2"],
                       metavar="PEER",
                       help="also run the peers on each file and print their rows beside "
                            "ours in one table, judged by the same ledger and figures: "
                            "navground (its ORCA, HRVO and HL; pip install .[peers]) and/or "
                            "rvo2 (RVO2 through pyrvo, --method rvo2); holonomic, each file "
                            "once as it is")
    bench.add_argument("--compare-wall-limit", type=POSITIVE, metavar="S",
                       help="with --compare: leave out (with a note) a navground run still "
                            "going after S s of wall time (its HRVO and HL take minutes a "
                            "file at 200 robots)")
    bench.add_argument("--no-progress", action="store_true", help="no progress bars")
    bench.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..scenario_bench import (Runs, bench, lag_prediction_summary, markdown_table,
                                 motion_table, runs_summary)
    from ...core.errors import INTERNAL_ERROR, REFUSED
    from ...core.robot.settings import world_overrides
    from ...core.sim.world import WorldOptions

    try:
        controller = []
        if args.method_param:
            controller.append(("method_parameters", name_values(args.method_param,
                                                                      "--method-param")))
        if args.safety_filter is not None:
            controller.append(("safety_filter", "on" if args.safety_filter else "off"))
        controller.extend(robot_overrides(args.robot_param))
        if args.max_reverse_speed is not None:
            controller.extend(world_overrides({"max_reverse_speed": args.max_reverse_speed}))
        options = WorldOptions(method=method_choice(args, "bench"), kinematics=args.kinematics,
                               controller=tuple(controller),
                               command_validity_periods=args.command_validity_periods,
                               ros_timing=args.ros_timing, delay=args.delay)
        runs = Runs(args.runs, args.jitter_starts, args.full_time)
        if args.compare and runs.repeated:
            raise ValueError("--compare runs each file once as it is: not with --runs or "
                             "--jitter-starts")
    except ValueError as error:
        return refused("bench", error)
    # Each scenario is read, run and written on its own (scenario_bench.bench): one that
    # is refused or fails is named below, and every other row is kept.
    result = bench(args.scenarios, options, json_out=args.json, plot_dir=args.plot,
                   gif=args.gif, progress=not args.no_progress, supervisor=args.supervisor,
                   runs=runs)
    rows = result.rows
    if rows:
        print(markdown_table(rows))
        print()
        print(motion_table(rows))
        if runs.repeated:
            print(runs_summary(rows))
        lag = lag_prediction_summary(rows)
        if lag:
            print(lag)
    if args.compare:
        from ..compare import compare, comparison_table

        comparison = compare(args.scenarios, rows, args.compare, progress=not args.no_progress,
                             wall_limit=args.compare_wall_limit)
        for note in comparison.notes:
            print(f"orca-ros bench: {note}", file=sys.stderr)
        if comparison.rows:
            print()
            print(comparison_table(comparison.rows))
    for line in result.report_lines():
        print(line, file=sys.stderr)
    if any(f.kind == "internal" for f in result.failures):
        return INTERNAL_ERROR
    return REFUSED if result.failures else 0

