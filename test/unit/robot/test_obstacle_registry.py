"""Obstacles from several sources on ``/obstacles``, kept per (ns, id) as RViz keeps markers:
the core registry, without ROS. (The Marker conversion and real nodes over DDS:
test/ros/test_obstacle_sources.py.)
"""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.robot.obstacle_registry import (ObstacleAction, ObstacleRegistry, ObstacleUpdate,
                                                   ObstacleUpdateError)
from orca_ros.core.geometry.types import Segment

from helpers.geometry import segments, square

ADD, DELETE, DELETE_ALL = ObstacleAction.ADD, ObstacleAction.DELETE, ObstacleAction.DELETE_ALL
NAN = math.nan


def add(ns, marker_id, *points, lifetime=0.0):
    return ObstacleUpdate(ns, marker_id, ADD, tuple(points), lifetime)


WALLS = square(0.0, 0.0, 5.0)


# --- core registry ------------------------------------------------------------------------------

def test_add_gives_the_segments_as_rvo2_edges_and_counts_a_version():
    registry = ObstacleRegistry()
    assert registry.edges == [] and registry.version == 0
    assert registry.apply(add("walls", 0, *WALLS)) is True
    assert registry.segments == segments(WALLS)
    assert registry.version == 1
    edges = registry.edges
    assert len(edges) == 2 * 4  # a segment is a two-vertex chain: an edge each way
    assert {(e.point, e.next.point) for e in edges} == \
        {(s.a, s.b) for s in segments(WALLS)} | {(s.b, s.a) for s in segments(WALLS)}
    assert registry.edges is edges  # not rebuilt without a change


def test_modify_replaces_only_that_keys_segments():
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS))
    registry.apply(add("tracker", 7, *square(1.0, 1.0)))
    edges = registry.edges
    assert registry.apply(add("tracker", 7, *square(2.0, 1.0))) is True  # MODIFY == ADD
    assert registry.segments_of(("tracker", 7)) == tuple(segments(square(2.0, 1.0)))
    assert registry.segments_of(("walls", 0)) == tuple(segments(WALLS))
    assert len(registry.segments) == 8
    assert registry.edges is not edges and len(registry.edges) == 16
    assert not any(s in registry.segments for s in segments(square(1.0, 1.0)))


def test_the_same_add_again_changes_nothing():
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS))
    edges, version = registry.edges, registry.version
    assert registry.apply(add("walls", 0, *WALLS)) is False  # a republished map
    assert registry.version == version and registry.edges is edges


def test_delete_removes_that_key_only():
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS))
    registry.apply(add("tracker", 1, *square(1.0, 1.0)))
    registry.apply(add("tracker", 2, *square(3.0, 1.0)))
    version = registry.version
    assert registry.apply(ObstacleUpdate("tracker", 1, DELETE)) is True
    assert registry.version == version + 1
    assert registry.keys == [("tracker", 2), ("walls", 0)]
    assert registry.segments == segments(square(3.0, 1.0)) + segments(WALLS)
    assert registry.apply(ObstacleUpdate("tracker", 1, DELETE)) is False  # already gone
    assert registry.apply(ObstacleUpdate("nobody", 9, DELETE)) is False
    assert registry.version == version + 1


def test_deleteall_with_a_namespace_clears_that_namespace_only():
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS))
    registry.apply(add("tracker", 1, *square(1.0, 1.0)))
    registry.apply(add("tracker", 2, *square(3.0, 1.0)))
    assert registry.apply(ObstacleUpdate("tracker", 0, DELETE_ALL)) is True
    assert registry.keys == [("walls", 0)]
    assert registry.segments == segments(WALLS)
    assert registry.apply(ObstacleUpdate("tracker", 0, DELETE_ALL)) is False


def test_deleteall_without_a_namespace_clears_every_source():
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS))
    registry.apply(add("tracker", 1, *square(1.0, 1.0)))
    assert registry.apply(ObstacleUpdate("", 0, DELETE_ALL)) is True
    assert registry.keys == [] and registry.segments == [] and registry.edges == []


def test_two_namespaces_with_the_same_id_are_kept_apart():
    registry = ObstacleRegistry()
    registry.apply(add("map", 0, *WALLS))
    registry.apply(add("tracker", 0, *square(1.0, 1.0)))
    assert registry.segments_of(("map", 0)) == tuple(segments(WALLS))
    assert registry.segments_of(("tracker", 0)) == tuple(segments(square(1.0, 1.0)))
    registry.apply(add("tracker", 0))  # empty ADD: the tracker has nothing now
    assert registry.segments == segments(WALLS)


