"""supervisor_node's parameters (node ``supervisor``, executable ``supervisor_node``).

``SCENARIO_SETTINGS``: the parameters a scenario's ``supervisor:`` block sets too; a
parameter set to other than its default wins over the block.
"""

from ...core.supervisor.cocoon import MODES, TIE_DISTANCE_M, YIELD_MODES
from . import Param

SCENARIO_SETTINGS = ("cocoon_k", "mode", "yield_mode", "margin", "horizon", "hysteresis",
                     "tie_distance")

PARAMETERS = (
    Param("scenario", "",
          "a scenario file's path or a built-in scenario's name: its robots, radii, speeds, "
          "goal tolerance and its supervisor: block (cocoon_k, mode, yield_mode, margin, "
          "horizon, hysteresis and tie_distance set to other than their defaults win over "
          "the block); "
          "empty = none", read_only=True),
    Param("robots", [""],
          "robot namespaces to supervise; [''] = the scenario's robots, or without a "
          "scenario every robot whose */odom topic appears", read_only=True),
    Param("robot_radius", 0.2, "radius (m) of a robot the scenario does not give",
          range=(0.001, 10.0)),
    Param("robot_speed", 0.4, "nominal speed (m/s) of a robot the scenario does not give",
          range=(0.001, 20.0)),
    Param("goal_tolerance", 0.1,
          "a robot this close (m) to its goal stands (a scenario's robots: its tolerance)",
          range=(0.0, 100.0)),
    Param("cocoon_k", 1.0, "cocoon radius (1 + k) r, r the robot's radius",
          range=(0.01, 20.0), read_only=True),
    Param("mode", "exact",
          "conflict test: exact (closest approach of the straight paths to the goals) or "
          "paper (the paper's triangle-angle rule)", choices=MODES, read_only=True),
    Param("yield_mode", "stop", "how a yielding robot yields first: stop, or slow down",
          choices=YIELD_MODES, read_only=True),
    Param("margin", 0.05, "clearance (m) the predictions require between robots",
          range=(0.0, 10.0), read_only=True),
    Param("horizon", 30.0, "prediction horizon (s)", range=(0.1, 3600.0), read_only=True),
    Param("hysteresis", 0.02, "cocoon separation (m) that clears a ban",
          range=(0.0, 10.0), read_only=True),
    Param("tie_distance", TIE_DISTANCE_M,
          "robots whose distances to their paths' crossing differ by no more than this (m) "
          "are a tie, decided by priority_order (through ROS, robots that set off together "
          "are seen a step or two apart)", range=(0.0, 10.0), read_only=True),
    Param("priority_order", [""],
          "tie-break order of robot names (unknown names are refused); [''] = the "
          "scenario's supervisor: block's, else alphabetical", read_only=True),
    Param("with_orca", False,
          "robots run ORCA under the supervisor: waits lapse after max_wait (else they hold "
          "until clear)", read_only=True),
    Param("max_wait", 0.0,
          "longest wait on a directive (s); 0 = the scenario's supervisor: block's, else "
          "5 s with ORCA and unlimited without", range=(0.0, 3600.0), read_only=True),
    Param("rate", 20.0, "supervisor ticks per second (Hz, on the node's clock)",
          range=(0.5, 1000.0), read_only=True),
    Param("world_frame", "world",
          "the shared frame: robots' announced states (/orca/states) and odometry must be "
          "in it (others are refused, naming both frames); detours and markers are in it",
          read_only=True),
    Param("discovery_period", 1.0,
          "how often (s) the supervisor looks for robots (*/odom topics) it does not follow "
          "yet", range=(0.05, 60.0), read_only=True),
)
