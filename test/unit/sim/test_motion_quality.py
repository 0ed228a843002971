"""Motion-quality figures (orca_ros/core/sim/motion_quality.py) on tracks with known answers."""

import math

import numpy as np
import pytest

from orca_ros.core.sim.motion_quality import (
    FIGURES, STOP_MIN_DURATION_S, MotionQuality, body_yaw_turns, motion_quality,
    remaining_path_length,
    retreat,
    run_motion_summary, steering_reversals, steering_signal, stops, time_standing,
    turn_reversals, turn_reversals_per_minute, turned_on_goal, yaw_rates)

DT = 0.1
GOAL = (10.0, 0.0)


def track(xs, dt=DT):
    """Times and (T, 2) positions along the x axis."""
    xs = np.asarray(xs, dtype=float)
    return np.arange(len(xs)) * dt, np.column_stack([xs, np.zeros(len(xs))])


def run(*pieces):
    """x positions through consecutive pieces, each (x_to, seconds), from 0 at 1 step/DT."""
    xs = [0.0]
    for x_to, seconds in pieces:
        steps = round(seconds / DT)
        xs.extend(np.linspace(xs[-1], x_to, steps + 1)[1:].tolist())
    return xs


def test_a_straight_run_has_no_retreat_stop_reversal_or_standing():
    times, positions = track(run((10.0, 10.0)))
    figures = motion_quality(times, positions, [GOAL], 0.1, 0.1)
    assert figures == MotionQuality(
        0.0, 0, 0.0, 0, pytest.approx(10.0), pytest.approx(0.0), time_off_goal_s=0.0,
        at_goal_at_end=True, arrived=True, failed_to_progress=False,
        time_stalled_s=0.0, path_length_m=pytest.approx(9.9),  # to x = 9.9: arrived
        acceleration_mean_mps2=pytest.approx(0.0, abs=1e-9),
        acceleration_max_mps2=pytest.approx(0.0, abs=1e-9),
        jerk_mean_mps3=pytest.approx(0.0, abs=1e-9), jerk_max_mps3=pytest.approx(0.0, abs=1e-9))


def test_a_robot_that_drives_two_metres_back_then_on_retreats_two_metres():
    times, positions = track(run((3.0, 3.0), (1.0, 2.0), (10.0, 9.0)))
    distance = remaining_path_length(positions, [GOAL], 0.1)
    assert retreat(distance) == pytest.approx(2.0)
    figures = motion_quality(times, positions, [GOAL], 0.1, 0.1)
    assert figures.retreat_m == pytest.approx(2.0)
    assert figures.stops == 0  # turning back passes through rest for no time


def test_pushed_off_its_goal_after_arriving_is_no_retreat_but_is_said():
    """A robot that reached its goal and was pushed 1 m past it by a robot passing
    through, then came back: it did not turn back on its way (its retreat stops at its
    first arrival), and it was 1 m off its goal after reaching it."""
    times, positions = track(run((10.0, 10.0), (11.0, 2.0), (10.0, 2.0)))
    figures = motion_quality(times, positions, [GOAL], 0.1, 0.1)
    assert figures.retreat_m == 0.0
    assert figures.off_goal_m == pytest.approx(1.0)
    never = motion_quality(*track(run((5.0, 5.0))), [GOAL], 0.1, 0.1)
    assert never.off_goal_m == 0.0  # never there: nothing to be pushed off
    assert (never.time_off_goal_s, never.at_goal_at_end) == (0.0, False)


def test_the_time_off_its_goal_counts_from_the_push_till_it_is_back():
    """Reached at 10 s, pushed 1 m past it over 2 s and back over 2 s: beyond the 0.1 m
    tolerance from 10.1 s (x > 10.1 after the first sample) to 13.9 s; at the end it is
    on its goal. One left 1 m off to the end is off its goal from the push on."""
    times, positions = track(run((10.0, 10.0), (11.0, 2.0), (10.0, 2.0)))
    back = motion_quality(times, positions, [GOAL], 0.1, 0.1)
    assert back.time_off_goal_s == pytest.approx(3.6, abs=0.11)
    assert back.at_goal_at_end is True
    times, positions = track(run((10.0, 10.0), (11.0, 2.0), (11.0, 5.0)))
    left = motion_quality(times, positions, [GOAL], 0.1, 0.1)
    assert left.time_off_goal_s == pytest.approx(6.8, abs=0.11)
    assert left.at_goal_at_end is False


def test_retreat_is_measured_along_the_remaining_waypoints():
    # Out to (5, 0), then back to the goal (0, 0.5): nearer the goal in a straight line
    # at the start, but along the path it only ever gets nearer.
    waypoints = [(5.0, 0.0), (0.0, 0.5)]
    out = np.column_stack([np.linspace(0.0, 5.0, 51), np.zeros(51)])
    back = np.column_stack([np.linspace(5.0, 0.0, 51)[1:], np.linspace(0.0, 0.5, 51)[1:]])
    positions = np.vstack([out, back])
    distance = remaining_path_length(positions, waypoints, 0.05)  # passed on reaching it
    assert distance[0] == pytest.approx(5.0 + math.hypot(5.0, 0.5))
    assert retreat(distance) == pytest.approx(0.0, abs=1e-9)
    straight = np.linalg.norm(positions - np.array(waypoints[-1]), axis=1)
    assert retreat(straight) == pytest.approx(math.hypot(5.0, 0.5) - 0.5)
    # A waypoint counts as passed within its tolerance: driving on to it is going away.
    assert retreat(remaining_path_length(positions, waypoints, 0.1)) == \
        pytest.approx(math.hypot(5.0, 0.5) - math.hypot(4.9, 0.5))


