"""straight_driver: a naive controller in front of orca_node's filter mode.

For every robot of a scenario it publishes ``/<robot>/cmd_vel_in`` (Twist, or
TwistStamped), ``rate`` times a second: straight at the robot's next waypoint (its goal
last) at its preferred speed, blind to everyone else
(:func:`~orca_ros.core.models.straight_driver.straight_twist`), from the robot's pose on
``/<robot>/<pose_topic>`` (nav_msgs/Odometry in the scenario's frame: fleet_sim's
``ground_truth``). It stands in for Nav2's controller behind its
velocity smoother, so a fleet in filter mode (``preferred_velocity: topic``) can be run
and tested without Nav2: whatever keeps the robots apart is orca_node's doing.
"""

from __future__ import annotations

import math
import sys
from typing import Dict, Tuple

from nav_msgs.msg import Odometry
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from geometry_msgs.msg import Twist, TwistStamped

from ..core.models.straight_driver import straight_twist
from ..core.scenario.loader import load_scenario, resolve_scenario
from .params import check_start, check_values, declare_table, table_by_name
from .params.straight_driver import PARAMETERS
from .ros_common import (GuardedCallbacks, LATEST, BadMessage, RELIABLE_10, odometry_state,
                         run_node, twist_message)

BY_NAME = table_by_name(PARAMETERS)


class StraightDriver(GuardedCallbacks, Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("straight_driver", **kwargs)
        declare_table(self, PARAMETERS)
        problem = check_start(self, BY_NAME)
        if problem is not None:
            raise ValueError(problem)
        self.add_on_set_parameters_callback(
            lambda params: SetParametersResult(
                successful=(reason := check_values(
                    BY_NAME, {p.name: p.value for p in params})) is None,
                reason=reason or ""))
        self.scenario = load_scenario(resolve_scenario(self._param("scenario")))
        self.diff_drive = self._param("kinematics") == "diff_drive"
        self.stamped = bool(self._param("enable_stamped_cmd_vel"))
        self.poses: Dict[str, Tuple[Tuple[float, float], float]] = {}
        self.next_waypoint: Dict[str, int] = {a.name: 0 for a in self.scenario.agents}
        self.publishers_by_robot = {}
        topic = self._param("pose_topic").strip("/")
        for agent in self.scenario.agents:
            self.create_subscription(Odometry, f"/{agent.name}/{topic}",
                                     lambda msg, name=agent.name: self._on_pose(name, msg),
                                     LATEST)
            self.publishers_by_robot[agent.name] = self.create_publisher(
                TwistStamped if self.stamped else Twist, f"/{agent.name}/cmd_vel_in",
                RELIABLE_10)
        self.create_timer(1.0 / self._param("rate"), self._drive)

    def _param(self, name):
        return self.get_parameter(name).value

    def _on_pose(self, name: str, msg: Odometry) -> None:
        try:
            position, _, yaw, _, _ = odometry_state(msg)
        except BadMessage as error:
            self.get_logger().warning(f"dropped the pose of {name}: {error}",
                                      throttle_duration_sec=2.0)
            return
        self.poses[name] = (position, yaw)

    def _drive(self) -> None:
        stamp = self.get_clock().now().to_msg()
        for agent in self.scenario.agents:
            pose = self.poses.get(agent.name)
            if pose is None:
                continue  # nothing to steer by yet: no twist (orca_node stops on silence)
            k = self.next_waypoint[agent.name]
            while k + 1 < len(agent.waypoints) and math.dist(
                    pose[0], agent.waypoints[k][:2]) <= self.scenario.waypoint_tolerance_of(agent):
                k += 1  # passed: on to the next
            self.next_waypoint[agent.name] = k
            vx, vy, omega = straight_twist(
                pose[0], pose[1], agent.waypoints[k][:2], agent.pref_speed, self.diff_drive,
                tolerance=0.5 * self.scenario.goal_tolerance_of(agent),
                slow_within=self._param("slow_within"))
            self.publishers_by_robot[agent.name].publish(
                twist_message(vx, vy, omega, self.stamped, stamp=stamp,
                              frame_id=f"{agent.name}/base_link"))


def main(args=None) -> None:
    run_node(StraightDriver, args)


if __name__ == "__main__":
    main(sys.argv)
