"""A scenario's robots in MuJoCo, stepped as fleet_sim steps its kinematic bodies.

:class:`PhysicsFleet` builds the world (the scenario's walls, :func:`.scene.scene_mjcf`;
one copy of the robot model per agent at its start pose, fitted to its radius,
:mod:`.robots`), and per fleet_sim step of ``dt``:

* moves each robot's velocity target toward its command at the acceleration limits, as
  :func:`~orca_ros.core.models.bodies.step_body` moves the kinematic body's velocity
  (speeds clipped to the limits), and gives the actuators that target: a diff-drive
  robot's wheel rates ``(v -+ omega b / 2) / r``, a holonomic robot's world velocity
  along each of its slide joints' axes (as the engine has them now) and its yaw rate.
  The motors then follow as far as their torque limits and the tyres' grip allow;
* takes ``round(dt / timestep)`` engine steps, reading the engine's contact list after
  each: a contact between two robots' geoms, or a robot's geom and a wall's, is counted
  (:class:`ContactTally`);
* reads the ground truth (the root bodies' poses and velocities) and each diff-drive
  robot's wheel odometry (:class:`~.odometry.WheelOdometry`, from its wheel joints).

Lasers are cast by the engine (``mj_multiRay``) at the model's ``laser_height``, with
the robot's own root body excluded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Set, Tuple

import numpy as np

from ...geometry.frames import Pose2
from ...models.bodies import Body, DiffDriveLimits
from ...scenario.loader import Scenario
from . import default_model, robot_kind
from .odometry import WheelOdometry
from .robots import ACTUATORS, RobotModel, import_mujoco, load_robot_model
from .scene import scene_mjcf

DEFAULT_TIMESTEP = 0.002
"""The engine's step (s): substeps of each fleet_sim step."""


@dataclass
class ContactTally:
    """The engine's contacts over a run: distinct ``pairs`` as the collision ledger names
    them (two robots' names sorted, or ``(robot, "obstacle<k>")`` for outline ``k`` of
    the scenario's solid outlines), the walls' share ``wall_pairs``, the pairs in
    contact at the end of the last step ``now``, the engine steps with any robot-robot
    or robot-wall contact, and the deepest penetration (m, the engine's ``-dist``)."""

    pairs: Set[Tuple[str, str]] = field(default_factory=set)
    wall_pairs: Set[Tuple[str, str]] = field(default_factory=set)
    now: Set[Tuple[str, str]] = field(default_factory=set)
    contact_steps: int = 0
    deepest: float = 0.0
    resets: List[float] = field(default_factory=list)
    """When (s of the run) the engine found its state unstable (NaN or huge
    accelerations) and reset it: every body back to its model's origin. Contacts and
    positions from then on do not describe one run."""

    @property
    def robot_pairs(self) -> Set[Tuple[str, str]]:
        return self.pairs - self.wall_pairs


def _toward(current: np.ndarray, target: np.ndarray, step: np.ndarray) -> np.ndarray:
    return np.minimum(np.maximum(target, current - step), current + step)


