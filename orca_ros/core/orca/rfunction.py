"""The truncated velocity obstacle as one Rvachev function, in 2D and 3D, and its voxel template.

Loktev, Tolok, Romakin, "Functional-voxel Modeling of Navigation Algorithm ORCA"
(2020) describe the velocity obstacle by one real function that is positive inside
(built with Rvachev's R-operations) and precompute it as an image. The printed
formulas have errors; this module follows the checked reconstruction in
``doc/how_it_works/methods/rfunction.md`` (the *design note*), whose names it uses.

Conventions (design note, "Conventions"; as RVO2): ``p = P_B - P_A`` (the paper
writes ``P_A - P_B``), ``r = R_A + R_B``, ``tau`` the time horizon and
``v = v_A - v_B`` the relative velocity. The truncated velocity obstacle is
``VO^tau = {v : exists t in [0, tau], |t v - p| <= r}``: the cone of half-angle
``beta = asin(r / |p|)`` around the bearing of ``p``, cut off by the disc of centre
``c = p / tau`` and radius ``rho = r / tau``.

- R-conjunction ``x ^ y = x + y - sqrt(x**2 + y**2)`` (>= 0 iff both are) and
  R-disjunction ``x v y = x + y + sqrt(x**2 + y**2)`` (>= 0 iff either is):
  :func:`r_conjunction`, :func:`r_disjunction`.
- The orientation-safe primitives (design note, "Orientation-safe form"), with
  ``d_L``, ``d_R`` the bearing rotated by ``+beta``, ``-beta``:
  ``f1 = cross(v, d_L)``, ``f2 = cross(d_R, v)`` (inside both legs; the paper's
  Pr1, Pr2), ``f3 = (v - c) . d_R``, ``f4 = (v - c) . d_L`` (past the
  perpendiculars through the tangent points; Pr3, Pr4), ``f5 = rho - |v - c|``
  (inside the cut-off disc, Circle_tau). Membership
  ``F(v) = (f1 ^ f2 ^ (f3 v f4)) v f5``, and ``v`` is in ``VO^tau`` iff ``F(v) >= 0``
  (:func:`membership`). The paper's tan-based lines only work in its example's
  quadrant; these work at any bearing.
- Which part of the boundary is nearest (:func:`region`): the cut-off circle where
  ``f3 < 0`` and ``f4 < 0`` (the split RVO2 makes with ``dot1 < 0`` and
  ``dot1**2 > r**2 |w|**2``), else the nearer leg: the left one where ``f1 < f2``.
  As ``f2 - f1 = 2 cos(beta) cross(p, v) / |p|``, its sign is taken from
  ``det(p, v - c)``, RVO2's own expression, so that exact ties (``v`` on the axis, as
  in a symmetric head-on encounter) go to the right leg as in RVO2.
- The smallest change ``u`` that takes ``v`` to the boundary (ORCA's ``u``,
  :func:`correction`): the value of the nearest part's primitive times that
  part's outward unit normal ``n_k = -grad f_k``: ``u = f1 n_L`` on the left leg,
  ``f2 n_R`` on the right one, ``f5 (v - c)/|v - c|`` on the cut-off circle. The
  primitives are signed distances, so this is RVO2's projection. The gradient of
  the composed ``F`` is not that normal (design note: 4.7 degrees off at the
  median, 40 at the 90th percentile), so it is not used.
- 3D (design note, "The voxel template as a feature"): in the frame along ``p``,
  ``VO3 = (cone ^ not back-cone) v sphere`` (:func:`membership_3d`), and ``u`` lies
  in the meridian plane through ``p`` and ``v``, where it is the 2D ``u``
  (:func:`correction_3d`).

The voxel template (:class:`VoxelTemplate`) stores ``F``, ``u`` and the region
label on grids in the normalised frame ``q = Rot(-bearing) (v - c) / rho``, one per
``beta``-slice, and falls back to the exact formula where a cell is ambiguous.

Robots that overlap (``|p| <= r``) have no cone: every ``v`` is in ``VO^tau``
(``t = 0``), and the R-function form has no answer; callers use ORCA's collision
branch (:func:`orca_ros.core.orca.orca2d.agent_orca_half_plane`), as the method does.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import NamedTuple, Optional, Tuple

import numpy as np

from .orca3d import perpendicular
from ..geometry.types import Vector2, as_finite
from ..geometry.vectors import unit2_arrays

Vector3 = Tuple[float, float, float]

CUTOFF = 0
"""Region label: the cut-off circle (sphere in 3D) is the nearest part of the boundary."""
LEFT_LEG = 1
"""Region label: the left leg (``d_L``, the bearing turned by ``+beta``) is nearest."""
RIGHT_LEG = 2
"""Region label: the right leg (``d_R``) is nearest."""
CONE = 3
"""Region label (3D): the cone's lateral surface is nearest."""
REGION_NAMES = {CUTOFF: "cutoff", LEFT_LEG: "left leg", RIGHT_LEG: "right leg", CONE: "cone"}


