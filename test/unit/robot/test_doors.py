"""Doors one robot wide: guidance goes through them, and robots take turns."""

import math

import pytest

from orca_ros.core.geometry.obstacles import build_obstacle_edges
from orca_ros.core.geometry.types import Polygon
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.guidance import VisibilityRoadmap
from orca_ros.core.robot.preferred_velocity import PreferredVelocity, door_share
from orca_ros.core.robot.state import Neighbor, RobotState
from orca_ros.core.scenario.loader import parse_scenario
from orca_ros.core.sim.world import World, WorldOptions

# A corridor 4 m wide (y from -1 to 3) and 40 m long, cut across at x = 0 by a wall
# with a door 1.2 m wide (y from -0.1 to 1.1); robots of radius 0.5 m.
CORRIDOR = [((-20.0, 3.0), (20.0, 3.0), (20.0, 5.0), (-20.0, 5.0)),
            ((-20.0, -3.0), (20.0, -3.0), (20.0, -1.0), (-20.0, -1.0)),
            ((-0.2, -3.0), (0.0, -3.0), (0.0, -0.1), (-0.2, -0.1)),
            ((-0.2, 1.1), (0.0, 1.1), (0.0, 5.0), (-0.2, 5.0))]
RADIUS = 0.5
CLEARANCE = 0.675  # guidance's: avoidance radius (1.1 x 0.5) + a quarter radius
PASSAGE = 0.539  # 0.98 x the avoidance radius: what ORCA keeps from walls


def _roadmap(passage=PASSAGE):
    edges = build_obstacle_edges([Polygon(v) for v in CORRIDOR])
    return VisibilityRoadmap(edges, CLEARANCE, passage)


def test_the_roadmap_has_a_node_in_a_door_its_corners_do_not_see_through():
    """The door is 1.2 m wide: the roadmap's corners keep 0.675 m from walls, so no pair
    of them sees through it. Without the door node a robot beside the door, below it,
    was sent to the far end of the corridor's wall (-20.675, -0.325), 20 m back."""
    roadmap = _roadmap()
    doors = roadmap.door_nodes
    assert len(doors) >= 1
    assert all(-0.2 <= x <= 0.0 and y == pytest.approx(0.5) for x, y in doors)
    corner = roadmap.next_corner((-1.51, -0.43), (15.0, 1.0), RADIUS, None, PASSAGE)
    assert math.dist(corner, (-0.1, 0.5)) < 1.5  # on the way to the door
    # without a passage, no door: the roadmap goes round the corridor's wall
    closed = _roadmap(passage=None)
    assert len(closed.door_nodes) == 0
    far = closed.next_corner((-1.51, -0.43), (15.0, 1.0), RADIUS, None, PASSAGE)
    assert far[0] < -20.0


def test_walls_given_as_their_outlines_segments_have_the_same_doors():
    """orca_node hears walls as segments (obstacle_server publishes each polygon's edges):
    its roadmap must find the doors the world's polygons give. Taking the nearest other
    obstacle to a corner, a post's own far side (0.2 m off, another segment) hid the door
    from the nodes, and through ROS the robot drove back 2.3 m as before."""
    from orca_ros.core.geometry.types import Segment

    segments = [Segment(outline[k], outline[(k + 1) % len(outline)])
                for outline in CORRIDOR for k in range(len(outline))]
    roadmap = VisibilityRoadmap(build_obstacle_edges(segments), CLEARANCE, PASSAGE)
    assert sorted(map(tuple, roadmap.door_nodes)) == sorted(map(tuple, _roadmap().door_nodes))
    corner = roadmap.next_corner((-1.51, -0.43), (15.0, 1.0), RADIUS, None, PASSAGE)
    assert math.dist(corner, (-0.1, 0.5)) < 1.5


def test_a_gap_narrower_than_the_robot_keeps_from_walls_is_no_door():
    """Gaps under twice the passage (what ORCA keeps from walls) are walls to guidance."""
    edges = build_obstacle_edges([Polygon(v) for v in CORRIDOR])
    assert len(VisibilityRoadmap(edges, CLEARANCE, 0.61).door_nodes) == 0


def _doorway_path(key):
    config = ControllerConfig(radius=RADIUS, max_speed=1.33, pref_speed=1.3, time_step=0.05)
    path = PreferredVelocity(config, key=key)
    path.set_path([(15.0, 1.0)])
    return config, path


def _speed(key, position, traffic):
    config, path = _doorway_path(key)
    edges = build_obstacle_edges([Polygon(v) for v in CORRIDOR])
    state = RobotState(position, (0.0, 0.0), heading=0.0)
    neighbors = [Neighbor(p, v, RADIUS, k) for p, v, k in traffic]
    return math.hypot(*path.compute(config, state, edges, (), neighbors))


def test_a_robot_waits_short_of_a_door_for_the_robot_whose_name_sorts_first():
    here = (-1.6, 0.5)  # 1.5 m from the door, heading into it
    alone = _speed("a1", here, [])
    assert alone == pytest.approx(1.3)
    heading_in = ((-2.0, 1.8), (1.0, -0.5), "a0")
    assert _speed("a1", here, [heading_in]) < 0.5 * alone  # slows to stand short of it
    far_back = (-4.0, 0.5)  # over six avoidance radii (3.3 m) from the door
    assert _speed("a1", far_back, [heading_in]) == pytest.approx(1.3)
    # the earlier name does not wait for the later one
    assert _speed("a0", here, [((-2.0, 1.8), (1.0, -0.5), "a2")]) == pytest.approx(1.3)
    # nor for one that has gone through and drives away
    assert _speed("a1", here, [((1.0, 0.5), (1.0, 0.0), "a0")]) == pytest.approx(1.3)
    # nor for one held up behind it (in a corridor one robot wide, the two would wait
    # for each other for good)
    assert _speed("a1", here, [((-2.8, 0.5), (0.05, 0.0), "a0")]) == pytest.approx(1.3)


