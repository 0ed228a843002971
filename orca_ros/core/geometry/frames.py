"""Poses on the floor (SE(2)): a frame's position and heading in another, composed and
inverted as TF composes transforms.

A :class:`Pose2` ``(x, y, yaw)`` of frame B in frame A maps a point ``p_B`` given in B
to A: ``p_A = R(yaw) p_B + (x, y)``. ``a.compose(b)`` is ``a * b`` (B in A, then C in
B gives C in A: TF's ``lookupTransform`` chains); ``a.inverse()`` is A in B.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence, Tuple

from .types import Vector2


def wrap_angle(angle):
    """An angle in (-pi, pi]; a numpy array of angles, each (for a record's headings)."""
    if hasattr(angle, "shape"):
        import numpy as np

        wrapped = math.pi - np.mod(math.pi - np.asarray(angle, dtype=float), 2.0 * math.pi)
        # just above pi, mod rounds up to 2 pi: -pi, which is pi in (-pi, pi]
        return np.where(wrapped <= -math.pi, math.pi, wrapped)
    wrapped = math.fmod(angle + math.pi, 2.0 * math.pi)
    if wrapped <= 0.0:
        wrapped += 2.0 * math.pi
    return wrapped - math.pi


def world_to_body(yaw: float, vector: Sequence[float]) -> Vector2:
    """A free vector (a velocity) of the outer frame in a body's frame turned by ``yaw``
    (a holonomic robot's command: its world velocity as the body's ``(x, y)``)."""
    c, s = math.cos(yaw), math.sin(yaw)
    return (c * vector[0] + s * vector[1], -s * vector[0] + c * vector[1])


def body_to_world(yaw: float, vector: Sequence[float]) -> Vector2:
    """A free vector given in a body's frame turned by ``yaw``, in the outer frame."""
    c, s = math.cos(yaw), math.sin(yaw)
    return (c * vector[0] - s * vector[1], s * vector[0] + c * vector[1])


class Pose2(NamedTuple):
    """A pose on the floor: position (m) and heading (rad, counter-clockwise from x)."""

    x: float = 0.0
    y: float = 0.0
    yaw: float = 0.0

    def compose(self, other: "Pose2") -> "Pose2":
        """``self * other``: ``other`` (given in this pose's frame) in the outer frame."""
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return Pose2(self.x + c * other.x - s * other.y, self.y + s * other.x + c * other.y,
                     wrap_angle(self.yaw + other.yaw))

    def inverse(self) -> "Pose2":
        """The outer frame seen from this pose."""
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return Pose2(-c * self.x - s * self.y, s * self.x - c * self.y, wrap_angle(-self.yaw))

    def apply(self, point: Vector2) -> Vector2:
        """A point given in this pose's frame, in the outer frame."""
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return (self.x + c * point[0] - s * point[1], self.y + s * point[0] + c * point[1])

    def rotate(self, vector: Vector2) -> Vector2:
        """A free vector (a velocity) given in this pose's frame, in the outer frame."""
        return body_to_world(self.yaw, vector)

    @property
    def position(self) -> Tuple[float, float]:
        return (self.x, self.y)


def interpolate(a: Pose2, b: Pose2, fraction: float) -> Pose2:
    """The pose ``fraction`` (0..1) of the way from ``a`` to ``b`` (the shorter turn)."""
    return Pose2(a.x + (b.x - a.x) * fraction, a.y + (b.y - a.y) * fraction,
                 wrap_angle(a.yaw + wrap_angle(b.yaw - a.yaw) * fraction))