def r_conjunction(x: float, y: float) -> float:
    """Rvachev's R-conjunction ``x + y - sqrt(x**2 + y**2)``: >= 0 iff ``x >= 0`` and
    ``y >= 0`` (design note, "Conventions")."""
    return x + y - math.sqrt(x * x + y * y)


def r_disjunction(x: float, y: float) -> float:
    """Rvachev's R-disjunction ``x + y + sqrt(x**2 + y**2)``: >= 0 iff ``x >= 0`` or
    ``y >= 0`` (design note, "Conventions")."""
    return x + y + math.sqrt(x * x + y * y)


class TruncatedCone(NamedTuple):
    """``VO^tau`` of one pair in 2D (module docstring): the unit ``bearing`` of ``p``,
    ``sin_beta``, ``cos_beta``, the unit legs, the cut-off ``centre`` ``c = p/tau`` and
    radius ``rho = r/tau``."""

    bearing: Vector2
    position: Vector2  # p itself
    sin_beta: float
    cos_beta: float
    left_leg: Vector2  # d_L: the bearing turned by +beta
    right_leg: Vector2  # d_R: the bearing turned by -beta
    centre: Vector2
    rho: float

    @property
    def beta(self) -> float:
        """The half-angle (rad)."""
        return math.atan2(self.sin_beta, self.cos_beta)


class Correction(NamedTuple):
    """Where ``v`` stands against ``VO^tau``: ``membership`` ``F(v)`` (>= 0 inside),
    the ``region`` label of the nearest part of the boundary, ``u`` (from ``v`` to
    the nearest boundary point ``v + u``) and that point's outward unit ``normal``.
    ``from_template``: the numbers came from the voxel template (else the exact
    formula)."""

    u: Tuple[float, ...]
    normal: Tuple[float, ...]
    region: int
    membership: float
    from_template: bool = False


def _check_pair(rel_position, combined_radius: float, time_horizon: float) -> None:
    as_finite(combined_radius, "combined_radius", minimum=0.0)
    as_finite(time_horizon, "time_horizon", strictly_positive=True)
    for k, value in enumerate(rel_position):
        as_finite(value, f"rel_position[{k}]")


def truncated_cone(rel_position: Vector2, combined_radius: float,
                   time_horizon: float) -> TruncatedCone:
    """``VO^tau`` for ``p = rel_position`` (``P_B - P_A``), ``r = combined_radius``,
    ``tau = time_horizon``. The legs are RVO2's (``leg = sqrt(|p|**2 - r**2)``).
    Raises ``ValueError`` for overlapping discs (``|p| <= r``: no cone) and for
    non-finite or out-of-range input."""
    _check_pair(rel_position, combined_radius, time_horizon)
    px, py = float(rel_position[0]), float(rel_position[1])
    r = float(combined_radius)
    dist_sq = px * px + py * py
    if dist_sq <= r * r:
        raise ValueError(f"the discs overlap (|p| = {math.sqrt(dist_sq):.6g} <= r = {r:.6g}): "
                         "no velocity-obstacle cone; use ORCA's collision branch")
    return cone_of(px, py, dist_sq, r, 1.0 / float(time_horizon))


def cone_of(px: float, py: float, dist_sq: float, r: float, inv_tau: float) -> TruncatedCone:
    """:func:`truncated_cone` without the checks, for callers that made them
    (``dist_sq = px**2 + py**2 > r**2``, ``inv_tau = 1/tau``)."""
    dist = math.sqrt(dist_sq)
    leg = math.sqrt(dist_sq - r * r)
    left = ((px * leg - py * r) / dist_sq, (px * r + py * leg) / dist_sq)
    right = ((px * leg + py * r) / dist_sq, (-px * r + py * leg) / dist_sq)
    return TruncatedCone((px / dist, py / dist), (px, py), r / dist, leg / dist, left, right,
                         (px * inv_tau, py * inv_tau), r * inv_tau)


