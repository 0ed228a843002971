"""straight_driver's parameters (node ``straight_driver``, executable ``straight_driver``)."""

from ...core.models.bodies import KINEMATICS
from . import Param

PARAMETERS = (
    Param("scenario", "crossing_4",
          "the scenario whose robots it drives: a scenario file's path or a built-in "
          "scenario's name (each robot's goal, preferred speed and goal tolerance)",
          read_only=True),
    Param("kinematics", "holonomic",
          "holonomic (twists along the bearing to the goal) or diff_drive (turn towards "
          "it, forward only)", choices=KINEMATICS, read_only=True),
    Param("pose_topic", "ground_truth",
          "where each robot's pose in the scenario's frame comes from: '/<robot>/<this>' "
          "(nav_msgs/Odometry): ground_truth under odom_frame per_robot, odom when the "
          "odometry is in the shared frame", read_only=True),
    Param("rate", 10.0, "twists per second per robot (Hz, node clock)",
          range=(0.1, 1000.0), read_only=True),
    Param("enable_stamped_cmd_vel", False,
          "cmd_vel_in is geometry_msgs/TwistStamped (else Twist)", read_only=True),
    Param("slow_within", 0.5, "slow down in proportion within this distance of the goal (m)",
          range=(0.0, 100.0)),
)
