"""The R-function velocity obstacle (orca_ros/core/rfunction.py): R-operations, membership
against the exact velocity obstacle on dense grids in 2D and 3D, the paper's worked example,
ORCA's u and normal against an independent brute-force nearest boundary point, and the
voxel template against the exact formula.

The exact velocity obstacle here is the test's own: v is in VO^tau iff the distance of the
segment {t v : t in [0, tau]} from p is at most r (the minimising t in closed form)."""

import math

import numpy as np
import pytest

from orca_ros.core.orca.rfunction import (CONE, CUTOFF, LEFT_LEG, RIGHT_LEG, TemplateStats,
                                          VoxelTemplate, correction, correction_3d, membership,
                                          membership_3d, normalised_exact, primitives,
                                          r_conjunction, r_disjunction, region, template_shape,
                                          truncated_cone, truncated_cone_3d)


# --- the test's own exact velocity obstacle ---------------------------------------------------

def segment_distance(v, p, tau):
    """min over t in [0, tau] of |t v - p|, for arrays v (..., d) and one p (d,)."""
    v = np.asarray(v, dtype=float)
    p = np.asarray(p, dtype=float)
    vv = (v * v).sum(axis=-1)
    vp = (v * p).sum(axis=-1)
    t = np.clip(np.where(vv > 0.0, vp / np.where(vv > 0.0, vv, 1.0), 0.0), 0.0, tau)
    return np.linalg.norm(t[..., None] * v - p, axis=-1)


def in_vo(v, p, r, tau):
    return segment_distance(v, p, tau) <= r


def distance_outside(v, p, r, tau, samples=400001):
    """Distance from v (outside) to VO^tau = union over t in (0, tau] of the balls
    B(p/t, r/t): the smallest |v - p/t| - r/t over t sampled densely (s = 1/t up to 1e4/tau)."""
    s = 1.0 / tau + np.geomspace(1e-7, 1e4, samples) / tau
    s = np.concatenate(([1.0 / tau], s))
    centres = s[:, None] * np.asarray(p, dtype=float)[None, :]
    return float(np.min(np.linalg.norm(np.asarray(v)[None, :] - centres, axis=1) - s * r))


def directions(dim, count):
    if dim == 2:
        a = np.linspace(0.0, 2.0 * math.pi, count, endpoint=False)
        return np.stack((np.cos(a), np.sin(a)), axis=1)
    k = np.arange(count) + 0.5  # a Fibonacci sphere
    z = 1.0 - 2.0 * k / count
    a = math.pi * (1.0 + 5.0 ** 0.5) * k
    rho = np.sqrt(1.0 - z * z)
    return np.stack((rho * np.cos(a), rho * np.sin(a), z), axis=1)


def distance_inside(v, p, r, tau, count):
    """Distance from v (inside) to the boundary: the shortest exit along ``count`` rays
    (VO^tau is convex, so each ray leaves it at most once; bisection on in_vo)."""
    e = directions(len(v), count)
    v = np.asarray(v, dtype=float)
    far = 1e3 * (np.linalg.norm(p) / tau + r / tau + np.linalg.norm(v))
    inside_far = in_vo(v + far * e, p, r, tau)
    lo = np.zeros(len(e))
    hi = np.full(len(e), far)
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        inside = in_vo(v + mid[:, None] * e, p, r, tau)
        lo = np.where(inside, mid, lo)
        hi = np.where(inside, hi, mid)
    hi[inside_far] = np.inf
    return float(hi.min())


# --- R-operations -----------------------------------------------------------------------------

@pytest.mark.parametrize("x", [-2.0, -1e-9, 0.0, 1e-9, 3.0])
@pytest.mark.parametrize("y", [-5.0, -1e-12, 0.0, 0.5])
def test_r_operations_have_the_signs_of_and_and_or(x, y):
    assert (r_conjunction(x, y) >= 0.0) == (x >= 0.0 and y >= 0.0)
    assert (r_disjunction(x, y) >= 0.0) == (x >= 0.0 or y >= 0.0)


# --- the paper's worked example (design note) -------------------------------------------------

