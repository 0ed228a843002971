"""Guidance on a map's grid (orca_ros/core/robot/navigation_grid.py): which cells are free,
where a robot is sent, and that a map's walls are planned round on it."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.geometry.obstacles import build_obstacle_edges
from orca_ros.core.geometry.segment_index import point_segment_distance
from orca_ros.core.geometry.types import Segment
from orca_ros.core.robot.guidance import MAP_EDGES, SIGHT_LINE
from orca_ros.core.robot.navigation_grid import NavigationGrid

CLEARANCE, PASSAGE, RADIUS = 0.31, 0.255, 0.2


ROOM = [((-8.0, -8.0), (8.0, -8.0)), ((8.0, -8.0), (8.0, 8.0)), ((8.0, 8.0), (-8.0, 8.0)),
        ((-8.0, 8.0), (-8.0, -8.0))]


def grid(segments, room=True):
    """The grid round ``segments``, inside a 16 m room (a map's outer walls: the grid
    covers the walls' extent)."""
    segments = list(segments) + (ROOM if room else [])
    return NavigationGrid(build_obstacle_edges([Segment(a, b) for a, b in segments]),
                          CLEARANCE, PASSAGE)


def head_for(planner, start, goal):
    return planner.next_corner(start, goal, RADIUS, planner.check_clearance, PASSAGE)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(1, 40))
def test_a_cell_is_free_exactly_where_its_centre_keeps_the_passage_from_every_wall(seed, count):
    """The distance transform is within about a cell; where that leaves the passage in
    doubt the walls themselves are measured: no cell is free whose centre is nearer a
    wall than the passage (a way guidance would send a robot ORCA keeps out of), and
    none is shut that keeps it (a way lost)."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.0, 6.0, (count, 2))
    b = a + rng.normal(0.0, 1.0, (count, 2))
    planner = grid(zip(map(tuple, a), map(tuple, b)), room=False)
    rows, cols = np.indices(planner.shape)
    centres = planner.origin + (np.stack([cols, rows], -1).reshape(-1, 2) + 0.5) * planner.cell
    nearest = point_segment_distance(centres[:, None], a[None], b[None]).min(axis=1)
    np.testing.assert_array_equal(planner.free.ravel(), nearest >= PASSAGE)


def test_a_robot_behind_a_long_wall_is_sent_past_its_end():
    planner = grid([((0.0, -5.0), (0.0, 3.0))])
    corner = head_for(planner, (-2.0, 0.0), (2.0, 0.0))
    assert corner is not None and corner[1] > 3.0 + PASSAGE
    assert planner.visible(np.array([[-2.0, 0.0]]), np.array([corner]), RADIUS)[0]


def test_a_gap_narrower_than_twice_the_passage_is_not_a_way_and_a_wider_one_is():
    """A wall across the way with a gap in it, its ends 6 m off: a robot is sent through a
    gap it fits (ORCA keeps it the passage from both sides) and round the wall past one
    that it does not."""
    def wall_with_gap(width):
        return [((0.0, -6.0), (0.0, -width / 2)), ((0.0, width / 2), (0.0, 6.0))]

    narrow = head_for(grid(wall_with_gap(0.45)), (-2.0, 0.0), (2.0, 0.0))
    assert narrow is not None and abs(narrow[1]) > 6.0
    wide = head_for(grid(wall_with_gap(0.9)), (-2.0, 0.0), (2.0, 0.0))
    assert wide is not None and abs(wide[1]) < 0.45 and wide[0] > -0.1


def test_a_goal_shut_in_by_walls_has_no_way():
    box = [((-1.0, -1.0), (1.0, -1.0)), ((1.0, -1.0), (1.0, 1.0)),
           ((1.0, 1.0), (-1.0, 1.0)), ((-1.0, 1.0), (-1.0, -1.0))]
    assert head_for(grid(box), (-3.0, 0.0), (0.0, 0.0)) is None


def test_a_robot_pressed_against_a_wall_is_led_along_the_way_and_never_through_the_wall():
    """A robot 0.1 m from a wall (its own cell not free, nearer than the passage) whose goal
    lies past the wall's end: it heads for a point it sees, on its own side."""
    planner = grid([((0.0, -5.0), (0.0, 3.0))])
    start = (-0.1, 0.0)
    row, col = (int(v[0]) for v in planner._cells(np.array(start)))
    assert not planner.free[row, col]
    corner = head_for(planner, start, (2.0, 0.0))
    assert corner is not None and corner[0] < 0.0
    assert planner.visible(np.array([start]), np.array([corner]), SIGHT_LINE)[0]