def primitives(cone: TruncatedCone, v: Vector2) -> Tuple[float, float, float, float, float]:
    """``(f1, f2, f3, f4, f5)`` at relative velocity ``v`` (design note,
    "Orientation-safe form"; the paper's Pr1, Pr2, Pr3, Pr4, Circle_tau)."""
    vx, vy = v
    lx, ly = cone.left_leg
    rx, ry = cone.right_leg
    wx, wy = vx - cone.centre[0], vy - cone.centre[1]
    return (vx * ly - vy * lx,  # f1 = cross(v, d_L)
            rx * vy - ry * vx,  # f2 = cross(d_R, v)
            wx * rx + wy * ry,  # f3 = (v - c) . d_R
            wx * lx + wy * ly,  # f4 = (v - c) . d_L
            cone.rho - math.hypot(wx, wy))  # f5 = rho - |v - c|


def compose(f1: float, f2: float, f3: float, f4: float, f5: float) -> float:
    """``F = (f1 ^ f2 ^ (f3 v f4)) v f5`` (design note; ``^`` binds before ``v``)."""
    return r_disjunction(r_conjunction(r_conjunction(f1, f2), r_disjunction(f3, f4)), f5)


def membership(cone: TruncatedCone, v: Vector2) -> float:
    """The R-function ``F(v)``: ``>= 0`` iff ``v`` is in ``VO^tau``."""
    return compose(*primitives(cone, v))


def region(cone: TruncatedCone, v: Vector2) -> int:
    """:data:`CUTOFF`, :data:`LEFT_LEG` or :data:`RIGHT_LEG`: the part of the boundary
    nearest ``v`` (module docstring)."""
    f1, f2, f3, f4, _ = primitives(cone, v)
    return _region(cone, v, f3, f4)


def _region(cone: TruncatedCone, v: Vector2, f3: float, f4: float) -> int:
    if f3 < 0.0 and f4 < 0.0:
        return CUTOFF
    # f1 < f2, decided as RVO2 does: det(p, w) > 0 with w = v - c
    px, py = cone.position
    wx, wy = v[0] - cone.centre[0], v[1] - cone.centre[1]
    return LEFT_LEG if px * wy - py * wx > 0.0 else RIGHT_LEG


def correction(cone: TruncatedCone, v: Vector2) -> Correction:
    """ORCA's ``u`` and normal from the R-function geometry: the region picks the
    boundary primitive ``f_k``, and ``u = f_k n_k`` with ``n_k = -grad f_k`` its outward
    unit normal (module docstring)."""
    f1, f2, f3, f4, f5 = primitives(cone, v)
    label = _region(cone, v, f3, f4)
    if label == CUTOFF:
        wx, wy = v[0] - cone.centre[0], v[1] - cone.centre[1]
        length = math.hypot(wx, wy)  # > 0: w = 0 gives f3 = f4 = 0, a leg region
        normal = (wx / length, wy / length)
        u = (f5 * normal[0], f5 * normal[1])
    elif label == LEFT_LEG:
        normal = (-cone.left_leg[1], cone.left_leg[0])  # d_L turned by +90 degrees
        u = (f1 * normal[0], f1 * normal[1])
    else:
        normal = (cone.right_leg[1], -cone.right_leg[0])  # d_R turned by -90 degrees
        u = (f2 * normal[0], f2 * normal[1])
    return Correction(u, normal, label, compose(f1, f2, f3, f4, f5))


# --- 3D -------------------------------------------------------------------------------------

class TruncatedCone3(NamedTuple):
    """``VO^tau`` of one pair in 3D: the unit ``axis`` along ``p``, ``distance = |p|``,
    ``sin_beta``, ``cos_beta``, the cut-off ``centre`` ``c = p/tau``, ``rho = r/tau``,
    and the same cone in its meridian plane (``p`` along x) as a 2D :class:`TruncatedCone`."""

    axis: Vector3
    distance: float
    sin_beta: float
    cos_beta: float
    centre: Vector3
    rho: float
    meridian: TruncatedCone


def truncated_cone_3d(rel_position: Vector3, combined_radius: float,
                      time_horizon: float) -> TruncatedCone3:
    """``VO^tau`` in 3D for ``p = rel_position`` (``P_B - P_A``); ``ValueError`` for
    overlapping spheres and bad input, as :func:`truncated_cone`."""
    if len(rel_position) != 3:
        raise ValueError(f"rel_position must have 3 elements, got {rel_position!r}")
    _check_pair(rel_position, combined_radius, time_horizon)
    px, py, pz = (float(x) for x in rel_position)
    dist = math.sqrt(px * px + py * py + pz * pz)
    meridian = truncated_cone((dist, 0.0), combined_radius, time_horizon)
    inv_tau = 1.0 / time_horizon
    return TruncatedCone3((px / dist, py / dist, pz / dist), dist, meridian.sin_beta,
                          meridian.cos_beta, (px * inv_tau, py * inv_tau, pz * inv_tau),
                          meridian.rho, meridian)


