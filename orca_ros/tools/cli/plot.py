"""``orca-ros plot``: the robots' paths drawn from a ROS 2 bag (MCAP)."""

from __future__ import annotations

import argparse

from .common import refused


def add_parser(sub) -> None:
    plot = sub.add_parser("plot", help="draw the robots' paths from a ROS 2 bag (MCAP): one "
                          "recorded by orca-ros sim --record, or a ros2 bag record of */odom")
    plot.add_argument("bag", metavar="BAG", help="an .mcap file, or a rosbag2 folder of them")
    plot.add_argument("--out", required=True, metavar="PNG", help="the picture")
    plot.add_argument("--gif", metavar="GIF", help="also an animation")
    plot.add_argument("--scenario", metavar="FILE",
                      help="scenario file or built-in name: obstacles, starts, goals and radii "
                           "(else the bag's /obstacles and /fleet_sim/robots, when recorded)")
    plot.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import pathlib

    from ..bag import motion_summary, read_bag
    from ...core.scenario.loader import load_scenario, resolve_scenario
    from ..plotting import animate_run, bag_radii, closest_approach, plot_run
    from ...testing.observer import motion_line

    try:
        scenario = load_scenario(resolve_scenario(args.scenario)) if args.scenario else None
        tracks = read_bag(args.bag)
    except ValueError as error:  # the scenario or the bag (BagError is an InputError)
        return refused("plot", error)
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
        print(motion_line(motion_summary(tracks, scenario)) + " (the bag's odometry)")
    print(f"picture: {args.out}")
    if args.gif:
        animate_run(args.gif, times, positions, tracks.names, radii, title, scenario,
                    tracks.segments)
        print(f"animation: {args.gif}")
    return 0

