"""The fleet plan of a scenario with ``links:``: every orca_node gets all the groups."""

import yaml

from orca_ros.core.robot.link_groups import parse_links
from orca_ros.core.scenario.loader import parse_scenario

from helpers.scenarios import linked_scenario


def test_fleet_plan_gives_every_orca_node_the_scenarios_links(tmp_path):
    from orca_ros.fleet.plan import FleetOptions, fleet_plan, process_plan

    path = linked_scenario(tmp_path)
    scenario = parse_scenario(yaml.safe_load(path.read_text()), str(path))
    plan = fleet_plan(str(path), FleetOptions())
    robots = [spec for spec in plan if spec.executable == "orca_node"]
    assert [r.namespace for r in robots] == ["a0", "a1", "b0", "b1", "solo"]
    for robot in robots:  # all groups: its own partners, and the links to keep off
        assert isinstance(robot.parameters["links"], str)
        assert parse_links(robot.parameters["links"]) == scenario.links
    # orca_robots hosts take parameters from a YAML file: the text stays a string there.
    [host] = [p for p in process_plan(plan, 10) if p.hosted]
    read_back = yaml.safe_load(yaml.safe_dump(host.parameters_file()))
    assert parse_links(read_back["/a0/orca_node"]["ros__parameters"]["links"]) == \
        scenario.links
    # A scenario without links: no links parameter at all.
    plain = [s for s in fleet_plan("crossing_4") if s.executable == "orca_node"]
    assert plain and all("links" not in s.parameters for s in plain)
