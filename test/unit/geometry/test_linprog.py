"""The linear programs (orca_ros.core.geometry.linprog, in C in orca_ros/core/orca/_orca2d.c)
against the former pure-Python ones (test/helpers/orca_reference.py).

The programs use only + - * / and sqrt, each rounded as Python rounds it, so the C
results must equal the reference's bit for bit: random half-plane sets, infeasible
ones (for the 3D fallback), (anti)parallel and repeated lines, the empty set, and
more lines than the C code keeps on its stack.
"""

import math
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from orca_ros.core.geometry import linprog
from orca_ros.core.geometry.linprog import HalfPlane, linear_program_2d, linear_program_3d

from helpers import orca_reference as ref

coord = st.floats(-5.0, 5.0, allow_nan=False, allow_infinity=False)
angle = st.floats(-math.pi, math.pi, allow_nan=False, allow_infinity=False)


@st.composite
def half_plane_sets(draw, max_size=14):
    """Half-planes with unit directions; some repeat an earlier one's direction (parallel),
    reverse it (antiparallel, often leaving nothing feasible) or repeat it whole."""
    lines = []
    for _ in range(draw(st.integers(0, max_size))):
        kind = draw(st.sampled_from(["random", "random", "parallel", "antiparallel", "same",
                                     "through_origin"]))
        if kind in ("random", "through_origin") or not lines:
            a = draw(angle)
            dx, dy = math.cos(a), math.sin(a)
            px, py = (0.0, 0.0) if kind == "through_origin" else (draw(coord), draw(coord))
        else:
            earlier = draw(st.sampled_from(lines))
            sign = -1.0 if kind == "antiparallel" else 1.0
            dx, dy = sign * earlier.direction_x, sign * earlier.direction_y
            px, py = ((earlier.point_x, earlier.point_y) if kind == "same"
                      else (draw(coord), draw(coord)))
        lines.append(HalfPlane(px, py, dx, dy))
    return lines


def test_the_package_has_no_python_linear_program():
    """One implementation: the programs are the compiled module's."""
    from orca_ros.core.orca import _orca2d

    assert not _orca2d.__file__.endswith(".py")
    assert not hasattr(linprog, "linear_program_on_line")
    assert linprog.RVO_EPSILON == ref.RVO_EPSILON


@settings(max_examples=400, deadline=None)
@given(half_plane_sets(), st.floats(0.0, 4.0), st.tuples(coord, coord), st.booleans())
@example([], 1.0, (3.0, 4.0), False)
@example([HalfPlane(1.0, 0.0, 0.0, 1.0), HalfPlane(-1.0, 0.0, 0.0, -1.0)], 2.0, (0.0, 0.0),
         False)  # two antiparallel half-planes leaving nothing
def test_linear_program_2d_equals_the_reference(lines, radius, opt, direction_opt):
    if direction_opt:  # a unit direction, as linearProgram3 passes
        norm = math.hypot(*opt)
        opt = (opt[0] / norm, opt[1] / norm) if norm > 0.0 else (1.0, 0.0)
    ours = linear_program_2d(lines, radius, opt, direction_opt)
    theirs = ref.linear_program_2d(lines, radius, opt, direction_opt)
    assert ours == theirs
    assert isinstance(ours[1], tuple) and all(isinstance(c, float) for c in ours[1])


@settings(max_examples=400, deadline=None)
@given(half_plane_sets(max_size=16), st.floats(0.1, 4.0), st.tuples(coord, coord),
       st.integers(0, 16))
def test_linear_program_3d_equals_the_reference_after_an_infeasible_2d_program(
        lines, radius, opt, num_obstacle_lines):
    fail, partial = ref.linear_program_2d(lines, radius, opt)
    ours = linear_program_3d(lines, num_obstacle_lines, fail, radius, partial)
    assert ours == ref.linear_program_3d(lines, num_obstacle_lines, fail, radius, partial)


def test_infeasible_programs_take_the_least_violation():
    """v_x <= -1 and v_x >= 1 cannot both hold: the 2D program fails at the second, and
    the fallback violates each by 1, at v_x = 0."""
    lines = [HalfPlane(-1.0, 0.0, 0.0, 1.0), HalfPlane(1.0, 0.0, 0.0, -1.0)]
    fail, partial = linear_program_2d(lines, 2.0, (0.5, 0.0))
    assert fail == 1 and partial == pytest.approx((-1.0, 0.0))
    velocity = linear_program_3d(lines, 0, fail, 2.0, partial)
    assert velocity[0] == pytest.approx(0.0, abs=1e-12)
    assert velocity == ref.linear_program_3d(lines, 0, fail, 2.0, partial)


