"""Twist <-> toio wheel speed commands.

The wheel model lives in :mod:`orca_ros.core.models.toio_cube` with the rest of the
cube's physics (the scenario world and the simulated cube share it); these
names stay importable from here.
"""

from __future__ import annotations

from ..core.models.toio_cube import (TOIO, WheelModel, timed_duration_ms, twist_to_wheels,
                                     wheels_to_twist)

__all__ = ["TOIO", "WheelModel", "timed_duration_ms", "twist_to_wheels", "wheels_to_twist"]
