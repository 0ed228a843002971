"""Linked robots (scenario ``links:``): ORCA's link and tether half-planes, the loader's
rejections, the accounting, and the four built-in linked scenarios end to end."""

import json
import math

import numpy as np
import pytest

from orca_ros.core.methods.links import (disc_crosses_moving_segment, disc_touches_segment,
                                         link_safety_half_plane, moving_segment_half_plane,
                                         tether_half_plane, tether_sweep_half_plane)
from orca_ros.core.methods import LinkView, NeighborView, RobotView, TetherView, method_spec
from orca_ros.core.methods.orca import Orca
from orca_ros.core.sim.metrics import OVERLAP_TOLERANCE, LinkLedger
from orca_ros.core.scenario.loader import (ScenarioError, load_scenario, parse_scenario,
                                           resolve_scenario)
from orca_ros.core.sim.world import World, WorldOptions
from orca_ros.tools.scenario_bench import markdown_table

from helpers.geometry import allowed

LINKED = ["linked_pairs_crossing", "linked_pair_meets_crowd", "linked_triad_doorway",
          "linked_pairs_circle_swap"]


# --- half-plane geometry, hand-computed ------------------------------------------------

def test_static_link_ahead_excludes_heading_straight_at_it():
    # Robot at the origin (r = 0.2) heading up at 1 m/s; a static link y = 2, x in [-1, 1].
    # Truncated at tau = 2 s the VO's front is the flat side y = (2 - 0.2) / 2 = 0.9,
    # so u = (0, -0.1), n = (0, -1): the half-plane is v_y <= 0.9 (whole responsibility).
    line = moving_segment_half_plane((0.0, 0.0), (0.0, 1.0), 0.2, (-1.0, 2.0), (1.0, 2.0),
                                     (0.0, 0.0), (0.0, 0.0), 2.0, 0.1)
    assert line[1] == pytest.approx(0.9, abs=2e-3)
    assert (line[2], line[3]) == pytest.approx((-1.0, 0.0), abs=1e-9)
    assert not allowed(line, (0.0, 1.0))
    assert allowed(line, (0.0, 0.5))
    assert allowed(line, (0.0, -1.0))
    assert allowed(line, (3.0, 0.85))  # sliding past is fine


def test_link_moving_away_allows_following_it():
    # The same link moving up at 1 m/s: in its frame the robot stands still, outside the VO.
    line = moving_segment_half_plane((0.0, 0.0), (0.0, 1.0), 0.2, (-1.0, 2.0), (1.0, 2.0),
                                     (0.0, 1.0), (0.0, 1.0), 2.0, 0.1)
    assert allowed(line, (0.0, 1.0))
    assert not allowed(line, (0.0, 2.0))  # relative 1 m/s, beyond the front at 0.9


def test_link_collision_branch_pushes_out_within_a_step():
    # Disc (r = 0.2) at (0, 1.9), link along y = 2: C = (0, 0.1); w' = -C/dt = (0, -1);
    # u = (r/dt - |w'|) w'/|w'| = (0, -1): leave by v_y <= -1.
    line = moving_segment_half_plane((0.0, 1.9), (0.0, 0.0), 0.2, (-1.0, 2.0), (1.0, 2.0),
                                     (0.0, 0.0), (0.0, 0.0), 2.0, 0.1)
    assert line[0] == pytest.approx(0.0) and line[1] == pytest.approx(-1.0)
    assert allowed(line, (0.0, -1.5))
    assert not allowed(line, (0.0, 0.0))


def test_link_safety_half_plane():
    # Gap 1 - 0.2 over 0.1 s: v_y <= 8; the link coming down at 1 m/s: v_y <= 7.
    line = link_safety_half_plane((0.0, 0.0), 0.2, (-1.0, 1.0), (1.0, 1.0), (0.0, 0.0),
                                  (0.0, 0.0), 0.1)
    assert allowed(line, (0.0, 7.99)) and not allowed(line, (0.0, 8.01))
    line = link_safety_half_plane((0.0, 0.0), 0.2, (-1.0, 1.0), (1.0, 1.0), (0.0, -1.0),
                                  (0.0, -2.0), 0.1)
    # the end closing fastest counts: 8 - 2 = 6
    assert allowed(line, (0.0, 5.99)) and not allowed(line, (0.0, 6.01))


