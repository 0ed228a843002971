"""How many robots of a scenario have crossed a line by each moment, in the world: the
flow through a door or a bottleneck, where the makespan says little (a robot that went
through may still have far to go).

    python scripts/passage_flow.py SCENARIO.yaml [--kinematics diff_drive] [--x 4.5]
        [--side below] [--until 200] [--every 25] [--jitter 0.05 --seed 2]
        [NAME=VALUE ...]

A robot counts once its centre is past the line ``x = --x`` (``--side below``: at a
smaller x; ``above``: larger), or once it has left the world (``on_goal: remove``);
a robot that starts past the line counts from the start.
``NAME=VALUE``: an ``orca_node`` parameter for every robot, as ``orca-ros bench
--robot-param`` takes it (e.g. ``max_reverse_speed=0.3``). Prints the counts and the
colliding pairs the world's ledger saw.
"""

import argparse

import numpy as np

from orca_ros.core.sim.world import WorldOptions
from orca_ros.tools.cli.common import robot_overrides
from orca_ros.tools.scenario_bench import prepare_world


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario")
    parser.add_argument("overrides", nargs="*", metavar="NAME=VALUE")
    parser.add_argument("--kinematics", default="diff_drive")
    parser.add_argument("--x", type=float, default=4.5, help="the line crossed (m)")
    parser.add_argument("--side", choices=("below", "above"), default="below")
    parser.add_argument("--until", type=float, default=200.0, help="simulated seconds")
    parser.add_argument("--every", type=float, default=25.0, help="seconds between counts")
    parser.add_argument("--jitter", type=float, default=0.0, help="starts moved up to (m)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        controller = robot_overrides(args.overrides)
        options = WorldOptions(kinematics=args.kinematics, controller=controller)
        _, world = prepare_world(args.scenario, options, jitter=args.jitter, seed=args.seed)
    except ValueError as error:
        parser.error(str(error))
    through = np.zeros(len(world.names), dtype=bool)
    counts = {}
    next_count = args.every
    while world.time < args.until - 1e-9:
        world.step()
        x = world.positions[:, 0]
        through |= (x < args.x if args.side == "below" else x > args.x) | ~world.active
        if world.time >= next_count - 1e-9:
            counts[round(next_count, 3)] = int(through.sum())
            next_count += args.every
    print(" ".join(f"{t:g}s:{n}" for t, n in counts.items()),
          f"(of {len(world.names)}; colliding pairs {len(world.ledger.pairs)})")


if __name__ == "__main__":
    main()
