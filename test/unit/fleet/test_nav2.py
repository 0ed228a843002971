"""orca_ros.fleet.nav2: the orca_nodes nav2.launch.py starts in Nav2's chain."""

import pytest

from orca_ros.fleet.nav2 import nav2_specs, robots_of, stamped_choice


def test_nav2s_arguments_and_the_files_choices(tmp_path):
    """namespace:= as Nav2's bringup (or robots:= for several, each then holding for the
    others); a params_file's enable_stamped_cmd_vel is left as it is, else Nav2's of the
    distro; both namespace and robots is refused, naming both."""
    assert robots_of("", "/robot1") == ["robot1"]
    assert robots_of("robot1, robot2", "") == ["robot1", "robot2"]
    with pytest.raises(ValueError, match="not both.*'robot3'"):
        robots_of("robot1 robot2", "robot3")
    with pytest.raises(ValueError, match="namespace:="):
        robots_of("", "")
    first, second = nav2_specs(["robot1", "robot2"], None, True)
    assert first.parameters == {"use_sim_time": True, "fleet_robots": ["robot2"]}
    assert "fleet_robots" not in nav2_specs(["robot1"], True, False)[0].parameters
    plain = tmp_path / "plain.yaml"
    plain.write_text("/**:\n  ros__parameters:\n    radius: 0.3\n")
    says = tmp_path / "says.yaml"
    says.write_text("/**:\n  ros__parameters:\n    enable_stamped_cmd_vel: false\n")
    assert stamped_choice("", str(plain), "kilted") is True
    assert stamped_choice("", str(plain), "jazzy") is False
    assert stamped_choice("", str(says), "kilted") is None  # the file's own
    assert stamped_choice("true", str(says), "jazzy") is True  # the argument wins
    # Humble's chain has no collision monitor: orca_node commands the robot itself.
    assert dict(nav2_specs(["robot1"], False, False, "humble")[0].remappings) == {
        "cmd_vel_in": "cmd_vel_smoothed", "cmd_vel": "cmd_vel"}
    assert dict(nav2_specs(["robot1"], True, False, "kilted")[0].remappings)[
        "cmd_vel"] == "cmd_vel_orca"