def test_a_stop_and_go_track_has_one_stop_and_its_standing_time():
    times, positions = track(run((3.0, 3.0), (3.0, 2.0), (10.0, 7.0)))
    assert stops(times, positions, GOAL, 0.1) == 1
    assert time_standing(times, positions, GOAL, 0.1) == pytest.approx(2.0)
    figures = motion_quality(times, positions, [GOAL], 0.1, 0.1)
    assert (figures.stops, figures.time_standing_s) == (1, pytest.approx(2.0))
    assert figures.moving_time_s == pytest.approx(10.0)


def test_short_pauses_waiting_to_start_and_standing_on_the_goal_are_not_stops():
    pause = STOP_MIN_DURATION_S - 2 * DT
    times, positions = track(run((0.0, 3.0), (3.0, 3.0), (3.0, pause), (10.0, 7.0),
                                 (10.0, 5.0)))
    assert stops(times, positions, GOAL, 0.1) == 0
    assert time_standing(times, positions, GOAL, 0.1) == 0.0


def test_a_robot_stuck_until_the_end_has_stopped():
    times, positions = track(run((3.0, 3.0), (3.0, 4.0)))
    assert stops(times, positions, GOAL, 0.1) == 1
    assert time_standing(times, positions, GOAL, 0.1) == pytest.approx(4.0)


def zigzag(amplitude=0.5, frequency=0.5, seconds=10.0):
    """A holonomic robot at 1 m/s whose direction of motion is amplitude * sin(2 pi f t)."""
    steps = round(seconds / DT)
    heading = amplitude * np.sin(2.0 * math.pi * frequency * (np.arange(steps) + 0.5) * DT)
    velocity = np.column_stack([np.cos(heading), np.sin(heading)])
    positions = np.vstack([[0.0, 0.0], np.cumsum(velocity * DT, axis=0)])
    return np.arange(steps + 1) * DT, positions


def test_a_zigzag_heading_reverses_its_turn_twice_a_period():
    times, positions = zigzag()  # 5 periods in 10 s
    assert turn_reversals(yaw_rates(times, positions)) == 10
    figures = motion_quality(times, positions, [(100.0, 0.0)], 0.1, 0.1)
    assert figures.turn_reversals == 10
    assert figures.turn_reversals_per_min == pytest.approx(60.0)


def test_the_heading_of_a_robot_moving_straight_up_is_not_turning():
    times = np.arange(51) * DT
    rng = np.random.default_rng(1)
    positions = np.column_stack([1e-4 * rng.standard_normal((51, 2)), np.arange(51) * DT])
    assert turn_reversals(yaw_rates(times, positions)) == 0
    assert motion_quality(times, positions, [(0.0, 0.0, 10.0)], 0.1, 0.1).moving_time_s == \
        pytest.approx(5.0)


def test_turning_below_the_rate_threshold_is_not_counted():
    times, positions = zigzag(amplitude=0.01)  # peak yaw rate about 0.03 rad/s
    assert turn_reversals(yaw_rates(times, positions)) == 0
    assert turn_reversals([0.5, 0.05, -0.05, 0.5]) == 0  # the small ones are skipped
    assert turn_reversals([0.5, 0.05, -0.2, np.nan, 0.3]) == 2


def test_a_body_yaw_gives_the_rate_even_turning_on_the_spot():
    times = np.arange(21) * DT
    positions = np.zeros((21, 2))  # a unicycle turning on the spot: left, right, left
    yaws = np.concatenate([np.linspace(0.0, 1.0, 8), np.linspace(1.0, 0.0, 8)[1:],
                           np.linspace(0.0, 0.6, 7)[1:]])
    assert turn_reversals(yaw_rates(times, positions, yaws)) == 2
    assert turn_reversals(yaw_rates(times, positions)) == 0  # no motion, no heading
    assert turn_reversals_per_minute(2, 0.0) is None
    away = motion_quality(times, positions, [GOAL], 0.1, 0.1, yaws)
    on_goal = motion_quality(times, positions, [(0.0, 0.0)], 0.1, 0.1, yaws)
    assert (away.turn_reversals, on_goal.turn_reversals) == (2, 0)  # settling on its goal


