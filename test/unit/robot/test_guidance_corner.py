"""Roadmap guidance on its own: the corner a robot heads for while a wall blocks the
straight line to its target, kept between plans, dropped once the line is clear."""

import math

from orca_ros.core.geometry.obstacles import build_obstacle_edges
from orca_ros.core.geometry.types import Segment
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.guidance import VisibilityRoadmap
from orca_ros.core.robot.preferred_velocity import Guidance

CONFIG = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=0.8, time_step=0.1)
WALL = build_obstacle_edges([Segment((2.0, -1.0), (2.0, 1.0))])  # across the way to TARGET
TARGET = (4.0, 0.0)


def test_a_wall_across_the_way_sends_the_robot_round_one_of_its_ends():
    guidance = Guidance()
    corner = guidance.target(CONFIG, True, (0.0, 0.0), TARGET, WALL)
    assert corner != TARGET and guidance.corner == corner
    assert abs(corner[1]) > 1.0 + CONFIG.radius  # beyond an end of the wall, clear of it


def test_between_plans_the_corner_is_kept_and_without_one_nothing_is_planned():
    guidance = Guidance()
    corner = guidance.target(CONFIG, True, (0.0, 0.0), TARGET, WALL)
    assert guidance.target(CONFIG, False, (0.1, 0.0), TARGET, WALL) == corner
    clear = Guidance()
    assert clear.target(CONFIG, True, (3.0, 0.0), TARGET, WALL) == TARGET  # a clear line
    # Between plans the same target is not looked at again, wherever the robot is.
    assert clear.target(CONFIG, False, (0.0, 0.0), TARGET, WALL) == TARGET


def test_a_new_target_is_planned_for_at_once():
    """A robot passing a waypoint by a wall's end headed straight for the next one, into
    the wall, until the next plan."""
    guidance = Guidance()
    assert guidance.target(CONFIG, True, (0.0, 0.0), (1.0, 0.0), WALL) == (1.0, 0.0)
    corner = guidance.target(CONFIG, False, (0.5, 0.0), TARGET, WALL)
    assert corner != TARGET and abs(corner[1]) > 1.0 + CONFIG.radius


def test_within_half_the_lookahead_of_the_corner_it_plans_again():
    guidance = Guidance()
    corner = guidance.target(CONFIG, True, (0.0, 0.0), TARGET, WALL)
    short = (corner[0] - 0.6 * CONFIG.lookahead_m, corner[1])
    assert guidance.target(CONFIG, False, short, TARGET, WALL) == corner
    near = (corner[0] - 0.3 * CONFIG.lookahead_m, corner[1])
    following = guidance.target(CONFIG, False, near, TARGET, WALL)
    assert math.dist(corner, following) > 0.5 * CONFIG.lookahead_m  # the next one, or TARGET


def test_a_clear_line_drops_the_corner():
    guidance = Guidance()
    guidance.target(CONFIG, True, (0.0, 0.0), TARGET, WALL)
    assert guidance.target(CONFIG, True, (3.0, 0.0), TARGET, WALL) == TARGET
    assert guidance.corner is None


def test_robots_of_one_size_share_one_planner_for_the_same_walls():
    shared = {}
    first = Guidance(shared).planner(CONFIG, WALL)
    assert isinstance(first, VisibilityRoadmap)
    assert Guidance(shared).planner(CONFIG, WALL) is first and len(shared) == 1
    larger = ControllerConfig(radius=0.4, max_speed=1.0, pref_speed=0.8, time_step=0.1)
    assert Guidance(shared).planner(larger, WALL) is not first and len(shared) == 2