PA, PB = (2.0, -3.0), (-2.0, 3.0)
VA, VB = (1.5, 1.0), (3.0, -1.5)


def test_the_worked_example():
    """R_A = R_B = 1, tau = 2: p = (-4, 6), v = (-1.5, 2.5), beta = 16.10 degrees, the
    cut-off disc's case, u = (0.2071, -0.2071) with the normal along it."""
    p = (PB[0] - PA[0], PB[1] - PA[1])
    v = (VA[0] - VB[0], VA[1] - VB[1])
    assert p == (-4.0, 6.0) and v == (-1.5, 2.5)
    cone = truncated_cone(p, 2.0, 2.0)
    assert math.degrees(cone.beta) == pytest.approx(16.10, abs=0.005)
    assert membership(cone, v) > 0.0  # inside: inside the cut-off disc (f5 > 0)
    assert primitives(cone, v)[4] > 0.0
    assert region(cone, v) == CUTOFF
    found = correction(cone, v)
    assert found.u == pytest.approx((0.2071, -0.2071), abs=5e-5)
    assert found.normal == pytest.approx((0.7071, -0.7071), abs=5e-5)
    assert found.region == CUTOFF and found.membership > 0.0


def test_the_worked_example_from_b_mirrors_it():
    cone = truncated_cone((4.0, -6.0), 2.0, 2.0)
    found = correction(cone, (1.5, -2.5))
    assert found.u == pytest.approx((-0.2071, 0.2071), abs=5e-5)
    assert found.normal == pytest.approx((-0.7071, 0.7071), abs=5e-5)


def test_overlapping_discs_and_bad_input_have_no_cone():
    with pytest.raises(ValueError, match="overlap"):
        truncated_cone((0.5, 0.0), 0.6, 2.0)
    with pytest.raises(ValueError, match="overlap"):
        truncated_cone_3d((0.0, 0.3, 0.0), 0.6, 2.0)
    with pytest.raises(ValueError, match="time_horizon"):
        truncated_cone((3.0, 0.0), 0.6, 0.0)
    with pytest.raises(ValueError, match="combined_radius"):
        truncated_cone((3.0, 0.0), -0.1, 2.0)
    with pytest.raises(ValueError, match="rel_position"):
        truncated_cone((float("nan"), 0.0), 0.6, 2.0)
    with pytest.raises(ValueError, match="3 elements"):
        truncated_cone_3d((1.0, 2.0), 0.6, 2.0)


# --- membership against the exact velocity obstacle on dense grids ----------------------------

CASES_2D = [  # (p, r, tau): every quadrant, near and far, short and long horizons
    ((-4.0, 6.0), 2.0, 2.0), ((3.0, 0.0), 0.6, 2.0), ((0.0, -1.3), 1.2, 5.0),
    ((-0.9, -0.4), 0.6, 1.0), ((5.5, 4.0), 0.5, 10.0), ((-2.0, 0.01), 1.9, 0.5),
    ((0.7, -2.2), 0.3, 3.0), ((-6.0, -6.0), 1.0, 2.0),
]


@pytest.mark.parametrize("p, r, tau", CASES_2D)
def test_membership_agrees_with_the_exact_vo_on_a_dense_grid(p, r, tau):
    cone = truncated_cone(p, r, tau)
    extent = 1.5 * (math.hypot(*p) / tau + r / tau)
    axis = np.linspace(-extent, extent, 301)
    vx, vy = np.meshgrid(axis, axis, indexing="ij")
    grid = np.stack((vx.ravel(), vy.ravel()), axis=1)
    exact_distance = segment_distance(grid, p, tau)
    clear = np.abs(exact_distance - r) > 1e-9  # not on the boundary itself
    ours = np.array([membership(cone, (x, y)) >= 0.0 for x, y in grid.tolist()])
    assert clear.sum() > 0.99 * len(grid)
    inside = exact_distance <= r
    assert 0.02 < inside.mean() < 0.98  # the grid shows both sides
    assert np.array_equal(ours[clear], inside[clear])


