"""``orca-ros fault-suite``: a scenario run without faults and once per standard fault;
a Markdown table."""

from __future__ import annotations

import argparse
import sys

from .common import NON_NEGATIVE, POSITIVE, name_values, refused


def add_parser(sub) -> None:
    from ...core.models.bodies import KINEMATICS

    suite = sub.add_parser("fault-suite", help="run a scenario without faults and once per "
                                               "standard fault; a Markdown table")
    suite.add_argument("scenario", metavar="SCENARIO.yaml", help="scenario file or built-in name")
    suite.add_argument("--kinematics", default="holonomic", choices=KINEMATICS)
    suite.add_argument("--robot-param", action="append", metavar="NAME=VALUE",
                       help="an orca_node parameter for every robot (repeatable)")
    suite.add_argument("--seed", type=int, default=1, help="seed of every fault (default 1)")
    suite.add_argument("--speed-factor", type=POSITIVE, default=4.0,
                       help="sim seconds per wall second (default 4)")
    suite.add_argument("--max-time", type=POSITIVE,
                       help="stop each run after this many sim seconds")
    suite.add_argument("--kill-at", type=NON_NEGATIVE, metavar="T",
                       help="sim time of the kills (default: 40%% of the first robot's "
                            "straight-line time)")
    suite.add_argument("--observer", action=argparse.BooleanOptionalAction, default=None,
                       help="the independent observer beside every run (default: on when "
                            "orca_ros.testing.observer exists)")
    suite.add_argument("--json", metavar="OUT", help="write every run's summary as JSON")
    suite.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json
    import pathlib

    from ...core.errors import InputError
    from ...core.scenario.loader import load_scenario, resolve_scenario
    from ...testing.faults import standard_faults, suite_table
    from ...fleet.plan import FleetOptions
    from ..harness import observer_available, run_fleet

    try:
        scenario = load_scenario(resolve_scenario(args.scenario))
        robot_parameters = name_values(args.robot_param)
    except ValueError as error:
        return refused("fault-suite", error)
    observer = observer_available() if args.observer is None else args.observer
    runs = standard_faults(scenario, args.seed, args.kill_at)
    rows = []
    for k, (label, spec, supervisor) in enumerate(runs, 1):
        options = FleetOptions(kinematics=args.kinematics, speed_factor=args.speed_factor,
                               supervisor=supervisor, robot_parameters=robot_parameters)
        try:
            run = run_fleet(args.scenario, options, max_time=args.max_time, faults=spec or None,
                            observer=observer)
        except InputError as error:  # a node refused its parameters
            return refused(f"fault-suite: {label}", error)
        s = run.summary
        rows.append({"label": label, "spec": spec, "supervisor": supervisor, "summary": s})
        observed = (s.get("observer") or {}).get("colliding_pairs", "-")
        print(f"[{k}/{len(runs)}] {label}: {s['reached']}/{s['agents']} arrived, "
              f"{s['collisions']} colliding pairs (observer {observed}), makespan "
              f"{s['makespan']}, wall {s['wall_time_s']} s"
              + (f"; other nodes on this ROS domain: {', '.join(s['other_nodes_on_domain'])}"
                 if s.get("other_nodes_on_domain") else ""), file=sys.stderr, flush=True)
    print(f"{scenario.name}, {args.kinematics}, seed {args.seed}, speed factor "
          f"{args.speed_factor:g}\n")
    print(suite_table(rows))
    if args.json:
        pathlib.Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.json).write_text(json.dumps(
            {"scenario": scenario.name, "kinematics": args.kinematics, "seed": args.seed,
             "speed_factor": args.speed_factor, "runs": rows}, indent=2) + "\n")
    return 0

