"""The fault harness through real nodes (``orca-ros sim --faults``): short runs (speed
factor 4, a few sim seconds) that check each injector does what it says. Collision counts
are not asserted here. (The spec grammar and the suite's table, without ROS:
test/unit/testing/test_fault_spec.py.)
"""

import time

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy", reason="rclpy not installed (pip install .[ros])")

from orca_ros.fleet.plan import FleetOptions  # noqa: E402
from orca_ros.testing.faults import _uniform  # noqa: E402
from orca_ros.tools.harness import run_fleet  # noqa: E402

pytestmark = pytest.mark.ros


def _run(scenario, faults, max_time, observer=False, **options):
    return run_fleet(scenario, FleetOptions(speed_factor=4.0, **options), max_time=max_time,
                     faults=faults, observer=observer)


def _item(run, fault, **match):
    for item in run.summary["faults"]["injected"]:
        if item["fault"] == fault and all(item.get(k) == v for k, v in match.items()):
            return item
    raise AssertionError(f"no {fault} {match} in {run.summary['faults']}")


def test_dropped_odometry_and_commands_never_reach_their_callbacks():
    run = _run("crossing_4", "drop_odom=north:1.0,drop_cmd=south:1.0,seed=1", max_time=3.0)
    injector = run.injector
    north = injector.robots["north"]
    taps = [t for t in injector.taps if t.kind == "odom" and t.owner == "north"]
    # its own odometry and the fleet's announced states (the fleet follows no one's odom)
    assert sorted(t.robot for t in taps) == ["*", "north"]
    assert all(t.received > 0 and t.dropped == t.received and t.delivered == 0 for t in taps)
    assert north.state is None and north.neighbors == {}  # sees nothing, not even itself
    # North, knowing nothing of itself, announces nothing: the others hear each other
    # and hold for north, a robot of their fleet not heard yet (not free space).
    for name in ("south", "east", "west"):
        node = injector.robots[name]
        assert node.state is not None and len(node.neighbors) == 2, name
        assert node.inputs.hold(0.0, node.neighbor_odometry.heard) == \
            "waiting to hear robots north", name
    south_cmd = next(t for t in injector.taps if t.kind == "cmd" and t.robot == "south")
    assert south_cmd.received > 0 and south_cmd.dropped == south_cmd.received
    assert "south" not in injector.sim.commands
    k = [a.name for a in run.scenario.agents].index("south")
    assert np.allclose(run.trajectory[:, k], run.trajectory[0, k])  # never moved
    east = [a.name for a in run.scenario.agents].index("east")
    assert np.allclose(run.trajectory[:, east], run.trajectory[0, east])
    report = _item(run, "drop_odom")
    assert report["dropped"] == report["per_robot"]["north"]["dropped"] > 0


def test_same_seed_drops_the_same_odometry_messages():
    def dropped(seed):
        run = _run("crossing_4", f"drop_odom=0.3,seed={seed}", max_time=2.5)
        return {(t.owner, t.topic): t for t in run.injector.taps if t.kind == "odom"}

    first, second, other = dropped(7), dropped(7), dropped(8)
    assert set(first) == set(second) == set(other) and len(first) == 8  # 4 x (own odom + states)
    same_drops, differs = 0, False
    for stream, a in first.items():
        b, c = second[stream], other[stream]
        # Compare the stamps all three runs received: discovery makes the starts differ,
        # and odometry is taken latest-only, so a busy moment skips a message or two.
        common = set(a.received_keys) & set(b.received_keys) & set(c.received_keys)

        def window(keys, common=common):
            return sorted(k for k in keys if k in common)

        assert window(a.dropped_keys) == window(b.dropped_keys), stream
        same_drops += len(window(a.dropped_keys))
        differs = differs or window(a.dropped_keys) != window(c.dropped_keys)
    assert same_drops > 20 and differs


def test_delay_holds_deliveries_and_starve_skips_control_ticks():
    run = _run("crossing_4", "delay=0.3,starve=north:0.3,seed=4", max_time=3.0)
    delay = _item(run, "delay")
    assert delay["odom_delayed"] > 100 and delay["cmd_delayed"] > 10
    age = delay["odom_age_at_callback_s"]
    assert age["mean"] >= 0.3 - 1e-6  # sim seconds between publication and the callback
    starve = _item(run, "starve", robot="north")
    ticks = starve["control_ticks"]
    assert ticks > 10
    expected = sum(_uniform(4, "starve", "north", k) < 0.3 for k in range(1, ticks + 1))
    assert starve["ticks_run"] == expected  # the seed decides which ticks run
    assert run.injector.robots["north"].timing.cycles == expected  # and the node ran only those
    assert starve["messages_held"] > 0 and starve["mean_hold_s"] > 0
    unstarved = run.injector.robots["south"].timing.cycles
    assert unstarved > 1.5 * expected


