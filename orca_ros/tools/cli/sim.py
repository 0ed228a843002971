"""``orca-ros sim``: a scenario run through real ROS 2 nodes (fleet_sim, obstacle_server,
one orca_node per robot), its summary."""

from __future__ import annotations

import argparse
import sys
from typing import Dict, List

from .common import POSITIVE, method_choice, method_help, name_values, refused


def add_parser(sub) -> None:
    from ...core.methods import method_names
    from ...core.models.bodies import KINEMATICS

    sim = sub.add_parser("sim", help="run a scenario through real ROS 2 nodes (fleet_sim, "
                                     "obstacle_server, one orca_node per robot)")
    sim.add_argument("scenario", metavar="SCENARIO.yaml", help="scenario file or built-in name")
    sim.add_argument("--method", default="orca", choices=method_names(ros=True),
                     help=method_help(method_names(ros=True)))
    sim.add_argument("--planner", choices=["orca", "direct"],
                     help="deprecated alias: --planner direct is --method direct")
    sim.add_argument("--safety-filter", action=argparse.BooleanOptionalAction, default=None,
                     help="run the one-step safety filter behind the method, or not "
                          "(default: as the method says)")
    sim.add_argument("--kinematics", default="holonomic", choices=KINEMATICS)
    sim.add_argument("--engine", default="kinematic", choices=["kinematic", "mujoco"],
                     help="what moves fleet_sim's robots: kinematic bodies (default), or the "
                          "MuJoCo physics engine (mass, wheel slip, motor torque limits, "
                          "contacts that push; needs the 'physics' extra)")
    sim.add_argument("--robot-model", metavar="MODEL.xml", default="",
                     help="with --engine mujoco: the robots' MJCF file (default: orca_ros's "
                          "model of their type, fitted to each robot's radius)")
    sim.add_argument("--speed-factor", type=POSITIVE, default=4.0,
                     help="sim seconds per wall second (default 4)")
    sim.add_argument("--supervisor", action="store_true", help="also run the cocoon supervisor")
    sim.add_argument("--backend", default="sim", choices=["sim", "toio-sim"],
                     help="robots: fleet_sim (default), or simulated toio cubes behind "
                          "toio_bridge (diff-drive, the scenario's toio: block names the mat)")
    sim.add_argument("--unstamped", action="store_true",
                     help="cmd_vel as plain Twist (fleet_sim then times each command from its "
                          "arrival, not its stamp)")
    sim.add_argument("--odom-frame", default="shared", choices=["shared", "per_robot"],
                     help="shared: odometry in the shared frame; per_robot: each robot's "
                          "drifting odometry in its own '<robot>/odom' frame, placed by a "
                          "localization stand-in on '<robot>/amcl_pose' (as real robots)")
    sim.add_argument("--scan-obstacles", action="store_true",
                     help="fleet_sim's lasers on, and every orca_node avoids what its laser "
                          "sees that no wall or neighbour explains (the scenario's "
                          "unmapped_obstacles)")
    sim.add_argument("--preferred-velocity", default="goal", choices=["goal", "topic"],
                     help="goal: each robot drives to its goal; topic: orca_node in filter "
                          "mode, its preferred velocity from '/<robot>/cmd_vel_in'")
    sim.add_argument("--driver", choices=["none", "straight"], default=None,
                     help="with --preferred-velocity topic: who publishes cmd_vel_in; "
                          "straight (the default then): a naive driver straight at each "
                          "goal, blind to everyone; none: something else does")
    sim.add_argument("--topics", default="ros", choices=["ros", "gazebo"],
                     help="gazebo: fleet_sim under gz-sim's topic names and frames "
                          "(/model/<robot>/odometry in <robot>/odom, /model/<robot>/cmd_vel), "
                          "orca_nodes with the parameters launch/gazebo.launch.py gives them")
    sim.add_argument("--max-time", type=POSITIVE, help="stop after this many sim seconds")
    sim.add_argument("--json", metavar="OUT", help="write the summary as JSON")
    sim.add_argument("--plot", metavar="PNG", help="write a trajectory picture")
    sim.add_argument("--record", metavar="BAG.mcap",
                     help="record every topic of the run into a ROS 2 bag (MCAP; ros2 bag "
                          "info/play and Foxglove open it; orca-ros plot draws it)")
    sim.add_argument("--no-progress", action="store_true")
    sim.add_argument("--robot-param", action="append", metavar="NAME=VALUE",
                     help="an orca_node parameter for every robot (repeatable), e.g. "
                          "detect_non_reciprocating=false")
    sim.add_argument("--faults", metavar="SPEC", default="",
                     help="inject faults, reproducibly from seed=N, e.g. "
                          "'drop_odom=0.1,drop_cmd=0.1,seed=3'; keys: drop_odom=[R:]P, "
                          "drop_cmd=[R:]P, delay=[R:]S, starve=[R|all:]F, kill=R@T, "
                          "kill_supervisor@T, kill_obstacles@T, bad_obstacles=PERIOD, "
                          "foreign=R[:straight|jitter], seed=N (times in sim s; see "
                          "orca_ros/testing/faults/spec.py)")
    sim.add_argument("--observer", action=argparse.BooleanOptionalAction, default=None,
                     help="run the independent observer process beside the run and report "
                          "its verdict (default: on with --faults)")
    sim.add_argument("--stress", type=int, default=0, metavar="N",
                     help="run N busy-loop processes beside the run (safety on a machine "
                          "whose CPU is taken)")
    sim.add_argument("--hosts", action="store_true",
                     help="every robot on a host of its own: network namespaces on a bridge, "
                          "DDS over UDP, each robot's orca_node and odometry driver on its "
                          "host's clock; on wall time at real speed (needs root, iproute2, "
                          "faketime; see doc/deployment.md)")
    sim.add_argument("--clock-offsets", metavar="SPEC", default="",
                     help="with --hosts: each robot host's clock offset, NAME=S,... or a "
                          "spread S[:N] (the first N robots alternately +S and -S s)")
    sim.add_argument("--keep", metavar="DIR",
                     help="with --hosts: keep every host's log and the run's files here")
    sim.set_defaults(func=run)


