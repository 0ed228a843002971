"""Getting round robots that stand in the way."""

import math

from orca_ros.core.robot.guidance import detour_around_discs
from orca_ros.core.scenario.loader import parse_scenario
from orca_ros.core.sim.world import World, WorldOptions


def _segment_distance(a, b, c):
    (ax, ay), (bx, by), (cx, cy) = a, b, c
    t = max(0.0, min(1.0, ((cx - ax) * (bx - ax) + (cy - ay) * (by - ay))
                     / ((bx - ax) ** 2 + (by - ay) ** 2)))
    return math.hypot(ax + t * (bx - ax) - cx, ay + t * (by - ay) - cy)


def _way(*args, **kwargs):
    """(waypoint, side) of :func:`detour_around_discs`."""
    return detour_around_discs(*args, **kwargs)[:2]


def test_a_clear_line_needs_no_detour():
    assert detour_around_discs((0.0, 0.0), (4.0, 0.0), [((2.0, 1.5), 1.0)]) is None


def test_a_row_of_standing_robots_is_one_obstacle_rounded_at_its_end():
    # Three discs touching each other across the line: no way between them.
    discs = [((2.0, y), 0.6) for y in (-1.0, 0.0, 1.0)]
    waypoint, side = _way((0.0, 0.0), (4.0, 0.1), discs)
    # Round the end of the row: the way there is clear of every disc, and past the
    # end disc's centre; not between two of the discs.
    assert abs(waypoint[1]) > 1.0
    assert all(_segment_distance((0.0, 0.0), waypoint, c) >= r - 1e-9 for c, r in discs)
    assert side == (1 if waypoint[1] > 0 else -1)


def test_the_chosen_side_is_kept_while_it_is_not_much_longer():
    discs = [((2.0, y), 0.6) for y in (-1.0, 0.0, 1.0)]
    _, first = _way((0.0, 0.0), (4.0, 0.1), discs)
    _, kept = _way((0.0, 0.0), (4.0, 0.1), discs, side=-first)
    assert kept == -first


def test_a_robot_standing_on_the_target_is_no_way_round():
    assert detour_around_discs((0.0, 0.0), (4.0, 0.0), [((4.2, 0.0), 0.6)]) is None


def test_robots_all_round_leave_no_detour():
    discs = [((math.cos(a), math.sin(a)), 0.8) for a in [k * math.pi / 4 for k in range(8)]]
    assert detour_around_discs((0.0, 0.0), (3.0, 0.0), discs) is None


def test_a_unicycle_gets_round_parked_robots_into_the_pocket_behind_them():
    """Three robots parked on three corners of a square of goals, the fourth goal on the
    far side of them: the unicycle coming from the other side used to stand behind the
    parked ones for good (3 of 4 in 60 s), and later wiggled sideways behind them, never
    stalled by its displacement, so it never went round; counting the time without
    progress towards its waypoint sends it round, and it arrives."""
    r, s = 0.2, 0.48
    agents = [{"name": "b", "start": [s, 0.0], "goal": [s, 0.0]},
              {"name": "c", "start": [0.0, s], "goal": [0.0, s]},
              {"name": "d", "start": [s, s], "goal": [s, s]},
              {"name": "m", "start": [s + 3 * r, 0.5 * s], "goal": [0.0, 0.0]}]
    scenario = parse_scenario({
        "name": "pocket", "time_step": 0.1, "max_time": 60.0, "on_goal": "stay",
        "goal_tolerance": 0.05,
        "defaults": {"radius": r, "max_speed": 0.5, "pref_speed": 0.4, "neighbor_dist": 3.0,
                     "max_neighbors": 10, "time_horizon": 2.0, "time_horizon_obst": 1.0},
        "agents": agents, "obstacles": []})
    result = World(scenario, WorldOptions(kinematics="diff_drive")).run()
    assert result.reached == 4
    assert result.collisions == 0