def test_the_run_summary_names_the_worst_robots():
    calm = MotionQuality(0.0, 0, 0.0, 0, 10.0, 0.0)
    shy = MotionQuality(1.5, 2, 3.0, 1, 10.0, 6.0)
    nervous = MotionQuality(0.2, 1, 0.5, 4, 8.0, 30.0)
    parked = MotionQuality(0.0, 0, 0.0, 0, 0.0, None, off_goal_m=0.7)
    row = run_motion_summary({"calm": calm, "shy": shy, "nervous": nervous, "parked": parked})
    assert row == {"retreat_max_m": 1.5, "retreat_robot": "shy",
                   "off_goal_max_m": 0.7, "off_goal_robot": "parked", "stops": 3,
                   "time_standing_s": 3.5, "turn_reversals_per_min": 12.0,
                   "turn_reversals_per_min_max": 30.0, "turn_reversals_robot": "nervous",
                   "time_off_goal_s": 0.0, "at_goal_at_end": 0,
                   "spl": None, "path_length_mean_m": None, "timeouts": None,
                   "failed_to_progress": None, "time_stalled_s": None,
                   "acceleration_mean_mps2": None, "acceleration_max_mps2": None,
                   "jerk_mean_mps3": None, "jerk_max_mps3": None,
                   "steering_reversals_per_min_median": None,
                   "steering_reversals_per_min_max": None, "steering_reversals_robot": None,
                   "turned_on_goal_max_deg": None, "turned_on_goal_robot": None}
    assert run_motion_summary({"calm": calm})["retreat_robot"] is None


def test_positions_a_robot_left_with_are_left_out():
    times, positions = track(run((10.0, 10.0), (10.0, 1.0)))
    positions[-5:] = np.nan  # taken out at its goal
    figures = motion_quality(times, positions, [GOAL], 0.1, 0.1)
    assert (figures.retreat_m, figures.stops) == (0.0, 0)
    assert figures.moving_time_s == pytest.approx(10.0)


def test_a_body_yaw_that_turns_says_how_the_robot_turns_and_a_fixed_one_does_not():
    assert body_yaw_turns([0.0, 0.2, 0.5, 0.1])
    assert not body_yaw_turns([1.0] * 20)  # a holonomic body keeps its yaw
    assert not body_yaw_turns([math.pi - 0.01, -math.pi + 0.01, math.pi])  # across +-pi
    assert body_yaw_turns([math.pi - 0.01, -math.pi + 0.2])
    assert not body_yaw_turns([0.3])


def test_a_fleet_record_gives_the_figures_of_what_the_simulator_moved():
    """fleet_sim's record (what it publishes as odometry): a robot that drives 1 m on,
    2 m back, then to its goal retreated 2 m; turning is taken from the body yaw when
    that turns (a unicycle weaving along a straight line), from the motion otherwise."""
    from orca_ros.core.scenario.loader import parse_scenario
    from orca_ros.core.sim.metrics import FleetRecord

    scenario = parse_scenario({
        "name": "two", "time_step": 0.1, "max_time": 20.0,
        "defaults": {"radius": 0.2, "max_speed": 1.0},
        "agents": [{"name": "back", "start": [0.0, 0.0], "goal": [10.0, 0.0]},
                   {"name": "spin", "start": [0.0, 5.0], "goal": [10.0, 5.0]}]})
    xs = run((1.0, 1.0), (-1.0, 2.0), (10.0, 11.0))
    spin_yaws = [0.3 * math.sin(0.5 * k) for k in range(len(xs))]  # weaving on a line
    record = FleetRecord(scenario, [(0.0, 0.0), (0.0, 5.0)], [0.0, 0.0])
    for k in range(1, len(xs)):
        record.record(k * DT, [(xs[k], 0.0), (min(0.1 * k, 10.0), 5.0)], [0.0, spin_yaws[k]])
    figures = record.motion_figures()
    assert figures["back"].retreat_m == pytest.approx(2.0, abs=1e-6)
    assert figures["back"].turn_reversals == 0  # straight back and on: no turning
    assert figures["spin"].retreat_m == 0.0
    # its yaw weaves (the track is straight): the yaw is what counts
    assert figures["spin"].turn_reversals >= 10 and figures["spin"].moving_time_s > 9.0


def test_going_round_a_wall_is_no_retreat_when_distances_go_round_the_walls():
    """A wall from (0, -2) to (0, 2) stands between the start (-1, 0) and the goal (1, 0):
    the robot goes up round its end, 0.1 m off it, and down. Straight to the goal it
    seems to move away (from 1 m off to more); round the wall it only ever gets nearer.
    The distance round the wall is the shortest way, over its end: 2 hypot(1, 2)."""
    from orca_ros.core.sim.motion_quality import DistancesRoundWalls

    start, end, goal, clearance = np.array((-1.0, 0.0)), np.array((0.0, 2.0)), \
        np.array((1.0, 0.0)), 0.1
    # tangent points on the circle round the wall's end, from the start and to the goal
    reach = math.hypot(1.0, 2.0)
    up = math.atan2(-2.0, -1.0) - math.acos(clearance / reach) + 2 * math.pi  # 156 deg
    down = math.atan2(-2.0, 1.0) + math.acos(clearance / reach)  # 24 deg
    arc = [end + clearance * np.array((math.cos(a), math.sin(a)))
           for a in np.linspace(up, down, 40)]
    path = np.concatenate([np.linspace(start, arc[0], 40), arc,
                           np.linspace(arc[-1], goal, 40)])
    times = np.arange(len(path)) * DT
    round_walls = DistancesRoundWalls([((0.0, -2.0), (0.0, 2.0))])
    distance = round_walls(np.array([start]), goal)[0]
    assert distance == pytest.approx(2 * reach, abs=0.005)
    straight = motion_quality(times, path, [goal], 0.1, 0.1)
    assert straight.retreat_m > 0.4
    around = motion_quality(times, path, [goal], 0.1, 0.1, round_walls=round_walls)
    assert around.retreat_m <= 1e-3