HOSTS_EXCLUDE = ("stress", "record", "plot", "supervisor", "scan_obstacles", "unstamped")
"""Options ``--hosts`` does not run with (each is one process's, or in-process, work)."""


def run(args: argparse.Namespace) -> int:
    if args.hosts:
        return run_hosts(args)
    if args.clock_offsets or args.keep:
        return refused("sim", ValueError("--clock-offsets and --keep go with --hosts"))
    from ...nodes import stop

    stop.install()  # from here on a signal ends the run at its next step (progress, below)
    import json
    import pathlib

    from tqdm import tqdm

    tqdm.monitor_interval = 0  # no monitor thread: the bar updates from the run's loop
    from ...core.errors import InputError
    from ...core.scenario.loader import load_scenario, resolve_scenario
    from ...testing.faults import parse_faults, result_lines
    from ...testing.observer import motion_line, social_line
    from ...fleet.plan import FleetOptions
    from ..harness import observer_available, run_fleet
    from ..plotting import plot_trajectories, run_title

    try:
        scenario = load_scenario(resolve_scenario(args.scenario))
        robot_parameters = name_values(args.robot_param)
        if args.safety_filter is not None:
            robot_parameters += (("safety_filter", "on" if args.safety_filter else "off"),)
        options = FleetOptions(method=method_choice(args, "sim"), kinematics=args.kinematics,
                               speed_factor=args.speed_factor,
                               enable_stamped_cmd_vel=not args.unstamped,
                               supervisor=args.supervisor,
                               backend=args.backend,
                               robot_parameters=robot_parameters,
                               odom_frame=args.odom_frame, topics=args.topics,
                               preferred_velocity=args.preferred_velocity,
                               driver=args.driver or ("straight" if args.preferred_velocity
                                                      == "topic" else "none"),
                               scan_obstacles=args.scan_obstacles,
                               engine=args.engine, robot_model=args.robot_model)
        faults = parse_faults(args.faults)
        faults.check([a.name for a in scenario.agents], args.supervisor)
        if args.record and not args.record.endswith(".mcap"):
            raise ValueError(f"--record {args.record}: a bag here is one MCAP file, "
                             "its name ending in .mcap")
        if args.observer and not observer_available():
            raise ValueError("--observer: orca_ros.testing.observer is not part of this build")
    except ValueError as error:
        return refused("sim", error)
    limit = args.max_time or scenario.max_time
    with tqdm(total=round(limit, 1), unit="sim s", disable=args.no_progress, mininterval=0.5,
              bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total:.0f} sim s "
                         "[{elapsed}<{remaining}] {postfix}", desc=scenario.name) as bar:
        interrupted = []  # the sim time at which SIGINT or SIGTERM ended the run

        def progress(sim_time: float, arrived: int) -> bool:
            bar.update(sim_time - bar.n)
            bar.set_postfix_str(f"arrived {arrived}/{len(scenario.agents)}", refresh=False)
            if stop.requested() and not interrupted:
                interrupted.append(sim_time)
            return bool(interrupted)

        from ...testing.launch_run import start_hogs, stop_hogs

        hogs = start_hogs(args.stress)
        try:
            run = run_fleet(args.scenario, options, progress=progress, max_time=args.max_time,
                            faults=faults, observer=args.observer, record=args.record)
        except InputError as error:  # a node refused its parameters, a bag cannot be written
            return refused("sim", error)
        finally:
            stop_hogs(hogs)
    summary = run.summary
    if args.stress:
        summary["stress_processes"] = args.stress
    if interrupted:
        summary["interrupted"] = True
        print(f"{summary['scenario']}: interrupted at {interrupted[0]:.1f} s (sim); "
              "the summary covers the run until then")
    print(f"{summary['scenario']}: {summary['reached']}/{summary['agents']} robots arrived, "
          f"{summary['collisions']} colliding pairs, makespan "
          f"{summary['makespan'] if summary['makespan'] is not None else '-'} s (sim), "
          f"min separation {summary['min_separation']} m, wall time {summary['wall_time_s']} s"
          + (f", link crossings {summary['link_crossings']}, over-stretched links "
             f"{summary['link_overstretches']}" if "link_crossings" in summary else "")
          + (f", wall contacts {summary['wall_contacts']} (min wall gap "
             f"{summary['min_wall_gap']} m)" if "wall_contacts" in summary else ""))
    if "engine_contacts" in summary:
        print(f"  engine mujoco: {summary['engine_contacts']} pairs in contact "
              f"({summary['engine_robot_contacts']} of two robots, "
              f"{summary['engine_wall_contacts']} of a robot and a wall)"
              + (f": {', '.join(summary['engine_contact_pairs'])}"
                 if summary['engine_contact_pairs'] else ""))
        if summary.get("engine_resets"):
            from ...core.sim.physics.engine import reset_warning

            print(f"  engine mujoco: {reset_warning(summary['engine_resets'])}")
    print(f"  {motion_line(summary)} (fleet_sim)")
    print(f"  {social_line(summary)} (fleet_sim)")
    if summary.get("goals_held"):
        print(f"  {held_line(summary['goals_held'])}")
    if "faults" in summary:
        print(f"faults {summary['faults']['spec']}:")
        for line in result_lines(summary["faults"]):
            print(f"  {line}")
    if "observer" in summary:
        print(f"  {_observer_line(summary['observer'])}")
    if "other_nodes_on_domain" in summary:
        print(f"warning: nodes of another process on this ROS domain during the run (their "
              f"traffic can mix in; set ROS_DOMAIN_ID): "
              f"{', '.join(summary['other_nodes_on_domain'])}", file=sys.stderr)
    if "record" in summary:
        print(f"bag: {summary['record']['path']} ({summary['record']['messages']} messages on "
              f"{summary['record']['topics']} topics)")
    if args.json:
        pathlib.Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    if args.plot:
        path = plot_trajectories(run.scenario, run.trajectory, args.plot,
                                 run_title(summary, run.deepest_penetration)
                                 + "\n(ROS 2 nodes over DDS)",
                                 run.collision_points, times=run.frame_times)
        print(f"picture: {path}")
    return 0


