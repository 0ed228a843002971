"""Neighbour cells (``orca_ros.core.robot.cells``): which squares a disc meets, the reaches
that cover the time a new subscription takes, and the topic names."""

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.robot.cells import CellGrid, cell_topic, publication_reach, subscription_reach

coordinate = st.floats(-50.0, 50.0)


@settings(max_examples=300, deadline=None)
@given(st.floats(0.1, 10.0), coordinate, coordinate, st.floats(0.0, 15.0))
def test_cells_within_are_the_cells_that_meet_the_disc(size, x, y, reach):
    grid = CellGrid(size)
    cells = grid.cells_within(x, y, reach)
    assert grid.cell_of(x, y) in cells
    # Brute force over a wider block: a cell is in when its nearest point is in the disc.
    ci, cj = grid.cell_of(x, y)
    span = int(reach / size) + 2
    for i in range(ci - span, ci + span + 1):
        for j in range(cj - span, cj + span + 1):
            nearest = (min(max(x, i * size), (i + 1) * size),
                       min(max(y, j * size), (j + 1) * size))
            distance = math.dist((x, y), nearest)
            if distance < reach - 1e-9:
                assert (i, j) in cells
            elif distance > reach + 1e-9:
                assert (i, j) not in cells


@settings(max_examples=300, deadline=None)
@given(st.floats(0.5, 5.0), coordinate, coordinate, st.floats(0.0, 2.0 * math.pi),
       st.floats(0.0, 1.0), st.floats(0.5, 6.0), st.floats(0.1, 2.0), st.floats(0.05, 2.0))
def test_a_robot_within_neighbor_dist_publishes_on_a_cell_subscribed_match_time_before(
        size, x, y, bearing, share, neighbor_dist, max_speed, match_time):
    """Robot b at distance d <= neighbor_dist of a publishes on its own cell, which a's
    process has subscribed to for at least match_time (a new subscription's time to
    connect), and b has published on it for that long too (a new publisher's)."""
    grid = CellGrid(size)
    d = share * neighbor_dist
    bx, by = x + d * math.cos(bearing), y + d * math.sin(bearing)
    reach = subscription_reach(neighbor_dist, max_speed, match_time)
    assert grid.cell_of(bx, by) in grid.cells_within(x, y, reach)
    # match_time earlier, at 2 v_max closing speed, b was 2 v_max match_time further,
    # and still within a's reach: its cell of then was subscribed then.
    lead = 2.0 * max_speed * match_time
    assert d + lead <= reach + 1e-9
    ex, ey = x + (d + lead) * math.cos(bearing), y + (d + lead) * math.sin(bearing)
    assert grid.cell_of(ex, ey) in grid.cells_within(x, y, reach)
    # b's publisher for the cell it stands in is match_time old: b was within
    # v_max match_time of the cell then, and makes publishers for every cell that near.
    step = publication_reach(max_speed, match_time)
    back = (bx - max_speed * match_time * math.cos(bearing),
            by - max_speed * match_time * math.sin(bearing))
    assert grid.cell_of(bx, by) in grid.cells_within(back[0], back[1], step + 1e-9)


def test_topic_names_are_valid_ros_names_and_distinct():
    names = {cell_topic((i, j)) for i in range(-3, 4) for j in range(-3, 4)}
    assert len(names) == 49
    assert cell_topic((-2, 13)) == "/orca/cells/xm2_y13"
    assert all(re.fullmatch(r"(/[A-Za-z][A-Za-z0-9_]*)+", n) for n in names)


@pytest.mark.parametrize("size", [0.0, -1.0, math.nan, math.inf])
def test_a_bad_cell_size_is_refused_by_name(size):
    with pytest.raises(ValueError, match="cell size"):
        CellGrid(size)