def test_pushed_sideways_in_the_open_a_robot_gives_back_what_it_really_gives_back():
    """steersuite_4way_oncoming: robot a41, heading east for (30, 0) through a crossing of
    four blocks, was pushed 6 m north by the group crossing it, from (4.38, 0.92) to
    (5.17, 6.99). Measured on a grid of eight neighbours (up to 8% long in some
    directions) it seemed to give back 1.84 m. Driven straight between those points, it
    gives back what the straight distance to its goal rises by, 0.27 m."""
    from orca_ros.core.sim.motion_quality import DistancesRoundWalls

    blocks = [((-98.5, -98.5), (-10.5, -98.5), (-10.5, -10.5), (-98.5, -10.5)),
              ((10.5, -98.5), (98.5, -98.5), (98.5, -10.5), (10.5, -10.5)),
              ((-98.5, 10.5), (-10.5, 10.5), (-10.5, 98.5), (-98.5, 98.5)),
              ((10.5, 10.5), (98.5, 10.5), (98.5, 98.5), (10.5, 98.5))]
    goal = (30.0, 0.0)
    path = np.linspace((4.38, 0.92), (5.17, 6.99), 60)
    figures = motion_quality(np.arange(60) * DT, path, [goal], 1.25, 0.5,
                             round_walls=DistancesRoundWalls(blocks))
    straight = np.linalg.norm(path - goal, axis=1)
    rise = np.max(straight - np.minimum.accumulate(straight))
    assert figures.retreat_m == pytest.approx(rise, abs=1e-6)
    assert figures.retreat_m < 0.3


def test_round_walls_corners_of_a_map_and_a_goal_walled_in():
    """Round a map's walls (more corners than are all tried), a point's distance goes
    through the nearest corners it sees; and a target walled in is no figure (inf: the
    straight distance stands in)."""
    from orca_ros.core.sim.motion_quality import EVERY_CORNER, DistancesRoundWalls

    # a row of posts (0.2 m squares every 0.5 m) with a wall behind them
    posts = [((x, 0.0), (x + 0.2, 0.0), (x + 0.2, 0.2), (x, 0.2))
             for x in np.arange(0.0, 20.0, 0.5)]
    wall = [((-1.0, -3.0), (21.0, -3.0))]
    round_walls = DistancesRoundWalls(posts + wall)
    assert len(round_walls.corners) > EVERY_CORNER
    # from below the post at x = 10 to above it: round its two corners on one side
    below, above = (10.1, -0.5), (10.1, 0.7)
    distance = round_walls(np.array([below]), above)[0]
    assert distance == pytest.approx(2 * math.hypot(0.1, 0.5) + 0.2, abs=0.005)
    shut = DistancesRoundWalls([((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))])
    outside = np.array([(3.0, 0.5), (2.0, 0.5)])
    assert np.isinf(shut(outside, (0.5, 0.5))).all()  # the target inside a solid block
    assert remaining_path_length(outside, [(0.5, 0.5)], 0.1, shut) == pytest.approx([2.5, 1.5])


def test_round_a_maps_walls_distances_come_from_a_grid():
    """Round a map's walls (more edges than guidance plans round with a roadmap) the
    distance comes from a grid, as guidance's does: round a wall's end within 17% (8%
    for the grid's directions, the rest for the wall grown by a cell each side); round a
    scenario's few walls, from the walls' corners."""
    from types import SimpleNamespace

    from orca_ros.core.robot.guidance import MAP_EDGES
    from orca_ros.core.sim.motion_quality import (DistancesOnGrid, DistancesRoundWalls,
                                                  round_walls_of)

    wall = [((0.0, -2.0), (0.0, 2.0))]
    speckle = [((10.0 + 0.2 * i, 5.0), (10.1 + 0.2 * i, 5.0)) for i in range(MAP_EDGES)]
    robot = SimpleNamespace(radius=0.2, waypoints=[(1.0, 0.0)])
    on_map = round_walls_of(SimpleNamespace(solid_outlines=wall + speckle, dimensions=2,
                                            agents=[robot]))
    assert isinstance(on_map, DistancesOnGrid)
    distance = on_map(np.array([(-1.0, 0.0)]), (1.0, 0.0))[0]
    assert 2 * math.hypot(1.0, 2.0) <= distance <= 1.17 * 2 * math.hypot(1.0, 2.0)
    few = round_walls_of(SimpleNamespace(solid_outlines=wall, dimensions=2, agents=[robot]))
    assert isinstance(few, DistancesRoundWalls)


