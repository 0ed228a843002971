"""The detour round standing robots on its own: which neighbours stand in the way,
when, and the side of them the robot takes and keeps."""

from dataclasses import replace
from types import SimpleNamespace

import numpy as np

from orca_ros.core import Segment, build_obstacle_edges
from orca_ros.core.geometry.segment_index import point_segment_distance
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.preferred_velocity import StandingRobot, StandingRobotsDetour
from orca_ros.core.robot.state import Neighbor

CONFIG = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=0.8, time_step=0.1)
OWN_RADIUS = 0.25
PARKED = Neighbor((1.0, 0.0), (0.0, 0.0), 0.2, "p")
MOVING = Neighbor((0.0, 1.0), (0.8, 0.0), 0.2, "m")
ROW = [StandingRobot((1.0, y), 0.45, f"p{k}") for k, y in enumerate((-0.4, 0.0, 0.4))]


def _views():
    return [SimpleNamespace(radius=0.3), SimpleNamespace(radius=0.3)]


def test_only_slow_neighbours_stand_and_only_when_the_detour_is_due_or_under_way():
    detour = StandingRobotsDetour()
    assert detour.standing(CONFIG, False, OWN_RADIUS, [PARKED, MOVING], _views) == []
    standing = detour.standing(CONFIG, True, OWN_RADIUS, [PARKED, MOVING], _views)
    assert standing == [StandingRobot((1.0, 0.0), OWN_RADIUS + 0.3, "p")]
    detour.side = 1  # on its way round: still needed when no longer due
    assert detour.standing(CONFIG, False, OWN_RADIUS, [PARKED, MOVING], _views) == standing
    assert detour.standing(replace(CONFIG, method="orca_strict"), True, OWN_RADIUS,
                           [PARKED], _views) == []
    assert detour.standing(replace(CONFIG, stall_detour_time=0.0), True, OWN_RADIUS,
                           [PARKED], _views) == []


def test_a_row_across_the_way_is_gone_round_at_an_end_and_the_side_is_kept():
    detour = StandingRobotsDetour()
    way, discs = detour.way(CONFIG, (0.0, 0.0), (3.0, 0.0), ROW, (), True)
    assert discs == ROW and way is not None and not way.walled
    # round the end of the row (beyond its end robot), not between two of them
    assert abs(way.waypoint[1]) > 0.4
    assert all(point_segment_distance(np.array([centre]), np.zeros(2),
                                      np.array(way.waypoint))[0] >= radius - 1e-9
               for centre, radius, _ in ROW)
    assert detour.side == way.side != 0
    chosen = detour.side
    # no longer due, but on its way round: the same side
    way, _ = detour.way(CONFIG, (0.0, 0.0), (3.0, 0.0), ROW, (), False)
    assert way is not None and detour.side == chosen
    # the other side, once taken, is kept (the row is symmetric: no shorter way)
    detour.side = -chosen
    way, _ = detour.way(CONFIG, (0.0, 0.0), (3.0, 0.0), ROW, (), False)
    assert detour.side == -chosen and way.waypoint[1] * -chosen > 0.0


def test_the_side_is_given_up_when_the_line_is_clear_or_nothing_stands():
    detour = StandingRobotsDetour(side=1)
    way, _ = detour.way(CONFIG, (0.0, 0.0), (0.0, 3.0), ROW, (), False)  # clear of the row
    assert way is None and detour.side == 0
    detour.side = 1
    assert detour.way(CONFIG, (0.0, 0.0), (3.0, 0.0), [], (), True) == (None, [])
    assert detour.side == 0


def test_not_due_and_not_under_way_no_detour_is_looked_for():
    detour = StandingRobotsDetour()
    assert detour.way(CONFIG, (0.0, 0.0), (3.0, 0.0), ROW, (), False) == (None, [])
    never = replace(CONFIG, stall_detour_time=0.0)
    assert StandingRobotsDetour(side=1).way(never, (0.0, 0.0), (3.0, 0.0), ROW, (), True) \
        == (None, [])


def test_the_way_is_found_between_the_walls_of_this_period_when_they_change():
    # a robot parked between two walls 0.9 m apart leaves no passage; 1.6 m apart, one
    standing = [StandingRobot((1.0, 0.0), 0.48, "p")]
    narrow, wide = (build_obstacle_edges([Segment((-1.0, y), (3.0, y)),
                                          Segment((-1.0, -y), (3.0, -y))])
                    for y in (0.45, 0.8))
    detour = StandingRobotsDetour()
    for walls, walled in ((narrow, True), (wide, False), (narrow, True)):
        way, _ = detour.way(CONFIG, (0.0, 0.0), (3.0, 0.0), standing, walls, True)
        assert way is not None and way.walled == walled
