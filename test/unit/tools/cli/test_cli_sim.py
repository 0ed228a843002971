"""``orca-ros sim``'s summary lines (orca_ros.tools.cli.sim)."""

from orca_ros.tools.cli.sim import held_line


def test_robots_whose_goals_have_no_room_are_listed_with_who_takes_it():
    assert held_line({"a25": ["a24", "a26"], "a26": ["a25", "a27"]}) == (
        "2 robots' goals have no room at the safety distance (goal_held_by): "
        "a25 (a24, a26), a26 (a25, a27)")
    assert held_line({"a1": ["a0"]}).startswith("1 robot's goal has no room")