def test_round_walls_work_at_a_toio_mats_scale():
    """On a toio mat (cubes of 16 mm, goals a few centimetres from the mat's edges) every
    goal is reached round the mat's edges, and a cube driving straight to it gives
    nothing back."""
    from orca_ros.core.scenario.loader import load_scenario, resolve_scenario
    from orca_ros.core.sim.motion_quality import round_walls_of

    scenario = load_scenario(resolve_scenario("toio_c_intersect_longitudinal"))
    round_walls = round_walls_of(scenario)
    for agent in scenario.agents:
        path = np.linspace(agent.start, agent.goal, 50)
        assert np.isfinite(round_walls(path, agent.goal)).all()
        figures = motion_quality(np.arange(50) * DT, path, agent.waypoints, 0.01, 0.01,
                                 round_walls=round_walls)
        assert figures.retreat_m == pytest.approx(0.0, abs=1e-6)


def test_fleet_figures_take_each_robots_track_the_one_way_for_every_record():
    """fleet_motion_quality (world, fleet_sim's record, observer, plot): a robot named by
    the scenario with two samples or more; its body yaw only where it turns; a
    controller's own waypoint tolerance where given."""
    from orca_ros.core.scenario.loader import parse_scenario
    from orca_ros.core.sim.motion_quality import RobotTrack, fleet_motion_quality

    scenario = parse_scenario({
        "name": "two", "time_step": DT, "max_time": 30.0,
        "defaults": {"radius": 0.5, "max_speed": 1.0, "pref_speed": 1.0},
        "agents": [{"name": "a", "start": [0.0, 0.0], "goal": [10.0, 0.0],
                    "waypoints": [[4.0, 0.4]]},
                   {"name": "b", "start": [0.0, 2.0], "goal": [10.0, 2.0]}]})
    times, positions = track(run((3.0, 3.0), (1.0, 2.0), (10.0, 9.0)))
    zigzag = np.where(np.arange(len(times)) % 10 < 5, 0.5, -0.5)  # a body that turns
    tracks = {"a": RobotTrack(times, positions, zigzag),
              "b": RobotTrack(times[:1], positions[:1] + (0.0, 2.0)),  # one sample: left out
              "stranger": RobotTrack(times, positions)}  # not the scenario's
    figures = fleet_motion_quality(scenario, tracks)
    assert set(figures) == {"a"}
    assert figures["a"] == motion_quality(times, positions, [(4.0, 0.4), (10.0, 0.0)],
                                          scenario.goal_tolerance_of(scenario.agents[0]),
                                          scenario.waypoint_tolerance_of(scenario.agents[0]),
                                          zigzag, shortest_path=math.hypot(4.0, 0.4) +
                                          math.hypot(6.0, 0.4), max_time=30.0)
    assert figures["a"].turn_reversals > 0  # the body's turning, not the straight track's
    still = fleet_motion_quality(scenario, {"a": RobotTrack(times, positions,
                                                            np.zeros(len(times)))})
    assert still["a"].turn_reversals == 0  # a yaw that never turns: the motion's direction
    # the waypoint (4, 0.4) passed within 2 m (from x = 2.04) instead of the radius (from
    # x = 3.7): the way back from x = 3 to 1 is measured to the goal, not the waypoint
    assert figures["a"].retreat_m == pytest.approx(math.hypot(3, 0.4) - math.hypot(1, 0.4))
    wide = fleet_motion_quality(scenario, {"a": RobotTrack(times, positions)}, {"a": 2.0})
    assert wide["a"].retreat_m == pytest.approx(2.0)


# --- figures that cannot take a run down ----------------------------------------------

ROADMAP_LIKE = {
    # RVO2's Roadmap example in small: robots round a block along waypoints, the waypoint
    # tolerance larger than the distance between waypoints, a start inside it.
    "name": "round_a_block", "time_step": 0.25, "max_time": 40.0,
    "goal_tolerance": 1.0, "waypoint_tolerance": 3.0,
    "defaults": {"radius": 0.3, "max_speed": 1.0, "pref_speed": 1.0},
    "obstacles": [{"vertices": [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]}],
    "agents": [
        {"name": "a", "start": [-3.0, -2.0], "goal": [3.0, 3.0],
         "waypoints": [[-2.0, -2.0], [0.0, -2.5], [2.5, -2.0], [2.5, 0.0]]},
        {"name": "b", "start": [3.0, 2.0], "goal": [-3.0, -3.0],
         "waypoints": [[2.0, 2.0], [0.0, 2.5], [-2.5, 2.0], [-2.5, 0.0]]}]}


def test_a_robot_within_the_tolerance_of_two_waypoints_at_once_has_its_figures():
    """The run that crashed ``orca-ros bench``: a robot within ``waypoint_tolerance`` of
    waypoint k+1 where it passes waypoint k (and starting inside the tolerance of its
    first) has an empty leg of its path, and the distances round the walls were asked
    for no position at all. The run ends with every robot's figures."""
    from orca_ros.core.scenario.loader import parse_scenario
    from orca_ros.core.sim.world import World, WorldOptions

    result = World(parse_scenario(ROADMAP_LIKE), WorldOptions()).run()
    assert result.reached == 2
    assert set(result.motion_quality) == {"a", "b"}
    for figures in result.motion_quality.values():
        assert figures.unavailable == {}
        assert figures.retreat_m is not None and figures.retreat_m >= 0.0
    row = result.summary()
    assert row["retreat_max_m"] is not None and "motion_unavailable" not in row