def test_a_wall_beside_the_end_robot_of_a_row_closes_the_way_between_them():
    """toio_e_4v4_lateral through fleet_sim (2 of 8 runs): a cube sent round a parked
    cube's far side stood for 25 s between it and the mat's edge, its preferred velocity
    into the edge. A wall nearer the end disc than the robot's clearance, on the way's
    side, leaves no way there: the robot goes round the other end."""
    row = [((2.0, y), 0.6) for y in (-1.0, 0.0, 1.0)]
    _, first = _way((0.0, 0.0), (4.0, 0.1), row)
    end_y = first * 1.0  # the end disc that way
    shut = [((0.0, end_y + first * 0.8), (4.0, end_y + first * 0.8))]  # 0.2 m of room
    waypoint, side = _way((0.0, 0.0), (4.0, 0.1), row, side=first,
                                         walls=shut, clearance=0.3)
    assert side == -first and waypoint[1] * first < 0
    roomy = [((0.0, end_y + first * 1.4), (4.0, end_y + first * 1.4))]  # 0.8 m of room
    assert detour_around_discs((0.0, 0.0), (4.0, 0.1), row, side=first, walls=roomy,
                               clearance=0.3)[1] == first
    beyond_the_other_end = [((0.0, -end_y - first * 0.8), (4.0, -end_y - first * 0.8))]
    both_shut = detour_around_discs((0.0, 0.0), (4.0, 0.1), row, side=-first,
                                    walls=shut + beyond_the_other_end, clearance=0.3)
    unwalled = detour_around_discs((0.0, 0.0), (4.0, 0.1), row, side=-first)
    assert both_shut[:2] == unwalled[:2]  # both taken as open
    # walls beyond the row's ends leave room beside the robot in the way: no passage
    # too narrow to pass it
    assert not both_shut.walled


def test_walls_either_side_of_the_robot_in_the_way_make_a_passage_too_narrow_to_pass():
    standing = [((1.0, 0.0), 0.48)]
    narrow = [((-1.0, 0.45), (3.0, 0.45)), ((-1.0, -0.45), (3.0, -0.45))]
    wide = [((-1.0, 0.8), (3.0, 0.8)), ((-1.0, -0.8), (3.0, -0.8))]
    one_side = narrow[:1]
    assert detour_around_discs((0.0, 0.0), (3.0, 0.0), standing, walls=narrow,
                               clearance=0.24).walled
    for walls in (wide, one_side):
        assert not detour_around_discs((0.0, 0.0), (3.0, 0.0), standing, walls=walls,
                                       clearance=0.24).walled


def test_the_two_faces_of_a_corner_ahead_are_no_passage():
    """rvo2_blocks (radius 2 m): a robot in a 20 m lane, a standing robot ahead of it
    near a block's corner. The corner's two faces fall on either side of the robot's
    line; they lie ahead of the standing robot, not beside it: no narrow passage (taken
    for one, robots backed out of the lane)."""
    block_corner = [((-10.0, -40.0), (-10.0, -10.0)), ((-10.0, -10.0), (-40.0, -10.0))]
    way = detour_around_discs((-11.91, 2.71), (7.3, -42.7), [((-11.69, -6.98), 4.4)],
                              walls=block_corner, clearance=2.2)
    assert way is not None and not way.walled


def test_the_blocker_is_the_disc_the_straight_line_meets_first():
    discs = [((3.0, 0.0), 0.5), ((1.5, 0.2), 0.5), ((2.2, 0.9), 0.5)]
    assert detour_around_discs((0.0, 0.0), (5.0, 0.0), discs).blocker == 1


def test_a_wall_beside_a_parked_robot_shuts_only_the_way_on_its_own_side():
    """40 m warehouse map, diff-drive (seed 7): a unicycle in an aisle, a robot parked
    0.6 m ahead-left of it, and a speck of the map 0.3 m ahead-right, between the parked
    robot and the aisle's wall: the way round the parked robot's right is shut, the
    left one open. Judged by the side of each way's waypoint as seen from the parked
    robot, the speck shut both (both waypoints lie towards the robot); both were taken
    as open and the unicycle kept pressing into the speck to the end of the run."""
    parked = [((-0.35, 0.47), 0.52)]
    speck = [((0.15, 0.29), (0.2, 0.29)), ((0.2, 0.29), (0.2, 0.34)),
             ((0.2, 0.34), (0.15, 0.34)), ((0.15, 0.34), (0.15, 0.29))]
    for side in (-1, 1):
        waypoint, way = _way((0.0, 0.0), (-0.14, 1.47), parked, side=side,
                                            walls=speck, clearance=0.26)
        assert way == 1 and waypoint[0] < 0.0  # round the parked robot's left


