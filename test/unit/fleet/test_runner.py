"""What the in-process runner behind ``orca-ros sim`` sums up from its nodes
(orca_ros.fleet.runner)."""

from types import SimpleNamespace

from orca_ros.fleet.runner import goals_held


def node(*held_by):
    clock = SimpleNamespace(now=lambda: SimpleNamespace(nanoseconds=12_000_000_000))
    return SimpleNamespace(core=SimpleNamespace(goal_held_by=lambda now: held_by if now == 12.0
                                                else ("asked at the wrong time",)),
                           get_clock=lambda: clock)


def test_only_robots_whose_goals_have_no_room_are_named_with_who_takes_it():
    robots = {"a26": node("a25", "a27"), "a1": node(), "a25": node("a24", "a26")}
    assert goals_held(robots) == {"a25": ["a24", "a26"], "a26": ["a25", "a27"]}
    assert goals_held({"a1": node()}) == {}
