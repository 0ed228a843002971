"""A physics engine behind fleet_sim (``engine: mujoco``): robots with mass, wheels that
slip, motors that saturate, robots that push each other, in MuJoCo (Todorov, Erez and
Tassa, "MuJoCo: A physics engine for model-based control", IROS 2012).

:mod:`.scene` writes a scenario's static world (floor and walls) as MJCF, :mod:`.robots`
reads and checks a robot model file, :mod:`.odometry` integrates wheel odometry from
wheel angles, and :class:`.engine.PhysicsFleet` puts them together and steps them with
the operations fleet_sim's kinematic bodies offer. Only :mod:`.engine` and
:mod:`.robots` import ``mujoco`` (the optional ``physics`` extra), and only when called.
"""

from __future__ import annotations

import pathlib

from ...errors import InputError

MODEL_DIR = pathlib.Path(__file__).resolve().parent / "models"
"""The robot models shipped with orca_ros (also installed to ``share/orca_ros/mujoco``)."""

ROBOT_KINDS = ("diff_drive", "holonomic", "toio")
"""Robot types with a model each: a unicycle on two wheels, a holonomic disc, a toio
Core Cube (diff-drive robots of a scenario with a ``toio:`` block)."""


class ModelError(InputError):
    """A robot model file that cannot be used; the message names the file."""


class EngineMissing(InputError):
    """The engine's library is not installed."""


def default_model(kind: str) -> pathlib.Path:
    """The shipped model file of a robot type (one of :data:`ROBOT_KINDS`)."""
    if kind not in ROBOT_KINDS:
        raise ValueError(f"robot type must be one of {ROBOT_KINDS}, got {kind!r}")
    return MODEL_DIR / f"{kind}.xml"


def robot_kind(kinematics: str, toio: bool) -> str:
    """The robot type fleet_sim's ``kinematics`` makes of a scenario's robots: toio cubes
    for ``diff_drive`` in a scenario with a ``toio:`` block (a mat)."""
    if kinematics == "holonomic":
        return "holonomic"
    if kinematics == "diff_drive":
        return "toio" if toio else "diff_drive"
    raise ValueError(f"kinematics must be holonomic or diff_drive, got {kinematics!r}")
