"""Half-plane and LINE_LIST helpers for the geometry the tests check by hand."""

from orca_ros.core.geometry.types import Segment


def allowed(line, v, tol=1e-9):
    """Left of the directed line (HalfPlane: point, direction) or on it."""
    px, py, dx, dy = line
    return dx * (v[1] - py) - dy * (v[0] - px) >= -tol


def square(cx, cy, half=0.5):
    """A LINE_LIST square (four segments) centred at (cx, cy)."""
    corners = [(cx - half, cy - half), (cx + half, cy - half), (cx + half, cy + half),
               (cx - half, cy + half)]
    points = []
    for i in range(4):
        points += [corners[i], corners[(i + 1) % 4]]
    return points


def segments(points):
    """The segments of a LINE_LIST's points, two by two."""
    return [Segment(points[k], points[k + 1]) for k in range(0, len(points), 2)]
