"""The cycle collector set for a control loop (orca_ros.core.collector)."""

import gc

import pytest

from orca_ros.core.collector import YOUNG_THRESHOLD, settle, steady_loop
from orca_ros.core.scenario.loader import parse_scenario
from orca_ros.core.sim.world import World, WorldOptions


@pytest.fixture
def collector_restored():
    """Each test leaves the collector as it found it."""
    thresholds, enabled = gc.get_threshold(), gc.isenabled()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)
    if enabled:
        gc.enable()


def test_settle_freezes_start_up_and_makes_young_collections_rare(collector_restored):
    older = gc.get_threshold()[1:]
    made_at_start_up = [[k] for k in range(100)]
    settle()
    assert gc.get_freeze_count() >= len(made_at_start_up)
    assert gc.get_threshold() == (YOUNG_THRESHOLD,) + older


def test_settle_leaves_a_disabled_collector_alone(collector_restored):
    gc.disable()
    thresholds = gc.get_threshold()
    settle()
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == thresholds


def test_a_steady_loop_restores_the_collector_on_leaving(collector_restored):
    thresholds = gc.get_threshold()
    with steady_loop(young=12_345):
        assert gc.get_threshold()[0] == 12_345
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == thresholds
    assert gc.get_freeze_count() == 0


def test_cycles_are_still_collected_in_a_steady_loop(collector_restored):
    collected = []

    class Node:
        def __del__(self):
            collected.append(True)

    with steady_loop(young=100):
        for _ in range(300):  # each a reference cycle that only the collector frees
            a, b = Node(), Node()
            a.other, b.other = b, a
            del a, b
            [[] for _ in range(20)]  # noqa: B018 (allocations that count)
    assert len(collected) > 0


def test_the_world_runs_its_steps_with_the_collector_set(collector_restored):
    scenario = parse_scenario({
        "name": "two", "time_step": 0.1, "max_time": 1.0,
        "defaults": {"radius": 0.3, "max_speed": 1.0},
        "agents": [{"name": "a", "start": [0, 0], "goal": [2, 0]},
                   {"name": "b", "start": [0, 3], "goal": [2, 3]}]})
    world = World(scenario, WorldOptions())
    seen = []
    step = world.step

    def step_and_look():
        seen.append(gc.get_threshold()[0])
        step()
    world.step = step_and_look
    thresholds = gc.get_threshold()
    world.run()
    assert seen and set(seen) == {YOUNG_THRESHOLD}
    assert gc.get_threshold() == thresholds