def test_a_stalled_robot_goes_round_a_wall_that_guidance_does_not_plan_round():
    # A map's walls (the lasting part, all guidance plans round) and a laser's wall
    # across the robot's way (a box on no map): ORCA stops the robot at it and guidance
    # keeps pointing through it. Stalled, the robot heads round it, as round robots
    # standing in its way (a box in a warehouse aisle held a robot to the end of a run).
    import numpy as np

    from orca_ros.core.geometry.obstacles import ObstacleEdges, build_obstacle_edges
    from orca_ros.core.geometry.segment_index import segment_distance
    from orca_ros.core.geometry.types import Segment
    from orca_ros.core.robot import guidance
    from orca_ros.core.robot.config import ControllerConfig
    from orca_ros.core.robot.controller import RobotController
    from orca_ros.core.robot.state import RobotState

    corridor = build_obstacle_edges([Segment((-5.0, 1.5), (5.0, 1.5)),
                                     Segment((-5.0, -1.5), (5.0, -1.5))])
    box_face = build_obstacle_edges([Segment((1.0, -0.3), (1.0, 0.4))])
    edges = ObstacleEdges.joined(corridor, box_face)
    assert guidance.guidance_walls(edges) is corridor
    controller = RobotController(ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=0.8,
                                                  time_step=0.1), key="r")
    goal = (4.0, 0.0)
    controller.set_path([goal])
    state = RobotState((0.6, 0.0), (0.0, 0.0), 0.0, 0.0, 0.0)  # held by ORCA at the face
    c = controller.effective_config
    for _ in range(int(math.ceil(c.stall_detour_time / c.time_step)) + 2):
        controller.preferred_velocity(state, edges)
    target = controller.path.target
    assert target != goal  # before: straight at the goal, through the face, for good
    # the way to the waypoint passes the face's end, its avoidance radius clear of it
    way_to_face = segment_distance(np.array(state.position), np.array(target),
                                   np.array((1.0, -0.3)), np.array((1.0, 0.4)))
    assert way_to_face >= c.avoidance_radius(c.radius) - 1e-9
    assert target[0] > state.position[0] and not -0.3 <= target[1] <= 0.4



def test_a_laser_that_sees_the_mapped_walls_too_still_finds_the_way_round_a_box():
    # A warehouse aisle (racks below and above, a gap in the lower racks, a round pillar
    # on them) and what the laser of a robot tucked between the pillar and a box on no map
    # returned (a 40 m map through real nodes, --scan-obstacles): the box's lower face,
    # and the rack, the gap's side and the pillar again, within its noise. Those are the
    # map's walls seen again: counted as walls to go round they joined the box into one
    # cluster round the robot, no way round was found, and it stood there to the end of
    # the run. The way is round the box's left (anticlockwise): the pillar shuts its right.
    import numpy as np

    from orca_ros.core.geometry.obstacles import ObstacleEdges, build_obstacle_edges
    from orca_ros.core.geometry.segment_index import point_segment_distance
    from orca_ros.core.geometry.types import Segment
    from orca_ros.core.robot.preferred_velocity import unplanned_wall_discs

    mapped = build_obstacle_edges([
        Segment((8.5, 12.0), (9.75, 12.0)), Segment((9.75, 12.0), (9.75, 11.6)),
        Segment((10.3, 11.6), (10.3, 12.0)), Segment((10.3, 12.0), (10.9, 12.0)),
        Segment((10.9, 12.0), (10.95, 12.3)), Segment((10.95, 12.3), (11.2, 12.37)),
        Segment((11.2, 12.37), (11.45, 12.3)), Segment((11.45, 12.3), (11.5, 12.0)),
        Segment((11.5, 12.0), (13.0, 12.0)), Segment((13.0, 13.6), (8.5, 13.6))])
    box_face = ((10.847, 12.628), (10.457, 12.627))
    seen = build_obstacle_edges([
        Segment(*box_face),
        Segment((9.718, 12.021), (9.797, 11.93)), Segment((9.797, 11.93), (9.778, 11.632)),
        Segment((10.316, 12.023), (10.883, 12.019)), Segment((10.883, 12.019), (10.952, 12.292)),
        Segment((10.952, 12.292), (11.166, 12.37))])
    edges = ObstacleEdges.joined(mapped, seen)
    position, guide_corner, avoidance = (10.76, 12.39), (11.53, 13.06), 0.22
    discs = unplanned_wall_discs(edges, position, 2.0 + avoidance, avoidance)
    centres = np.array([centre for centre, _ in discs])
    assert len(discs) > 0
    assert np.all(point_segment_distance(centres, np.array(box_face[0]),
                                         np.array(box_face[1])) < 0.01)  # the box's only
    walls = [(e.point, e.next.point) for e in mapped if e.next is not None]
    way = detour_around_discs(position, guide_corner, discs, 0, offset=0.05, walls=walls,
                              clearance=avoidance)
    assert way is not None and way[1] == 1