def meridian_frame(cone: TruncatedCone3, v: Vector3) -> Tuple[float, float, Vector3]:
    """``(a, b, e)``: ``v = a axis + b e`` with ``b >= 0`` and ``e`` a unit vector
    perpendicular to the axis (when ``v`` lies on it, the one 3D ORCA takes there:
    :func:`orca_ros.core.orca.orca3d.perpendicular`)."""
    ax, ay, az = cone.axis
    a = v[0] * ax + v[1] * ay + v[2] * az
    ex, ey, ez = v[0] - a * ax, v[1] - a * ay, v[2] - a * az
    b = math.sqrt(ex * ex + ey * ey + ez * ez)
    if b > 1e-12 * max(1.0, abs(a)):
        # v - a axis carries the rounding of a axis (about 1e-16 |v|) in every component:
        # for v within 1e-11 of the axis that is 1e-5 of b, and e would lean that far
        # towards the axis, so a point built as a axis + b' e would leave the meridian
        # plane (v_rel + u off the VO's boundary by 1e-5 r). A second projection makes e
        # perpendicular to the axis to rounding ("twice is enough", Gram-Schmidt), and b
        # is v's component along that e.
        ex, ey, ez = ex / b, ey / b, ez / b
        lean = ex * ax + ey * ay + ez * az
        ex, ey, ez = ex - lean * ax, ey - lean * ay, ez - lean * az
        norm = math.sqrt(ex * ex + ey * ey + ez * ez)
        e = (ex / norm, ey / norm, ez / norm)
        return a, v[0] * e[0] + v[1] * e[1] + v[2] * e[2], e
    return a, 0.0, perpendicular(cone.axis)


def primitives_3d(cone: TruncatedCone3, v: Vector3) -> Tuple[float, float, float]:
    """``(f_cone, f_front, f_sphere)``, each >= 0 inside its part: the cone of half-angle
    ``beta`` round the axis; outside the back-cone (apex ``c``, axis ``-p``, half-angle
    ``pi/2 - beta``: the normals to the cone along its tangent circle with the sphere,
    the 3D Pr3/Pr4); the cut-off sphere. Signed distances to the cone's and the
    back-cone's surfaces (the meridian plane's ``f1`` and ``f4`` at ``b >= 0``), and
    ``rho - |v - c|``."""
    a, b, _ = meridian_frame(cone, v)
    s, k = cone.sin_beta, cone.cos_beta
    wx = v[0] - cone.centre[0]
    wy = v[1] - cone.centre[1]
    wz = v[2] - cone.centre[2]
    along = a - cone.meridian.centre[0]  # a - |c|
    return (a * s - b * k,  # cone: the meridian f1 with b >= 0
            along * k + b * s,  # not the back-cone: the meridian f4
            cone.rho - math.sqrt(wx * wx + wy * wy + wz * wz))


def membership_3d(cone: TruncatedCone3, v: Vector3) -> float:
    """``F3(v) = (cone ^ not back-cone) v sphere`` (design note): ``>= 0`` iff ``v`` is
    in the 3D ``VO^tau``."""
    f_cone, f_front, f_sphere = primitives_3d(cone, v)
    return r_disjunction(r_conjunction(f_cone, f_front), f_sphere)


def correction_3d(cone: TruncatedCone3, v: Vector3,
                  template: Optional["VoxelTemplate"] = None) -> Correction:
    """ORCA's 3D ``u`` and normal: the 2D :func:`correction` in the meridian plane
    through the axis and ``v`` (or the voxel ``template``'s), turned back into 3D.
    The region is :data:`CUTOFF` or :data:`CONE`; ``membership`` is :func:`membership_3d`."""
    a, b, e = meridian_frame(cone, v)
    planar = correction(cone.meridian, (a, b)) if template is None else \
        template.correction(cone.meridian, (a, b))
    if b == 0.0 and planar.region == RIGHT_LEG:
        # On the axis the 2D tie goes to the right leg (b < 0): in 3D the meridian plane's
        # half b >= 0 is the one through e, and its leg there is the left one (the mirror
        # image), as 3D ORCA's limit on the axis from the side e (orca3d.cone_projection).
        (ux, uy), (nx, ny) = planar.u, planar.normal
        planar = planar._replace(u=(ux, -uy), normal=(nx, -ny), region=LEFT_LEG)
    ax, ay, az = cone.axis
    (ux, uy), (nx, ny) = planar.u, planar.normal
    u = (ux * ax + uy * e[0], ux * ay + uy * e[1], ux * az + uy * e[2])
    normal = (nx * ax + ny * e[0], nx * ay + ny * e[1], nx * az + ny * e[2])
    label = CUTOFF if planar.region == CUTOFF else CONE
    return Correction(u, normal, label, membership_3d(cone, v), planar.from_template)


