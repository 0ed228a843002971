"""``orca-ros bench-ros``: N robots swapping on a circle through real ROS 2 nodes, in
processes as ros2 launch runs them."""

from __future__ import annotations

import argparse
import sys

from .common import COUNT, NON_NEGATIVE, POSITIVE, name_values, refused


def add_parser(sub) -> None:
    from ...core.models.bodies import KINEMATICS
    from ...fleet.plan import DEFAULT_ROBOTS_PER_PROCESS

    bench_ros = sub.add_parser(
        "bench-ros", help="N robots swapping on a circle through real ROS 2 nodes, in "
        "processes as ros2 launch runs them: arrivals, collisions (independent observer), "
        "control rate, late cycles, latency, real-time factor, messages, CPU and memory")
    bench_ros.add_argument("--robots", type=COUNT, nargs="+", default=[10, 20, 40])
    bench_ros.add_argument("--robots-per-process", type=COUNT, default=DEFAULT_ROBOTS_PER_PROCESS,
                           metavar="K", help="orca_nodes per process (1: one process per "
                           f"robot; default {DEFAULT_ROBOTS_PER_PROCESS}, as the launch files)")
    bench_ros.add_argument("--wall-limit", type=POSITIVE, default=150.0,
                           help="wall seconds per fleet size before it is stopped (default 150)")
    bench_ros.add_argument("--control-trigger", choices=("odom", "timer"), default=None,
                           help="the orca_nodes' control_trigger (default: the fleet plan's, "
                           "odom: a command as each robot's odometry arrives)")
    bench_ros.add_argument("--odom-frame", choices=("shared", "per_robot"), default="shared",
                           help="per_robot: each robot's odometry in its own frame, placed "
                                "in the shared one by its localization; shared: odometry in "
                                "the shared frame (either way the robots know each other "
                                "from /orca/states)")
    bench_ros.add_argument("--robot-param", action="append", metavar="NAME=VALUE",
                           help="an orca_node parameter for every robot (repeatable), e.g. "
                                "announce=false")
    bench_ros.add_argument("--neighbor-cell-size", type=NON_NEGATIVE, default=0.0, metavar="M",
                           help="the orca_nodes' neighbor_cell_size: neighbours' odometry "
                           "from the floor's squares of M m near each robot (default 0: "
                           "each neighbour's odom topic)")
    bench_ros.add_argument("--layout", choices=("circle", "pairs"), default="circle",
                           help="the robots swap places on a circle (default: all meet at "
                           "its centre) or in pairs spread over a floor 12 m apart (each "
                           "meets its partner only: where neighbour cells pay)")
    bench_ros.add_argument("--in-process", action="store_true",
                           help="every node in this one process instead, for --duration sim s")
    bench_ros.add_argument("--duration", type=POSITIVE, default=20.0,
                           help="sim seconds per run (--in-process)")
    bench_ros.add_argument("--speed-factor", type=POSITIVE, default=1.0)
    bench_ros.add_argument("--kinematics", default="holonomic", choices=KINEMATICS)
    bench_ros.add_argument("--engine", choices=("kinematic", "mujoco"), default="kinematic",
                           help="what moves fleet_sim's robots: kinematic bodies (default) "
                                "or the MuJoCo physics engine (the 'physics' extra)")
    bench_ros.add_argument("--callback-cpu", action="store_true",
                           help="also say where the robot processes' CPU went, callback by "
                           "callback (each process's whole life; about 1 us more a call)")
    bench_ros.add_argument("--json", default=None, help="write the rows here")
    bench_ros.add_argument("--keep", default=None, metavar="DIR",
                           help="keep the scenario, parameters files and logs here, and "
                           "the observer's tracks (tracks_<robots>.csv: every pose heard)")
    bench_ros.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json
    import pathlib

    if args.in_process:
        if args.engine != "kinematic":
            return refused("bench-ros", ValueError("--engine mujoco runs with the nodes in "
                                                   "their processes, not --in-process"))
        if args.callback_cpu:
            return refused("bench-ros", ValueError("--callback-cpu counts the robot "
                                                   "processes' callbacks, not --in-process"))
        if args.layout != "circle":
            return refused("bench-ros", ValueError("--layout pairs runs with the nodes in "
                                                   "their processes, not --in-process"))
        from ..timing import format_ros_table, ros_fleet_benchmark

        rows = ros_fleet_benchmark(args.robots, duration=args.duration,
                                   speed_factor=args.speed_factor, kinematics=args.kinematics)
        print(format_ros_table(rows))
    else:
        from ..fleet_bench import format_plan_table, plan_benchmark

        try:
            robot_parameters = name_values(args.robot_param)
        except ValueError as error:
            return refused("bench-ros", error)

        def progress(row):
            print(f"bench-ros: {row['robots']} robots, {row['robots_per_process']} per process: "
                  f"{row['arrived']}/{row['robots']} arrived, {row['colliding_pairs']} "
                  f"colliding pairs ({row['stop_reason']})", file=sys.stderr, flush=True)
            for name, tail in row.get("nonzero_exit_logs", {}).items():
                print(f"bench-ros: {name} exited with status {row['nonzero_exits'][name]}; "
                      f"the end of its log:\n{tail}", file=sys.stderr, flush=True)
            if row.get("other_nodes_on_domain"):
                others = row["other_nodes_on_domain"]
                print(f"warning: {len(others)} nodes of another run on this ROS domain "
                      f"(their traffic can mix in; set ROS_DOMAIN_ID): "
                      f"{', '.join(others[:8])}{' ...' if len(others) > 8 else ''}",
                      file=sys.stderr, flush=True)

        rows = plan_benchmark(args.robots, args.robots_per_process, args.wall_limit,
                              args.speed_factor, args.kinematics, args.keep, progress,
                              args.control_trigger, args.neighbor_cell_size,
                              args.odom_frame, robot_parameters, args.engine,
                              args.callback_cpu, layout=args.layout)
        print(format_plan_table(rows))
        if args.callback_cpu:
            from ...nodes.callback_cpu import callback_table

            for row in rows:
                print(f"\nWhere the robot processes' CPU went, {row['robots']} robots, "
                      f"{row['robots_per_process']} per process:\n")
                print(callback_table(row["callback_cpu"]))
    if args.json:
        pathlib.Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.json).write_text(json.dumps({"rows": rows}, indent=2) + "\n")
    return 0

