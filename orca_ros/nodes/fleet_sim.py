"""fleet_sim: a kinematic multi-robot simulator, the stand-in for Gazebo.

Simulates the robots of a scenario file, each in its own namespace (the
agent's name): subscribes ``/<robot>/cmd_vel`` (Twist, or TwistStamped),
publishes ``/<robot>/odom`` in the world frame (twist in the body frame),
``/clock`` (so every node can run on sim time, faster than real time with
``speed_factor``), ``/fleet_sim/robots`` markers and ground-truth collision
counts on ``/diagnostics``.

A command is valid for ``command_validity`` (sim s) after its stamp
(TwistStamped, as orca_node sends it in the fleet plan) or, for a plain Twist
that carries none, after its arrival. A step that would end later than that
is taken with no command: the robot brakes at its acceleration limits. So a
robot whose commander is late, starved, or dead stops, and never coasts on an
old command. A stamp from the future (another clock) counts from its arrival.

With ``odom_frame: per_robot`` each robot's odometry is what real robots and Gazebo's
DiffDrive give: in the robot's own frame ``<robot>/odom`` (origin at its start pose),
drifting (:class:`~orca_ros.core.models.odometry.DriftingOdometry`), and a stand-in
for AMCL publishes ``<robot>/amcl_pose`` in ``world_frame``, late and noisy
(:class:`~orca_ros.core.models.odometry.LocalizationStandIn`); the truth is on
``<robot>/ground_truth`` (nav_msgs/Odometry in ``world_frame``: for observers and
tests, as Gazebo's OdometryPublisher gives it, bridged; no orca_node reads it). With
``topics: gazebo`` odometry and commands have the names of gz-sim's DiffDrive system as
ros_gz_bridge passes them on (``/model/<robot>/odometry``, ``/model/<robot>/cmd_vel``).

A 3D scenario (``dimensions: 3``) is a fleet of aerial robots: holonomic
bodies (:func:`~orca_ros.core.models.bodies.step_body_3d`) that take ``cmd_vel``'s
``linear.z`` too, and odometry with the height (``pose.position.z``) and the
climb rate (``twist.linear.z``); kinematics other than holonomic are refused.

With ``laser: true`` every robot has a laser (:mod:`orca_ros.core.sim.laser`, defaults
like a TurtleBot3's LDS): ``sensor_msgs/LaserScan`` on ``/<robot>/scan`` (sensor-data
QoS, frame ``<robot>/base_scan``, at the robot's centre unless ``laser_pose`` puts it
elsewhere on the robot), ray-cast against the walls,
the scenario's ``unmapped_obstacles`` and the other robots' discs; the cost of a step's
scans is on ``/diagnostics`` (``laser_round_ms_median``).

With ``engine: mujoco`` a physics engine moves the robots instead
(:class:`~orca_ros.core.sim.physics.engine.PhysicsFleet`, imported only then): the same
topics, clock and command validity, but bodies with mass on wheels that slip, motors
that saturate, and contacts that push. Ground truth is the engine's; a diff-drive
robot's ``per_robot`` odometry is integrated from its wheel joints (``odom_scale_error``
as a wrong wheel radius; ``odom_heading_drift`` is left to the tyres), lasers are the
engine's rays, and the engine's robot-robot and robot-wall contacts are on
``/diagnostics`` (``engine_contacts``) beside the geometric ledger's. The robot models
are MJCF files (``robot_model_*``; empty: orca_ros's own).
"""

from __future__ import annotations

import math
import sys
import time
from typing import Dict, List, Tuple

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseWithCovarianceStamped, Twist, TwistStamped
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import SetParametersResult
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data, qos_profile_system_default
from rclpy.time import Time
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import LaserScan
from visualization_msgs.msg import MarkerArray

from ..core.geometry.frames import Pose2
from ..core.models.bodies import Body, Body3D, DiffDriveLimits, step_body, step_body_3d
from ..core.models.odometry import DriftingOdometry, LocalizationStandIn
from ..core.scenario.loader import Scenario, load_scenario, resolve_scenario
from ..core.sim.laser import FleetLasers, LaserSpec
from ..core.sim.metrics import FleetRecord
from . import markers
from .params import check_start, check_values, declare_table, table_by_name
from .params.fleet_sim import PARAMETERS
from .ros_common import (GuardedCallbacks, LEVEL_ERROR, LEVEL_OK, LATEST, RELIABLE_10, BadMessage,
                         GoalSender, deliver_waiting, diagnostics_cdr,
                         odometry_cdr, quaternion_from_yaw, run_node, twist_of)

BY_NAME = table_by_name(PARAMETERS)