def test_tether_at_max_length_forbids_moving_apart():
    # A at 0, B at (1, 0), both still, max_length 1, margin 0.01, tau 0.1: slack -0.01,
    # A keeps v_x >= 0 - (-0.01) / (2 * 0.1) = 0.05 (closing in by its half).
    line = tether_half_plane((0.0, 0.0), (0.0, 0.0), (1.0, 0.0), (0.0, 0.0), 1.0, 0.1, 0.01)
    assert line[0] == pytest.approx(0.05)
    assert not allowed(line, (-0.5, 0.0))
    assert not allowed(line, (0.0, 0.5))
    assert allowed(line, (0.5, 0.0))
    assert allowed(line, (0.05, 0.3))


def test_tether_with_slack_allows_half_of_it():
    # d = 0.5, max 1 (no margin), still: slack 0.5, A may move away at up to 0.5/(2*0.1).
    line = tether_half_plane((0.0, 0.0), (0.0, 0.0), (0.5, 0.0), (0.0, 0.0), 1.0, 0.1, 0.0)
    assert allowed(line, (-2.49, 0.0)) and not allowed(line, (-2.51, 0.0))
    # The partner moving away at 1 m/s: the reference is the mean, 0.5, so v_x >= -2.
    line = tether_half_plane((0.0, 0.0), (0.0, 0.0), (0.5, 0.0), (1.0, 0.0), 1.0, 0.1, 0.0)
    assert allowed(line, (-1.99, 0.0)) and not allowed(line, (-2.01, 0.0))


def test_tether_sweep_keeps_the_owner_from_sweeping_its_tether_onto_a_robot():
    # A at 0, partner B at (2, 0) still; a robot of radius 0.2 at (0.5, 0.5), still:
    # nearest tether point (0.5, 0) at s = 0.25, gap 0.3, n = (0, 1), T = 0.1: the point
    # moves at 0.75 v_A, so A keeps v_y <= 0.3 / 0.1 / 0.75 = 4.
    line = tether_sweep_half_plane((0.0, 0.0), (2.0, 0.0), (0.0, 0.0), (0.5, 0.5),
                                   (0.0, 0.0), 0.2, 0.1)
    assert allowed(line, (0.0, 3.99)) and not allowed(line, (0.0, 4.01))
    assert allowed(line, (5.0, 0.0)) and allowed(line, (0.0, -5.0))
    # The robot coming down at 1 m/s takes 1/0.75 of A's room away.
    line = tether_sweep_half_plane((0.0, 0.0), (2.0, 0.0), (0.0, 0.0), (0.5, 0.5),
                                   (0.0, -1.0), 0.2, 0.1)
    assert allowed(line, (0.0, 2.66)) and not allowed(line, (0.0, 2.68))
    # Nearest to B's end: B's own half-planes against the robot cover it.
    assert tether_sweep_half_plane((0.0, 0.0), (2.0, 0.0), (0.0, 0.0), (2.3, 0.3),
                                   (0.0, 0.0), 0.2, 0.1) is None


def test_yielding_half_planes_hold_unless_the_hard_ones_forbid_them():
    from orca_ros.core.geometry.linprog import HalfPlane
    from orca_ros.core.orca.orca2d import solve_orca

    def run(hard, yielding):
        return solve_orca((0.0, 0.0), (0.0, 0.0), 0.2, 1.0, (1.0, 0.0), 2.0, 2.0, 0.1, [], [],
                          hard_half_planes=hard, yielding_half_planes=yielding).velocity

    keep_below_half = HalfPlane(0.5, 0.0, 0.0, 1.0)  # v_x <= 0.5, hard
    keep_above_7 = HalfPlane(0.7, 0.0, 0.0, -1.0)  # v_x >= 0.7, contradicts it
    keep_below_3 = HalfPlane(0.3, 0.0, 0.0, 1.0)  # v_x <= 0.3, agrees
    assert run([keep_below_half], [keep_below_3])[0] == pytest.approx(0.3)
    assert run([keep_below_half], [keep_above_7])[0] <= 0.5 + 1e-9
    # The same two both hard: the least violation splits it and breaks the hard one.
    assert run([keep_below_half, keep_above_7], [])[0] == pytest.approx(0.6)


def view(**extra):
    fields = dict(position=(0.0, 0.0), velocity=(0.0, 1.0), heading=math.pi / 2, radius=0.2,
                  true_radius=0.2, max_speed=1.0, pref_velocity=(0.0, 1.0), time_step=0.1)
    fields.update(extra)
    return RobotView(**fields)