def test_the_union_does_not_depend_on_the_order_updates_came_in():
    updates = [add("walls", 0, *WALLS), add("tracker", 3, *square(1.0, 1.0)),
               add("a", 1, (0.0, 0.0), (1.0, 0.0))]
    forward, backward = ObstacleRegistry(), ObstacleRegistry()
    for update in updates:
        forward.apply(update)
    for update in reversed(updates):
        backward.apply(update)
    assert forward.segments == backward.segments
    assert [(e.point, e.next.point) for e in forward.edges] == \
        [(e.point, e.next.point) for e in backward.edges]


def test_sources_heard_are_every_applied_updates_namespace_and_none_refused():
    """Issue 31: a robot told to expect a source waits until it has heard it at all
    (an empty ADD or a DELETE counts: the source has spoken); a refused update does not."""
    registry = ObstacleRegistry()
    assert registry.missing_sources(["obstacle_server", "map"]) == ["obstacle_server", "map"]
    with pytest.raises(ObstacleUpdateError):
        registry.apply(add("obstacle_server", 0, (0.0, 0.0)))  # odd number of points
    assert registry.missing_sources(["obstacle_server"]) == ["obstacle_server"]
    registry.apply(add("obstacle_server", 0))  # no walls, but spoken
    registry.apply(ObstacleUpdate("map", 4, DELETE))
    assert registry.missing_sources(["obstacle_server", "map", "tracker"]) == ["tracker"]
    assert registry.sources == {"obstacle_server", "map"}


def test_an_empty_add_is_valid_and_means_no_segments():
    registry = ObstacleRegistry()
    assert registry.apply(add("tracker", 1)) is False  # nothing there before, nothing now
    assert registry.keys == [("tracker", 1)] and registry.version == 0
    registry.apply(add("tracker", 1, *square(1.0, 1.0)))
    assert registry.apply(add("tracker", 1)) is True
    assert registry.segments == [] and registry.edges == []


@pytest.mark.parametrize("points, problem", [
    ([(1.0, 1.0), (2.0, 2.0), (NAN, 0.0)], "not finite"),  # the message seen in the field
    ([(1.0, 1.0), (2.0, 2.0), (0.0, math.inf), (3.0, 3.0)], "not finite"),
    ([(1.0, 1.0), (2.0, 2.0), (3.0, 3.0)], "odd number of points (3)"),
    ([(1.0, 1.0), (2.0, 2.0), (3.0, 3.0), (3.0, 3.0)],
     "segment 1 (points 2 and 3) has zero length"),
])
def test_a_bad_update_is_refused_whole_and_changes_nothing(points, problem):
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS))
    registry.apply(add("tracker", 1, *square(1.0, 1.0)))
    edges, version, keys = registry.edges, registry.version, registry.keys
    # Both as a new key and as a bad replacement of a good one.
    for bad in (add("bad", 4, *points), add("tracker", 1, *points)):
        with pytest.raises(ObstacleUpdateError) as error:
            registry.apply(bad)
        assert bad.name in str(error.value) and problem in str(error.value)
    assert registry.version == version and registry.edges is edges and registry.keys == keys
    assert registry.segments_of(("tracker", 1)) == tuple(segments(square(1.0, 1.0)))
    assert registry.segments_of(("walls", 0)) == tuple(segments(WALLS))


def test_unknown_actions_and_negative_lifetimes_are_refused():
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS))
    with pytest.raises(ObstacleUpdateError, match="unknown action 1"):
        registry.apply(ObstacleUpdate("walls", 0, 1))
    with pytest.raises(ObstacleUpdateError, match="lifetime"):
        registry.apply(add("walls", 0, (0.0, 0.0), (1.0, 0.0), lifetime=-1.0))
    assert registry.segments == segments(WALLS) and registry.version == 1


def test_segments_expire_lifetime_after_their_last_update():
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS), now=0.0)  # lifetime 0: forever
    registry.apply(add("tracker", 1, *square(1.0, 1.0), lifetime=2.0), now=10.0)
    assert registry.next_expiry == 12.0
    assert registry.expire(11.0) is False
    registry.apply(add("tracker", 1, *square(1.0, 1.0), lifetime=2.0), now=11.5)  # refreshed
    assert registry.expire(13.0) is False
    version = registry.version
    assert registry.expire(13.5) is True
    assert registry.version == version + 1
    assert registry.segments == segments(WALLS) and registry.next_expiry is None
    assert registry.expire(1e9) is False  # walls never expire


def test_an_update_drops_what_expired_before_it():
    registry = ObstacleRegistry()
    registry.apply(add("tracker", 1, *square(1.0, 1.0), lifetime=1.0), now=0.0)
    assert registry.apply(add("walls", 0, *WALLS), now=5.0) is True
    assert registry.keys == [("walls", 0)]


