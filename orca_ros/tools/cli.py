"""The ``orca-ros`` command: conformance replay, benchmarks, and scenario runs.

One rule for every verb's errors (:mod:`orca_ros.core.errors`): input it cannot use (a
file, an argument, a parameter a node refuses) is refused with ``orca-ros VERB:
<reason>`` and status 2; anything else raised is a bug, printed with its traceback and a
line saying so, status 70 (:func:`main`). A verb reads and checks its input first, where a
``ValueError`` is a refusal; once its work has started only an
:class:`~orca_ros.core.errors.InputError` is.
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional


def _internal_error(what: str) -> int:
    """The exception being handled, as a bug: its traceback, then ``orca-ros <what>:
    internal error ...`` on stderr; status :data:`~orca_ros.core.errors.INTERNAL_ERROR`."""
    import traceback

    from ..core.errors import INTERNAL_ERROR

    traceback.print_exc()
    print(f"orca-ros {what}: internal error: a bug in orca_ros, not a fault of the input; "
          "please report it with the traceback above", file=sys.stderr)
    return INTERNAL_ERROR


def _refused(what: str, error: BaseException) -> int:
    """Status 2 and ``orca-ros <what>: <error>`` on stderr, for a bad input.

    Unless SIGINT or SIGTERM came first: then the error is the signal's
    KeyboardInterrupt in another guise (Python 3.11 wraps one raised in a class
    body's ``__set_name__``, as matplotlib's import runs, in a RuntimeError), and
    it goes on up to :func:`main`, which ends with status 0.
    """
    from ..nodes import stop

    if stop.requested():
        raise error
    print(f"orca-ros {what}: {error}", file=sys.stderr)
    return 2


def _cmd_conformance(args: argparse.Namespace) -> int:
    from ..core.orca.conformance import load_cases, run_cases

    try:
        cases = load_cases(args.file)  # every case checked: what follows is work
    except (OSError, ValueError) as error:
        return _refused("conformance", error)
    reports = run_cases(cases, tolerance=args.tolerance)
    total_passed = total_failed = 0
    for category, report in reports.items():
        total_passed += report.passed
        total_failed += report.failed
        print(f"{category:<26} {report.passed:>4}/{len(report.outcomes):<4} passed   "
              f"worst error {report.worst_error:.2e} "
              f"(vs float64 RVO2 {report.worst_error_f64:.2e})")
        if args.verbose:
            for outcome in report.outcomes:
                if not outcome.passed:
                    print(f"    FAIL {outcome.case_id}: error {outcome.error:.3e}, fallback "
                          f"expected {outcome.fallback_expected} used {outcome.fallback_used}")
    print(f"{total_passed} passed, {total_failed} failed")
    return 0 if total_failed == 0 and total_passed > 0 else 1


def _cmd_bench_step(args: argparse.Namespace) -> int:
    from .timing import format_step_table, pyrvo, step_benchmark

    if pyrvo is None:
        print("pyrvo is not installed: RVO2 columns stay empty "
              "(pip install --no-deps pyrvo)", file=sys.stderr)
    from .peers import navground_modules

    if navground_modules() is None:
        print("navground is not installed: its columns stay empty (pip install .[peers])",
              file=sys.stderr)
    results = step_benchmark(cases=args.cases, repeats=args.repeats, seed=args.seed)
    print(format_step_table(results))
    return 0


def _cmd_bench_rfunction(args: argparse.Namespace) -> int:
    from .timing import format_rfunction_figures, rfunction_benchmark

    from ..core.errors import InputError
    from ..core.scenario.loader import load_scenario, resolve_scenario
    from .timing import format_rfunction_world_table, rfunction_world_comparison

    try:
        for path in args.scenarios:  # read before the figures' minutes, not after
            load_scenario(resolve_scenario(path))
    except ValueError as error:
        return _refused("bench-rfunction", error)
    figures = rfunction_benchmark(args.queries, args.scene_queries, args.slices, args.step,
                                  args.extent, args.seed)
    print(format_rfunction_figures(figures))
    if args.scenarios:
        try:
            rows = rfunction_world_comparison(args.scenarios, args.slices, args.step,
                                              args.extent)
        except InputError as error:
            return _refused("bench-rfunction", error)
        print()
        print(format_rfunction_world_table(rows))
    return 0


def _method(args: argparse.Namespace, command: str) -> str:
    """``--method``, or the deprecated ``--planner direct`` (the same axis)."""
    planner = getattr(args, "planner", None)
    if planner is None:
        return args.method
    print(f"orca-ros {command}: --planner is deprecated, use --method "
          f"({'--method direct' if planner == 'direct' else 'it defaults to orca'})",
          file=sys.stderr)
    return "direct" if planner == "direct" else args.method


def _cmd_bench(args: argparse.Namespace) -> int:
    from .scenario_bench import (Runs, bench, lag_prediction_summary, markdown_table,
                                 motion_table, runs_summary)
    from ..core.errors import INTERNAL_ERROR, REFUSED
    from ..core.sim.world import WorldOptions

    try:
        controller = []
        if args.method_param:
            controller.append(("method_parameters", _robot_parameters(args.method_param,
                                                                      "--method-param")))
        if args.safety_filter is not None:
            controller.append(("safety_filter", "on" if args.safety_filter else "off"))
        if args.max_reverse_speed is not None:
            controller.append(("max_reverse_speed", None if args.max_reverse_speed < 0
                               else args.max_reverse_speed))
        options = WorldOptions(method=_method(args, "bench"), kinematics=args.kinematics,
                               controller=tuple(controller),
                               command_validity_periods=args.command_validity_periods,
                               ros_timing=args.ros_timing)
        runs = Runs(args.runs, args.jitter_starts, args.full_time)
    except ValueError as error:
        return _refused("bench", error)
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
    for line in result.report_lines():
        print(line, file=sys.stderr)
    if any(f.kind == "internal" for f in result.failures):
        return INTERNAL_ERROR
    return REFUSED if result.failures else 0


def _robot_parameters(entries, option: str = "--robot-param") -> tuple:
    """``NAME=VALUE`` entries (``--robot-param``, ``--method-param``), values read as YAML."""
    import yaml

    parameters = []
    for entry in entries or []:
        name, sep, value = entry.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"{option} {entry!r} is not NAME=VALUE")
        value = yaml.safe_load(value)
        if option == "--method-param" and isinstance(value, list):
            value = tuple(value)  # method parameters are frozen dataclasses
        parameters.append((name.strip(), value))
    return tuple(parameters)


def _cmd_sim(args: argparse.Namespace) -> int:
    from ..nodes import stop

    stop.install()  # from here on a signal ends the run at its next step (progress, below)
    import json
    import pathlib

    from tqdm import tqdm

    tqdm.monitor_interval = 0  # no monitor thread: the bar updates from the run's loop
    from ..core.errors import InputError
    from ..core.scenario.loader import load_scenario, resolve_scenario
    from ..testing.faults import parse_faults, result_lines
    from ..testing.observer import motion_line
    from ..fleet.plan import FleetOptions
    from .harness import observer_available, run_fleet
    from .plotting import plot_trajectories, run_title

    try:
        scenario = load_scenario(resolve_scenario(args.scenario))
        robot_parameters = _robot_parameters(args.robot_param)
        if args.safety_filter is not None:
            robot_parameters += (("safety_filter", "on" if args.safety_filter else "off"),)
        options = FleetOptions(method=_method(args, "sim"), kinematics=args.kinematics,
                               speed_factor=args.speed_factor,
                               enable_stamped_cmd_vel=not args.unstamped,
                               supervisor=args.supervisor,
                               backend=args.backend,
                               robot_parameters=robot_parameters,
                               odom_frame=args.odom_frame, topics=args.topics,
                               preferred_velocity=args.preferred_velocity,
                               driver=args.driver or ("straight" if args.preferred_velocity
                                                      == "topic" else "none"),
                               scan_obstacles=args.scan_obstacles)
        faults = parse_faults(args.faults)
        faults.check([a.name for a in scenario.agents], args.supervisor)
        if args.record and not args.record.endswith(".mcap"):
            raise ValueError(f"--record {args.record}: a bag here is one MCAP file, "
                             "its name ending in .mcap")
        if args.observer and not observer_available():
            raise ValueError("--observer: orca_ros.testing.observer is not part of this build")
    except ValueError as error:
        return _refused("sim", error)
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

        try:
            run = run_fleet(args.scenario, options, progress=progress, max_time=args.max_time,
                            faults=faults, observer=args.observer, record=args.record)
        except InputError as error:  # a node refused its parameters, a bag cannot be written
            return _refused("sim", error)
    summary = run.summary
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
    print(f"  {motion_line(summary)} (fleet_sim)")
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


def _cmd_link_pairs(args: argparse.Namespace) -> int:
    import yaml

    from ..core.scenario.loader import resolve_scenario
    from ..core.scenario.builders import with_link_pairs

    try:
        path = resolve_scenario(args.scenario)
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        linked, added = with_link_pairs(raw, str(path), args.length_factor, args.max_length)
    except (OSError, yaml.YAMLError, ValueError) as error:  # the file, or a length option
        return _refused("link-pairs", error)
    if not added:
        print(f"{path}: no two agents start and end within a tether's length of each other; "
              f"nothing written", file=sys.stderr)
        return 1
    linked["name"] = f"{linked.get('name', path.stem)}_linked"
    with open(args.out, "w", encoding="utf-8") as out:
        yaml.safe_dump(linked, out, sort_keys=False)
    print(f"{args.out}: {path.name} with {added} linked pair{'s' if added != 1 else ''} added")
    return 0


def _cmd_map_segments(args: argparse.Namespace) -> int:
    import time

    import yaml

    from ..core.maps import MapError, load_map, map_segments
    from ..core.maps.occupancy import effective_tolerance

    try:
        occupancy = load_map(args.map)
    except MapError as error:
        return _refused("map-segments", error)
    started = time.perf_counter()
    segments = map_segments(occupancy, args.tolerance)
    took = time.perf_counter() - started
    rows, cols = occupancy.occupied.shape
    tolerance = round(effective_tolerance(occupancy.resolution, args.tolerance), 6)
    print(f"{args.map}: {cols} x {rows} cells of {occupancy.resolution} m, "
          f"{int(occupancy.occupied.sum())} occupied: {len(segments)} segments within "
          f"{tolerance} m, in {took:.3f} s")
    if args.out:
        data = {"segments": [[list(s.a), list(s.b)] for s in segments]}
        with open(args.out, "w", encoding="utf-8") as out:
            out.write(f"# walls of {args.map} (orca-ros map-segments, tolerance {tolerance} m)"
                      "\n")
            yaml.safe_dump(data, out, default_flow_style=None)
        print(f"obstacles file: {args.out} (obstacle_server's obstacles_file)")
    if args.robot_radius is not None:
        _print_guidance_cost(occupancy, segments, args.robot_radius)
    return 0


def _print_guidance_cost(occupancy, segments, radius: float) -> None:
    """How long guidance takes on this map for robots of ``radius`` (the default
    configuration otherwise): building its planner, once per robot size, and the way to
    one goal, once per goal (from a free place near the map's lower-left corner to one
    near its centre), then again."""
    import time

    import numpy as np
    from scipy import ndimage

    from ..core.geometry.obstacles import build_obstacle_edges
    from ..core.robot.config import ControllerConfig
    from ..core.robot.navigation_grid import NavigationGrid
    from ..core.robot.preferred_velocity import PreferredVelocity

    config = ControllerConfig(radius=radius, max_speed=1.0, pref_speed=1.0, time_step=0.1)
    edges = build_obstacle_edges(segments)
    started = time.perf_counter()
    planner = PreferredVelocity(config).planner(edges)
    built = time.perf_counter() - started
    if isinstance(planner, NavigationGrid):
        what = (f"a grid of {planner.shape[1]} x {planner.shape[0]} cells of "
                f"{planner.cell:.3f} m")
    else:
        what = f"a visibility roadmap of {len(planner.nodes)} corners"
    print(f"guidance for robots of radius {radius} m (clearance {planner.clearance} m): "
          f"{what}, built in {built:.3f} s")
    clear = ndimage.distance_transform_edt(~occupancy.occupied) * occupancy.resolution
    rows, cols = np.nonzero(clear > 2.0 * planner.clearance)
    if len(rows) == 0:
        print("no place on the map is two clearances from every occupied cell")
        return
    places = occupancy.to_world(cols + 0.5, rows + 0.5)
    middle = places.mean(axis=0)
    goal = places[np.argmin(np.linalg.norm(places - middle, axis=1))]
    start = places[np.argmin(np.linalg.norm(places - places.min(axis=0), axis=1))]
    timings = []
    for _ in range(2):
        started = time.perf_counter()
        corner = planner.next_corner(tuple(start), tuple(goal))
        timings.append(time.perf_counter() - started)
    way = "no way" if corner is None else "heading for " + ", ".join(f"{v:.2f}" for v in corner)
    print(f"the way from ({start[0]:.2f}, {start[1]:.2f}) to ({goal[0]:.2f}, {goal[1]:.2f}): "
          f"{timings[0]:.3f} s the first time (once per goal), {1e3 * timings[1]:.2f} ms "
          f"after ({way})")


def _cmd_plot(args: argparse.Namespace) -> int:
    import pathlib

    from .bag import read_bag
    from ..core.scenario.loader import load_scenario, resolve_scenario
    from .plotting import animate_run, bag_radii, closest_approach, plot_run
    from ..testing.observer import motion_line

    try:
        scenario = load_scenario(resolve_scenario(args.scenario)) if args.scenario else None
        tracks = read_bag(args.bag)
    except ValueError as error:  # the scenario or the bag (BagError is an InputError)
        return _refused("plot", error)
    times, positions = tracks.resampled()
    radii = bag_radii(tracks.names, tracks.radii, scenario)
    duration = float(times[-1] - times[0]) if len(times) else 0.0
    title = (f"{pathlib.Path(args.bag).name} · {len(tracks.names)} robots · {duration:.1f} s"
             + (f" · {scenario.name}" if scenario is not None else ""))
    plot_run(args.out, times, positions, tracks.names, radii, title, scenario,
             tracks.segments)
    print(f"{args.bag}: {len(tracks.names)} robots ({', '.join(tracks.names[:8])}"
          f"{', ...' if len(tracks.names) > 8 else ''}), {duration:.1f} s of odometry")
    approach = closest_approach(positions, [r or 0.0 for r in radii], times)
    if approach is not None:
        what = "gap" if all(r is not None for r in radii) else "distance between centres"
        value = approach.gap if what == "gap" else approach.distance
        print(f"closest approach: {what} {value:.4f} m, {tracks.names[approach.first]} and "
              f"{tracks.names[approach.second]} at {approach.time - times[0]:.2f} s")
    if scenario is not None:
        print(motion_line(bag_motion_summary(tracks, scenario)) + " (the bag's odometry)")
    print(f"picture: {args.out}")
    if args.gif:
        animate_run(args.gif, times, positions, tracks.names, radii, title, scenario,
                    tracks.segments)
        print(f"animation: {args.gif}")
    return 0


def bag_motion_summary(tracks, scenario) -> dict:
    """The motion-quality fields of a bag's robots that the scenario names, from each
    one's recorded odometry (turning from its direction of motion)."""
    from ..core.sim.motion_quality import RobotTrack, fleet_motion_quality, run_motion_summary

    return run_motion_summary(fleet_motion_quality(scenario, {
        name: RobotTrack(times, positions)
        for name, times, positions in zip(tracks.names, tracks.times, tracks.positions)}))