def test_orca_avoids_link_and_strict_ignores_it():
    link = LinkView((-1.0, 2.0), (1.0, 2.0), (0.0, 0.0), (0.0, 0.0), ("b0", "b1"))
    neighbor = NeighborView((3.0, 0.0), (0.0, 0.0), 0.2, "n")
    orca = method_spec("orca").create()
    plain = orca.compute_velocity(view(neighbors=(neighbor,)))
    linked = orca.compute_velocity(view(neighbors=(neighbor,), links=(link,)))
    assert plain.velocity == pytest.approx((0.0, 1.0))
    assert linked.velocity[1] <= 0.9 + 1e-6
    # the neighbour's half-plane is still the last one, unchanged by the link's
    assert len(linked.neighbor_half_planes) == 1
    assert linked.neighbor_half_planes == plain.neighbor_half_planes
    strict = method_spec("orca_strict").create()
    assert strict.compute_velocity(view(links=(link,))).velocity == pytest.approx((0.0, 1.0))
    tether = TetherView("p", (0.0, -1.0), (0.0, 0.0), 0.2, 1.0)
    # At max length (1 m), both still: slack = L - margin - d with the orca method's margin
    # 0.01 + 2 min(0.25 * 1 * 0.1, 0.15 * 0.2) = 0.06, so A closes in by half:
    # v . n >= 0.06 / (2 * 0.1) = 0.3 towards the partner below, v_y <= -0.3.
    held = orca.compute_velocity(view(velocity=(0.0, 0.0), tethers=(tether,)))
    assert held.velocity == pytest.approx((0.0, -0.3))


# --- the loader -------------------------------------------------------------------------

def scenario_data(**links):
    data = {"time_step": 0.1, "max_time": 10.0,
            "defaults": {"radius": 0.2, "max_speed": 1.0},
            "agents": [{"name": "a0", "start": [0, 0], "goal": [1, 0]},
                       {"name": "a1", "start": [0, 1], "goal": [1, 1]},
                       {"name": "a2", "start": [0, 2], "goal": [1, 2]}]}
    data.update(links)
    return data


@pytest.mark.parametrize("links, words", [
    ([{"agents": ["a0", "ghost"], "max_length": 2.0}],
     ["links[0]", "agents", "unknown agent 'ghost'"]),
    ([{"agents": ["a0", "a1"], "max_length": 2.0}, {"agents": ["a1", "a2"], "max_length": 2.0}],
     ["links[1]", "agents", "'a1'", "already in links[0]"]),
    ([{"agents": ["a0", "a2"], "max_length": 1.5}],
     ["links[0]", "max_length", "'a0'", "'a2'", "2.000 m"]),
])
def test_loader_rejects_bad_links(links, words):
    with pytest.raises(ScenarioError) as error:
        parse_scenario(scenario_data(links=links), "where/linked.yaml")
    message = str(error.value)
    assert message.startswith("where/linked.yaml: ")
    for word in words:
        assert word in message, message


def test_loader_rejects_bad_link_in_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(json.dumps(scenario_data(
        links=[{"agents": ["a0", "a2"], "max_length": 1.0}])))
    with pytest.raises(ScenarioError, match=r"bad\.yaml: links\[0\]: max_length"):
        load_scenario(path)


# --- accounting -------------------------------------------------------------------------

def ledger_step(previous, positions, radii=(0.2, 0.2, 0.2), max_length=2.5):
    ledger = LinkLedger()
    ledger.update(np.array(previous, float), np.array(positions, float), np.array(radii),
                  ["a0", "a1", "s"], np.ones(3, bool), [(0, 1, max_length)],
                  np.array([0, 0, -1]))
    return ledger


def test_ledger_counts_a_crossing_within_a_step():
    # the link x = 0, y in [-1, 1]; s jumps from x = -0.5 to 0.5 (0.3 clear at both ends)
    ledger = ledger_step([(0, -1), (0, 1), (-0.5, 0)], [(0, -1), (0, 1), (0.5, 0)])
    assert ledger.crossings == {("s", "a0-a1")}
    assert not ledger.overstretched


def test_ledger_counts_an_overstretch_and_nothing_for_a_clean_pass():
    ledger = ledger_step([(0, -0.5), (0, 0.5), (-2, 3)], [(0, -0.75), (0, 0.75), (2, 3)],
                         max_length=1.2)
    assert ledger.overstretched == {"a0-a1"} and not ledger.crossings  # 1.5 > 1.2
    ledger.update(np.array([(0, -0.75), (0, 0.75), (2, 3)], float),
                  np.array([(0, -0.8), (0, 0.8), (2, 4)], float), np.full(3, 0.2),
                  ["a0", "a1", "s"], np.ones(3, bool), [(0, 1, 1.2)], np.array([0, 0, -1]))
    assert len(ledger.overstretched) == 1  # distinct links
    clean = ledger_step([(0, -0.5), (0, 0.5), (-2, 1.0)], [(0, -0.5), (0, 0.5), (2, 1.0)],
                        max_length=1.2)
    assert not clean.crossings and not clean.overstretched