class PhysicsFleet:
    """The robots of ``scenario`` in MuJoCo (module docstring).

    ``kinematics``: ``holonomic`` or ``diff_drive`` (toio cubes in a scenario with a
    ``toio:`` block); ``limits``: each robot's speed and acceleration limits; ``dt``: the
    step fleet_sim takes; ``models``: robot type -> model file (missing or empty: the
    shipped one); ``odom_scale_error``: per robot, the wheel-radius error of its odometry
    (it reports ``1 + e`` times the distance its wheels rolled).
    """

    def __init__(self, scenario: Scenario, kinematics: str, limits: Sequence[DiffDriveLimits],
                 dt: float, models: Optional[Mapping[str, str]] = None,
                 timestep: float = DEFAULT_TIMESTEP,
                 odom_scale_error: Optional[Sequence[float]] = None) -> None:
        mujoco = import_mujoco()
        self._mujoco = mujoco
        if scenario.dimensions != 2:
            raise ValueError(f"engine mujoco: {scenario.name} is a 3D scenario; the engine "
                             "simulates robots on a floor")
        self.kind = robot_kind(kinematics, bool(scenario.toio))
        chosen = (models or {}).get(self.kind) or ""
        self.model: RobotModel = load_robot_model(chosen or default_model(self.kind), self.kind)
        self.names = [a.name for a in scenario.agents]
        self.dt = float(dt)
        self.substeps = max(1, round(self.dt / timestep))
        self.limits = list(limits)
        n = len(self.names)
        world = mujoco.MjSpec.from_string(scene_mjcf(scenario.solid_outlines,
                                                     self.dt / self.substeps))
        scales = [self.model.scale_for(a.radius) for a in scenario.agents]
        for agent, scale in zip(scenario.agents, scales):
            frame = world.worldbody.add_frame(
                pos=[agent.start[0], agent.start[1], 0.0],
                quat=[math.cos(agent.start_heading / 2), 0.0, 0.0,
                      math.sin(agent.start_heading / 2)])
            if scale != 1.0:
                frame.scale = [scale] * 3
                frame.scaling = mujoco.mjtScaling.mjSCALING_GEOMETRY
                frame.massscale = scale ** 2
            world.attach(self.model.spec(scale), prefix=f"{agent.name}/", frame=frame)
        try:
            self.m = world.compile()
        except Exception as error:
            from . import ModelError

            raise ModelError(f"robot model {self.model.path}: the scene does not compile: "
                             f"{str(error).strip()}") from None
        self.d = mujoco.MjData(self.m)
        m = self.m
        # the robots' root bodies: the world's children, attached in the agents' order
        self.roots = np.flatnonzero((m.body_parentid == 0) & (np.arange(m.nbody) > 0))
        if len(self.roots) != n:
            raise ValueError(f"engine: {len(self.roots)} root bodies for {n} robots")
        self.actuators = np.array([[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_ACTUATOR,
                                                      f"{name}/{a}")
                                    for a in ACTUATORS[self.kind]] for name in self.names],
                                  dtype=int).reshape(n, -1)
        joints = m.actuator_trnid[self.actuators.ravel(), 0].reshape(self.actuators.shape)
        self.joints = joints  # (n, actuators)
        self.qpos_of = m.jnt_qposadr[joints]
        self.dof_of = m.jnt_dofadr[joints]
        # who owns each geom: robot k (>= 0), wall outline k (as -2 - k), or nobody (-1)
        self.geom_robot = np.full(m.ngeom, -1)
        root_of_geom = m.body_rootid[m.geom_bodyid]
        for k, root in enumerate(self.roots):
            self.geom_robot[root_of_geom == root] = k
        self.geom_wall = np.full(m.ngeom, -1)
        for g in range(m.ngeom):
            name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, g) or ""
            if name.startswith("wall") and m.geom_bodyid[g] == 0:
                self.geom_wall[g] = int(name[4:].split("_")[0])
        self.scales = np.array(scales)
        self.laser_heights = np.array([self.model.laser_height(s) for s in scales])
        self.max_speed = np.array([lim.max_linear_speed for lim in self.limits])
        self.max_omega = np.array([lim.max_angular_speed for lim in self.limits])
        self.accel = np.array([lim.max_linear_accel for lim in self.limits])
        self.alpha = np.array([lim.max_angular_accel for lim in self.limits])
        self.targets = np.zeros((n, 3))  # (vx, vy, omega), body frame
        self.odometers: List[Optional[WheelOdometry]] = [None] * n
        if self.kind != "holonomic":
            errors = list(odom_scale_error) if odom_scale_error is not None else [0.0] * n
            self.wheel = np.array([self.model.wheels(s) for s in scales])  # (n, 2): r, b
            self.odometers = [WheelOdometry(r * (1.0 + e), b)
                              for (r, b), e in zip(self.wheel, errors)]
        self.braking = self._braking()
        self.contacts = ContactTally()
        self.steps = 0
        mujoco.mj_forward(self.m, self.d)
        self._read_odometry()

    def _braking(self) -> np.ndarray:
        """The deceleration (m/s^2) each robot's drive can give along its heading: its
        actuators' largest force (a wheel's torque over the wheel's radius) over its mass
        and the inertia its actuators move (a wheel's armature over its radius squared).
        The safety layer plans stops at ``max_linear_accel``; a model whose motors cannot
        brake that hard stops later than planned (:func:`braking_shortfall`)."""
        m = self.m
        force = np.abs(m.actuator_forcerange[self.actuators]).min(axis=2)  # (n, actuators)
        force = np.where(m.actuator_forcelimited[self.actuators] > 0, force, np.inf)
        mass = m.body_subtreemass[self.roots]
        armature = m.dof_armature[self.dof_of]
        if self.kind == "holonomic":  # the slide joints x and y: the weaker one
            return np.minimum(force[:, 0] / (mass + armature[:, 0]),
                              force[:, 1] / (mass + armature[:, 1]))
        r = self.wheel[:, 0]
        return force.sum(axis=1) / r / (mass + armature.sum(axis=1) / (r * r))

    # -- stepping -------------------------------------------------------------------------
    def step(self, commands: Sequence[Tuple[float, float, float]]) -> None:
        """Advance ``dt`` under each robot's body-frame command ``(vx, vy, omega)`` (a
        robot without a valid command gets zeros: it brakes)."""
        command = np.asarray(commands, dtype=float).reshape(len(self.names), 3)
        omega = _toward(self.targets[:, 2], np.clip(command[:, 2], -self.max_omega,
                                                    self.max_omega), self.alpha * self.dt)
        if self.kind == "holonomic":
            wanted = command[:, :2]
            speed = np.linalg.norm(wanted, axis=1)
            over = speed > self.max_speed
            wanted[over] *= (self.max_speed[over] / speed[over])[:, None]
            change = wanted - self.targets[:, :2]
            size = np.linalg.norm(change, axis=1)
            allowed = self.accel * self.dt
            big = size > allowed
            change[big] *= (allowed[big] / size[big])[:, None]
            self.targets[:, :2] += change
        else:
            self.targets[:, 0] = _toward(self.targets[:, 0],
                                         np.clip(command[:, 0], -self.max_speed, self.max_speed),
                                         self.accel * self.dt)
            self.targets[:, 1] = 0.0
        self.targets[:, 2] = omega
        mujoco, m, d = self._mujoco, self.m, self.d
        if self.kind != "holonomic":
            r, b = self.wheel[:, 0], self.wheel[:, 1]
            v, w = self.targets[:, 0], self.targets[:, 2]
            d.ctrl[self.actuators[:, 0]] = (v - w * b / 2.0) / r
            d.ctrl[self.actuators[:, 1]] = (v + w * b / 2.0) / r
        for _ in range(self.substeps):
            if self.kind == "holonomic":  # the body-frame target in the world frame, now,
                yaw = self.yaws()  # along each slide joint's axis (the engine's xaxis)
                c, s = np.cos(yaw), np.sin(yaw)
                vx, vy = self.targets[:, 0], self.targets[:, 1]
                world = np.column_stack([c * vx - s * vy, s * vx + c * vy])
                for a in (0, 1):
                    axis = d.xaxis[self.joints[:, a], :2]
                    d.ctrl[self.actuators[:, a]] = np.einsum("ij,ij->i", world, axis)
                d.ctrl[self.actuators[:, 2]] = self.targets[:, 2]
            mujoco.mj_step(m, d)
            unstable = d.warning[mujoco.mjtWarning.mjWARN_BADQACC]
            if unstable.number:  # mj_step found NaN or huge accelerations and reset d
                self.contacts.resets.append(round(self.steps * self.dt, 6))
                unstable.number = 0  # (to see the next one)
            self._tally()
        self.steps += 1
        self._read_odometry()

    def _tally(self) -> None:
        d, tally = self.d, self.contacts
        now: Set[Tuple[str, str]] = set()
        if d.ncon:
            geoms = d.contact.geom[:d.ncon]
            a, b = self.geom_robot[geoms[:, 0]], self.geom_robot[geoms[:, 1]]
            wa, wb = self.geom_wall[geoms[:, 0]], self.geom_wall[geoms[:, 1]]
            robots = (a >= 0) & (b >= 0) & (a != b)
            walls = ((a >= 0) & (wb >= 0)) | ((b >= 0) & (wa >= 0))
            hits = np.flatnonzero(robots | walls)
            if len(hits):
                tally.contact_steps += 1
                tally.deepest = max(tally.deepest, float(-d.contact.dist[hits].min()))
                for i in hits:
                    if robots[i]:
                        pair = tuple(sorted((self.names[a[i]], self.names[b[i]])))
                    else:
                        k, wall = (a[i], wb[i]) if a[i] >= 0 else (b[i], wa[i])
                        pair = (self.names[k], f"obstacle{wall}")
                        tally.wall_pairs.add(pair)
                    now.add(pair)
                tally.pairs |= now
        tally.now = now

    def _read_odometry(self) -> None:
        if self.kind == "holonomic":
            return
        d = self.d
        angles, rates = d.qpos[self.qpos_of], d.qvel[self.dof_of]
        for k, odometer in enumerate(self.odometers):
            odometer.update(angles[k, 0], angles[k, 1], rates[k, 0], rates[k, 1])

    # -- ground truth ---------------------------------------------------------------------
    def positions(self) -> np.ndarray:
        """Every robot's position (x, y), world frame."""
        return np.array(self.d.xpos[self.roots, :2])

    def yaws(self) -> np.ndarray:
        """Every robot's yaw (rad): its body x axis's heading on the floor."""
        xmat = self.d.xmat[self.roots]  # row-major 3x3: x axis is column 0
        return np.arctan2(xmat[:, 3], xmat[:, 0])

    def bodies(self) -> List[Body]:
        """Every robot as fleet_sim's :class:`~orca_ros.core.models.bodies.Body`: pose and
        body-frame velocity (forward, left, yaw rate), from the engine."""
        mujoco, out = self._mujoco, []
        velocity = np.zeros(6)
        positions, yaws = self.positions(), self.yaws()
        for k, root in enumerate(self.roots):
            mujoco.mj_objectVelocity(self.m, self.d, mujoco.mjtObj.mjOBJ_XBODY, int(root),
                                     velocity, 1)  # local frame: angular, then linear
            out.append(Body(float(positions[k, 0]), float(positions[k, 1]), float(yaws[k]),
                            float(velocity[3]), float(velocity[4]), float(velocity[2])))
        return out

    def odometry(self, k: int) -> Optional[Tuple[Pose2, Tuple[float, float, float]]]:
        """Robot ``k``'s wheel odometry (pose in its own odom frame, body twist), or None
        for a robot without wheels (holonomic)."""
        odometer = self.odometers[k]
        return None if odometer is None else (odometer.pose, odometer.twist)

    @property
    def sim_time(self) -> float:
        return float(self.d.time)

    # -- sensing --------------------------------------------------------------------------
    def scan(self, k: int, angles: np.ndarray, mount: Tuple[float, float, float],
             range_max: float) -> np.ndarray:
        """Robot ``k``'s laser ranges (m) along ``angles`` (rad, from the laser's straight
        ahead), from ``mount`` (x, y, yaw on the robot): the engine's rays at the model's
        laser height, the robot's own root body excluded; ``inf`` where nothing is hit
        within ``range_max``."""
        mujoco = self._mujoco
        x, y = self.positions()[k]
        yaw = float(self.yaws()[k])
        c, s = math.cos(yaw), math.sin(yaw)
        origin = np.array([x + c * mount[0] - s * mount[1], y + s * mount[0] + c * mount[1],
                           float(self.d.xpos[self.roots[k], 2]) + self.laser_heights[k]])
        heading = yaw + mount[2] + np.asarray(angles, dtype=float)
        rays = len(heading)
        vec = np.column_stack([np.cos(heading), np.sin(heading), np.zeros(rays)]).ravel()
        geom = np.zeros(rays, dtype=np.int32)
        dist = np.zeros(rays)
        mujoco.mj_multiRay(self.m, self.d, origin, vec, None, 1, int(self.roots[k]), geom, dist,
                           None, rays, float(range_max))
        dist[(dist < 0.0) | (dist > range_max)] = np.inf
        return dist

    def shove(self, k: int, force: Tuple[float, float]) -> None:
        """Push robot ``k`` with ``force`` (N, world x and y) at its root body from now until
        :meth:`release` (a bump, a kick: what the wheels do not see)."""
        self.d.xfrc_applied[self.roots[k], :2] = force

    def release(self) -> None:
        """No more outside forces."""
        self.d.xfrc_applied[:] = 0.0