# A model of the registry: a dict of each key's segments; bad updates leave it alone.
keys = st.tuples(st.sampled_from(["", "map", "tracker"]), st.integers(0, 2))
grid = st.tuples(st.integers(-2, 2).map(float), st.integers(-2, 2).map(float))
points = st.lists(st.one_of(grid, grid, grid, st.just((NAN, 0.0))), max_size=7)
updates = st.one_of(
    st.builds(lambda k, p: ObstacleUpdate(k[0], k[1], ADD, tuple(p)), keys, points),
    st.builds(lambda k: ObstacleUpdate(k[0], k[1], DELETE), keys),
    st.builds(lambda k: ObstacleUpdate(k[0], k[1], DELETE_ALL), keys))


def model_segments(update):
    """The update's segments, or None when it must be refused."""
    pts = update.points
    if len(pts) % 2 or not all(math.isfinite(c) for p in pts for c in p):
        return None
    pairs = [(pts[k], pts[k + 1]) for k in range(0, len(pts), 2)]
    if any(a == b for a, b in pairs):
        return None
    return tuple(Segment(a, b) for a, b in pairs)


@settings(max_examples=300, deadline=None)
@given(st.lists(updates, max_size=25))
def test_the_registry_matches_a_dict_of_keys(sequence):
    registry = ObstacleRegistry()
    model = {}
    for update in sequence:
        before = {k: v for k, v in model.items() if v}
        edges, version = registry.edges, registry.version
        if update.action == ADD:
            new = model_segments(update)
            if new is None:
                with pytest.raises(ObstacleUpdateError):
                    registry.apply(update)
            else:
                model[update.key] = new
                registry.apply(update)
        elif update.action == DELETE:
            model.pop(update.key, None)
            registry.apply(update)
        else:
            for key in [k for k in model if not update.ns or k[0] == update.ns]:
                del model[key]
            registry.apply(update)
        after = {k: v for k, v in model.items() if v}
        assert registry.segments == [s for k in sorted(model) for s in model[k]]
        if after == before:
            assert registry.version == version and registry.edges is edges
        else:
            assert registry.version == version + 1
            assert len(registry.edges) == 2 * len(registry.segments)


def test_a_lasers_walls_change_every_scan_but_a_maps_walls_are_indexed_and_planned_round_once():
    """A scan's walls (a lifetime) follow the lasting walls in the edges; each scan gives a
    new list, whose lasting part (and its spatial index) is the same object, and guidance
    plans round that part alone (a planner is built once per set of walls, and a laser
    replaces its walls five times a second)."""
    from orca_ros.core.orca.orca2d import select_visible_edges
    from orca_ros.core.robot.guidance import (MAP_EDGES, guidance_walls,
                                              same_guidance_walls)

    registry = ObstacleRegistry()
    wall = [p for k in range(MAP_EDGES) for p in ((k * 0.1, 5.0), (k * 0.1 + 0.05, 5.0))]
    registry.apply(add("map", 0, *wall), now=0.0)
    registry.apply(add("robot/scan", 0, (1.0, 0.5), (1.0, -0.5), lifetime=1.0), now=0.0)
    first = registry.edges
    registry.apply(add("robot/scan", 0, (1.1, 0.5), (1.1, -0.5), lifetime=1.0), now=0.2)
    second = registry.edges
    assert second is not first and second.lasting is first.lasting
    assert len(second.lasting) == 2 * MAP_EDGES
    assert guidance_walls(second) is second.lasting
    assert same_guidance_walls(first, second)  # orca_node keeps its roadmaps over a scan
    near = select_visible_edges((0.0, 0.0), 1.5, second)
    assert [edge.point for edge in near] == [(1.1, 0.5)]  # the scan's wall, the side facing
    # a change of the map builds the lasting part anew
    registry.apply(add("map", 1, (-3.0, 0.0), (-3.0, 1.0)), now=0.3)
    assert registry.edges.lasting is not second.lasting
    assert not same_guidance_walls(second, registry.edges)
    assert len(registry.edges.lasting) == 2 * MAP_EDGES + 2
    # beside a room's few walls too: guidance plans round the lasting ones alone, and a
    # new scan builds no planner (it had built one at every scan)
    small = ObstacleRegistry()
    small.apply(add("walls", 0, (0.0, 5.0), (1.0, 5.0)), now=0.0)
    small.apply(add("robot/scan", 0, (1.0, 0.5), (1.0, -0.5), lifetime=1.0), now=0.0)
    assert guidance_walls(small.edges) is small.edges.lasting
    before = small.edges
    small.apply(add("robot/scan", 0, (1.1, 0.5), (1.1, -0.5), lifetime=1.0), now=0.2)
    assert same_guidance_walls(before, small.edges)
    from orca_ros.core.robot.config import ControllerConfig
    from orca_ros.core.robot.preferred_velocity import Guidance

    config = ControllerConfig(radius=0.2, max_speed=0.5, pref_speed=0.4, time_step=0.1)
    guidance = Guidance()
    assert guidance.planner(config, before) is guidance.planner(config, small.edges)  # the same
    plain = [object()]  # edges without a lasting part: all of them
    assert guidance_walls(plain) is plain