def _observer_line(result: dict) -> str:
    from ..testing.observer import motion_line

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


def _cmd_fault_suite(args: argparse.Namespace) -> int:
    import json
    import pathlib

    from ..core.errors import InputError
    from ..core.scenario.loader import load_scenario, resolve_scenario
    from ..testing.faults import standard_faults, suite_table
    from ..fleet.plan import FleetOptions
    from .harness import observer_available, run_fleet

    try:
        scenario = load_scenario(resolve_scenario(args.scenario))
        robot_parameters = _robot_parameters(args.robot_param)
    except ValueError as error:
        return _refused("fault-suite", error)
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
            return _refused(f"fault-suite: {label}", error)
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


def _cmd_bench_ros(args: argparse.Namespace) -> int:
    import json
    import pathlib

    if args.in_process:
        from .timing import format_ros_table, ros_fleet_benchmark

        rows = ros_fleet_benchmark(args.robots, duration=args.duration,
                                   speed_factor=args.speed_factor, kinematics=args.kinematics)
        print(format_ros_table(rows))
    else:
        from .fleet_bench import format_plan_table, plan_benchmark

        try:
            robot_parameters = _robot_parameters(args.robot_param)
        except ValueError as error:
            return _refused("bench-ros", error)

        def progress(row):
            print(f"bench-ros: {row['robots']} robots, {row['robots_per_process']} per process: "
                  f"{row['arrived']}/{row['robots']} arrived, {row['colliding_pairs']} "
                  f"colliding pairs ({row['stop_reason']})", file=sys.stderr, flush=True)

        rows = plan_benchmark(args.robots, args.robots_per_process, args.wall_limit,
                              args.speed_factor, args.kinematics, args.keep, progress,
                              args.control_trigger, args.neighbor_cell_size,
                              args.odom_frame, robot_parameters)
        print(format_plan_table(rows))
    if args.json:
        pathlib.Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.json).write_text(json.dumps({"rows": rows}, indent=2) + "\n")
    return 0