def test_more_lines_than_the_stack_buffer_equal_the_reference():
    """Hundreds of half-planes tangent to a shrinking disc, then contradicting ones: the
    heap path of the C code, in both programs."""
    lines = [HalfPlane(math.cos(a) * r, math.sin(a) * r, -math.sin(a), math.cos(a))
             for k in range(300) for a, r in [(k * 2.399963, 3.0 - 0.005 * k)]]
    lines += [HalfPlane(0.0, y, 1.0, 0.0) for y in (2.0, 2.5)]  # v_y >= 2: infeasible
    fail, partial = linear_program_2d(lines, 3.0, (0.3, -0.2))
    assert (fail, partial) == ref.linear_program_2d(lines, 3.0, (0.3, -0.2))
    assert fail == 300
    assert linear_program_3d(lines, 100, fail, 3.0, partial) == \
        ref.linear_program_3d(lines, 100, fail, 3.0, partial)


def test_any_sequence_of_four_numbers_is_a_half_plane():
    lines = [HalfPlane(0.5, 0.0, 0.0, 1.0)]
    expected = linear_program_2d(lines, 2.0, (1.0, 0.0))
    assert linear_program_2d([(0.5, 0, 0, 1)], 2, [1, 0]) == expected
    assert linear_program_2d(([0.5, 0.0, 0.0, 1.0],), 2.0, (1.0, 0.0), False) == expected
    assert linear_program_2d(iter([(0.5, 0.0, 0.0, 1.0)]), 2.0, (1.0, 0.0)) == expected


@pytest.mark.parametrize("lines, error, message", [
    ([(1.0, 2.0, 3.0)], ValueError, r"lines\[0\] must have 4 numbers"),
    ([HalfPlane(0.0, 0.0, 1.0, 0.0), (1.0, 2.0, 3.0, 4.0, 5.0)], ValueError,
     r"lines\[1\] must have 4 numbers .*got 5 items"),
    ([(1.0, "a", 0.0, 1.0)], TypeError, r"lines\[0\]\[1\] must be a number, not str"),
    ([(1.0, None, 0.0, 1.0)], TypeError, r"lines\[0\]\[1\] must be a number, not NoneType"),
    ([5.0], TypeError, r"lines\[0\] must be a sequence of 4 numbers"),
    (5.0, TypeError, r"lines must be a sequence"),
])
def test_bad_half_planes_are_refused_naming_the_problem(lines, error, message):
    with pytest.raises(error, match=message):
        linear_program_2d(lines, 1.0, (0.0, 0.0))
    with pytest.raises(error, match=message):
        linear_program_3d(lines, 0, 0, 1.0, (0.0, 0.0))


def test_bad_scalars_are_refused_naming_the_argument():
    with pytest.raises(TypeError, match="radius must be a number"):
        linear_program_2d([], "1", (0.0, 0.0))
    with pytest.raises(ValueError, match=r"opt_velocity must have 2 numbers"):
        linear_program_2d([], 1.0, (0.0,))
    with pytest.raises(TypeError, match=r"velocity\[1\] must be a number"):
        linear_program_3d([], 0, 0, 1.0, (0.0, "y"))
    with pytest.raises(TypeError, match="begin_line must be an integer"):
        linear_program_3d([], 0, 1.5, 1.0, (0.0, 0.0))
    with pytest.raises(ValueError, match="must be >= 0"):
        linear_program_3d([], -1, 0, 1.0, (0.0, 0.0))


def test_no_reference_is_leaked_on_success_or_failure():
    line = HalfPlane(0.5, 0.0, 0.0, 1.0)
    opt = (1.0, 0.0)
    before = sys.getrefcount(line), sys.getrefcount(opt)
    for _ in range(1000):
        linear_program_2d([line, line], 2.0, opt)
        linear_program_3d([line, (0.7, 0.0, 0.0, -1.0)], 0, 1, 2.0, opt)
        with pytest.raises(TypeError):
            linear_program_2d([line, (1.0, "a", 0.0, 1.0)], 2.0, opt)
    assert (sys.getrefcount(line), sys.getrefcount(opt)) == before