def _rows():
    """A row of parked robots at x = 2 reaching further north than south, and a second
    row at x = 6 reaching further south, with a gap between them; a robot at the origin
    bound for (10, 0) is shorter round the first row's south end and, once past it,
    round the second row's north end."""
    from orca_ros.core.robot.preferred_velocity import StandingRobot

    first = [StandingRobot((2.0, y), 0.45, f"a{k}") for k, y in enumerate((-0.4, 0.0, 0.4, 0.8))]
    second = [StandingRobot((6.0, y), 0.45, f"b{k}")
              for k, y in enumerate((0.2, -0.2, -0.6, -1.0, -1.4, -1.8))]
    return first, second


def _config():
    from orca_ros.core.robot.config import ControllerConfig

    return ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=0.8, time_step=0.1)


def test_the_side_is_kept_round_the_row_it_was_chosen_for():
    """Half-way round, the other end of the same row looks shorter from where the robot
    stands; it keeps going the way it chose rather than turning back along the row."""
    from orca_ros.core.robot.preferred_velocity import StandingRobotsDetour

    first, _ = _rows()
    detour = StandingRobotsDetour()
    way, _ = detour.way(_config(), (0.0, 0.0), (10.0, 0.0), first, (), True)
    assert way.side == -1 and detour.chosen_for == "a1"
    assert detour_around_discs((0.5, 0.45), (10.0, 0.0), first).side == 1  # fresh: north
    way, _ = detour.way(_config(), (0.5, 0.45), (10.0, 0.0), first, (), False)
    assert way.side == -1


def test_a_row_further_on_is_a_new_choice_of_side():
    """Past the first row the side chosen for it is not carried to the next row: the
    robot takes the second row's shorter (north) end. Carried over (the side is kept
    while it is at most half as long again), it went round the far side of a robot
    parked beyond its goal (CrowdNav's square crossing under MuJoCo: 1.1 m short at the
    time limit in 3 of 6 runs)."""
    from orca_ros.core.robot.preferred_velocity import StandingRobotsDetour

    first, second = _rows()
    detour = StandingRobotsDetour()
    way, _ = detour.way(_config(), (0.0, 0.0), (10.0, 0.0), first + second, (), True)
    assert way.side == -1
    assert detour_around_discs((2.5, -1.1), (10.0, 0.0), second, side=-1).side == -1
    way, _ = detour.way(_config(), (2.5, -1.1), (10.0, 0.0), first + second, (), False)
    assert way.side == 1 and detour.chosen_for.startswith("b")


def test_a_side_given_is_kept_only_for_the_cluster_it_was_chosen_for():
    """``kept_for`` names the disc the side was chosen for: in the cluster ahead the side
    is kept (``kept``); in a cluster behind, the way is chosen afresh."""
    first, second = _rows()
    discs = first + second
    afresh = detour_around_discs((2.5, -1.1), (10.0, 0.0), discs, side=-1, kept_for=1)
    assert afresh.side == 1 and not afresh.kept
    kept = detour_around_discs((2.5, -1.1), (10.0, 0.0), discs, side=-1,
                               kept_for=len(first) + 2)
    assert kept.side == -1 and kept.kept