def test_an_empty_leg_of_a_path_round_walls_is_skipped():
    """Waypoint 1 within the tolerance from the first sample: the legs to waypoints 0 and
    1 are empty; the whole track is measured to the goal, round the block."""
    from orca_ros.core.sim.motion_quality import DistancesRoundWalls

    round_walls = DistancesRoundWalls([[(2.0, -1.0), (3.0, -1.0), (3.0, 1.0), (2.0, 1.0)]])
    positions = np.array([(0.0, 0.0), (0.5, 0.0), (1.0, 0.0)])
    distance = remaining_path_length(positions, [(0.0, 0.0), (0.5, 0.0), (6.0, 0.0)], 10.0,
                                     round_walls)
    assert distance[0] == pytest.approx(math.hypot(2.0, 1.0) + 1.0 + math.hypot(3.0, 1.0),
                                        abs=0.01)
    assert np.all(np.diff(distance) < 0.0)
    assert len(round_walls(np.zeros((0, 2)), (6.0, 0.0))) == 0
    assert len(round_walls(np.zeros(0), (6.0, 0.0))) == 0


def test_a_figure_that_fails_is_unavailable_with_its_reason_and_the_others_stand():
    """A distance round the walls that raises: the retreat is None with the error as its
    reason; stops, standing and turning are still there, and the run's summary names
    the robot and the figure."""
    class Broken:
        def __call__(self, positions, target):
            raise RuntimeError("injected")

    times, positions = track(run((3.0, 3.0), (1.0, 2.0), (10.0, 9.0)))
    figures = motion_quality(times, positions, [GOAL], 0.1, 0.1, round_walls=Broken())
    assert figures.retreat_m is None
    assert figures.unavailable == {
        "retreat_m": "RuntimeError: injected",
        "failed_to_progress": "ValueError: distance to go: RuntimeError: injected"}
    assert figures.stops == 0 and figures.moving_time_s == pytest.approx(14.0)
    assert figures.off_goal_m == 0.0
    summary = run_motion_summary({"a": figures, "b": motion_quality(times, positions,
                                                                    [GOAL], 0.1, 0.1)})
    assert summary["retreat_max_m"] == pytest.approx(2.0)  # b's
    assert summary["motion_unavailable"] == {"a": dict(figures.unavailable)}
    assert figures.as_dict()["unavailable"] == dict(figures.unavailable)
    assert figures.spl is None and figures.path_length_m == pytest.approx(13.9)  # 3 + 2 + 8.9


def test_walls_whose_distances_cannot_be_laid_out_cost_only_the_retreat(monkeypatch):
    from orca_ros.core.scenario.loader import parse_scenario
    from orca_ros.core.sim import motion_quality as mq

    def broken(scenario):
        raise MemoryError("injected")

    monkeypatch.setattr(mq, "round_walls_of", broken)
    scenario = parse_scenario(ROADMAP_LIKE)
    times, positions = track(run((3.0, 3.0)))
    figures = mq.fleet_motion_quality(scenario, {"a": mq.RobotTrack(times, positions)})
    assert figures["a"].retreat_m is None
    assert "MemoryError: injected" in figures["a"].unavailable["retreat_m"]
    assert figures["a"].stops == 0 and figures["a"].moving_time_s > 0.0


def test_a_track_that_cannot_be_read_has_every_figure_unavailable():
    figures = motion_quality(np.arange(3.0), np.zeros((5, 2)), [GOAL], 0.1, 0.1)
    assert all(getattr(figures, name) is None for name in FIGURES)
    assert set(figures.unavailable) == set(FIGURES)
    assert {"retreat_m", "spl", "jerk_max_mps3", "failed_to_progress"} <= set(FIGURES)
    assert "3 times for 5 positions" in figures.unavailable["stops"]


# Property tests: random tracks, waypoints and tolerances (larger than the distances
# between waypoints, starts inside them), short and empty tracks, robots that never
# move, with and without walls: every figure is computed, and each is what it must be.

def _walls_strategy():
    from hypothesis import strategies as st

    box = st.tuples(st.floats(-5, 5), st.floats(-5, 5), st.floats(0.2, 3), st.floats(0.2, 3))
    return st.lists(box, max_size=3).map(lambda boxes: [
        [(x, y), (x + w, y), (x + w, y + h), (x, y + h)] for x, y, w, h in boxes])


def _track_strategy():
    from hypothesis import strategies as st

    point = st.tuples(st.floats(-8, 8), st.floats(-8, 8))
    return st.fixed_dictionaries({
        "points": st.lists(point, min_size=0, max_size=40),
        "still": st.booleans(),
        "waypoints": st.lists(point, min_size=1, max_size=5),
        "goal_tolerance": st.floats(0.0, 20.0),
        "waypoint_tolerance": st.floats(0.0, 30.0),
        "yaws": st.booleans(),
        "walls": _walls_strategy()})


