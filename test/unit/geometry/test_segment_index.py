"""The spatial index over walls: the same answers as looking at every wall."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.geometry.obstacles import build_obstacle_edges
from orca_ros.core.geometry.segment_index import (BRUTE_FORCE_SEGMENTS, SegmentIndex,
                                                  segments_min_distance)
from orca_ros.core.geometry.types import Segment
from orca_ros.core.orca import _orca2d
from orca_ros.core.orca.orca2d import select_visible_edges


def random_walls(seed, count):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.0, 30.0, (count, 2))
    b = a + rng.normal(0.0, 0.6, (count, 2))
    return [Segment(tuple(p), tuple(q)) for p, q in zip(a, b)]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), reach=st.floats(0.1, 6.0))
def test_the_walls_a_robot_sees_are_the_same_with_the_index_as_without(seed, reach):
    walls = random_walls(seed, 3 * BRUTE_FORCE_SEGMENTS)
    indexed = build_obstacle_edges(walls)  # an ObstacleEdges: the index is used
    plain = list(indexed)  # a plain list: every edge is looked at
    rng = np.random.default_rng(seed + 1)
    for position in rng.uniform(0.0, 30.0, (20, 2)):
        position = tuple(position)
        assert select_visible_edges(position, reach, indexed) == \
            select_visible_edges(position, reach, plain)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), clearance=st.floats(0.0, 1.0))
def test_which_lines_walls_block_and_how_near_the_nearest_is(seed, clearance):
    walls = random_walls(seed, 3 * BRUTE_FORCE_SEGMENTS)
    a = np.array([w.a for w in walls])
    b = np.array([w.b for w in walls])
    index = SegmentIndex(a, b)
    rng = np.random.default_rng(seed + 2)
    p = rng.uniform(0.0, 30.0, (200, 2))
    q = p + rng.normal(0.0, 3.0, (200, 2))
    q[:10] = p[:10]  # points, too
    distance = segments_min_distance(p, q, a, b).min(axis=1)
    np.testing.assert_array_equal(index.blocked(p, q, clearance), distance < clearance)
    for point in p[:20]:
        assert index.distance(point) == \
            segments_min_distance(point[None], point[None], a, b).min()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.sampled_from([5, 3 * BRUTE_FORCE_SEGMENTS]),
       reach=st.floats(0.05, 3.0))
def test_how_near_the_nearest_wall_is_for_many_points_at_once(seed, count, reach):
    """``distances`` gives for every point what ``distance`` gives for one, with the tree
    and without; with a reach, infinity where no wall is that near."""
    walls = random_walls(seed, count)
    a = np.array([w.a for w in walls])
    b = np.array([w.b for w in walls])
    index = SegmentIndex(a, b)
    points = np.random.default_rng(seed + 3).uniform(0.0, 30.0, (300, 2))
    nearest = segments_min_distance(points, points, a, b).min(axis=1)
    np.testing.assert_allclose(index.distances(points), nearest, rtol=0, atol=1e-12)
    within = index.distances(points, reach)
    np.testing.assert_allclose(within[nearest <= reach], nearest[nearest <= reach], atol=1e-12)
    assert np.all(np.isinf(within[nearest > reach + 1e-12]))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(1, BRUTE_FORCE_SEGMENTS))
def test_a_few_walls_are_looked_at_in_c_number_for_number_as_numpy_does(seed, count):
    """Up to BRUTE_FORCE_SEGMENTS walls every query looks at all of them, in C: the same
    distances, to the last bit, as the numpy reference functions (lines that cross a
    wall, lines that are points, walls that are points included)."""
    from orca_ros.core.geometry.segment_index import point_segment_distance

    walls = random_walls(seed, count)
    a = np.array([w.a for w in walls])
    b = np.array([w.b for w in walls])
    b[0] = a[0]  # a wall of zero length
    index = SegmentIndex(a, b)
    rng = np.random.default_rng(seed + 3)
    p = rng.uniform(0.0, 30.0, (60, 2))
    q = p + rng.normal(0.0, 5.0, (60, 2))
    q[:5] = p[:5]
    reference = segments_min_distance(p, q, a, b).min(axis=1)
    least = np.empty(len(p))
    _orca2d.segment_min_distances(p, q, index.a, index.b, len(p), len(a), least)
    assert least.tobytes() == reference.tobytes()
    for clearance in np.concatenate([reference[:10], [0.0, 0.5]]):
        np.testing.assert_array_equal(index.blocked(p, q, clearance), reference < clearance)
    nearest = point_segment_distance(p[:, None], a[None], b[None]).min(axis=1)
    assert index.distances(p).tobytes() == nearest.tobytes()


def test_the_c_queries_refuse_arrays_of_the_wrong_kind():
    a = np.zeros((2, 2))
    out = np.empty(3)
    with pytest.raises(ValueError, match="p must hold 6"):
        _orca2d.segment_min_distances(np.zeros((2, 2)), np.zeros((3, 2)), a, a, 3, 2, out)
    points = np.zeros((3, 2))
    with pytest.raises(TypeError, match="out must be a writable"):
        _orca2d.segment_min_distances(points, points, a, a, 3, 2, out.tolist())
    with pytest.raises(ValueError, match="e >= 1"):
        _orca2d.segment_min_distances(points, points, a, a, 3, 0, out)