# --- the voxel template ---------------------------------------------------------------------

def normalised_exact(sin_beta, cos_beta, qx, qy):
    """``(F, u_x, u_y, region)`` in the normalised frame (numpy, elementwise; ``F`` and
    ``u`` in units of ``rho``; a leg is :data:`LEFT_LEG` where ``qy > 0``, else
    :data:`RIGHT_LEG`).

    With ``q = Rot(-bearing) (v - c) / rho`` the disc is the unit disc, the apex is
    at ``(-1/sin beta, 0)`` and the primitives are ``f1 = 1 + qx sin - qy cos``,
    ``f2 = 1 + qx sin + qy cos``, ``f3 = qx cos - qy sin``, ``f4 = qx cos + qy sin``,
    ``f5 = 1 - |q|``: finite for every ``beta`` in ``[0, pi/2]``.
    """
    sb, cb = np.asarray(sin_beta, dtype=float), np.asarray(cos_beta, dtype=float)
    qx, qy = np.asarray(qx, dtype=float), np.asarray(qy, dtype=float)
    f1 = 1.0 + qx * sb - qy * cb
    f2 = 1.0 + qx * sb + qy * cb
    f3 = qx * cb - qy * sb
    f4 = qx * cb + qy * sb
    length = np.hypot(qx, qy)
    f5 = 1.0 - length
    big_f = _compose_array(f1, f2, f3, f4, f5)
    cutoff = (f3 < 0.0) & (f4 < 0.0)
    left = qy > 0.0  # f1 < f2, as f2 - f1 = 2 qy cos(beta); qy = 0: RVO2's tie, the right leg
    safe = np.where(length > 0.0, length, 1.0)
    ux = np.where(cutoff, f5 * qx / safe, np.where(left, -f1 * sb, -f2 * sb))
    uy = np.where(cutoff, f5 * qy / safe, np.where(left, f1 * cb, -f2 * cb))
    label = np.where(cutoff, CUTOFF, np.where(left, LEFT_LEG, RIGHT_LEG)).astype(np.int8)
    return big_f, ux, uy, label


@dataclass(frozen=True)
class TemplateStats:
    """How a template answered so far: queries, answered by the exact formula because
    the cell was ambiguous (``ambiguous``) or outside the grid (``outside``)."""

    queries: int
    ambiguous: int
    outside: int

    @property
    def fallback_share(self) -> float:
        return (self.ambiguous + self.outside) / self.queries if self.queries else 0.0


TEMPLATE_MAX_BYTES = 1e9
"""The largest template :func:`template_shape` accepts (bytes of its arrays)."""


def template_shape(slices: int, step: float, extent: float) -> Tuple[int, int]:
    """The grid's ``(nx, ny)`` nodes per slice for these settings, or a ``ValueError``
    naming the bad one (also when the arrays would pass :data:`TEMPLATE_MAX_BYTES`)."""
    if isinstance(slices, bool) or not isinstance(slices, (int, np.integer)) or slices < 1:
        raise ValueError(f"template_slices must be an integer >= 1, got {slices!r}")
    step = as_finite(step, "template_step", strictly_positive=True)
    extent = as_finite(extent, "template_extent", strictly_positive=True)
    if extent < 2.0 * step:
        raise ValueError(f"template_extent ({extent}) must be at least two steps ({step})")
    nx = int(round(1.5 * extent / step)) + 1
    ny = int(round(0.5 * extent / step)) + 1
    size = (slices + 1) * nx * ny * 13 + slices * (nx - 1) * (ny - 1)
    if size > TEMPLATE_MAX_BYTES:
        raise ValueError(f"a template of {slices} slices, step {step} and extent {extent} "
                         f"needs {size / 1e6:.0f} MB (limit {TEMPLATE_MAX_BYTES / 1e6:.0f} MB)")
    return nx, ny


