"""What one control cycle works with: the robot's own state, its neighbours as perceived,
and the command it decides.

One neighbour type per layer: :class:`~orca_ros.core.robot.perception.NeighborReading`
(a neighbour as measured: odometry or a state message, with its stamp),
:class:`Neighbor` (as perceived when the command acts: carried forward, grown by what
that guess may miss), :class:`~orca_ros.core.methods.base.NeighborView` (as the method
plans with it: inflated by the planning margin), and
:class:`~orca_ros.core.geometry.types.NeighborState` (RVO2's agent record, in the
reference port only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Optional, Tuple

from ..geometry.types import Vector2
from ..methods import MethodOutput
from ..models.bodies import unicycle_step


class RobotState(NamedTuple):
    """The robot as measured: pose, world-frame velocity, and unicycle speeds."""

    position: Vector2
    velocity: Vector2 = (0.0, 0.0)
    heading: float = 0.0
    linear_speed: float = 0.0
    angular_speed: float = 0.0


class Neighbor(NamedTuple):
    """Another robot as seen now; ``key`` orders coincident pairs consistently.

    ``uncertainty`` (m): how far it may be from ``position``, its localization's and
    because its data is old (see :mod:`orca_ros.core.robot.perception`); it enlarges
    the disc. ``age_uncertainty`` (m): the part of it that comes from the data's age
    (carried forward to when the command acts).
    ``reciprocates``: False for a robot that does not avoid us (we then take
    the whole avoidance effort).
    """

    position: Vector2
    velocity: Vector2
    radius: float
    key: str = ""
    uncertainty: float = 0.0
    reciprocates: bool = True
    age_uncertainty: float = 0.0


def predict_state(state: RobotState, lag: float, unicycle: bool = False) -> RobotState:
    """Where a robot will be when a command sent now takes effect, ``lag`` s from now.

    Constant velocity; a ``unicycle`` moves along its arc (``linear_speed``,
    ``angular_speed``). This is lag compensation, as toio SDK for Unity does for
    its cubes.
    """
    if lag <= 0.0:
        return state
    if unicycle:
        x, y, heading = unicycle_step(state.position[0], state.position[1], state.heading,
                                      state.linear_speed, state.angular_speed, lag)
        return state._replace(position=(x, y), heading=heading)
    return state._replace(position=(state.position[0] + state.velocity[0] * lag,
                                    state.position[1] + state.velocity[1] * lag))


@dataclass
class Command:
    """What the controller decided this period, with what it saw (for markers and diagnostics)."""

    velocity: Vector2  # the planned world-frame velocity
    linear: float  # unicycle v (for holonomic robots: the speed)
    angular: float  # unicycle omega (0 for holonomic robots)
    pref_velocity: Vector2
    free_velocity: Vector2
    output: Optional[MethodOutput]  # what the method reported (half-planes to draw, ...)
    arrived: bool
    guidance_target: Optional[Vector2] = None
    stalled_time: float = 0.0
    # filter mode: the input twist (vx, vy, omega) passed on unchanged (avoidance let it be)
    passed_through: Optional[Tuple[float, float, float]] = None
    # filter mode: the input reversed faster than the robot's reverse_speed, and was cut
    reverse_limited: bool = False
