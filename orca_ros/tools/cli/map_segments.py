"""``orca-ros map-segments``: a map_server map as wall segments (their count, the time
taken, an obstacles file), and the cost of guidance on it."""

from __future__ import annotations

import argparse

from .common import POSITIVE, refused


def add_parser(sub) -> None:
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
    map_segments.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import time

    import yaml

    from ...core.maps import MapError, load_map, map_segments
    from ...core.maps.occupancy import effective_tolerance

    try:
        occupancy = load_map(args.map)
    except MapError as error:
        return refused("map-segments", error)
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
        from ..map_guidance import format_guidance_cost, guidance_cost

        print(format_guidance_cost(guidance_cost(occupancy, segments, args.robot_radius)))
    return 0

