"""``orca-ros bench-start``: what an orca_node process costs to start, beside rclpy's floor."""

from __future__ import annotations

import argparse

from .common import COUNT, refused


def add_parser(sub) -> None:
    bench_start = sub.add_parser(
        "bench-start", help="CPU time and peak memory of a process that starts one orca_node, "
                            "beside an empty rclpy node and rclpy with orca_node's messages")
    bench_start.add_argument("--runs", type=COUNT, default=9, help="measured runs per program")
    bench_start.add_argument("--programs", nargs="+", default=None, metavar="NAME",
                             help="which of empty, floor, orca_node (default: all)")
    bench_start.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..start_cost import PROGRAMS, format_table, measure

    try:
        costs = measure(args.programs or tuple(PROGRAMS), runs=args.runs)
    except ValueError as error:
        return refused("bench-start", error)
    print(format_table(costs))
    return 0
