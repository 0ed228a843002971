"""A scenario's ``map:``: walls that exist only as a map_server image, for the world,
``obstacle_server`` and the contact count alike."""

import pytest
import yaml
from helpers.maps import write_walled_scenario

from orca_ros.core.scenario.loader import ScenarioError, load_scenario
from orca_ros.core.sim.world import World, WorldOptions


def test_a_scenario_walled_by_a_map_only_is_crossed_without_touching_the_walls(tmp_path):
    scenario = load_scenario(write_walled_scenario(tmp_path))
    assert scenario.obstacles == () and len(scenario.map_walls) >= 8
    xs = [x for s in scenario.map_walls for x in (s.a[0], s.b[0])]
    assert min(xs) == pytest.approx(-3.0, abs=0.05) and max(xs) == pytest.approx(3.0, abs=0.05)
    result = World(scenario, WorldOptions()).run()
    summary = result.summary()
    assert summary["reached"] == 2 and summary["collisions"] == 0, summary
    # they went round the middle wall: longer than the straight 4 m
    assert summary["path_length_ratio"] > 1.05


def test_a_scenario_whose_map_cannot_be_read_is_refused_naming_both(tmp_path):
    path = write_walled_scenario(tmp_path, map_fields="mode: fancy\n")
    with pytest.raises(ScenarioError) as refused:
        load_scenario(path)
    assert "map_swap.yaml" in str(refused.value) and "room.yaml" in str(refused.value)
    assert "field 'mode'" in str(refused.value)
    raw = yaml.safe_load(path.read_text())
    raw["map"] = "maps/nowhere.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(ScenarioError, match="nowhere.yaml"):
        load_scenario(path)


def test_unmapped_obstacles_are_solid_but_nobody_is_told_of_them(tmp_path):
    """They count for contact (the world has no laser: its robot drives into the box) and
    are no wall anyone avoids or publishes."""
    from helpers.maps import write_unmapped_box_scenario

    scenario = load_scenario(write_unmapped_box_scenario(tmp_path))
    assert scenario.walls == () and len(scenario.unmapped_obstacles) == 1
    assert scenario.solid_outlines[-1] == scenario.unmapped_obstacles[0].vertices
    summary = World(scenario, WorldOptions()).run().summary()
    assert summary["collisions"] == 1  # west through the box it was never told of


def test_a_warehouse_map_of_thousands_of_walls_is_crossed_without_touching_a_cell(tmp_path):
    """A map's walls are thousands of segments, most of them speckle: guidance plans round
    them on a grid (a roadmap over their corners took minutes on a 200 m map) and the
    walls are looked up in a spatial index. Every robot arrives, and none touches an
    occupied cell, judged on the grid itself."""
    from helpers.maps import write_warehouse_scenario

    from orca_ros.core.robot.navigation_grid import NavigationGrid

    scenario = load_scenario(write_warehouse_scenario(tmp_path))
    assert len(scenario.map_walls) > 2000
    world = World(scenario, WorldOptions())
    summary = world.run().summary()
    assert summary["reached"] == 4 and summary["collisions"] == 0, summary
    assert world.ledger.min_wall_gap > 0.0
    planners = {id(p) for c in world.controllers for p in c.roadmaps.values()}
    assert len(planners) == 1  # one grid, shared by robots of one size
    assert all(isinstance(p, NavigationGrid)
               for c in world.controllers for p in c.roadmaps.values())


def test_a_start_on_the_maps_occupied_cells_is_refused_naming_the_robot(tmp_path):
    path = write_walled_scenario(tmp_path)
    raw = yaml.safe_load(path.read_text())
    raw["agents"][0]["start"] = [0.0, 0.1]  # on the middle wall, 20 cm thick
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(ScenarioError, match="agent 'west'.*occupied cells"):
        load_scenario(path)
