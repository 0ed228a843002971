"""Guidance's visibility roadmap (orca_ros/core/robot/guidance.py): its corners where
segments meet end to end."""

import numpy as np

from orca_ros.core.geometry.obstacles import build_obstacle_edges
from orca_ros.core.geometry.types import Segment
from orca_ros.core.robot.guidance import VisibilityRoadmap

CLEARANCE = 0.3


def corners_near(roadmap, point, reach=2.0 * CLEARANCE):
    nodes = roadmap.nodes
    return nodes[np.linalg.norm(nodes - np.asarray(point), axis=1) < reach]


def test_two_segments_meeting_at_a_bend_give_one_corner_outside_it():
    """An outline drawn as segments (an obstacle file's, ``/obstacles`` markers') bends
    where two segments meet: one node on the outside of the bend, ``clearance`` from
    both, as a polygon's corner gets; none on the inside, where no shortest path turns."""
    roadmap = VisibilityRoadmap(build_obstacle_edges(
        [Segment((-2.0, 0.0), (0.0, 0.0)), Segment((0.0, 0.0), (0.0, 2.0))]), CLEARANCE)
    np.testing.assert_allclose(corners_near(roadmap, (0.0, 0.0)), [[CLEARANCE, -CLEARANCE]])


def test_two_segments_in_one_line_give_no_corner_where_they_meet():
    roadmap = VisibilityRoadmap(build_obstacle_edges(
        [Segment((-2.0, 0.0), (0.0, 0.0)), Segment((0.0, 0.0), (2.0, 0.0))]), CLEARANCE)
    assert len(corners_near(roadmap, (0.0, 0.0))) == 0
    assert len(roadmap.nodes) == 4  # two round each free end


def test_segments_that_fold_back_sharply_keep_the_nodes_round_each_end():
    """A spike (two segments at 10 degrees): the node outside would lie more than three
    clearances off, so each end keeps its own two."""
    tip = (2.0 * np.cos(np.radians(10.0)), 2.0 * np.sin(np.radians(10.0)))
    roadmap = VisibilityRoadmap(build_obstacle_edges(
        [Segment((2.0, 0.0), (0.0, 0.0)), Segment((0.0, 0.0), tip)]), CLEARANCE)
    near = corners_near(roadmap, (0.0, 0.0), 1.5 * CLEARANCE)
    assert len(near) >= 2 and np.all(near[:, 0] < 0.0)  # beyond the spike's point
