"""toio_bridge's parameters (node ``toio_bridge``, executable ``toio_bridge``)."""

from ...core.models.toio_cube import DEFAULT_MM_PER_UNIT
from . import Param

PARAMETERS = (
    Param("scenario", "",
          "a scenario file's path or a built-in scenario's name: its toio block (mat, scale) "
          "and the start poses of simulated cubes; empty = none", read_only=True),
    Param("cubes", [""],
          "one entry per cube: 'name=simulated', 'name=sim:x,y,yaw' (m, m, rad) or "
          "'name=ble:ADDRESS' (a Bluetooth address or a fragment of the cube's name); "
          "[''] = every scenario agent, simulated", read_only=True),
    Param("mat", "",
          "the toio mat the cubes are on, e.g. collection_ring; empty = the scenario's "
          "toio.mat, else collection_ring", read_only=True),
    Param("mm_per_unit", 0.0,
          f"the mat's scale (mm per mat unit); 0 = the scenario's, else "
          f"{DEFAULT_MM_PER_UNIT:g}", range=(0.0, 10.0), read_only=True),
    Param("command_rate", 20.0,
          "motor commands per second per cube (Hz); the send timer keeps the rate the node "
          "started with, so a change while running can only lower it",
          range=(1.0, 100.0)),
    Param("command_duration_ms", 200,
          "duration (ms) of each timed motor command: a cube whose commands stop coming "
          "stops by itself when it ends (a watchdog)", range=(10, 2550)),
    Param("command_validity", 0.2,
          "a cmd_vel acts at most this long (s) after its stamp (TwistStamped) or arrival "
          "(Twist): motor commands are timed to end then", range=(0.01, 10.0)),
    Param("speed_factor", 1.0, "simulated seconds per wall-clock second (simulated cubes)",
          range=(0.1, 100.0), read_only=True),
    Param("sim_step", 0.01,
          "simulated cubes' physics step (s); the step timer keeps the period the node "
          "started with, so a change while running also changes the simulated seconds per "
          "wall-clock second", range=(0.001, 0.1)),
    Param("enable_stamped_cmd_vel", False,
          "cmd_vel is geometry_msgs/TwistStamped (else Twist)", read_only=True),
    Param("world_frame", "world", "frame_id of the odometry poses"),
    Param("send_goals", False,
          "send each cube its scenario goal on goal_pose (its waypoints on plan) once "
          "goal_subscribers nodes listen, as fleet_sim does; needs a scenario",
          read_only=True),
    Param("goal_subscribers", 1, "send a goal once this many nodes listen on its topic",
          range=(1, 100), read_only=True),
)