@pytest.mark.parametrize("p, r, tau", CASES_2D)
def test_the_normalised_form_agrees_with_the_exact_vo(p, r, tau):
    """normalised_exact (the template's source) at q = Rot(-bearing) (v - c) / rho."""
    cone = truncated_cone(p, r, tau)
    rng = np.random.default_rng(7)
    scale = 1.5 * (math.hypot(*p) / tau + r / tau)
    v = rng.uniform(-scale, scale, size=(20000, 2))
    ex, ey = cone.bearing
    w = v - np.asarray(cone.centre)
    qx = (w[:, 0] * ex + w[:, 1] * ey) / cone.rho
    qy = (ex * w[:, 1] - ey * w[:, 0]) / cone.rho
    big_f, ux, uy, label = normalised_exact(cone.sin_beta, cone.cos_beta, qx, qy)
    exact_distance = segment_distance(v, p, tau)
    clear = np.abs(exact_distance - r) > 1e-9
    assert np.array_equal((big_f >= 0.0)[clear], (exact_distance <= r)[clear])
    for row in range(0, 20000, 997):  # u turned back agrees with the scalar correction
        found = correction(cone, tuple(v[row]))
        u = (cone.rho * (ux[row] * ex - uy[row] * ey), cone.rho * (ux[row] * ey + uy[row] * ex))
        assert u == pytest.approx(found.u, abs=1e-12)
        assert label[row] == found.region


CASES_3D = [((-4.0, 6.0, 1.0), 2.0, 2.0), ((0.0, 0.0, 3.0), 0.6, 2.0),
            ((1.0, -0.5, -0.3), 0.9, 1.0), ((-3.0, 2.0, -4.0), 0.5, 5.0)]


@pytest.mark.parametrize("p, r, tau", CASES_3D)
def test_3d_membership_agrees_with_the_exact_vo_on_a_dense_grid(p, r, tau):
    cone = truncated_cone_3d(p, r, tau)
    extent = 1.5 * (math.sqrt(sum(x * x for x in p)) / tau + r / tau)
    axis = np.linspace(-extent, extent, 41)
    grid = np.stack([g.ravel() for g in np.meshgrid(axis, axis, axis, indexing="ij")], axis=1)
    exact_distance = segment_distance(grid, p, tau)
    clear = np.abs(exact_distance - r) > 1e-9
    inside = exact_distance <= r
    ours = np.array([membership_3d(cone, tuple(v)) >= 0.0 for v in grid.tolist()])
    assert 0.002 < inside.mean() < 0.99
    assert np.array_equal(ours[clear], inside[clear])


def test_3d_membership_in_a_plane_through_p_is_the_2d_one():
    cone3 = truncated_cone_3d((0.0, 3.0, 4.0), 1.0, 2.0)
    cone2 = truncated_cone((5.0, 0.0), 1.0, 2.0)
    rng = np.random.default_rng(3)
    for a, b in rng.uniform(-4.0, 4.0, size=(500, 2)).tolist():
        v3 = (0.0, 0.6 * a - 0.8 * b, 0.8 * a + 0.6 * b)  # a along p, b across it
        assert (membership_3d(cone3, v3) >= 0.0) == (membership(cone2, (a, b)) >= 0.0)


# --- ORCA's u and normal against the nearest boundary point, found by brute force --------------

def _check_correction(v, p, r, tau, found, count):
    v = np.asarray(v, dtype=float)
    u = np.asarray(found.u)
    n = np.asarray(found.normal)
    inside = bool(in_vo(v, p, r, tau))
    assert (found.membership >= 0.0) == inside
    boundary = v + u
    scale = np.linalg.norm(p) / tau + r / tau
    # v + u is on the boundary, n its outward normal
    assert segment_distance(boundary, p, tau) == pytest.approx(r, abs=1e-9 * max(1.0, r))
    step = 1e-6 * scale
    assert not in_vo(boundary + step * n, p, r, tau)
    assert in_vo(boundary - step * n, p, r, tau)
    assert np.linalg.norm(n) == pytest.approx(1.0, abs=1e-12)
    if inside:
        expected = distance_inside(v, p, r, tau, count)
        assert u @ n >= -1e-12  # inside: u points out
    else:
        expected = distance_outside(v, p, r, tau)
        assert u @ n <= 1e-12  # outside: u points in
    assert np.linalg.norm(u) == pytest.approx(expected, rel=2e-4, abs=1e-6 * scale)