def test_the_goal_is_where_a_robot_heads_once_it_is_in_reach_along_the_way():
    planner = grid([((0.0, -5.0), (0.0, 3.0))])
    assert head_for(planner, (0.5, 4.5), (2.0, 0.0)) == (2.0, 0.0)


def test_a_maps_walls_are_planned_round_on_a_grid_and_a_rooms_on_a_roadmap():
    """Guidance picks its planner by the walls' size: a map's (more than
    ``MAP_EDGES`` edges) on a grid, a hand-drawn room's on a visibility roadmap."""
    from orca_ros.core.robot.config import ControllerConfig
    from orca_ros.core.robot.guidance import VisibilityRoadmap
    from orca_ros.core.robot.preferred_velocity import Guidance

    # a dashed wall, as a scanned map gives: many short segments
    dashes = [Segment((0.0, -5.0 + 0.02 * k), (0.0, -5.0 + 0.02 * k + 0.01))
              for k in range(MAP_EDGES // 2 + 1)]
    config = ControllerConfig(radius=RADIUS, max_speed=1.0, pref_speed=0.8, time_step=0.1)
    guidance = Guidance()
    assert isinstance(guidance.planner(config, build_obstacle_edges(dashes)), NavigationGrid)
    room = [Segment((0.0, -5.0), (0.0, 3.0))]
    assert isinstance(guidance.planner(config, build_obstacle_edges(room)), VisibilityRoadmap)


def test_a_robot_just_beside_a_speck_steps_back_into_free_space_on_the_side_it_can_pass():
    """An aisle 1.5 m wide with a speck (a 5 cm square) 0.475 m from its east side, too
    narrow to pass; a robot just south of the speck, nearer it than the passage, bound
    north. It steps back into free space where it is nearest, and goes round the speck's
    wide west side; not to the free cell past the speck nearest its goal (a diff-drive
    robot sent so, by a line grazing the speck, stood 60 s at it)."""
    x, y, s = 1.0, 10.15, 0.025
    speck = [((x - s, y - s), (x + s, y - s)), ((x + s, y - s), (x + s, y + s)),
             ((x + s, y + s), (x - s, y + s)), ((x - s, y + s), (x - s, y - s))]
    aisle = [((0.0, 5.0), (0.0, 15.0)), ((1.5, 5.0), (1.5, 15.0))]
    planner = NavigationGrid(build_obstacle_edges(
        [Segment(a, b) for a, b in speck + aisle]), CLEARANCE, PASSAGE)
    start = (x + 0.01, y - 0.26)
    assert planner.wall_distance(start) < PASSAGE
    goal = np.array([0.75, 14.0])
    row, col = planner._escape(np.array(start), planner._goal_field(goal))
    step = planner.origin + (np.array([col, row]) + 0.5) * planner.cell
    assert np.linalg.norm(step - start) < PASSAGE - planner.wall_distance(start) + 2 * planner.cell
    corner = head_for(planner, start, tuple(goal))
    assert corner is not None and corner[0] < x
    assert planner.visible(np.array([start]), np.array([corner]), RADIUS)[0]



def test_the_point_headed_for_is_kept_while_ahead_and_in_reach():
    """Round a wall's end the robot heads for a point of the descent; a period later,
    moved a little, it keeps that point (a new one would move a cell either way and turn a
    unicycle left and right) while the point is more than KEEP_REACH off, nearer the goal
    and in reach; past it, or with the point behind a wall, it takes a new one."""
    from orca_ros.core.robot.navigation_grid import KEEP_REACH

    planner = grid([((0.0, -5.0), (0.0, 3.0))])
    start, goal = (-4.0, 0.0), (4.0, 0.0)
    first = head_for(planner, start, goal)
    assert first is not None and np.linalg.norm(np.subtract(first, start)) > KEEP_REACH

    def again(position, previous):
        return planner.next_corner(position, goal, RADIUS, planner.check_clearance, PASSAGE,
                                   previous=previous)

    moved = (-3.9, 0.1)
    fresh = head_for(planner, moved, goal)
    nudged = (first[0], first[1] + 2 * planner.cell)  # where a fresh choice could move
    assert again(moved, nudged) == nudged
    assert again(moved, first) == first
    close = (moved[0] + 0.5 * KEEP_REACH, moved[1] + 0.5)  # ahead, in reach, but near
    assert again(moved, close) == fresh != close
    assert again(moved, (-6.0, 0.0)) == fresh  # behind: farther from the goal
    assert again(moved, (3.0, 0.0)) == fresh  # beyond the wall: out of reach