class VoxelTemplate:
    """The velocity obstacle precomputed as images (design note, "The voxel template as
    a feature"; the paper's M-image), queried instead of the formula.

    In the normalised frame ``q = Rot(-bearing) (v - c) / rho`` (mirrored to
    ``qy >= 0``) the only free parameter is ``beta``. For ``slices + 1`` values of
    ``beta`` evenly over ``[0, pi/2]`` the grid of step ``step`` over
    ``qx in [-extent, extent/2]``, ``qy in [0, extent/2]`` stores ``F``, ``u`` (in units
    of ``rho``, float32) and the region label (int8). A query interpolates
    trilinearly (``beta``, ``qx``, ``qy``) in its cell; the exact formula answers
    instead where the cell is *ambiguous* (its eight corners disagree on the region
    or on the sign of ``F``, or it comes within one step of the unit disc, where ``u``
    bends round ``q = 0``) or outside the grid. The normal is the region's (the leg's,
    or the direction from ``c``), computed, not stored.
    """

    def __init__(self, slices: int = 100, step: float = 0.08, extent: float = 16.0) -> None:
        self.nx, self.ny = template_shape(slices, step, extent)
        self.slices, self.step, self.extent = slices, float(step), float(extent)
        self.x0 = -self.extent
        self.beta_step = 0.5 * math.pi / slices
        started = time.perf_counter()
        self._build()
        self.build_seconds = time.perf_counter() - started
        self._queries = self._ambiguous = self._outside = 0

    def _build(self) -> None:
        qx = self.x0 + self.step * np.arange(self.nx)
        qy = self.step * np.arange(self.ny)
        gx, gy = np.meshgrid(qx, qy, indexing="ij")
        shape = (self.slices + 1, self.nx, self.ny)
        self.values = np.empty(shape + (3,), dtype=np.float32)  # F, u_x, u_y
        self.labels = np.empty(shape, dtype=np.int8)
        for k in range(self.slices + 1):
            beta = k * self.beta_step
            big_f, ux, uy, label = normalised_exact(math.sin(beta), math.cos(beta), gx, gy)
            # On this half only qy = 0 gives the right leg (RVO2's tie): store the left
            # leg's u there, its limit from qy > 0 (the right leg's has u_y negated).
            tie = label == RIGHT_LEG
            uy = np.where(tie, -uy, uy)
            label[tie] = LEFT_LEG
            self.values[k, ..., 0] = big_f
            self.values[k, ..., 1] = ux
            self.values[k, ..., 2] = uy
            self.labels[k] = label
        # A cell (between slices k and k+1) is usable when its 8 corners agree on the
        # region and on the sign of F, and it stays a step clear of the unit disc.
        inside = self.values[..., 0] >= 0.0
        same_label = np.ones((self.slices, self.nx - 1, self.ny - 1), dtype=bool)
        same_sign = same_label.copy()
        first_label = self.labels[:-1, :-1, :-1]
        first_sign = inside[:-1, :-1, :-1]
        for dk in (0, 1):
            for di in (0, 1):
                for dj in (0, 1):
                    corner = (slice(dk, dk + self.slices), slice(di, di + self.nx - 1),
                              slice(dj, dj + self.ny - 1))
                    same_label &= self.labels[corner] == first_label
                    same_sign &= inside[corner] == first_sign
        centre_x = (qx[:-1] + 0.5 * self.step)[:, None]
        centre_y = (qy[:-1] + 0.5 * self.step)[None, :]
        clear = np.hypot(centre_x, centre_y) >= 1.0 + self.step
        self.usable = same_label & same_sign & clear[None, :, :]

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays (values, labels, the usable-cell mask)."""
        return self.values.nbytes + self.labels.nbytes + self.usable.nbytes

    @property
    def ambiguous_cell_share(self) -> float:
        """The share of the grid's cells that the exact formula answers for."""
        return 1.0 - float(self.usable.mean())

    def stats(self) -> TemplateStats:
        return TemplateStats(self._queries, self._ambiguous, self._outside)

    def reset_stats(self) -> None:
        self._queries = self._ambiguous = self._outside = 0

    def lookup(self, sin_beta: float, cos_beta: float, qx: float, qy: float
               ) -> Optional[Tuple[float, float, float, int]]:
        """``(F, u_x, u_y, region)`` in the normalised frame at ``qy >= 0`` from the
        template, or None where the exact formula must answer (counted)."""
        self._queries += 1
        fk = math.atan2(sin_beta, cos_beta) / self.beta_step
        fi = (qx - self.x0) / self.step
        fj = qy / self.step
        k, i, j = min(int(fk), self.slices - 1), int(fi), int(fj)
        if not (0.0 <= fi and i < self.nx - 1 and j < self.ny - 1):
            self._outside += 1
            return None
        if not self.usable[k, i, j]:
            self._ambiguous += 1
            return None
        tk, ti, tj = fk - k, fi - i, fj - j
        block = self.values[k:k + 2, i:i + 2, j:j + 2].tolist()
        out = [0.0, 0.0, 0.0]
        for dk, wk in ((0, 1.0 - tk), (1, tk)):
            for di, wi in ((0, 1.0 - ti), (1, ti)):
                for dj, wj in ((0, 1.0 - tj), (1, tj)):
                    weight = wk * wi * wj
                    corner = block[dk][di][dj]
                    out[0] += weight * corner[0]
                    out[1] += weight * corner[1]
                    out[2] += weight * corner[2]
        return out[0], out[1], out[2], int(self.labels[k, i, j])

    def correction(self, cone: TruncatedCone, v: Vector2) -> Correction:
        """:func:`correction` from the template where it can answer, else exactly."""
        ex, ey = cone.bearing
        wx, wy = v[0] - cone.centre[0], v[1] - cone.centre[1]
        inv_rho = 1.0 / cone.rho
        qx = (wx * ex + wy * ey) * inv_rho
        qy = (ex * wy - ey * wx) * inv_rho
        mirrored = qy <= 0.0  # qy = 0: RVO2's tie goes to the right leg
        found = self.lookup(cone.sin_beta, cone.cos_beta, qx, -qy if mirrored else qy)
        if found is None:
            return correction(cone, v)
        big_f, ux, uy, label = found
        if mirrored:
            uy = -uy
        rho = cone.rho
        u = (rho * (ux * ex - uy * ey), rho * (ux * ey + uy * ex))
        if label == CUTOFF:
            length = math.hypot(wx, wy)
            normal = (wx / length, wy / length)
        elif mirrored:
            label = RIGHT_LEG
            normal = (cone.right_leg[1], -cone.right_leg[0])
        else:
            normal = (-cone.left_leg[1], cone.left_leg[0])
        return Correction(u, normal, label, rho * big_f, True)

    def lookup_batch(self, beta, qx, qy):
        """Vectorised :meth:`lookup` (numpy arrays, ``qy >= 0``): ``(F, u_x, u_y, region,
        answered)``; where ``answered`` is False the other arrays hold the exact values.
        Counted in :meth:`stats` as one query per element."""
        beta, qx, qy = (np.asarray(a, dtype=float) for a in (beta, qx, qy))
        fk = beta / self.beta_step
        fi = (qx - self.x0) / self.step
        fj = qy / self.step
        k = np.minimum(fk.astype(np.int64), self.slices - 1)
        inside_grid = (fi >= 0.0) & (fi < self.nx - 1) & (fj < self.ny - 1)
        i = np.where(inside_grid, fi, 0.0).astype(np.int64)
        j = np.where(inside_grid, fj, 0.0).astype(np.int64)
        answered = inside_grid & self.usable[k, i, j]
        self._queries += answered.size
        self._outside += int(answered.size - np.count_nonzero(inside_grid))
        self._ambiguous += int(np.count_nonzero(inside_grid & ~answered))
        tk, ti, tj = fk - k, fi - i, fj - j
        out = np.zeros(beta.shape + (3,))
        for dk in (0, 1):
            wk = tk if dk else 1.0 - tk
            for di in (0, 1):
                wi = ti if di else 1.0 - ti
                for dj in (0, 1):
                    wj = tj if dj else 1.0 - tj
                    out += (wk * wi * wj)[..., None] * self.values[k + dk, i + di, j + dj]
        label = self.labels[k, i, j]
        if not answered.all():
            missing = ~answered
            exact = normalised_exact(np.sin(beta[missing]), np.cos(beta[missing]),
                                     qx[missing], qy[missing])
            out[missing, 0], out[missing, 1], out[missing, 2] = exact[0], exact[1], exact[2]
            label = label.copy()
            label[missing] = exact[3]
        return out[..., 0], out[..., 1], out[..., 2], label, answered