def test_under_a_delay_a_node_gets_its_readings_when_its_own_clock_says_they_are_late():
    """``delay=0.1`` holds odometry until the receiving orca_node's own clock is 0.1 s past
    the reading's arrival, so its commands are stamped with the time it really plans at
    and act before they expire: every robot of the corridor arrives. (Held by the
    simulator's clock, a reading reached its node before the node heard the new
    ``/clock``; commands were stamped a step early and every one expired: 0 of 6.)"""
    run = _run("corridor_wall", "delay=0.1,seed=1", max_time=60.0)
    assert run.summary["reached"] == 6 and run.summary["collisions"] == 0
    age = _item(run, "delay")["odom_age_at_callback_s"]
    assert age["mean"] >= 0.1 - 1e-6  # by the receivers' clocks


def test_kill_foreign_and_bad_obstacles_in_a_walled_corridor():
    run = _run("corridor_wall", "kill=left0@1.5,bad_obstacles=0.5,kill_obstacles@1,"
                                "foreign=right0,foreign=right1:jitter,seed=1",
               max_time=4.0, observer=None)
    injector = run.injector
    names = [a.name for a in run.scenario.agents]
    times = np.asarray(run.frame_times)

    kill = _item(run, "kill", robot="left0")
    assert 1.5 <= kill["killed_at"] < 1.7
    assert kill["commands_after_kill"] == 0 and kill["last_command_at"] <= kill["killed_at"]
    assert kill["in_graph_at_end"] is False
    assert injector.robots["left0"] not in injector.nodes  # out of the run, destroyed
    left0 = run.trajectory[:, names.index("left0")]
    stopped = times >= kill["killed_at"] + 0.5 + 0.5  # the last command expires, then braking
    assert np.allclose(left0[stopped], left0[stopped][0])

    assert _item(run, "kill_obstacles")["killed_at"] >= 1.0

    bad = _item(run, "bad_obstacles")
    assert bad["published"] >= 5  # every 0.5 sim s for ~4 s
    assert bad["rejected_by_orca_nodes"] > 0  # the NaN point reached the orca_nodes

    straight = _item(run, "foreign", robot="right0")
    assert straight["commands_published"] > 20
    right0 = run.trajectory[:, names.index("right0")]
    assert np.allclose(right0[:, 1], 0.5, atol=1e-6)  # straight along y = 0.5 to its goal
    moving = np.flatnonzero(right0[:, 0] < 3.5 - 1e-6)
    first = moving[0]
    assert right0[-1, 0] < 3.5 - 0.8 * 0.5 * (times[-1] - times[first] - 0.2)  # ~max speed
    assert "right0" not in injector.robots  # no orca_node for it

    # +-1e9 m/s, clamped by fleet_sim to the speed and acceleration limits: the robot
    # lurches along its heading, its speed swinging by the whole acceleration limit.
    right1 = run.trajectory[:, names.index("right1")]
    assert np.allclose(right1[:, 1], 0.0, atol=1e-6)
    speed = np.diff(right1[:, 0]) / np.diff(times)
    swings = np.diff(speed)
    assert np.abs(swings).max() > 0.3  # 4 m/s^2 * 0.1 s = 0.4 m/s per step
    reversals = np.sum(np.sign(swings[1:]) * np.sign(swings[:-1]) < 0)
    assert reversals >= 5, speed

    # The next run in this process must not see this run's latched intruder marker.
    later = _run("corridor_wall", "delay=0", max_time=2.0)
    for node in later.injector.robots.values():
        assert len(node.edges) > 0 and "/obstacles" not in node.rejected, node.rejected

    observer = run.summary.get("observer")
    from orca_ros.tools.harness import observer_available

    if observer_available():
        assert "colliding_pairs" in observer and observer["stamps_compared"] > 10, observer


def test_a_run_names_nodes_of_other_processes_on_its_domain():
    from rclpy.context import Context

    context = Context()
    rclpy.init(context=context)
    stranger = rclpy.create_node("stranger", namespace="elsewhere", context=context)
    time.sleep(1.0)  # past its first discovery announcements, like a process already running
    try:
        run = _run("corridor_wall", "delay=0", max_time=16.0)  # DDS discovery can take ~2 s
    finally:
        stranger.destroy_node()
        rclpy.try_shutdown(context=context)
    assert "/elsewhere/stranger" in run.summary["other_nodes_on_domain"]
    assert not any(name.endswith("orca_node") and name.startswith(("/left", "/right"))
                   for name in run.summary["other_nodes_on_domain"])  # its own are not named