def _figures_of(case):
    from orca_ros.core.sim.motion_quality import DistancesRoundWalls

    points = np.array(case["points"], dtype=float).reshape(-1, 2)
    if case["still"] and len(points):
        points = np.repeat(points[:1], len(points), axis=0)
    times = np.arange(len(points)) * DT
    yaws = np.linspace(0.0, 1.0, len(points)) if case["yaws"] else None
    walls = DistancesRoundWalls(case["walls"]) if case["walls"] else None
    return points, motion_quality(times, points, case["waypoints"], case["goal_tolerance"],
                                  case["waypoint_tolerance"], yaws, walls)


def test_random_tracks_always_have_every_figure():
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_track_strategy())
    def check(case):
        points, figures = _figures_of(case)
        assert figures.unavailable == {}
        assert figures.retreat_m >= 0.0 and figures.off_goal_m >= 0.0
        assert figures.stops >= 0 and figures.time_standing_s >= 0.0
        assert figures.turn_reversals >= 0 and figures.moving_time_s >= 0.0
        if case["still"] or len(points) < 2:  # a robot that never moves
            assert figures.retreat_m == 0.0 and figures.moving_time_s == 0.0
            assert figures.stops == 0 and figures.turn_reversals_per_min is None

    check()


def test_walls_away_from_the_track_leave_its_retreat_as_without_walls():
    """Walls far below every track and waypoint change no distance to go, so the
    retreat round them is the straight one, up to the distance within which positions
    are measured as one (a grid of SAME_POINT_M: hypothesis found points 1e-5 m apart)."""
    from hypothesis import HealthCheck, given, settings

    from orca_ros.core.sim.motion_quality import SAME_POINT_M, DistancesRoundWalls

    far = DistancesRoundWalls([[(-50.0, -60.0), (50.0, -60.0), (50.0, -59.0), (-50.0, -59.0)]])

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_track_strategy())
    def check(case):
        points, plain = _figures_of({**case, "walls": []})
        times = np.arange(len(points)) * DT
        walled = motion_quality(times, points, case["waypoints"], case["goal_tolerance"],
                                case["waypoint_tolerance"], round_walls=far)
        assert walled.retreat_m == pytest.approx(plain.retreat_m, abs=2.0 * SAME_POINT_M)

    check()


def test_a_map_and_empty_or_single_sample_tracks_have_their_figures():
    """Round a map's walls (the grid) and through the fleet entry: tracks of one sample
    are left out, an empty track has none, and a track that starts inside every
    tolerance has its figures."""
    from types import SimpleNamespace

    from orca_ros.core.robot.guidance import MAP_EDGES
    from orca_ros.core.sim.motion_quality import RobotTrack, fleet_motion_quality

    speckle = [((10.0 + 0.2 * i, 5.0), (10.1 + 0.2 * i, 5.0)) for i in range(MAP_EDGES)]
    agents = [SimpleNamespace(name=n, radius=0.2, waypoints=[(1.0, 0.0), (1.5, 0.0), (4.0, 0.0)],
                              reference_length=4.0)
              for n in ("one", "none", "inside")]
    scenario = SimpleNamespace(solid_outlines=speckle, dimensions=2, agents=agents,
                               max_time=10.0,
                               goal_tolerance_of=lambda a: 0.1,
                               waypoint_tolerance_of=lambda a: 5.0)
    times, positions = track(run((4.0, 4.0)))
    figures = fleet_motion_quality(scenario, {
        "one": RobotTrack(times[:1], positions[:1]),
        "none": RobotTrack(np.zeros(0), np.zeros((0, 2))),
        "inside": RobotTrack(times, positions + (1.0, 0.0))})
    assert set(figures) == {"inside"}
    assert figures["inside"].unavailable == {}
    assert figures["inside"].retreat_m == pytest.approx(0.0, abs=0.2)  # to a cell


