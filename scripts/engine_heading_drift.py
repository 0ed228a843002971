"""How far a unicycle's wheel odometry turns from the truth under the MuJoCo engine: the
heading change the odometry reports over a window (0.5 s, AMCL's interval at 2 Hz) less
the body's true change, over robots driving alone (no contact) and turning as hard as
they may.

    python scripts/engine_heading_drift.py [--robots N] [--seconds S] [--speed V]
                                           [--turn W] [--switch P] [--window T]

Each robot gets a new command every ``--switch`` seconds: a forward speed drawn from
0..V and a turn rate of +W or -W at random, so its wheels accelerate and reverse at
their limits (accel 4 m/s^2, angular 20 rad/s^2). Prints the median, 99th percentile
and largest drift over all windows, in degrees. Needs the ``physics`` extra.
"""

import argparse

import numpy as np

from orca_ros.core.models.bodies import DiffDriveLimits
from orca_ros.core.scenario.loader import parse_scenario
from orca_ros.core.sim.physics.engine import PhysicsFleet

SPACING = 40.0  # m between robots: none meets another in a run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--robots", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--speed", type=float, default=1.3, help="top speed (m/s)")
    parser.add_argument("--turn", type=float, default=3.0, help="turn rate (rad/s)")
    parser.add_argument("--switch", type=float, default=0.2, help="command period (s)")
    parser.add_argument("--window", type=float, default=0.5, help="drift window (s)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    dt = 0.1
    agents = [{"name": f"r{i}", "start": [SPACING * (i % 4), SPACING * (i // 4)],
               "goal": [SPACING * (i % 4), SPACING * (i // 4) + 1.0]}
              for i in range(args.robots)]
    scenario = parse_scenario({
        "name": "heading_drift", "time_step": dt, "max_time": args.seconds, "on_goal": "stay",
        "defaults": {"radius": 0.2, "max_speed": args.speed, "pref_speed": args.speed,
                     "neighbor_dist": 2.0, "max_neighbors": 5, "time_horizon": 2.0,
                     "time_horizon_obst": 1.0},
        "agents": agents})
    limits = [DiffDriveLimits(args.speed, args.turn, 4.0, 20.0) for _ in agents]
    fleet = PhysicsFleet(scenario, "diff_drive", limits, dt)
    rng = np.random.default_rng(args.seed)
    n = len(agents)
    command = np.zeros((n, 3))
    every = max(1, round(args.switch / dt))
    truth, odometry = [], []
    for step in range(round(args.seconds / dt)):
        if step % every == 0:
            command[:, 0] = rng.uniform(0.0, args.speed, n)
            command[:, 2] = rng.choice([-args.turn, args.turn], n)
        fleet.step([tuple(c) for c in command])
        truth.append(fleet.yaws())
        odometry.append([fleet.odometry(k)[0].yaw for k in range(n)])
    w = max(1, round(args.window / dt))
    gap = np.unwrap(np.array(odometry), axis=0) - np.unwrap(np.array(truth), axis=0)
    drift = np.degrees(np.abs(gap[w:] - gap[:-w]))  # what the odometry turned off by
    touched = fleet.contacts.contact_steps
    print(f"{n} robots, {args.seconds:g} s, up to {args.speed:g} m/s turning "
          f"+-{args.turn:g} rad/s, a new command every {args.switch:g} s: heading drift "
          f"over {args.window:g} s median {np.median(drift):.2f} deg, 99th percentile "
          f"{np.percentile(drift, 99):.2f} deg, largest {drift.max():.2f} deg"
          f"{'' if not touched else f' (contact in {touched} steps: spread them out)'}")


if __name__ == "__main__":
    main()