@pytest.mark.parametrize("p, r, tau", CASES_2D)
def test_u_reaches_the_nearest_boundary_point_2d(p, r, tau):
    cone = truncated_cone(p, r, tau)
    rng = np.random.default_rng(11)
    scale = math.hypot(*p) / tau + r / tau
    labels = set()
    for v in rng.uniform(-1.5 * scale, 1.5 * scale, size=(40, 2)).tolist():
        found = correction(cone, tuple(v))
        labels.add(found.region)
        _check_correction(v, p, r, tau, found, 7200)
    assert labels <= {CUTOFF, LEFT_LEG, RIGHT_LEG} and len(labels) >= 2


@pytest.mark.parametrize("p, r, tau", CASES_3D)
def test_u_reaches_the_nearest_boundary_point_3d(p, r, tau):
    cone = truncated_cone_3d(p, r, tau)
    rng = np.random.default_rng(5)
    scale = math.sqrt(sum(x * x for x in p)) / tau + r / tau
    labels = set()
    for v in rng.uniform(-1.5 * scale, 1.5 * scale, size=(12, 3)).tolist():
        found = correction_3d(cone, tuple(v))
        labels.add(found.region)
        _check_correction(v, p, r, tau, found, 60000)
    assert labels <= {CUTOFF, CONE}


def test_3d_u_on_the_axis_still_reaches_the_boundary():
    """v on the axis of the cone: every meridian plane is as near; one is taken."""
    p, r, tau = (0.0, 0.0, 4.0), 1.0, 1.0
    cone = truncated_cone_3d(p, r, tau)
    for v in ((0.0, 0.0, 6.0), (0.0, 0.0, 3.5), (0.0, 0.0, 1.0)):
        found = correction_3d(cone, v)
        _check_correction(v, p, r, tau, found, 60000)


# --- the voxel template -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def template():
    return VoxelTemplate(slices=60, step=0.1, extent=12.0)


def test_the_template_agrees_with_the_exact_formula_where_it_answers(template):
    """Uniform queries over the grid and every beta: where the template answers, u is
    within 3e-3 rho of the exact u (this coarse template: 61 slices, step 0.1; the error
    grows with |q| by the interpolation between slices), and F has the exact sign."""
    rng = np.random.default_rng(2)
    count = 200000
    beta = rng.uniform(0.0, 0.5 * math.pi, count)
    qx = rng.uniform(-12.0, 6.0, count)
    qy = rng.uniform(0.0, 6.0, count)
    big_f, ux, uy, label, answered = template.lookup_batch(beta, qx, qy)
    exact_f, exact_ux, exact_uy, exact_label = normalised_exact(np.sin(beta), np.cos(beta),
                                                                qx, qy)
    exact_label = np.where(exact_label == RIGHT_LEG, LEFT_LEG, exact_label)  # qy = 0 ties
    assert 0.9 < answered.mean() < 1.0
    error = np.hypot(ux - exact_ux, uy - exact_uy)[answered]
    assert error.max() < 3e-3
    assert np.mean((big_f >= 0.0)[answered] != (exact_f >= 0.0)[answered]) < 1e-4
    assert np.array_equal(label[answered], exact_label[answered])
    missing = ~answered  # there the exact values are returned
    assert np.array_equal(ux[missing], exact_ux[missing])