def held_line(held: Dict[str, List[str]]) -> str:
    """The robots whose goals have no room (:func:`~orca_ros.fleet.runner.goals_held`),
    each with the robots that take it."""
    whose = "robot's goal has" if len(held) == 1 else "robots' goals have"
    return (f"{len(held)} {whose} no room at the safety distance (goal_held_by): "
            + ", ".join(f"{robot} ({', '.join(by)})" for robot, by in held.items()))


def _observer_line(result: dict) -> str:
    from ...testing.observer import motion_line

    if "error" in result:
        return f"observer: {result['error']}"
    separation = result.get("min_separation")
    return (f"observer: {result.get('colliding_pairs')} colliding pairs, min separation "
            f"{'-' if separation is None else round(separation, 4)} m, "
            f"{result.get('stamps_compared')} stamps compared"
            + (f" ({result['stamps_single']} with one robot)"
               if result.get("stamps_single") else "")
            + (f", {result['reached']}/{result.get('robots')} reached their goals"
               if result.get("reached") is not None else "")
            + (f", link crossings {result['link_crossings']}, over-stretched links "
               f"{result['link_overstretches']}" if result.get("max_link_stretch") is not None
               else "")
            + (f" ({result['warning']})" if "warning" in result else "")
            + (f"\n  {motion_line(result['motion_quality'])} (observer's odometry)"
               if "motion_quality" in result else ""))



def run_hosts(args: argparse.Namespace) -> int:
    """``orca-ros sim --hosts``: :func:`orca_ros.testing.hosts.run_hosts`, its summary."""
    from ...nodes import stop

    stop.install()
    import json
    import pathlib

    from ...core.errors import InputError
    from ...fleet.plan import FleetOptions
    from ...testing import hosts

    given = [f"--{name.replace('_', '-')}" for name in HOSTS_EXCLUDE if getattr(args, name)]
    if args.backend != "sim" or args.topics != "ros" or args.odom_frame != "shared" \
            or args.preferred_velocity != "goal":
        given.append("--backend/--topics/--odom-frame/--preferred-velocity other than "
                     "their defaults")
    if given:
        return refused("sim", ValueError(f"--hosts does not run with {', '.join(given)}"))
    try:
        robot_parameters = name_values(args.robot_param)
        if args.safety_filter is not None:
            robot_parameters += (("safety_filter", "on" if args.safety_filter else "off"),)
        options = FleetOptions(method=method_choice(args, "sim"), kinematics=args.kinematics,
                               robot_parameters=robot_parameters)
        summary = hosts.run_hosts(args.scenario, options, args.clock_offsets, args.max_time,
                                  keep_dir=args.keep, faults=args.faults,
                                  should_stop=stop.requested)
    except (ValueError, InputError, hosts.HostsUnavailable) as error:
        return refused("sim", error)
    print(hosts.summary_text(summary))
    if args.json:
        pathlib.Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    return 0
