"""``orca-ros import-steersuite``: SteerSuite's test cases (SteerBench XML, GPL-3.0, so
not shipped) converted to scenario files (doc/scenario_format.md, "SteerSuite test
cases"); the rules are in :mod:`orca_ros.tools.steersuite`."""

from __future__ import annotations

import argparse

from .common import POSITIVE, refused


def add_parser(sub) -> None:
    from ..steersuite import SOURCE_COMMIT

    verb = sub.add_parser(
        "import-steersuite",
        help="convert SteerSuite test cases (testcases/*.xml) to scenario files")
    verb.add_argument("test_cases", nargs="+", metavar="TESTCASE.xml",
                      help="SteerSuite/Release testcases/*.xml files")
    verb.add_argument("--out", "-o", required=True, metavar="DIR",
                      help="folder to write <name>.yaml into (made if missing)")
    verb.add_argument("--seed", type=int, default=0,
                      help="numpy default_rng seed for random placement (default 0)")
    verb.add_argument("--name", help="the scenario's name, with one test case (default: "
                                     "steersuite_<case>, e.g. oncoming-1.xml: steersuite_oncoming)")
    verb.add_argument("--commit", default=SOURCE_COMMIT,
                      help=f"SteerSuite/Release commit named in each file's source "
                           f"(default {SOURCE_COMMIT})")
    verb.add_argument("--max-time", type=POSITIVE, metavar="S",
                      help="every scenario's max_time (default: 2.5 x the slowest agent's "
                           "straight time, rounded up to 10 s, at least 60 s)")
    verb.add_argument("--with-shipped", action="store_true",
                      help="also copy the shipped public scenarios (RVO2, Menge, CrowdNav) "
                           "into DIR, so it holds the whole public set")
    verb.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..steersuite import copy_shipped, import_test_cases

    try:
        written = import_test_cases(args.test_cases, args.out, seed=args.seed, name=args.name,
                                    commit=args.commit, max_time=args.max_time)
        shipped = copy_shipped(args.out) if args.with_shipped else []
    except (OSError, ValueError) as error:  # a file, or a test case it cannot convert
        return refused("import-steersuite", error)
    for item in written:
        print(f"{item.path}: {item.source}, {item.agents} agents, {item.obstacles} obstacles"
              + (", planned waypoints" if item.planned else ""))
    for path in shipped:
        print(f"{path}: shipped public scenario")
    return 0
