"""What guidance's lines of sight cost a robot's cycle: ``WallQueries.passable`` as it is
(one call into C for all the lines of a re-plan, ``_guidance.passable``) beside the numpy
and per-line path it replaced, on the calls ``orca-ros bench-step``'s robot cycles make
(10 neighbours, 10 walls, the robot held where it is, so it re-plans every
``guidance_period``). Both are timed in one process, interleaved, on the same recorded
calls, and their answers compared.

    python scripts/guidance_lines_timing.py [--kinematics diff_drive] [--cases 40]
"""

import argparse
import random
import time

import numpy as np

from orca_ros.core import build_obstacle_edges
from orca_ros.core.robot import guidance
from orca_ros.tools import timing


def former(queries, p, q, clearance, passage=None):
    """``WallQueries.passable`` as it was: the line-by-line path it keeps for walls with a
    spatial index (visibility, then each grazing line's gaps)."""
    p = np.asarray(p, dtype=float).reshape(-1, 2)
    q = np.asarray(q, dtype=float).reshape(-1, 2)
    return queries._passable_lines(p, q, clearance, passage)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinematics", default="diff_drive",
                        choices=("holonomic", "diff_drive"))
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--periods", type=int, default=10, help="cycles run per case")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    cycles, recorded = [], []
    passable = guidance.WallQueries.passable

    def record(queries, p, q, clearance, passage=None):
        recorded.append((queries, p, q, clearance, passage))
        return passable(queries, p, q, clearance, passage)

    timing._time_call = lambda call, repeats: (cycles.append(call), [0.0])[1]
    rng = random.Random(1)
    for _ in range(args.cases):
        agent, neighbors, segments = timing.random_step_case(rng, 10, 10)
        timing._time_robot_cycle(agent, neighbors, build_obstacle_edges(segments),
                                 args.kinematics, 1)
    guidance.WallQueries.passable = record
    for cycle in cycles:
        for _ in range(args.periods):
            cycle()
    guidance.WallQueries.passable = passable
    periods = len(cycles) * args.periods

    spent = {"former": 0.0, "C": 0.0}
    for _ in range(args.repeats):
        for name, function in (("former", former), ("C", passable)):
            started = time.perf_counter()
            for call in recorded:
                function(*call)
            spent[name] += time.perf_counter() - started
    same = all(np.array_equal(former(*call), passable(*call)) for call in recorded)
    print(f"{args.kinematics}: {len(recorded)} calls in {periods} periods, same answers: {same}")
    for name, seconds in spent.items():
        per_call = seconds / args.repeats / len(recorded) * 1e6
        per_period = seconds / args.repeats / periods * 1e6
        print(f"  {name}: {per_call:.1f} µs a call, {per_period:.1f} µs a period")


if __name__ == "__main__":
    main()