def engine_models(diff_drive: str = "", holonomic: str = "", toio: str = "") -> Dict[str, str]:
    """fleet_sim's model parameters as :class:`PhysicsFleet`'s ``models``."""
    return {"diff_drive": diff_drive, "holonomic": holonomic, "toio": toio}


def reset_warning(times: Sequence[float]) -> str:
    """What a run whose engine reset an unstable state at ``times`` (s) says of it."""
    return (f"the engine reset an unstable state (NaN or huge accelerations) at "
            f"{', '.join(f'{t:g}' for t in times)} s: the robots moved to their model's "
            "origin, and the run's positions and contacts from then on do not describe one "
            "world")


def braking_shortfall(names: Sequence[str], braking: Sequence[float],
                      limits: Sequence[float]) -> str:
    """A warning naming the robots whose drive brakes more weakly than the
    ``max_linear_accel`` they are driven and planned with ('' when none does)."""
    short = [(name, b, a) for name, b, a in zip(names, braking, limits) if b < a]
    if not short:
        return ""
    name, b, a = min(short, key=lambda item: item[1])
    return (f"robot model: {len(short)} of {len(names)} robots brake at most {b:.2f} m/s^2 "
            f"({name}; motor force over mass and wheel inertia), below max_linear_accel "
            f"{a:g}: their nodes plan stops the robots cannot make; give fleet_sim and each "
            f"orca_node max_linear_accel <= {b:.2f}, or stronger motors in the model")
