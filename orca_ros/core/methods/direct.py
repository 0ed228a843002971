"""``direct``: straight at the waypoint, no avoidance.

The baseline against which avoidance is measured, and how a supervisor is
tested alone (as in the cocoon paper). It runs without keep-right and without
the safety filter: what it does is exactly the preferred velocity. In 3D too.
"""

from __future__ import annotations

from .base import AvoidanceMethod, Capabilities, MethodOutput, MethodSpec, RobotView
from .registry import register_method
from .orca3d import Direct3D


class Direct(AvoidanceMethod):
    """The preferred velocity, unchanged."""

    def compute_velocity(self, view: RobotView) -> MethodOutput:
        return MethodOutput(view.pref_velocity)


DIRECT = MethodSpec(
    "direct", "straight at the goal, no avoidance (a baseline; a supervisor alone)",
    Direct, factory_3d=Direct3D,
    capabilities=Capabilities(keep_right=False, safety_filter=False, avoids=False))


def register() -> None:
    """Register ``direct`` (the entry point ``direct``)."""
    register_method(DIRECT)