def test_random_tracks_round_a_maps_walls_always_have_every_figure():
    """Round a map's walls (the grid, built once for all the examples): random tracks,
    waypoints and tolerances have every figure."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from orca_ros.core.robot.guidance import MAP_EDGES
    from orca_ros.core.sim.motion_quality import DistancesOnGrid

    speckle = [((-8.0 + 0.016 * i, 1.0), (-7.995 + 0.016 * i, 1.0)) for i in range(MAP_EDGES)]
    on_map = DistancesOnGrid(speckle, [(-8.0, -8.0), (8.0, 8.0)], cell=0.1)
    point = st.tuples(st.floats(-8, 8), st.floats(-8, 8))

    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(point, max_size=30), st.lists(point, min_size=1, max_size=4),
           st.floats(0.0, 20.0), st.floats(0.0, 30.0))
    def check(points, waypoints, goal_tolerance, waypoint_tolerance):
        positions = np.array(points, dtype=float).reshape(-1, 2)
        figures = motion_quality(np.arange(len(positions)) * DT, positions, waypoints,
                                 goal_tolerance, waypoint_tolerance, round_walls=on_map)
        assert figures.unavailable == {}
        assert figures.retreat_m >= 0.0 and figures.off_goal_m >= 0.0

    check()


def test_the_steering_signal_is_the_turn_rate_or_the_side_of_the_preferred_velocity():
    assert steering_signal(True, -0.4, (1.0, 0.0), (1.0, 0.0)) == -0.4  # a unicycle's omega
    # holonomic: the commanded velocity 30 degrees left of the preferred one
    left = (math.cos(math.radians(30)), math.sin(math.radians(30)))
    assert steering_signal(False, 0.0, left, (2.0, 0.0)) == pytest.approx(math.radians(30))
    assert abs(steering_signal(False, 0.0, (0.0, -1.0), (0.0, 1.0))) == pytest.approx(math.pi)
    assert steering_signal(False, 0.0, (1.0, -1.0), (1.0, 0.0)) == pytest.approx(-math.pi / 4)
    assert math.isnan(steering_signal(False, 0.0, (0.01, 0.0), (1.0, 0.0)))  # at rest
    assert math.isnan(steering_signal(False, 0.0, (1.0, 0.0), (0.0, 0.0)))  # nowhere to go


def test_steering_reversals_count_changes_of_side_beyond_the_dead_band():
    assert steering_reversals([0.3, -0.3, 0.3]) == 2
    assert steering_reversals([0.3, 0.05, -0.05, 0.04, 0.3]) == 0  # noise within the band
    assert steering_reversals([0.3, np.nan, -0.3]) == 1
    assert steering_reversals([0.3, -0.3], dead_band=0.5) == 0


def test_a_curved_route_followed_as_planned_turns_but_does_not_steer_back():
    """A holonomic robot that weaves along a planned zigzag with its command on its
    preferred velocity: its heading turns back ten times, its steering never."""
    times, positions = zigzag()
    on_plan = np.zeros(len(times))  # commanded = preferred: angle 0
    figures = motion_quality(times, positions, [(100.0, 0.0)], 0.1, 0.1, steering=on_plan)
    assert figures.turn_reversals == 10
    assert figures.steering_reversals == 0 and figures.steering_reversals_per_min == 0.0
    # ORCA's choice flipping sides of the preferred velocity every second
    flipping = 0.3 * np.sign(np.sin(math.pi * (times + 0.05)))
    figures = motion_quality(times, positions, [(100.0, 0.0)], 0.1, 0.1, steering=flipping)
    assert figures.steering_reversals == 10
    assert figures.steering_reversals_per_min == pytest.approx(60.0)


def test_steering_is_counted_on_the_way_and_its_absence_or_bad_length_is_said():
    times, positions = track(run((10.0, 10.0), (10.0, 2.0)))
    settling = np.where(np.arange(len(times)) % 2 == 0, 0.5, -0.5)
    settling[: len(times) - 20] = 0.5  # steady on the way, flipping on the goal
    figures = motion_quality(times, positions, [GOAL], 0.2, 0.1, steering=settling)
    assert figures.steering_reversals == 0
    assert motion_quality(times, positions, [GOAL], 0.2, 0.1).steering_reversals is None
    short = motion_quality(times, positions, [GOAL], 0.2, 0.1, steering=settling[:-1])
    assert short.retreat_m is None and "steering" in short.unavailable["retreat_m"]


def test_the_run_summary_takes_the_median_robot_steering():
    def steering(rate):
        return MotionQuality(0.0, 0, 0.0, 0, 10.0, 0.0, steering_reversals=0,
                             steering_reversals_per_min=rate)
    row = run_motion_summary({"a": steering(2.0), "b": steering(30.0), "c": steering(4.0),
                              "d": MotionQuality(0.0, 0, 0.0, 0, 0.0, None)})
    assert row["steering_reversals_per_min_median"] == 4.0
    assert (row["steering_reversals_per_min_max"], row["steering_reversals_robot"]) == \
        (30.0, "b")


def test_a_unicycle_spinning_on_its_goal_is_counted_in_degrees_turned_there():
    times, positions = track(run((10.0, 10.0), (10.0, 3.0)))
    arrival = int(np.argmax(positions[:, 0] >= 10.0 - 0.2))
    yaws = np.zeros(len(times))
    spin = np.linspace(0.0, 3.0 * math.pi, len(times) - arrival - 10)
    yaws[arrival + 10:] = spin  # one and a half turns on the goal, either wrap
    figures = motion_quality(times, positions, [GOAL], 0.2, 0.2, yaws=yaws)
    assert figures.turned_on_goal_deg == pytest.approx(540.0, abs=1e-6)
    assert figures.as_dict()["turned_on_goal_deg"] == pytest.approx(540.0, abs=1e-5)
    summary = run_motion_summary({"a": figures, "b": motion_quality(
        times, positions, [GOAL], 0.2, 0.2, yaws=np.zeros(len(times)))})
    assert summary["turned_on_goal_max_deg"] == pytest.approx(540.0, abs=1e-5)
    assert summary["turned_on_goal_robot"] == "a"


def test_turning_on_the_way_or_without_a_body_heading_is_not_turning_on_the_goal():
    times, positions = track(run((10.0, 10.0), (10.0, 3.0)))
    yaws = np.where(times < 5.0, np.sin(times), 0.0)  # weaving on the way only
    assert motion_quality(times, positions, [GOAL], 0.2, 0.2,
                          yaws=yaws).turned_on_goal_deg == 0.0
    assert motion_quality(times, positions, [GOAL], 0.2, 0.2).turned_on_goal_deg is None
    assert turned_on_goal(yaws, None) is None  # never arrived