def test_the_scalar_template_query_matches_the_batch_and_counts_its_fallbacks(template):
    template.reset_stats()
    rng = np.random.default_rng(4)
    for _ in range(300):
        beta = rng.uniform(0.0, 0.5 * math.pi)
        qx, qy = rng.uniform(-12.0, 6.0), rng.uniform(0.0, 6.0)
        one = template.lookup(math.sin(beta), math.cos(beta), qx, qy)
        batch = template.lookup_batch(np.array([beta]), np.array([qx]), np.array([qy]))
        if one is None:
            assert not batch[4][0]
        else:
            assert batch[4][0]
            assert one[:3] == pytest.approx((batch[0][0], batch[1][0], batch[2][0]), abs=1e-9)
    stats = template.stats()  # each query twice: one by one and in a batch of one
    assert stats.queries == 600 and stats.outside == 0
    assert 0 < stats.ambiguous < 120 and stats.ambiguous % 2 == 0
    assert template.lookup(0.5, math.sqrt(0.75), -20.0, 1.0) is None  # beyond the grid
    assert template.stats().outside == 1
    template.reset_stats()
    batch = template.lookup_batch(np.array([0.5, 0.5, 0.5]), np.array([-20.0, 2.0, 0.5]),
                                  np.array([1.0, 1.0, 0.2]))  # outside, usable, by the disc
    assert list(batch[4]) == [False, True, False]
    assert template.stats() == TemplateStats(queries=3, ambiguous=1, outside=1)


def test_the_template_correction_in_the_world_frame(template):
    """Against the exact correction for pairs of every bearing, both sides of the axis;
    the disc and cells beyond the grid are answered exactly."""
    rng = np.random.default_rng(8)
    answered = 0
    for _ in range(400):
        bearing = rng.uniform(-math.pi, math.pi)
        distance = rng.uniform(0.7, 6.0)
        p = (distance * math.cos(bearing), distance * math.sin(bearing))
        cone = truncated_cone(p, 0.6, 2.0)
        v = tuple(rng.uniform(-2.0, 2.0, 2))
        exact = correction(cone, v)
        ours = template.correction(cone, v)
        answered += ours.from_template
        assert ours.region == exact.region
        assert ours.normal == pytest.approx(exact.normal, abs=1e-12)
        assert ours.u == pytest.approx(exact.u, abs=2e-3 * cone.rho)
        assert (ours.membership >= 0.0) == (exact.membership >= 0.0)
    assert answered > 300
    inside_disc = truncated_cone((3.0, 0.0), 0.6, 2.0)
    assert not template.correction(inside_disc, (1.5, 0.05)).from_template
    assert not template.correction(inside_disc, (-9.0, 0.0)).from_template  # beyond the grid


def test_the_template_serves_3d_through_the_meridian_plane(template):
    rng = np.random.default_rng(9)
    answered = asked = 0
    for _ in range(100):
        p = tuple(rng.uniform(-4.0, 4.0, 3))
        if np.linalg.norm(p) < 1.0:
            continue
        cone = truncated_cone_3d(p, 0.8, 2.0)
        v = tuple(rng.uniform(-2.0, 2.0, 3))
        exact = correction_3d(cone, v)
        ours = correction_3d(cone, v, template)
        assert ours.u == pytest.approx(exact.u, abs=2e-3 * cone.rho)
        assert ours.region == exact.region
        answered += ours.from_template
        asked += 1
    assert answered > 0.6 * asked  # the template answered, not the formula behind it


def test_the_template_memory_and_cells():
    small = VoxelTemplate(slices=4, step=0.5, extent=4.0)
    assert (small.nx, small.ny) == (13, 5)  # qx in [-4, 2], qy in [0, 2] by 0.5
    assert small.values.shape == (5, 13, 5, 3) and small.values.dtype == np.float32
    assert small.nbytes == 5 * 13 * 5 * 13 + 4 * 12 * 4
    assert 0.0 < small.ambiguous_cell_share < 1.0


@pytest.mark.parametrize("settings, message", [
    ((0, 0.08, 16.0), "template_slices"), ((2.5, 0.08, 16.0), "template_slices"),
    ((True, 0.08, 16.0), "template_slices"), ((100, -0.1, 16.0), "template_step"),
    ((100, 0.08, float("inf")), "template_extent"), ((100, 0.5, 0.6), "two steps"),
    ((1000, 0.01, 50.0), "MB")])
def test_bad_template_settings_are_refused_by_name(settings, message):
    with pytest.raises(ValueError, match=message):
        template_shape(*settings)
    with pytest.raises(ValueError, match=message):
        VoxelTemplate(*settings)
