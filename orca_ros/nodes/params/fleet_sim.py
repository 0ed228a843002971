"""fleet_sim's parameters (node ``fleet_sim``, executable ``fleet_sim``)."""

from ...core.models.bodies import FLEET_SIM_LIMITS, KINEMATICS
from . import Param

PARAMETERS = (
    Param("scenario", "crossing_4",
          "the scenario to simulate: a scenario file's path or the name of a built-in "
          "scenario (its robots' start poses, radii, speeds and goals, and its walls)",
          read_only=True),
    Param("kinematics", "holonomic",
          "how the robots move: holonomic (any direction) or diff_drive (forward speed and "
          "turn rate); a 3D scenario's aerial robots are holonomic only",
          choices=KINEMATICS, read_only=True),
    Param("engine", "kinematic",
          "what moves the robots: kinematic (bodies follow their commands within the "
          "acceleration limits, never slip, never push) or mujoco (a physics engine: mass, "
          "wheels on hinge joints driven by velocity motors with torque limits, tyre "
          "friction, contacts that push; odometry from the wheel joints; needs the "
          "'physics' extra)", choices=("kinematic", "mujoco"), read_only=True),
    Param("mujoco_timestep", 0.002,
          "engine mujoco: the engine's step (s); each simulation step is split into "
          "steps of about this length", range=(1e-5, 0.1), read_only=True),
    Param("robot_model_diff_drive", "",
          "engine mujoco: the MJCF file of a diff_drive robot (empty: orca_ros's, "
          "share/orca_ros/mujoco/diff_drive.xml, fitted to each robot's radius)",
          read_only=True),
    Param("robot_model_holonomic", "",
          "engine mujoco: the MJCF file of a holonomic robot (empty: orca_ros's, "
          "share/orca_ros/mujoco/holonomic.xml, fitted to each robot's radius)",
          read_only=True),
    Param("robot_model_toio", "",
          "engine mujoco: the MJCF file of a toio cube, for diff_drive robots of a scenario "
          "with a toio: block (empty: orca_ros's, share/orca_ros/mujoco/toio.xml)",
          read_only=True),
    Param("speed_factor", 1.0,
          "simulated seconds per wall-clock second (2 = twice as fast as real time)",
          range=(0.01, 1000.0), read_only=True),
    Param("time_step", 0.0,
          "simulation step in simulated seconds; 0 = the scenario's time_step",
          range=(0.0, 10.0), read_only=True),
    Param("publish_clock", True,
          "publish the simulated time on /clock (for nodes with use_sim_time)",
          read_only=True),
    Param("command_validity", 0.25,
          "a cmd_vel acts at most this long (simulated seconds) after its stamp "
          "(TwistStamped) or its arrival (Twist); then the robot brakes at its "
          "acceleration limits", range=(0.001, 60.0)),
    Param("enable_stamped_cmd_vel", False,
          "cmd_vel is geometry_msgs/TwistStamped (else Twist)", read_only=True),
    Param("world_frame", "world", "frame_id of the odometry poses and the robot markers"),
    Param("send_goals", False,
          "send each robot its scenario goal on goal_pose (its waypoints on plan) once its "
          "subscribers are there, as a user would in RViz", read_only=True),
    Param("goal_subscribers", 1,
          "send a robot its goal once this many nodes listen on its goal topic (its "
          "orca_node, and the supervisor: 2)", range=(1, 100), read_only=True),
    Param("max_angular_speed", FLEET_SIM_LIMITS["max_angular_speed"],
          "every robot's turn-rate limit (rad/s)",
          range=(0.01, 100.0), read_only=True),
    Param("max_linear_accel", FLEET_SIM_LIMITS["max_linear_accel"],
          "every robot's linear acceleration limit (m/s^2)",
          range=(0.01, 1000.0), read_only=True),
    Param("max_angular_accel", FLEET_SIM_LIMITS["max_angular_accel"],
          "every robot's angular acceleration limit (rad/s^2)",
          range=(0.01, 1e4), read_only=True),
    Param("odom_frame", "shared",
          "shared: each robot's odom in world_frame (the truth); per_robot: as real robots "
          "and Gazebo have it, in the robot's own '<robot>/odom' frame, from its start pose, "
          "drifting (odom_scale_error, odom_heading_drift), with a localization on "
          "'<robot>/amcl_pose' and the truth on '<robot>/ground_truth'",
          choices=("shared", "per_robot"), read_only=True),
    Param("topics", "ros",
          "topic names: ros ('/<robot>/odom', '/<robot>/cmd_vel') or gazebo (as ros_gz_bridge "
          "passes on gz-sim's DiffDrive: '/model/<robot>/odometry', '/model/<robot>/cmd_vel')",
          choices=("ros", "gazebo"), read_only=True),
    Param("odom_scale_error", 0.01,
          "odom_frame per_robot: wheel-scale error of every robot's odometry (the distance "
          "it reports over the distance driven, less 1; odd robots get the opposite sign)",
          range=(-0.5, 0.5), read_only=True),
    Param("odom_heading_drift", 0.5,
          "odom_frame per_robot: heading drift of the odometry per metre driven (deg/m)",
          range=(-45.0, 45.0), read_only=True),
    Param("localization_rate", 2.0,
          "odom_frame per_robot: localization fixes per second on '<robot>/amcl_pose'",
          range=(0.1, 100.0), read_only=True),
    Param("localization_noise", 0.02,
          "odom_frame per_robot: standard deviation of a fix's position (m)",
          range=(0.0, 10.0), read_only=True),
    Param("localization_noise_deg", 1.0,
          "odom_frame per_robot: standard deviation of a fix's heading (deg)",
          range=(0.0, 180.0), read_only=True),
    Param("localization_age", 0.05,
          "odom_frame per_robot: how old a fix is when it is published (s)",
          range=(0.0, 10.0), read_only=True),
    Param("seed", 0, "seed of the localization noise", range=(0, 2 ** 31 - 1), read_only=True),
    Param("laser", False,
          "simulate each robot's laser: sensor_msgs/LaserScan on '/<robot>/scan', ray-cast "
          "against the walls, the scenario's unmapped_obstacles and the other robots",
          read_only=True),
    Param("laser_frame", "base_scan",
          "the scans' frame: '<robot>/<laser_frame>', where laser_pose puts it on the robot",
          read_only=True),
    Param("laser_pose", [0.0, 0.0, 0.0],
          "the laser's x, y (m) and yaw (rad) on the robot, in its body frame (a URDF's "
          "fixed joint base_link -> base_scan); orca_node's scan_pose must say the same",
          read_only=True, length=3),
    Param("laser_rays", 360, "rays per scan, evenly round the full circle from straight ahead",
          range=(1, 10000), read_only=True),
    Param("laser_range_min", 0.12, "the laser's least range (m)", range=(0.0, 100.0),
          read_only=True),
    Param("laser_range_max", 3.5, "the laser's greatest range (m); farther: inf (no return)",
          range=(0.01, 1000.0), read_only=True),
    Param("laser_rate", 5.0, "scans per simulated second", range=(0.01, 1000.0),
          read_only=True),
    Param("laser_noise", 0.01, "standard deviation of the range noise (m)",
          range=(0.0, 10.0), read_only=True),
)