def test_a_robot_in_the_door_goes_first_whatever_its_name():
    assert _speed("a0", (-1.6, 0.5), [((-0.1, 0.5), (1.0, 0.0), "a9")]) < 0.5


def test_a_robot_in_the_door_goes_on():
    """Two robots, each in or at the door from its own side, must not both wait: the one
    in the door goes on, whatever the names."""
    in_door, coming = (-0.3, 0.5), ((1.5, 0.5), (-1.0, 0.0), "a0")
    assert _speed("a1", in_door, [coming]) == pytest.approx(1.3)
    # the door is 0.2 m thick, with a node at each face and one between: a robot at one
    # face, another past the other face, each within its radius of a node
    assert _speed("a1", (-0.65, 0.5), [((0.45, 0.5), (-1.0, 0.0), "a0")]) == \
        pytest.approx(1.3)


DOOR = (0.0, 0.5)
EAST = (1.0, 0.0)


def _share(key, x, traffic, doors=(DOOR,), heading=EAST):
    """door_share for the robot named ``key`` at ``x`` on the door's line."""
    config, _ = _doorway_path(key)
    return door_share(config, key, doors, (x, 0.5), heading, traffic)


def test_waiting_for_a_robot_in_the_door_it_stands_three_avoidance_radii_short_of_it():
    config, _ = _doorway_path("a1")
    radius = config.avoidance_radius(RADIUS)
    in_door = [((0.1, 0.5), (1.0, 0.0), "a9")]
    assert _share("a1", -3.0 * radius, in_door) == 0.0  # where it stands
    assert _share("a1", -4.5 * radius, in_door) == pytest.approx(0.5)  # slowing down
    assert _share("a1", -6.0 * radius, in_door) == pytest.approx(1.0)
    assert _share("a1", -6.5 * radius, in_door) == 1.0  # farther than six: no turn yet
    assert _share("a1", -4.5 * radius, in_door, heading=(-1.0, 0.0)) == 1.0  # door behind
    assert _share("a1", -4.5 * radius, in_door, doors=()) == 1.0  # no door at all


def test_of_two_heading_into_a_door_the_later_name_waits():
    config, _ = _doorway_path("a1")
    radius = config.avoidance_radius(RADIUS)
    a0 = ((-4.0 * radius, 1.0), (1.0, 0.0), "a0")  # within reach, closing on the door
    assert _share("a1", -4.5 * radius, [a0]) == pytest.approx(0.5)
    assert _share("a0", -4.5 * radius, [((-4.0 * radius, 1.0), (1.0, 0.0), "a1")]) == 1.0
    slow = ((-4.0 * radius, 1.0), (0.1, 0.0), "a0")  # closing slower than a tenth: held up
    assert _share("a1", -4.5 * radius, [slow]) == 1.0
    assert _share("a1", -0.3, [a0]) == 1.0  # in the door itself it goes on


def _doorway_world(kinematics, agents=(("a0", (-10.0, 2.0), (15.0, 1.0)),
                                       ("a1", (-10.0, 0.0), (15.0, 1.0)))):
    scenario = parse_scenario({
        "name": "doorway_pair", "time_step": 0.05, "max_time": 60.0,
        "on_goal": "remove", "goal_tolerance": 1.25,
        "defaults": {"radius": RADIUS, "max_speed": 1.33, "pref_speed": 1.3,
                     "neighbor_dist": 10.0, "max_neighbors": 10, "time_horizon": 2.0,
                     "time_horizon_obst": 2.0},
        "agents": [{"name": name, "start": list(start), "goal": list(goal)}
                   for name, start, goal in agents],
        "obstacles": [{"vertices": [list(v) for v in outline]} for outline in CORRIDOR]})
    return World(scenario, WorldOptions(kinematics=kinematics)).run()


@pytest.mark.parametrize("kinematics", ["holonomic", "diff_drive"])
def test_two_robots_take_turns_at_a_door_one_robot_wide(kinematics):
    """Both make for the door at once: the one whose name sorts after waits short of it,
    and neither gives ground. Before, the second robot, pushed below the door by the
    first, lost sight through it and guidance sent it back along the corridor (1.9 m
    holonomic, 2.4 m diff-drive, before it saw through the door again)."""
    result = _doorway_world(kinematics)
    assert result.reached == 2 and result.collisions == 0
    assert max(f.retreat_m for f in result.motion_quality.values()) < 0.3


@pytest.mark.parametrize("kinematics", ["holonomic", "diff_drive"])
def test_two_robots_coming_through_a_door_from_either_side_take_turns(kinematics):
    """Before, both pressed into the door from either side and the one that gave way was
    pushed back 6.0 m holonomic (5.0 m diff-drive)."""
    result = _doorway_world(kinematics, (("a0", (-10.0, 2.0), (15.0, 1.0)),
                                         ("a1", (10.0, 0.0), (-15.0, 1.0))))
    assert result.reached == 2 and result.collisions == 0
    assert max(f.retreat_m for f in result.motion_quality.values()) < 0.5