_TEMPLATES = {}


def shared_template(slices: int = 100, step: float = 0.08, extent: float = 16.0
                    ) -> VoxelTemplate:
    """One template per ``(slices, step, extent)`` for the whole process, built on
    first use (every robot of a world shares it)."""
    key = (slices, float(step), float(extent))
    template = _TEMPLATES.get(key)
    if template is None:
        template = _TEMPLATES[key] = VoxelTemplate(slices, step, extent)
    return template


# --- many pairs at once (numpy) ---------------------------------------------------------------

def half_planes_batch(velocity, other_position_rel, other_velocity, combined_radius,
                      inv_time_horizon, inv_time_step: float, variant: str = "orca",
                      template: Optional[VoxelTemplate] = None):
    """The R-function half-planes of many agent-neighbour pairs at once (numpy), as
    :func:`orca_ros.core.methods.rfunction.rfunction_half_plane` builds them one by one
    (the same formulas; every neighbour reciprocates: the share is 1/2 with
    ``variant: orca``, 1 with ``paper``).

    Shapes as :func:`~orca_ros.core.orca.orca2d.agent_orca_half_planes_batch`: ``velocity``
    (N, 2); ``other_position_rel``, ``other_velocity`` (N, K, 2); ``combined_radius``
    (N, K); ``inv_time_horizon`` (N,). Returns ``(lines, kept)``: (N, K, 4) rows
    ``(point_x, point_y, direction_x, direction_y)`` and an (N, K) mask, False where the
    ``paper`` variant adds no half-plane. Overlapping pairs take ORCA's collision branch.
    """
    v = np.asarray(velocity, dtype=float)[:, None, :]
    rp = np.asarray(other_position_rel, dtype=float)
    rel = v - np.asarray(other_velocity, dtype=float)
    r = np.asarray(combined_radius, dtype=float)
    inv_tau = np.asarray(inv_time_horizon, dtype=float)[:, None]
    px, py, vx, vy = rp[..., 0], rp[..., 1], rel[..., 0], rel[..., 1]
    dist_sq = px * px + py * py
    apart = dist_sq > r * r
    with np.errstate(invalid="ignore", divide="ignore"):
        leg = np.sqrt(np.where(apart, dist_sq - r * r, 0.0))
        lx, ly = (px * leg - py * r) / dist_sq, (px * r + py * leg) / dist_sq  # d_L
        rx, ry = (px * leg + py * r) / dist_sq, (-px * r + py * leg) / dist_sq  # d_R
        rho = r * inv_tau
        wx, wy = vx - px * inv_tau, vy - py * inv_tau  # v - c
        w_length = np.hypot(wx, wy)
        f1 = vx * ly - vy * lx
        f2 = rx * vy - ry * vx
        f3 = wx * rx + wy * ry
        f4 = wx * lx + wy * ly
        f5 = rho - w_length
        big_f = _compose_array(f1, f2, f3, f4, f5)
        cutoff = (f3 < 0.0) & (f4 < 0.0)
        left = px * wy - py * wx > 0.0  # f1 < f2, as RVO2 decides it
        if template is not None:
            dist = np.sqrt(dist_sq)
            ex, ey = px / dist, py / dist
            qx = (wx * ex + wy * ey) / rho
            qy = (ex * wy - ey * wx) / rho
            mirrored = qy <= 0.0
            found_f, ux, uy, label, _ = template.lookup_batch(
                np.where(apart, np.arctan2(r, leg), 0.0), np.where(apart, qx, 0.0),
                np.where(apart, np.abs(qy), 0.0))
            uy = np.where(mirrored, -uy, uy)
            big_f = rho * found_f
            cutoff = label == CUTOFF
            left = ~cutoff & ~mirrored
            ux, uy = rho * (ux * ex - uy * ey), rho * (ux * ey + uy * ex)
        nx = np.where(cutoff, wx / w_length, np.where(left, -ly, ry))
        ny = np.where(cutoff, wy / w_length, np.where(left, lx, -rx))
        if template is None:
            size = np.where(cutoff, f5, np.where(left, f1, f2))
            ux, uy = size * nx, size * ny
        # overlapping: ORCA's collision branch, the cut-off circle of one time step
        cwx, cwy = vx - inv_time_step * px, vy - inv_time_step * py
        c_length = np.hypot(cwx, cwy)
        cux, cuy = unit2_arrays(cwx, cwy)
        c_scale = r * inv_time_step - c_length
    nx, ny = np.where(apart, nx, cux), np.where(apart, ny, cuy)
    ux, uy = np.where(apart, ux, c_scale * cux), np.where(apart, uy, c_scale * cuy)
    share = 0.5 if variant == "orca" else 1.0
    kept = np.ones(apart.shape, dtype=bool) if variant == "orca" else ~apart | (big_f >= 0.0)
    lines = np.stack((v[..., 0] + share * ux, v[..., 1] + share * uy, ny, -nx), axis=-1)
    return lines, kept


def _compose_array(f1, f2, f3, f4, f5):
    """:func:`compose` for numpy arrays."""
    def conj(x, y):
        return x + y - np.hypot(x, y)

    def disj(x, y):
        return x + y + np.hypot(x, y)

    return disj(conj(conj(f1, f2), disj(f3, f4)), f5)
