"""orca_node's diagnostics' content (core.robot.report) from a snapshot, with no ROS."""

from orca_ros.core.robot.cycle import RobotCycle
from orca_ros.core.robot.inputs import RobotInputs
from orca_ros.core.robot.perception import NeighborReading
from orca_ros.core.robot.report import ERROR, OK, WARN, robot_report
from orca_ros.core.robot.timing import CycleTiming
from orca_ros.nodes.params.orca_node import PARAMETERS

from helpers.reports import CONFIG, snapshot

def test_a_driving_robot_with_nothing_wrong_is_ok_and_says_what_it_does():
    level, message, values = robot_report(snapshot())
    assert (level, message) == (OK, "driving")
    assert values["goal"] == (1.0, 2.0) and values["goal_state"] == "driving"
    assert values["neighbor_messages"] == 7 and values["neighbor_messages_shared_by"] == 2
    assert values["obstacle_edges"] == 4 and values["own_odom_age_s"] == ""
    assert values["odom_to_cmd_ms_p50"] == "" and "scans" not in values


def test_rejected_input_and_other_commanders_warn_and_are_named():
    level, message, _ = robot_report(snapshot(rejected={"goal_pose": 2},
                                              last_problem="goal_pose: bad",
                                              commanders=3))
    assert level == WARN
    assert message == ("driving; rejected input: goal_pose: bad; 2 other publisher(s) on "
                       "/me/cmd_vel: the robot is commanded by another node too")


def test_a_reverse_cut_warns_with_the_limit():
    level, message, values = robot_report(snapshot(reverse_limited=3))
    assert level == WARN and "max_reverse_speed 0.1 m/s" in message and "3 times" in message
    assert values["reverse_limited"] == 3


def test_a_bad_links_value_a_failed_callback_or_a_robot_that_cannot_fly_is_an_error():
    cycle = RobotCycle(CONFIG, key="me")
    cycle.set_links("[{agents: [me]}]")
    level, message, values = robot_report(snapshot(cycle=cycle))
    assert level == ERROR and "; parameter " in message and values["links_error"]
    level, message, values = robot_report(snapshot(failed={"_on_scan": 2, "_control": 1}))
    assert level == ERROR and "internal error in _control, _on_scan" in message
    assert values["internal_errors"] == 3
    assert robot_report(snapshot(aerial_error="dimensions 3: no"))[0] == ERROR


def test_stale_and_announced_neighbours_and_the_held_readings_ages():
    neighbors = {"a": NeighborReading(8.5, (0.0, 0.0), (0.0, 0.0), announced=True),
                 "b": NeighborReading(9.5, (0.0, 0.0), (0.0, 0.0))}
    inputs = RobotInputs("me", {p.name: p.default for p in PARAMETERS}, False)
    inputs.command_in((0.1, 0.0, 0.0), 9.75)
    inputs.departed = {"z", "c"}
    timing = CycleTiming()
    timing.start(0, 1e8)
    _, _, values = robot_report(snapshot(neighbors=neighbors, inputs=inputs, timing=timing,
                                         scan={"scans": 4}))
    assert values["stale_neighbors"] == "a" and values["neighbors_seen"] == 2
    assert values["neighbors_announced"] == 1 and values["departed_robots"] == "c,z"
    assert values["cmd_vel_in_age_s"] == 0.25 and values["control_cycles"] == 1
    assert values["scans"] == 4


def test_a_robot_stuck_past_no_progress_warn_warns_with_what_is_nearest():
    level, message, values = robot_report(snapshot(
        stuck_for=9.0, stuck_reason="neighbor parked at 0.05 m", no_progress_warn=8.0))
    assert level == WARN
    assert "no progress towards the goal for 9 s (nearest: neighbor parked at 0.05 m)" in message
    assert values["no_progress_s"] == 9.0
    assert values["no_progress_nearest"] == "neighbor parked at 0.05 m"
    assert robot_report(snapshot(stuck_for=7.0, no_progress_warn=8.0))[0] == OK
    assert robot_report(snapshot(stuck_for=90.0, no_progress_warn=0.0))[0] == OK


def test_a_stuck_robot_whose_goal_has_no_room_names_who_holds_it():
    level, message, values = robot_report(snapshot(
        stuck_for=9.0, stuck_reason="neighbor a24 at 0.22 m", no_progress_warn=8.0,
        goal_held_by=("a24", "a26")))
    assert level == WARN
    assert message.endswith("; its goal has no room within the goal tolerance at the safety "
                            "distance from a24, a26")
    assert values["goal_held_by"] == "a24,a26"
    _, message, values = robot_report(snapshot(stuck_for=9.0, no_progress_warn=8.0))
    assert "no room" not in message and values["goal_held_by"] == ""


def test_a_large_fleets_offsets_and_ages_list_the_worst_ten_and_count_the_rest():
    from orca_ros.core.robot.report import LISTED

    neighbors = {f"r{k:02d}": NeighborReading(10.0 - 0.01 * k, (k, 0.0), (0.0, 0.0),
                                              announced=True) for k in range(25)}
    offsets = {f"r{k:02d}": (-1) ** k * 0.001 * k for k in range(25)}
    values = robot_report(snapshot(neighbors=neighbors, clock_offsets=offsets))[2]
    ages = values["neighbor_ages_s"].split(",")
    assert len(ages) == LISTED + 1 and ages[-1] == "+15 more"
    assert ages[:2] == ["r24:0.240", "r23:0.230"] and ages[LISTED - 1] == "r15:0.150"
    listed = values["clock_offsets"].split(",")
    # by size, whichever the sign: r24 +0.024 s, r23 -0.023 s, ...
    assert listed[:2] == ["r24:+0.024s", "r23:-0.023s"] and listed[-1] == "+15 more"