class FleetSim(GuardedCallbacks, Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("fleet_sim", **kwargs)
        declare_table(self, PARAMETERS)
        problem = check_start(self, BY_NAME)
        if problem is not None:
            raise ValueError(problem)
        self.add_on_set_parameters_callback(self._check_parameters)

        self.scenario: Scenario = load_scenario(resolve_scenario(self._param("scenario")))
        self.kinematics = self._param("kinematics")
        self.aerial = self.scenario.dimensions == 3
        if self.aerial and self.kinematics != "holonomic":
            raise ValueError(f"fleet_sim: {self.scenario.name} is a 3D scenario (dimensions: "
                             f"3): its aerial robots are holonomic, not {self.kinematics}")
        self.dt = self._param("time_step") or self.scenario.time_step
        self.sim_time = 0.0
        self.names = [a.name for a in self.scenario.agents]
        self.radii = np.array([a.radius for a in self.scenario.agents])
        self.bodies: List = []
        for agent in self.scenario.agents:
            if self.aerial:
                self.bodies.append(Body3D(*agent.start, agent.start_heading))
            else:
                self.bodies.append(Body(agent.start[0], agent.start[1], agent.start_heading))
        self.limits = [DiffDriveLimits(a.max_speed, self._param("max_angular_speed"),
                                  self._param("max_linear_accel"),
                                  self._param("max_angular_accel")) for a in self.scenario.agents]
        # (linear x, linear y, linear z, angular z), and the time it counts from
        self.commands: Dict[str, Tuple[Tuple[float, float, float, float], float]] = {}
        self.rejected = 0
        self.taken = 0  # commands accepted
        self.last_problem = ""
        self.expired = 0  # robot-steps braked because the last command was no longer valid
        self.physics = None
        if self._param("engine") == "mujoco":
            from ..core.sim.physics.engine import braking_shortfall

            self.physics = self._physics()
            self.bodies = self.physics.bodies()
            shortfall = braking_shortfall(self.names, self.physics.braking,
                                          [lim.max_linear_accel for lim in self.limits])
            if shortfall:
                self.get_logger().warning(shortfall)
        self.record = FleetRecord(self.scenario, self.positions(), self.yaws())
        if self.physics is not None:
            self.record.engine_contacts = self.physics.contacts

        stamped = bool(self._param("enable_stamped_cmd_vel"))
        self.per_robot = self._param("odom_frame") == "per_robot"
        if self.per_robot and self.aerial:
            raise ValueError("fleet_sim: odom_frame per_robot is for robots on a floor, not "
                             f"the aerial robots of {self.scenario.name}")
        gazebo = self._param("topics") == "gazebo"
        self.odometers: Dict[str, DriftingOdometry] = {}
        self.localizers: Dict[str, LocalizationStandIn] = {}
        self.truth_pubs = {}
        self.fix_pubs = {}
        self.odom_pubs = {}
        self.cmd_subs = {}
        for k, name in enumerate(self.names):
            odom_topic = f"/model/{name}/odometry" if gazebo else f"/{name}/odom"
            cmd_topic = f"/model/{name}/cmd_vel" if gazebo else f"/{name}/cmd_vel"
            self.odom_pubs[name] = self.create_publisher(Odometry, odom_topic, RELIABLE_10)
            self.cmd_subs[name] = self.create_subscription(
                TwistStamped if stamped else Twist, cmd_topic,
                lambda msg, name=name: self._on_cmd(name, msg), LATEST)
            if self.per_robot:
                sign = 1.0 if k % 2 == 0 else -1.0
                self.odometers[name] = DriftingOdometry(
                    sign * self._param("odom_scale_error"),
                    math.radians(self._param("odom_heading_drift")))
                self.localizers[name] = LocalizationStandIn(
                    self._param("localization_rate"), self._param("localization_noise"),
                    self._param("localization_noise_deg"), self._param("localization_age"),
                    seed=self._param("seed") * 1000 + k)
                self.truth_pubs[name] = self.create_publisher(
                    Odometry, f"/{name}/ground_truth", RELIABLE_10)
                self.fix_pubs[name] = self.create_publisher(
                    PoseWithCovarianceStamped, f"/{name}/amcl_pose", RELIABLE_10)
        self.lasers = None
        self.scan_pubs = {}
        self.scan_ms: List[float] = []  # the last 100 scan rounds' cost (all robots), ms
        if self._param("laser"):
            if self.aerial:
                raise ValueError("fleet_sim: laser is for robots on a floor, not the aerial "
                                 f"robots of {self.scenario.name}")
            spec = LaserSpec(self._param("laser_rays"), self._param("laser_range_min"),
                             self._param("laser_range_max"), self._param("laser_rate"),
                             self._param("laser_noise"),
                             tuple(float(v) for v in self._param("laser_pose")))
            self.lasers = FleetLasers(spec, self.scenario.solid_outlines, self._param("seed"))
            self.scan_every = max(1, round(1.0 / (spec.rate_hz * self.dt)))
            for name in self.names:
                self.scan_pubs[name] = self.create_publisher(LaserScan, f"/{name}/scan",
                                                             qos_profile_sensor_data)
        self.goal_sender = GoalSender(self, self.scenario, self._param("goal_subscribers"),
                                      self._param("world_frame")) \
            if self._param("send_goals") else None
        self.clock_pub = self.create_publisher(ClockMsg, "/clock", 10) \
            if self._param("publish_clock") else None
        self.marker_pub = self.create_publisher(MarkerArray, "/fleet_sim/robots", 1)
        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics",
                                              qos_profile_system_default)
        wall = Clock(clock_type=ClockType.STEADY_TIME)
        self.create_timer(self.dt / self._param("speed_factor"), self.step, clock=wall)
        self.create_timer(1.0, self._publish_diagnostics, clock=wall)
        if self.goal_sender is not None:
            self.create_timer(0.1, lambda: self.goal_sender.send(self._stamp()), clock=wall)
        self._publish_state()

    def _physics(self):
        """The physics engine of ``engine: mujoco`` (imported here: only then)."""
        if self.aerial:
            raise ValueError(f"fleet_sim: engine mujoco simulates robots on a floor, not the "
                             f"aerial robots of {self.scenario.name}")
        from ..core.sim.physics.engine import PhysicsFleet, engine_models

        n = len(self.names)
        scale_error = self._param("odom_scale_error") if self._param("odom_frame") == \
            "per_robot" else 0.0
        return PhysicsFleet(
            self.scenario, self.kinematics, self.limits, self.dt,
            engine_models(self._param("robot_model_diff_drive"),
                          self._param("robot_model_holonomic"),
                          self._param("robot_model_toio")),
            timestep=self._param("mujoco_timestep"),
            odom_scale_error=[scale_error * (1.0 if k % 2 == 0 else -1.0) for k in range(n)])

    @staticmethod
    def _check_parameters(params) -> SetParametersResult:
        reason = check_values(BY_NAME, {p.name: p.value for p in params})
        return SetParametersResult(successful=reason is None, reason=reason or "")

    def _param(self, name):
        return self.get_parameter(name).value

    def yaws(self) -> np.ndarray:
        """Every body's yaw (rad)."""
        return np.array([b.heading for b in self.bodies], dtype=float)

    def positions(self) -> np.ndarray:
        if self.aerial:
            return np.array([(b.x, b.y, b.z) for b in self.bodies])
        return np.array([(b.x, b.y) for b in self.bodies])

    def _stamp(self):
        return Time(nanoseconds=int(round(self.sim_time * 1e9))).to_msg()

    def _on_cmd(self, name: str, msg) -> None:
        try:
            twist = twist_of(msg)
        except BadMessage as error:
            self.rejected += 1
            self.last_problem = f"cmd_vel of {name}: {error}"
            self.get_logger().warning(f"dropped {self.last_problem}", throttle_duration_sec=2.0)
            return
        stamp = self.sim_time
        if isinstance(msg, TwistStamped):
            stamped = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
            if 0.0 < stamped <= self.sim_time + 1e-6:
                stamp = stamped
        self.commands[name] = ((twist.linear.x, twist.linear.y, twist.linear.z,
                                twist.angular.z), stamp)
        self.taken += 1

    def _take_commands(self) -> None:
        """Every robot's command still waiting in its subscription, handed over now
        (:func:`~.ros_common.deliver_waiting`): a command is used at the latest at the
        step after it came, whatever the executor does."""
        for subscription in self.cmd_subs.values():
            deliver_waiting(subscription)

    def step(self) -> None:
        """Advance every robot by one time step and publish the new state."""
        self._take_commands()
        validity = self._param("command_validity")
        physics_commands = []
        for k, name in enumerate(self.names):
            command, stamp = self.commands.get(name, ((0.0, 0.0, 0.0, 0.0), -math.inf))
            if self.sim_time + self.dt - stamp > validity + 1e-9:
                if stamp > -math.inf:
                    self.expired += 1
                command = (0.0, 0.0, 0.0, 0.0)  # no valid command: brake at the limits
            if self.physics is not None:
                physics_commands.append((command[0], command[1], command[3]))
            elif self.aerial:
                self.bodies[k] = step_body_3d(self.bodies[k], command, self.limits[k], self.dt)
            else:
                vx, vy, _, omega = command  # a floor robot ignores linear.z
                self.bodies[k] = step_body(self.bodies[k], (vx, vy, omega), self.kinematics,
                                           self.limits[k], self.dt)
        if self.physics is not None:
            resets = len(self.physics.contacts.resets)
            self.physics.step(physics_commands)
            self.bodies = self.physics.bodies()
            if len(self.physics.contacts.resets) > resets:
                from ..core.sim.physics.engine import reset_warning

                self.get_logger().error(
                    f"MuJoCo: {reset_warning(self.physics.contacts.resets[resets:])} (a "
                    "smaller mujoco_timestep, or softer motors or contacts in the robot "
                    "model)", throttle_duration_sec=5.0)
        self.sim_time = (self.record.steps + 1) * self.dt
        self.record.record(self.sim_time, self.positions(), self.yaws())
        self._publish_state()

    def _publish_state(self) -> None:
        stamp = self._stamp()
        if self.clock_pub is not None:
            self.clock_pub.publish(ClockMsg(clock=stamp))
        frame = self._param("world_frame")
        if self.per_robot:
            self._publish_per_robot_all(stamp, frame)
        else:  # serialized here: a tenth of what building the messages costs
            stamp_ns = int(round(self.sim_time * 1e9))
            for name, body in zip(self.names, self.bodies):
                z, vz = (body.z, body.vz) if self.aerial else (0.0, 0.0)
                half = 0.5 * body.heading
                self.odom_pubs[name].publish(odometry_cdr(
                    stamp_ns, frame, f"{name}/base_link", (body.x, body.y, z),
                    (0.0, 0.0, math.sin(half), math.cos(half)), 0.0,
                    (body.vx, body.vy, vz, 0.0, 0.0, body.omega)))
        if self.lasers is not None and self.record.steps % self.scan_every == 0:
            self._publish_scans(stamp)
        if self.marker_pub.get_subscription_count() > 0:
            positions = self.positions()
            colliding = {n for pair in self.record.ledger.pairs for n in pair}
            self.marker_pub.publish(markers.robot_markers(
                frame, stamp, self.names, positions, self.radii,
                [n in colliding for n in self.names]))

    def _publish_per_robot_all(self, stamp, frame: str) -> None:
        """odom_frame per_robot (floor robots only): each robot's truth, odometry and
        localization fix (:meth:`_publish_per_robot`)."""
        for k, (name, body) in enumerate(zip(self.names, self.bodies)):
            odom = Odometry()
            odom.header.stamp = stamp
            odom.header.frame_id = frame
            odom.child_frame_id = f"{name}/base_link"
            odom.pose.pose.position.x = body.x
            odom.pose.pose.position.y = body.y
            odom.pose.pose.orientation = quaternion_from_yaw(body.heading)
            odom.twist.twist.linear.x = body.vx
            odom.twist.twist.linear.y = body.vy
            odom.twist.twist.angular.z = body.omega
            self._publish_per_robot(k, name, body, odom, stamp, frame)

    def _publish_scans(self, stamp) -> None:
        """Every robot's scan of this step (:class:`~orca_ros.core.sim.laser.FleetLasers`)."""
        started = time.perf_counter()
        spec = self.lasers.spec
        positions, headings = self.positions(), self.yaws()
        frame = self._param("laser_frame")
        for k, name in enumerate(self.names):
            if self.physics is not None:  # the engine's rays
                ranges = self.physics.scan(k, spec.angles, spec.mount, spec.range_max)
                finite = np.isfinite(ranges)
                if spec.noise > 0.0:
                    ranges[finite] += self.lasers.rng.normal(0.0, spec.noise,
                                                             int(finite.sum()))
            else:
                ranges = self.lasers.scan(positions, headings, self.radii, k)
            scan = LaserScan()
            scan.header.stamp = stamp
            scan.header.frame_id = f"{name}/{frame}"
            scan.angle_min, scan.angle_increment = 0.0, spec.angle_increment
            scan.angle_max = spec.angle_increment * (spec.rays - 1)
            scan.time_increment = 0.0
            scan.scan_time = 1.0 / spec.rate_hz
            scan.range_min, scan.range_max = spec.range_min, spec.range_max
            scan.ranges = ranges.astype(np.float32).tolist()
            self.scan_pubs[name].publish(scan)
        self.scan_ms = (self.scan_ms + [(time.perf_counter() - started) * 1e3])[-100:]

    def _publish_per_robot(self, k: int, name: str, body, truth: Odometry, stamp,
                           frame: str) -> None:
        """odom_frame per_robot: the truth on ground_truth, the drifting odometry in the
        robot's own frame (the wheels' under engine mujoco), and a localization fix when
        one is due."""
        self.truth_pubs[name].publish(truth)
        true_pose = Pose2(body.x, body.y, body.heading)
        wheels = self.physics.odometry(k) if self.physics is not None else None
        if wheels is not None:
            pose, (vx, vy, omega) = wheels
        else:
            pose = self.odometers[name].step(true_pose)
            vx, vy, omega = self.odometers[name].twist(body.vx, body.vy, body.omega)
        odom = Odometry()
        odom.header.stamp = stamp
        odom.header.frame_id = f"{name}/odom"
        odom.child_frame_id = f"{name}/base_link"
        odom.pose.pose.position.x, odom.pose.pose.position.y = pose.x, pose.y
        odom.pose.pose.orientation = quaternion_from_yaw(pose.yaw)
        odom.twist.twist.linear.x, odom.twist.twist.linear.y = vx, vy
        odom.twist.twist.angular.z = omega
        self.odom_pubs[name].publish(odom)
        localizer = self.localizers[name]
        due = localizer.observe(self.sim_time, true_pose)
        if due is not None:
            fix_stamp, seen = due
            fix = PoseWithCovarianceStamped()
            fix.header.stamp = Time(nanoseconds=int(round(fix_stamp * 1e9))).to_msg()
            fix.header.frame_id = frame
            fix.pose.pose.position.x, fix.pose.pose.position.y = seen.x, seen.y
            fix.pose.pose.orientation = quaternion_from_yaw(seen.yaw)
            xx, yy, yaw = localizer.covariance
            fix.pose.covariance[0], fix.pose.covariance[7] = xx, yy
            fix.pose.covariance[35] = yaw
            self.fix_pubs[name].publish(fix)

    def _publish_diagnostics(self) -> None:
        ledger = self.record.ledger
        collisions = len(ledger.pairs)
        walls = len(ledger.wall_pairs)
        contacts = self.physics.contacts if self.physics is not None else None
        touched = len(contacts.pairs) if contacts is not None else 0
        level = LEVEL_ERROR if collisions or touched else LEVEL_OK
        message = (f"{collisions} colliding pairs ({walls} of a robot and a wall)"
                   if collisions else "no collisions")
        if contacts is not None:
            message += (f"; engine: {touched} pairs in contact ({len(contacts.wall_pairs)} "
                        "of a robot and a wall)" if touched else "; engine: no contacts")
        values = {"sim_time": round(self.sim_time, 3), "robots": len(self.names),
                  "arrived": self.record.arrived,
                  # at their goals now: one pushed off after arriving is not, till back
                  "at_goal": self.record.at_goal,
                  "colliding_pairs": ";".join("-".join(p) for p in sorted(ledger.pairs)),
                  "deepest_penetration_m": round(ledger.deepest, 6),
                  # ground truth against the scenario's walls, apart from robot pairs
                  "wall_contacts": walls,
                  "wall_contact_robots": ",".join(sorted({r for r, _ in ledger.wall_pairs})),
                  "deepest_wall_penetration_m": round(ledger.deepest_wall, 6),
                  "min_wall_gap_m": round(ledger.min_wall_gap, 6)
                  if math.isfinite(ledger.min_wall_gap) else "",
                  "taken_commands": self.taken,
                  "rejected_commands": self.rejected, "last_rejection": self.last_problem,
                  "expired_command_steps": self.expired}
        if contacts is not None:  # the physics engine's own contact list
            values.update({
                "engine": "mujoco", "engine_contacts": touched,
                "engine_robot_contacts": len(contacts.robot_pairs),
                "engine_wall_contacts": len(contacts.wall_pairs),
                "engine_contact_pairs": ";".join("-".join(p) for p in sorted(contacts.pairs)),
                "engine_contact_steps": contacts.contact_steps,
                "engine_deepest_penetration_m": round(contacts.deepest, 6),
                "engine_resets": len(contacts.resets)})
            if contacts.resets:  # the run no longer describes one world
                from ..core.sim.physics.engine import reset_warning

                level = LEVEL_ERROR
                message += f"; {reset_warning(contacts.resets)}"
        if self.scan_ms:  # the lasers' cost: all robots' scans of one step, wall ms
            values["laser_round_ms_median"] = round(float(np.median(self.scan_ms)), 3)
        self.diag_pub.publish(diagnostics_cdr(int(round(self.sim_time * 1e9)), [
            ("fleet_sim", level, message, "", values)]))


def main(args=None) -> None:
    run_node(FleetSim, args)


if __name__ == "__main__":
    main(sys.argv)
