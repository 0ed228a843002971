"""The virtual-cocoon supervisor: geometry, bookkeeping, the public cases, the paper's
experiments."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.supervisor.cocoon import (CocoonConfig, CocoonSupervisor, Motion, Track,
                                             closest_approach, config_from_scenario, limit_angle)
from orca_ros.core.scenario.loader import load_scenario, parse_scenario, public_scenario_dir
from orca_ros.core.sim.world import World, WorldOptions

num = st.floats(-5, 5)


@settings(max_examples=300, deadline=None)
@given(p=st.tuples(num, num), q=st.tuples(num, num), u=st.tuples(num, num), v=st.tuples(num, num),
       ta=st.floats(0, 10), tb=st.floats(0, 10))
def test_closest_approach_matches_brute_force_sampling(p, q, u, v, ta, tb):
    a, b = Motion(p, u, ta), Motion(q, v, tb)
    distance, when = closest_approach(a, b, 10.0)
    samples = [math.dist(a.at(k * 0.001), b.at(k * 0.001)) for k in range(10001)]
    assert distance <= min(samples) + 1e-9
    assert distance == pytest.approx(math.dist(a.at(when), b.at(when)), abs=1e-9)
    assert distance >= min(samples) - 0.02  # sampling is 1 ms apart, speeds below ~15 m/s


def test_limit_angle_is_the_papers_eq_10():
    for k, degrees in ((0.5, 83.6), (1.0, 60.0), (2.0, 38.9)):
        contact = 2 * (k + 1) * 0.25
        assert math.degrees(limit_angle(0.5, contact)) == pytest.approx(degrees, abs=0.05)


def test_a_robot_without_a_goal_is_standing_and_has_priority():
    supervisor = CocoonSupervisor()
    parked = Track("parked", (0.0, 0.0), 0.25, 0.5, None)
    mover = Track("mover", (-0.9, 0.0), 0.25, 0.5, (3.0, 0.0))
    assert supervisor.standing(parked) and not supervisor.standing(mover)
    assert supervisor.priority(mover, parked)[0].name == "parked"
    directives = supervisor.update(0.0, [parked, mover])
    # Stopping cannot clear a parked robot, so the mover goes round it.
    assert directives["mover"].resolution == "side_step"


def test_unknown_names_and_keys_are_rejected():
    with pytest.raises(ValueError, match="priority_order names unknown robots"):
        CocoonConfig(priority_order=("ghost",)).check_names(["a", "b"])
    with pytest.raises(ValueError, match="unknown key"):
        config_from_scenario({"cocoon_k": 1.0, "cocon_k": 2.0})
    with pytest.raises(ValueError, match="yield_mode"):
        CocoonConfig(yield_mode="dance")


def run(scenario, **overrides):
    config = config_from_scenario(dict(scenario.supervisor, **overrides))
    return World(scenario, WorldOptions(method="direct", supervisor=config)).run()


@pytest.mark.parametrize("mode", ["exact", "paper"])
def test_public_cocoon_cases_match_their_expected_outcome(mode):
    files = sorted((public_scenario_dir() / "cocoon").glob("*.yaml"))
    assert len(files) >= 5
    for path in files:
        scenario = load_scenario(path)
        expected = dict(scenario.expected)
        if mode == "paper":
            expected.update(scenario.expected_paper_mode)
        result = run(scenario, mode=mode)
        where = f"{path.name} ({mode})"
        assert result.collisions == 0, where
        assert result.reached == len(scenario.agents), where
        assert result.min_separation >= 0.05 - 1e-3, where  # the margin holds
        actions = result.conflicts
        if expected["resolution"] == "none":
            assert actions == [], where
        else:
            first = actions[0]
            assert (first["priority"], first["yielding"], first["resolution"]) == \
                (expected["priority"], expected["yielding"], expected["resolution"]), where
        if "events" in expected:
            got = [(a["robots"], a["priority"], a["yielding"], a["resolution"]) for a in actions]
            want = [(e["robots"], e["priority"], e["yielding"], e["resolution"])
                    for e in expected["events"]]
            assert got == want, where
        if "conflict_events" in expected:
            judged = [c for c in result.captures + actions if sorted(c["robots"]) ==
                      sorted(a.name for a in scenario.agents)]
            assert len(judged) == expected["conflict_events"], where


def paper_run(agents, **config):
    scenario = parse_scenario({
        "name": "paper", "time_step": 0.02, "max_time": 30.0, "on_goal": "stay",
        "defaults": {"radius": 0.25, "max_speed": 0.5}, "agents": agents, "obstacles": []})
    world = World(scenario, WorldOptions(method="direct", supervisor=CocoonConfig(**config)))
    detours = {}
    while not world.all_arrived and world.time < scenario.max_time:
        world.step()
        for name, directive in world.supervisor.directives.items():
            if directive.detour and name not in detours:
                i = world.names.index(name)
                detours[name] = (tuple(world.positions[i]), directive.detour)
    result = world.result(0.0)
    assert result.collisions == 0 and result.reached == len(agents)
    return result, detours


def on_the_right(position, goal, point):
    hx, hy = goal[0] - position[0], goal[1] - position[1]
    return hx * (point[1] - position[1]) - hy * (point[0] - position[0]) < 0


def heading_point(origin, degrees, distance):
    h = math.radians(degrees)
    return [origin[0] + distance * math.cos(h), origin[1] + distance * math.sin(h)]


def test_paper_situation_1_converging_at_45_degrees_the_left_robot_stops():
    result, _ = paper_run([
        {"name": "left", "start": heading_point((0, 0), 45, -1.4),
         "goal": heading_point((0, 0), 45, 3)},
        {"name": "right", "start": [0.0, -1.0], "goal": [0.0, 3.0]}])
    assert [(c["priority"], c["yielding"], c["resolution"]) for c in result.conflicts] == \
        [("right", "left", "stop")]


def test_paper_situation_2_crossing_at_90_degrees_the_robot_on_the_ordinate_stops():
    result, _ = paper_run([{"name": "abscissa", "start": [1.2, 0.0], "goal": [-3.0, 0.0]},
                           {"name": "ordinate", "start": [0.0, -1.5], "goal": [0.0, 3.0]}])
    assert [(c["priority"], c["yielding"], c["resolution"]) for c in result.conflicts] == \
        [("abscissa", "ordinate", "stop")]


def test_paper_situation_3_at_157_degrees_the_lower_robot_side_steps_right_and_returns():
    start = heading_point((0, 0), 112.5, -1.5)
    goal = heading_point((0, 0), 112.5, 3.0)
    result, detours = paper_run([{"name": "top", "start": [0.0, -0.1], "goal": [0.0, -4.0]},
                                 {"name": "lower", "start": start, "goal": goal}])
    assert [(c["priority"], c["yielding"], c["resolution"]) for c in result.conflicts] == \
        [("top", "lower", "side_step")]
    position, (side, rejoin) = detours["lower"]
    assert on_the_right(position, goal, side)
    # It returns to its start-goal line.
    hx, hy = goal[0] - start[0], goal[1] - start[1]
    offset = (hx * (rejoin[1] - start[1]) - hy * (rejoin[0] - start[0])) / math.hypot(hx, hy)
    assert abs(offset) < 1e-9


def test_paper_situation_4_anti_parallel_close_lanes_the_other_robot_side_steps():
    result, detours = paper_run([{"name": "east", "start": [-2.0, 0.0], "goal": [3.0, 0.0]},
                                 {"name": "west", "start": [2.0, 0.3], "goal": [-3.0, 0.3]}],
                                priority_order=["west", "east"])
    assert [(c["priority"], c["yielding"], c["resolution"]) for c in result.conflicts] == \
        [("west", "east", "side_step")]
    position, (side, _) = detours["east"]
    assert on_the_right(position, (3.0, 0.0), side)


def test_robots_are_judged_where_they_are_at_the_newest_stamp_among_them():
    """An older reading is carried forward at its velocity to the newest stamp, by at most
    max_carry; a reading without a stamp, or the newest, stays where it is."""
    from orca_ros.core.supervisor.cocoon import MAX_CARRY_S, positions_at_one_instant

    positions = positions_at_one_instant({
        "fresh": ((0.0, 0.0), (1.0, 0.0), 10.0),
        "a_step_behind": ((1.0, 1.0), (0.5, -0.5), 9.9),
        "long_silent": ((2.0, 0.0), (0.0, 1.0), 5.0),
        "unstamped": ((3.0, 0.0), (1.0, 1.0), None)})
    assert positions["fresh"] == (0.0, 0.0) and positions["unstamped"] == (3.0, 0.0)
    assert positions["a_step_behind"] == pytest.approx((1.05, 0.95))
    assert positions["long_silent"] == pytest.approx((2.0, MAX_CARRY_S))


def test_distances_to_the_crossing_within_the_tie_distance_go_to_priority_order():
    """Through ROS two robots that set off together are seen a step apart (1 cm at
    0.5 m/s and 50 Hz): that is a tie, decided by name (or ``priority_order``), not a
    win for whichever robot's goal message came first. Farther apart, the nearer goes
    first."""
    def crossing(r2_distance):
        return (Track("r1", (1.5, 0.0), 0.25, 0.5, (-3.0, 0.0)),
                Track("r2", (0.0, -r2_distance), 0.25, 0.5, (0.0, 3.0)))

    supervisor = CocoonSupervisor()
    assert [t.name for t in supervisor.priority(*crossing(1.49))] == ["r1", "r2"]
    assert [t.name for t in supervisor.priority(*crossing(1.50))] == ["r1", "r2"]
    assert [t.name for t in supervisor.priority(*crossing(1.40))] == ["r2", "r1"]
    ordered = CocoonSupervisor(CocoonConfig(priority_order=("r2", "r1")))
    assert [t.name for t in ordered.priority(*crossing(1.51))] == ["r2", "r1"]
    exact = CocoonSupervisor(config_from_scenario({"tie_distance": 0.001}))
    assert [t.name for t in exact.priority(*crossing(1.49))] == ["r2", "r1"]
    with pytest.raises(ValueError, match="tie_distance"):
        CocoonConfig(tie_distance=-0.01)


def test_a_directive_gives_the_speed_limit_the_world_and_the_node_send():
    from orca_ros.core.supervisor.cocoon import Directive

    stop = Directive("b", "stop", ("a", "b"), "a", speed_factor=0.0)
    slow = Directive("b", "slow", ("a", "b"), "a", speed_factor=0.4)
    step = Directive("b", "side_step", ("a", "b"), "a", detour=((1.0, 1.0),))
    assert (stop.speed_limit(0.5), slow.speed_limit(0.5), step.speed_limit(0.5)) == \
        (0.0, 0.2, None)