def _cmd_bench_scaling(args: argparse.Namespace) -> int:
    from .timing import format_scaling_table, scaling_benchmark

    print(format_scaling_table(scaling_benchmark(args.agents, steps=args.steps)))
    return 0


def _number_type(kind, minimum: float, above: bool = False):
    """An argparse type: a finite ``kind`` at least ``minimum`` (above it with ``above``);
    anything else is refused by argparse with the reason (status 2)."""
    def parse(text: str):
        import math

        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'a whole number' if kind is int else 'a number'}") from None
        if not math.isfinite(value) or value < minimum or (above and value == minimum):
            raise argparse.ArgumentTypeError(f"{text} is not {'>' if above else '>='} "
                                             f"{minimum:g}")
        return value
    return parse


COUNT = _number_type(int, 1)
POSITIVE = _number_type(float, 0.0, above=True)
NON_NEGATIVE = _number_type(float, 0.0)


def _method_help(names) -> str:
    from ..core.methods import method_summary

    return "avoidance method (default orca): " + "; ".join(
        f"{name}: {method_summary(name)}" for name in names)


def build_parser() -> argparse.ArgumentParser:
    from ..core.models.bodies import KINEMATICS, WORLD_KINEMATICS
    from ..core.methods import method_names
    from ..fleet.plan import DEFAULT_ROBOTS_PER_PROCESS

    parser = argparse.ArgumentParser(prog="orca-ros", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    conformance = sub.add_parser("conformance", help="replay single-step RVO2 (2D) or RVO2-3D "
                                                     "cases (JSON Lines)")
    conformance.add_argument("file", help="cases file, e.g. test/data/rvo2_single_step.jsonl")
    conformance.add_argument("--tolerance", type=POSITIVE, default=1e-3,
                             help="Euclidean velocity tolerance (default 1e-3)")
    conformance.add_argument("-v", "--verbose", action="store_true", help="list failing cases")
    conformance.set_defaults(func=_cmd_conformance)

    bench = sub.add_parser("bench", help="run scenarios in the pure-core world (no ROS)")
    bench.add_argument("scenarios", nargs="+", metavar="SCENARIO.yaml",
                       help="scenario files, or names of built-in scenarios")
    bench.add_argument("--method", default="orca", choices=method_names(),
                       help=_method_help(method_names()))
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
    bench.add_argument("--max-reverse-speed", type=float, metavar="M",
                       help="unicycles back off at up to M m/s while avoidance sends them "
                            "back (-1: their max_speed; default 0: they never reverse)")
    bench.add_argument("--ros-timing", action="store_true",
                       help="time every robot's cycle as the ROS path through fleet_sim "
                            "times it (orca-ros sim): the neighbours' odometry published "
                            "after its own one step old, commands valid for two steps, "
                            "fleet_sim's bodies and orca_node's perception; the world then "
                            "predicts the nodes")
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
    bench.add_argument("--no-progress", action="store_true", help="no progress bars")
    bench.set_defaults(func=_cmd_bench)

    sim = sub.add_parser("sim", help="run a scenario through real ROS 2 nodes (fleet_sim, "
                                     "obstacle_server, one orca_node per robot)")
    sim.add_argument("scenario", metavar="SCENARIO.yaml", help="scenario file or built-in name")
    sim.add_argument("--method", default="orca", choices=method_names(ros=True),
                     help=_method_help(method_names(ros=True)))
    sim.add_argument("--planner", choices=["orca", "direct"],
                     help="deprecated alias: --planner direct is --method direct")
    sim.add_argument("--safety-filter", action=argparse.BooleanOptionalAction, default=None,
                     help="run the one-step safety filter behind the method, or not "
                          "(default: as the method says)")
    sim.add_argument("--kinematics", default="holonomic", choices=KINEMATICS)
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
    sim.set_defaults(func=_cmd_sim)

    link_pairs = sub.add_parser(
        "link-pairs", help="write a scenario with tethers added between agents whose starts and "
                           "goals are both within the tether's length (closest pairs first)")
    link_pairs.add_argument("scenario", metavar="SCENARIO.yaml",
                            help="scenario file or built-in name")
    link_pairs.add_argument("--out", "-o", required=True, metavar="OUT.yaml",
                            help="the linked scenario")
    length = link_pairs.add_mutually_exclusive_group()
    length.add_argument("--length-factor", type=POSITIVE, default=3.0, metavar="F",
                        help="each tether's max_length: F times its pair's combined radius "
                             "(default 3)")
    length.add_argument("--max-length", type=POSITIVE, default=None, metavar="M",
                        help="one max_length for every tether (m)")
    link_pairs.set_defaults(func=_cmd_link_pairs)

    map_segments = sub.add_parser(
        "map-segments", help="a map_server map (YAML and image) as wall segments: their "
                             "count and the time taken, and an obstacles file")
    map_segments.add_argument("map", metavar="MAP.yaml", help="a map_server YAML file")
    map_segments.add_argument("--tolerance", type=POSITIVE, default=None, metavar="M",
                              help="how far (m) the segments may stray from the occupied "
                                   "cells' boundary (default: one cell)")
    map_segments.add_argument("--out", metavar="OBSTACLES.yaml",
                              help="write the segments as an obstacles file")
    map_segments.add_argument("--robot-radius", type=POSITIVE, default=None, metavar="M",
                              help="also time guidance on the map for robots of this radius "
                                   "(once per robot size, and once per goal)")
    map_segments.set_defaults(func=_cmd_map_segments)

    plot = sub.add_parser("plot", help="draw the robots' paths from a ROS 2 bag (MCAP): one "
                          "recorded by orca-ros sim --record, or a ros2 bag record of */odom")
    plot.add_argument("bag", metavar="BAG", help="an .mcap file, or a rosbag2 folder of them")
    plot.add_argument("--out", required=True, metavar="PNG", help="the picture")
    plot.add_argument("--gif", metavar="GIF", help="also an animation")
    plot.add_argument("--scenario", metavar="FILE",
                      help="scenario file or built-in name: obstacles, starts, goals and radii "
                           "(else the bag's /obstacles and /fleet_sim/robots, when recorded)")
    plot.set_defaults(func=_cmd_plot)

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
    suite.set_defaults(func=_cmd_fault_suite)

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
    bench_ros.add_argument("--in-process", action="store_true",
                           help="every node in this one process instead, for --duration sim s")
    bench_ros.add_argument("--duration", type=POSITIVE, default=20.0,
                           help="sim seconds per run (--in-process)")
    bench_ros.add_argument("--speed-factor", type=POSITIVE, default=1.0)
    bench_ros.add_argument("--kinematics", default="holonomic", choices=KINEMATICS)
    bench_ros.add_argument("--json", default=None, help="write the rows here")
    bench_ros.add_argument("--keep", default=None, metavar="DIR",
                           help="keep the scenario, parameters files and logs here")
    bench_ros.set_defaults(func=_cmd_bench_ros)

    bench_scaling = sub.add_parser("bench-scaling", help="world step time per agent for N "
                                                         "agents on a circle, beside RVO2")
    bench_scaling.add_argument("--agents", type=COUNT, nargs="+", default=[100, 1000, 5000])
    bench_scaling.add_argument("--steps", type=COUNT, default=30, help="timed steps per size")
    bench_scaling.set_defaults(func=_cmd_bench_scaling)

    bench_step = sub.add_parser(
        "bench-step", help="time one compute_new_velocity call (0/5/10/20 neighbours, "
                           "10 segments) beside RVO2 through pyrvo")
    bench_step.add_argument("--cases", type=COUNT, default=100, help="random scenes per row")
    bench_step.add_argument("--repeats", type=COUNT, default=50, help="timed calls per scene")
    bench_step.add_argument("--seed", type=int, default=1)
    bench_step.set_defaults(func=_cmd_bench_step)

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
    bench_rfunction.set_defaults(func=_cmd_bench_rfunction)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """``orca-ros``. Status 0 when the verb did its work, 2 for refused input, 70 for an
    internal error (a bug: its traceback is printed), 1 where a verb says its result
    failed (``conformance``'s failing cases). SIGINT or SIGTERM at any moment ends it
    with status 0 (see orca_ros.nodes.stop); ``sim`` then ends its run in order and
    still reports it."""
    from ..nodes import stop

    previous = stop.install(interrupt=True)
    try:
        args = None
        try:
            args = build_parser().parse_args(argv)
            status = args.func(args)
        except SystemExit:  # argparse's refusal of the arguments (status 2), or --help
            raise
        except BaseException as error:  # after a signal: the KeyboardInterrupt, or what it broke
            if stop.requested():
                print("orca-ros: interrupted", file=sys.stderr)
                status = 0
            elif isinstance(error, Exception):  # not refused by the verb: a bug
                status = _internal_error(args.command if args is not None else "")
            else:
                raise
        interrupted = stop.requested()
    finally:
        if argv is None:  # the orca-ros command: it ends now, a second Ctrl-C must not kill it
            stop.ignore()
        else:  # called from Python (tests): give the signals back
            stop.restore(previous)
    if interrupted and argv is None:
        stop.leave(status)  # its work is wound down; Python's teardown is not needed
    return status


if __name__ == "__main__":
    sys.exit(main())
