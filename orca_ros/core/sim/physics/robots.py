"""A robot model file (MJCF) for the engine: read, checked against the conventions of its
robot type, and fitted to a robot's radius.

Conventions (the shipped models in ``models/`` keep them; a user's model must too):

* one root body under ``worldbody`` (the robot), its ground truth;
* ``diff_drive`` and ``toio``: a free joint on the root body, velocity actuators named
  ``left`` and ``right`` on the wheels' hinge joints (positive: forward), and numerics
  ``wheel_radius`` and ``wheel_separation`` (m), what the odometry and the command
  conversion use;
* ``holonomic``: velocity actuators named ``vx``, ``vy`` (two perpendicular slide joints
  in the floor's plane, not turning with the robot: the engine gives each the world
  velocity along its axis) and ``wz`` (hinge about z);
* the numeric ``laser_height`` (m above the robot's origin) where its laser casts rays
  (optional; default 0.1 m);
* the numeric ``orca_fit_radius`` (optional): the footprint radius the model is drawn
  for; then each robot's copy is scaled to its scenario radius (geometry by the ratio
  ``s``, masses by ``s^2``, forces of slide actuators by ``s^2``, wheel torques by
  ``s^3``, other hinge torques by ``s^4``; their gains likewise, wheels by ``s^4``, so
  accelerations and time constants stay). Without it the model is used at its size.
"""

from __future__ import annotations

import math
import pathlib
from dataclasses import dataclass
from typing import Dict, Tuple

from . import ModelError, ROBOT_KINDS

ACTUATORS = {"diff_drive": ("left", "right"), "toio": ("left", "right"),
             "holonomic": ("vx", "vy", "wz")}
"""The velocity actuators each robot type's model must name."""

DEFAULT_LASER_HEIGHT = 0.1


def import_mujoco():
    """The ``mujoco`` module, or an error that says how to install it."""
    try:
        import mujoco
    except ImportError as error:  # the optional extra
        from . import EngineMissing

        raise EngineMissing("engine mujoco needs the MuJoCo Python package: pip install "
                            f"'orca_ros[physics]' (or pip install mujoco): {error}") from None
    return mujoco


@dataclass(frozen=True)
class RobotModel:
    """A checked model file: its path, type and numerics."""

    path: pathlib.Path
    kind: str
    numerics: Dict[str, float]

    @property
    def fit_radius(self) -> float:
        """The radius it is drawn for (0: used at its size)."""
        return self.numerics.get("orca_fit_radius", 0.0)

    def scale_for(self, radius: float) -> float:
        return radius / self.fit_radius if self.fit_radius > 0.0 else 1.0

    def wheels(self, scale: float) -> Tuple[float, float]:
        """(wheel_radius, wheel_separation) of a copy scaled by ``scale``."""
        return (self.numerics["wheel_radius"] * scale,
                self.numerics["wheel_separation"] * scale)

    def laser_height(self, scale: float) -> float:
        return self.numerics.get("laser_height", DEFAULT_LASER_HEIGHT) * scale

    def spec(self, scale: float = 1.0):
        """A fresh ``mujoco.MjSpec`` of the model, its actuators and wheel joints' inertia
        scaled for a copy ``scale`` times the drawn size (module docstring)."""
        mujoco = import_mujoco()
        spec = _parse(mujoco, self.path)
        if scale != 1.0:
            hinge = mujoco.mjtJoint.mjJNT_HINGE
            for actuator in spec.actuators:
                joint = spec.joint(actuator.target)
                wheel = self.kind != "holonomic"
                force = scale ** 3 if wheel else (scale ** 4 if joint.type == hinge
                                                  else scale ** 2)
                gain = scale ** 4 if (wheel or joint.type == hinge) else scale ** 2
                actuator.forcerange = [v * force for v in actuator.forcerange]
                gains, biases = list(actuator.gainprm), list(actuator.biasprm)
                gains[0] *= gain  # a velocity actuator: force = kv (ctrl - velocity)
                biases[2] *= gain
                actuator.gainprm, actuator.biasprm = gains, biases
            for joint in spec.joints:
                if joint.type == hinge:
                    joint.armature *= scale ** 4
                    joint.damping = [v * scale ** 4 for v in joint.damping]
        return spec


def _parse(mujoco, path: pathlib.Path):
    try:
        return mujoco.MjSpec.from_file(str(path))
    except Exception as error:  # MuJoCo's parser says what is wrong, and where
        raise ModelError(f"robot model {path}: not a MuJoCo model (MJCF): "
                         f"{str(error).strip()}") from None


def load_robot_model(path, kind: str) -> RobotModel:
    """Read and check the model file ``path`` for robots of type ``kind`` (one of
    :data:`~orca_ros.core.sim.physics.ROBOT_KINDS`); a missing, unreadable or broken file,
    or one without the type's actuators and numerics, is refused naming the file."""
    if kind not in ROBOT_KINDS:
        raise ValueError(f"robot type must be one of {ROBOT_KINDS}, got {kind!r}")
    path = pathlib.Path(path).expanduser()
    if not path.is_file():
        raise ModelError(f"robot model {path}: no such file")
    mujoco = import_mujoco()
    spec = _parse(mujoco, path)
    roots = list(spec.worldbody.bodies)
    if len(roots) != 1:
        raise ModelError(f"robot model {path}: needs exactly one root body under worldbody "
                         f"(the robot), has {len(roots)}")
    names = {a.name: a for a in spec.actuators}
    missing = [n for n in ACTUATORS[kind] if n not in names]
    if missing:
        raise ModelError(f"robot model {path}: a {kind} robot needs velocity actuators named "
                         f"{', '.join(ACTUATORS[kind])}; missing: {', '.join(missing)}")
    for name in ACTUATORS[kind]:
        if spec.joint(names[name].target) is None:
            raise ModelError(f"robot model {path}: actuator {name} drives no joint")
    numerics = {n.name: float(n.data[0]) for n in spec.numerics if len(n.data)}
    needed = ("wheel_radius", "wheel_separation") if kind != "holonomic" else ()
    for name in needed + tuple(n for n in ("orca_fit_radius", "laser_height")
                               if n in numerics):
        value = numerics.get(name)
        if value is None or not (math.isfinite(value) and value > 0.0):
            raise ModelError(f"robot model {path}: a {kind} robot needs the numeric {name} "
                             f"(m, > 0), got {value}")
    if kind != "holonomic" and not any(j.type == mujoco.mjtJoint.mjJNT_FREE
                                       for j in roots[0].joints):
        raise ModelError(f"robot model {path}: a {kind} robot's root body needs a free joint "
                         "(it rolls on its wheels)")
    return RobotModel(path, kind, numerics)
