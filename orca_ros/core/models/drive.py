"""How a lagging unicycle's sent commands are replayed (orca_node's ``drive_model``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from .toio_cube import CubeDrive

DRIVE_MODELS = ("limits", "toio")
"""``limits``, speeds move towards each command at the acceleration limits; ``toio``, a
toio cube's wheels (:class:`~orca_ros.core.models.toio_cube.CubeDrive`)."""


def drive_model(name: str) -> Optional[CubeDrive]:
    """The drive model called ``name`` (one of :data:`DRIVE_MODELS`; None for ``limits``)."""
    if name not in DRIVE_MODELS:
        raise ValueError(f"drive_model must be one of {DRIVE_MODELS}, got {name!r}")
    if name == "limits":
        return None
    from .toio_cube import CubeDrive  # the toio model only for a cube

    return CubeDrive()
