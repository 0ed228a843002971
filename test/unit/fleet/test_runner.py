"""What the in-process runner behind ``orca-ros sim`` sums up from its nodes
(orca_ros.fleet.runner)."""

from types import SimpleNamespace

from orca_ros.fleet.runner import goals_held


def node(*held_by):
    return SimpleNamespace(core=SimpleNamespace(progress=SimpleNamespace(held_by=held_by)))


def test_only_robots_whose_goals_have_no_room_are_named_with_who_takes_it():
    robots = {"a26": node("a25", "a27"), "a1": node(), "a25": node("a24", "a26")}
    assert goals_held(robots) == {"a25": ["a24", "a26"], "a26": ["a25", "a27"]}
    assert goals_held({"a1": node()}) == {}