def test_touch_helpers():
    assert disc_touches_segment((0.0, 0.15), 0.2, (-1.0, 0.0), (1.0, 0.0), OVERLAP_TOLERANCE)
    assert not disc_touches_segment((0.0, 0.2), 0.2, (-1.0, 0.0), (1.0, 0.0), OVERLAP_TOLERANCE)
    # a link sweeping over a standing disc within the step
    assert disc_crosses_moving_segment((0.0, 0.0), (0.0, 0.0), 0.2, (-1.0, -1.0), (1.0, -1.0),
                                       (-1.0, 1.0), (1.0, 1.0), OVERLAP_TOLERANCE)


def test_world_counts_a_robot_driving_through_a_link():
    # A still pair 1 m apart, a single robot driving straight between them (method direct).
    data = {"time_step": 0.1, "max_time": 6.0,
            "defaults": {"radius": 0.2, "max_speed": 1.0},
            "agents": [{"name": "a0", "start": [0, -0.5], "goal": [0, -0.5]},
                       {"name": "a1", "start": [0, 0.5], "goal": [0, 0.5]},
                       {"name": "s", "start": [-2, 0], "goal": [2, 0]}],
            "links": [{"agents": ["a0", "a1"], "max_length": 1.2}]}
    result = World(parse_scenario(data), WorldOptions(method="direct")).run()
    assert result.collisions == 0
    assert (result.link_crossings, result.link_overstretches) == (1, 0)
    assert result.link_crossing_pairs == (("s", "a0-a1"),)
    row = result.summary()
    assert (row["link_crossings"], row["link_overstretches"]) == (1, 0)
    table = markdown_table([row])
    assert "link crossings | over-stretched links |" in table.splitlines()[0]
    assert table.splitlines()[2].endswith("| 1 | 0 |")


def test_summary_has_link_keys_only_with_links():
    """The bench contract: the two link counts in rows of scenarios with ``links:``."""
    result = World(load_scenario(resolve_scenario("crossing_4")), WorldOptions())
    result.step()
    row = result.result(0.0).summary()
    assert "link_crossings" not in row and "link_overstretches" not in row
    assert markdown_table([row]).splitlines()[2].endswith("| - | - |")


# --- end to end -------------------------------------------------------------------------

@pytest.mark.parametrize("kinematics", ["holonomic", "diff_drive"])
@pytest.mark.parametrize("name", LINKED)
def test_linked_scenarios_clean(name, kinematics):
    scenario = load_scenario(resolve_scenario(name))
    assert scenario.links
    assert scenario.max_time <= 30.0
    result = World(scenario, WorldOptions(kinematics=kinematics)).run()
    assert result.reached == result.agents, result.summary()
    assert result.collisions == 0, result.collision_pairs
    assert result.link_crossings == 0, result.link_crossing_pairs
    assert result.link_overstretches == 0, result.overstretched_links


def test_without_link_constraints_links_are_crossed(monkeypatch):
    scenario = load_scenario(resolve_scenario("linked_pair_meets_crowd"))
    strict = World(scenario, WorldOptions(method="orca_strict")).run()
    assert strict.link_crossings + strict.link_overstretches >= 1
    monkeypatch.setattr(Orca, "uses_links", False)
    unlinked = World(scenario, WorldOptions()).run()
    assert unlinked.link_crossings >= 1


# --- public scenarios with links added (orca-ros link-pairs) -----------------------------

def test_link_pairs_take_the_closest_pairs_that_hold_at_both_ends():
    from orca_ros.core.scenario.builders import link_pairs

    data = scenario_data(links=[{"agents": ["a5", "a6"], "max_length": 2.0}])
    data["agents"] = [
        {"name": "a0", "start": [0, 0], "goal": [5, 0]},
        {"name": "a1", "start": [0, 1.0], "goal": [5, 1.0]},  # 1.0 m from a0 at both ends
        {"name": "a2", "start": [0, -0.9], "goal": [5, -1.1]},  # 0.9 / 1.1 from a0: farther
        {"name": "a3", "start": [0, 3.0], "goal": [5, 9.0]},  # 2.0 from a1, but goals 8 m apart
        {"name": "a4", "start": [0, 4.1], "goal": [5, 10.1]},  # a3's twin: 1.1 and 1.1
        {"name": "a5", "start": [9, 0], "goal": [9, 5]},  # already linked: left alone
        {"name": "a6", "start": [9, 1], "goal": [9, 6]}]
    scenario = parse_scenario(data, "pairs.yaml")
    # factor 3 x 0.4 m = 1.2 m: a0-a1 (1.0) before a0-a2 (1.1); a3-a4 (1.1); a2 left over
    assert link_pairs(scenario) == [("a0", "a1", pytest.approx(1.2)),
                                    ("a3", "a4", pytest.approx(1.2))]
    assert link_pairs(scenario, max_length=1.05) == [("a0", "a1", 1.05)]


def test_link_pairs_command_writes_a_valid_linked_scenario(tmp_path, public_scenario):
    from orca_ros.tools.cli import main

    out = tmp_path / "groups.yaml"
    assert main(["link-pairs", str(public_scenario("steersuite_oncoming_groups")),
                 "-o", str(out)]) == 0
    scenario = load_scenario(out)
    assert scenario.name == "steersuite_oncoming_groups_linked"
    assert len(scenario.links) == 6 and all(len(link.agents) == 2 for link in scenario.links)
    assert main(["link-pairs", str(public_scenario("steersuite_crossing")),
                 "-o", str(tmp_path / "none.yaml")]) == 1
    assert not (tmp_path / "none.yaml").exists()
    with pytest.raises(SystemExit) as refused:  # argparse refuses a length below 0
        main(["link-pairs", "steersuite_crossing", "-o", str(tmp_path / "x.yaml"),
              "--length-factor", "-1"])
    assert refused.value.code == 2


@pytest.mark.parametrize("name", ["steersuite_oncoming_groups", "steersuite_doorway_one_way"])
def test_public_scenarios_with_links_clean(name, public_scenario):
    """ORCA with links on public scenarios with tethers added: all arrive, nothing touched,
    no link crossed or over-stretched. Without the link half-planes, 4 robot-link crossings
    in the first and an over-stretched tether in the second (the README's table has them all)."""
    import yaml

    from orca_ros.core.scenario.builders import with_link_pairs

    path = public_scenario(name)
    linked, added = with_link_pairs(yaml.safe_load(path.read_text()), str(path))
    assert added >= 1
    scenario = parse_scenario(linked, str(path))
    result = World(scenario, WorldOptions()).run()
    assert result.reached == result.agents, result.summary()
    assert result.collisions == 0, result.collision_pairs
    assert result.link_crossings == 0, result.link_crossing_pairs
    assert result.link_overstretches == 0, result.overstretched_links


@pytest.mark.slow
def test_in_a_dense_linked_crowd_tethers_yield_before_robots_touch():
    """menge_circle with 48 pairs tethered (100 robots meeting in the middle): no robot
    touches another or crosses a link, and all arrive; a tether may stretch instead. With
    the link and tether half-planes all hard, 36 pairs touched; yielding but with no
    sweep half-planes for the owners, 9 pairs and 6 crossings."""
    import yaml

    from orca_ros.core.scenario.builders import with_link_pairs

    path = resolve_scenario("menge_circle")
    linked, added = with_link_pairs(yaml.safe_load(path.read_text()), str(path))
    assert added == 48
    result = World(parse_scenario(linked, str(path)), WorldOptions()).run()
    assert result.collisions == 0, result.collision_pairs
    assert result.link_crossings == 0, result.link_crossing_pairs
    assert result.reached == result.agents


def test_fleet_record_counts_link_crossings_and_overstretches_as_the_world_does():
    """orca-ros sim's own record (fleet_sim's and the cube simulator's ground truth)."""
    from orca_ros.core.sim.metrics import FleetRecord

    scenario = parse_scenario(scenario_data(links=[{"agents": ["a0", "a1"], "max_length": 1.5}]),
                              "record.yaml")
    start = np.array([[0.0, 0.0], [0.0, 1.0], [-1.0, 0.5]])
    record = FleetRecord(scenario, start)
    record.record(0.1, np.array([[0.0, 0.0], [0.0, 1.0], [-0.5, 0.5]]))
    assert (len(record.link_ledger.crossings), len(record.link_ledger.overstretched)) == (0, 0)
    # a2 drives through the a0-a1 link within one step; then the pair stretches to 1.6 m
    record.record(0.2, np.array([[0.0, 0.0], [0.0, 1.0], [0.5, 0.5]]))
    record.record(0.3, np.array([[0.0, 0.0], [0.0, 1.6], [1.0, 0.5]]))
    assert record.link_ledger.crossings == {("a2", "a0-a1")}
    assert record.link_ledger.overstretched == {"a0-a1"}
