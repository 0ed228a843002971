"""toio Core Cube physics (orca_ros.core.models.toio_cube), shared by the simulated cube behind
toio_bridge and the scenario world's ``kinematics="toio"``."""

import asyncio
import json
import math
import random

import pytest

from orca_ros.core.models.toio_cube import (CUBE_ROBOT_PARAMETERS, TOIO, CubeBody, MatFrame,
                                            timed_duration_ms)
from orca_ros.core.scenario.loader import jitter_starts, load_scenario, resolve_scenario
from orca_ros.core.sim.world import World, WorldOptions
from orca_ros.toio import protocol as p
from orca_ros.core.models.toio_cube import mat_named
from orca_ros.toio.transport import SimulatedCube

from helpers.scenarios import two_cube_scenario

FINE = 0.001  # s: steps fine enough to time the lag and the time constant
LAG_S = 0.14  # command to motion (shared/design/toio.md: 0.13-0.15 s)
TIME_CONSTANT_S = 0.04  # the motors' (toio SDK for Unity's simulator)


def run(cube: CubeBody, seconds: float, dt: float = FINE):
    """Advance ``cube`` for ``seconds``; its (time, x, y, angle, left wheel) after each step."""
    trace = []
    for _ in range(round(seconds / dt)):
        cube.advance(dt)
        trace.append((cube.time, cube.x, cube.y, cube.angle, cube.left))
    return trace


def moved(cube: CubeBody, start=(250.0, 250.0)) -> float:
    """Mat units from the start."""
    return math.dist((cube.x, cube.y), start)


def test_a_command_acts_only_after_the_lag():
    cube = CubeBody(250.0, 250.0, 0.0)
    cube.command(60, 60)
    run(cube, LAG_S - 2 * FINE)  # up to 0.138 s
    assert (cube.x, cube.y, cube.angle, cube.left, cube.right) == (250.0, 250.0, 0.0, 0.0, 0.0)
    run(cube, 3 * FINE)  # to 0.141 s
    assert cube.left > 0.0 and cube.x > 250.0  # angle 0 = +x of the mat
    assert cube.y == pytest.approx(250.0, abs=1e-9) and cube.angle == pytest.approx(0.0, abs=1e-9)


def test_the_dead_zone_stops_wheels_below_command_8():
    still = CubeBody(250.0, 250.0, 0.0)
    still.command(7, 7)
    run(still, 1.0)
    assert moved(still) == 0.0 and still.left == 0.0
    slow = CubeBody(250.0, 250.0, 0.0)
    slow.command(8, 8)
    run(slow, 1.0)
    speed = 8 * TOIO.mps_per_unit  # the first moving value: 8 units ~ 22.5 mm/s
    assert slow.left == pytest.approx(speed, rel=1e-6)
    # It drives from the lag on, minus the time constant the wheels lose while speeding up.
    metres = moved(slow) * MatFrame().metres_per_unit
    assert metres == pytest.approx(speed * (1.0 - LAG_S - TIME_CONSTANT_S), rel=0.01)
    assert TOIO.wheel_speed(-7) == 0.0 and TOIO.wheel_speed(-8) == pytest.approx(-speed)


def test_wheel_speed_saturates_at_command_115():
    top = 115 * TOIO.mps_per_unit  # ~0.32 m/s
    traces = []
    for command in (115, 150, 300):
        cube = CubeBody(250.0, 250.0, 0.0)
        cube.command(command, command)
        traces.append(run(cube, 0.6, 0.01))
        assert cube.left == pytest.approx(top, rel=1e-4)
    assert traces[0] == traces[1] == traces[2]
    below = CubeBody(250.0, 250.0, 0.0)
    below.command(100, 100)
    run(below, 0.6, 0.01)
    assert below.left == pytest.approx(100 * TOIO.mps_per_unit, rel=1e-4) and below.left < top


def test_wheels_follow_a_first_order_lag_of_40_ms():
    cube = CubeBody(250.0, 250.0, 0.0)
    cube.command(100, -100)  # turn on the spot
    trace = run(cube, 0.5)
    target = 100 * TOIO.mps_per_unit
    first = next(k for k, step in enumerate(trace) if step[4] != 0.0)
    started = trace[first][0] - FINE  # the wheels respond from the start of that step
    assert started == pytest.approx(LAG_S, abs=1.5 * FINE)

    def speed_after(seconds):
        return trace[first - 1 + round(seconds / FINE)][4]

    assert speed_after(TIME_CONSTANT_S) / target == pytest.approx(1.0 - math.exp(-1.0), abs=0.005)
    assert speed_after(3 * TIME_CONSTANT_S) / target == pytest.approx(1.0 - math.exp(-3.0),
                                                                      abs=0.005)
    assert cube.right == pytest.approx(-target, rel=1e-3)  # 9 time constants on
    assert moved(cube) == pytest.approx(0.0, abs=1e-9)  # equal and opposite wheels: no drift
    turning = CubeBody(250.0, 250.0, 0.0)
    turning.command(100, -100)
    run(turning, LAG_S + 0.02)
    assert 0.0 < turning.angle < 90.0  # the right wheel backwards turns right: clockwise on the mat


def test_a_timed_command_stops_the_wheels_when_its_duration_runs_out():
    timed = CubeBody(250.0, 250.0, 0.0)
    timed.command(60, 60, 0.3)
    forever = CubeBody(250.0, 250.0, 0.0)
    forever.command(60, 60)
    run(timed, 0.43, 0.01)
    run(forever, 0.43, 0.01)
    assert timed.left == pytest.approx(60 * TOIO.mps_per_unit, rel=0.01)  # still driving
    run(timed, 0.57, 0.01)
    run(forever, 0.57, 0.01)
    assert timed.left == pytest.approx(0.0, abs=1e-6) and timed.target == (0, 0)
    assert forever.left == pytest.approx(60 * TOIO.mps_per_unit)
    # Speeding up and slowing down take the same time constant: 0.3 s at full speed.
    metres = moved(timed) * MatFrame().metres_per_unit
    assert metres == pytest.approx(60 * TOIO.mps_per_unit * 0.3, rel=0.02)
    # A newer command replaces the running one, and its watchdog with it.
    renewed = CubeBody(250.0, 250.0, 0.0)
    renewed.command(60, 60, 0.3)
    run(renewed, 0.3, 0.01)
    renewed.command(60, 60, 0.3)  # acts at 0.44 s, just as the first one ends
    run(renewed, 0.35, 0.01)
    assert renewed.left == pytest.approx(60 * TOIO.mps_per_unit, rel=0.01)
    assert timed_duration_ms(0.3) == 300 and timed_duration_ms(0.005) == 10
    assert timed_duration_ms(9.0) == 2550


def test_readings_are_rounded_to_mat_units_and_degrees_on_their_schedule():
    cube = CubeBody(250.4, 249.6, 359.7, id_interval_s=0.03)
    assert tuple(cube.reading()) == (250, 250, 0)
    times = []
    for _ in range(100):
        cube.advance(0.01)
        if cube.poll_reading() is not None:
            times.append(cube.time)
    assert times[:3] == pytest.approx([0.01, 0.04, 0.07])
    gaps = [b - a for a, b in zip(times, times[1:])]
    # Every id_interval_s, or one physics step later when the sums of 0.01 fall just short.
    assert all(0.03 - 1e-9 <= gap <= 0.04 + 1e-9 for gap in gaps)
    assert 25 <= len(times) <= 34


def test_the_world_and_the_simulated_cube_move_alike_under_the_same_commands():
    """The commands the world's cubes get, replayed as bytes into toio_bridge's
    SimulatedCube, give the same trajectory and the same position notifications."""
    scenario = two_cube_scenario()
    world = World(scenario, WorldOptions(kinematics="toio"))
    frame = MatFrame(1.38)
    sent = {name: [] for name in world.names}  # (world step, left, right, duration s)
    for name, cube in zip(world.names, world.cubes):
        original = cube.command

        def record(left, right, duration_s=None, name=name, original=original):
            sent[name].append((world.steps, left, right, duration_s))
            original(left, right, duration_s)
        cube.command = record
    poses, seen = {n: [] for n in world.names}, {n: [] for n in world.names}
    for _ in range(60):  # 3 s: both cubes drive, turn and meet
        world.step()
        for i, name in enumerate(world.names):
            poses[name].append(world.cubes[i].world_pose())
            seen[name].append(world.odometry[i].pose)
    assert all(any(left != 0 for _, left, _, _ in sent[n]) for n in world.names)

    for agent, name in zip(scenario.agents, world.names):
        mx, my, angle = frame.to_mat(agent.start[0], agent.start[1], agent.start_heading)
        sim = SimulatedCube(mat_named("collection_ring"), frame, mx, my, angle)
        notes = []
        asyncio.run(sim.connect(
            lambda c, data, notes=notes: notes.append(p.decode_notification(c, data))))
        commands = iter(sent[name])
        pending = next(commands, None)
        for step in range(60):
            while pending is not None and pending[0] == step:
                _, left, right, duration = pending
                asyncio.run(sim.write(p.MOTOR, p.encode(
                    p.MotorTimed(left, right, round(duration * 1000)))))
                pending = next(commands, None)
            for _ in range(5):  # the world's sub-steps: 0.05 s in 0.01 s
                sim.advance(0.01)
            assert sim.world_pose() == pytest.approx(poses[name][step], abs=1e-12)
            last = [n for n in notes if isinstance(n, p.PositionId)][-1]
            assert frame.to_world(last.x, last.y, last.angle) == \
                pytest.approx(seen[name][step], abs=1e-12)
        assert math.dist(sim.world_pose()[:2], agent.start) > 0.05


def test_world_cubes_run_with_the_cube_settings_and_see_rounded_readings():
    from orca_ros.fleet.plan import TOIO_ROBOT

    assert TOIO_ROBOT == dict(CUBE_ROBOT_PARAMETERS)  # orca_node's cubes: the same source
    scenario = two_cube_scenario()
    world = World(scenario, WorldOptions(kinematics="toio"))
    config = world.controllers[0].config
    assert config.kinematics == "diff_drive"
    for name in ("max_angular_speed", "max_linear_accel", "max_angular_accel", "command_lag",
                 "heading_time_constant", "safety_margin_ratio", "margin_speed_ratio",
                 "lag_error", "command_validity"):
        assert getattr(config, name) == CUBE_ROBOT_PARAMETERS[name]
    overridden = World(scenario, WorldOptions(kinematics="toio",
                                              controller=(("heading_time_constant", 0.5),)))
    assert overridden.controllers[0].config.heading_time_constant == 0.5
    for _ in range(20):
        world.step()
    unit = 1.38e-3  # the scenario's toio: mm_per_unit
    true_pose, reported = world.cubes[0].world_pose(), world.odometry[0].pose
    assert reported[0] / unit == pytest.approx(round(reported[0] / unit), abs=1e-9)
    assert math.degrees(reported[2]) == pytest.approx(round(math.degrees(reported[2])), abs=1e-9)
    assert reported != true_pose and math.dist(reported[:2], true_pose[:2]) < 0.01
    assert tuple(world.positions[0]) == true_pose[:2]  # collisions: the true pose
    assert world.result(0.0).summary()["kinematics"] == "toio"
    with pytest.raises(ValueError, match="kinematics"):
        WorldOptions(kinematics="toio_cube")
    with pytest.raises(ValueError, match="holonomic only"):
        WorldOptions(method="rvo2", kinematics="toio")


def test_bench_offers_toio_kinematics(tmp_path, capsys):
    """``orca-ros bench --kinematics toio`` runs the cubes with cube dynamics: its JSON row
    says toio, every cube arrives without contact, and it reports how far the cubes were
    from where their controllers planned them when each command acted (measured only on
    cubes with dynamics), within the lag_error their discs carry. The same bench without
    the option runs holonomic discs, with no such figure."""
    from orca_ros.tools.cli import main

    toio, plain = tmp_path / "toio.json", tmp_path / "holonomic.json"
    assert main(["bench", "toio_ring_swap_6", "--kinematics", "toio", "--json", str(toio),
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    [row] = json.loads(toio.read_text())
    assert (row["scenario"], row["method"], row["kinematics"]) == \
        ("toio_ring_swap_6", "orca", "toio")
    assert row["reached"] == row["agents"] == 6 and row["collisions"] == 0, row
    error = row["lag_prediction_error"]
    assert error["count"] > 6 * 100, error  # every cube, every period
    assert 0.0 < error["median"] <= error["p99"] <= error["max"] < \
        CUBE_ROBOT_PARAMETERS["lag_error"], error
    assert "| toio_ring_swap_6 | orca | toio | 6/6 | 0 |" in out
    assert f"({error['count']} predictions)" in out
    assert main(["bench", "toio_ring_swap_6", "--json", str(plain), "--no-progress"]) == 0
    [holonomic] = json.loads(plain.read_text())
    assert holonomic["kinematics"] == "holonomic" and "lag_prediction_error" not in holonomic


def test_toio_ring_swap_6_with_cube_dynamics_arrives_without_collisions():
    scenario = load_scenario(resolve_scenario("toio_ring_swap_6"))
    result = World(scenario, WorldOptions(kinematics="toio")).run()
    assert result.kinematics == "toio"
    assert result.reached == result.agents == 6, result.summary()
    assert result.collisions == 0, result.collision_pairs
    assert result.min_separation > 0.0
    # Every cube was where its controller planned it when each command acted, within
    # the lag_error its discs carry (the replay through CubeDrive; speeds moved at the
    # acceleration limits missed by up to 2.6 mm here).
    error = result.lag_prediction_error
    assert error.count > 6 * 100
    assert error.max < CUBE_ROBOT_PARAMETERS["lag_error"]
    assert result.summary()["lag_prediction_error"]["max"] == pytest.approx(error.max, abs=1e-6)


@pytest.mark.slow
def test_toio_cross_4v4_with_cube_dynamics_cubes_reach_goals_54_mm_apart():
    """Goals 54 mm apart, 9 mm between parked cubes: less than their full planning
    margins. Cube dynamics make the run chaotic (a start moved by 1 mm changes which
    cube arrives when), so eight runs of the scene's 60 s with starts moved by up to
    2 mm: no contact, every cube within 1 cm of its goal at some time, and nearly all
    standing there at the end (63 of 64 here). Four cubes at rest fit around goals
    54 mm apart only while each plans with a small error: with the 5 mm the
    constant-acceleration replay of the lag needed (drive_model ``limits``), 61 of
    the 64 arrived and 42 stood there at the end; with the full planning margin at
    rest (``margin_speed_ratio`` 0) parked cubes push each other off their goals."""
    scenario = load_scenario(resolve_scenario("toio_cross_4v4"))
    reached = standing = 0
    for seed in range(1000, 1008):
        world = World(jitter_starts(scenario, 0.002, seed), WorldOptions(kinematics="toio"))
        while world.time < scenario.max_time - 1e-9:
            world.step()
        result = world.result(0.0)
        assert result.collisions == 0, result.collision_pairs
        assert result.min_separation > 0.0
        reached += result.reached
        standing += world.at_goal_count()
    assert reached == 64
    assert standing >= 58


def test_boids_tutorial_cubes_park_clear_of_the_mats_edge_with_cube_dynamics():
    # The mat's edges are walls in the world as through ROS; the shared target's
    # ring sits 50 mm inside them, so every cube parks without touching the edge.
    scenario = load_scenario(resolve_scenario("toio_boids_tutorial"))
    assert len(scenario.mat_edges) == 4
    result = World(scenario, WorldOptions(kinematics="toio")).run()
    assert result.reached == result.agents == 6, result.summary()
    assert result.collisions == 0, result.collision_pairs
    assert result.min_separation > 0.0


def test_speeds_are_differenced_over_the_baseline_not_the_last_reading():
    """The bridge reads a cube every 10 ms: consecutive whole-unit readings would make a
    standing cube seem to move at up to 136 mm/s; over the 30 ms baseline the rounding
    stays under 46 mm/s, and a cube driving at constant speed is measured at that speed."""
    from orca_ros.core.models.toio_cube import VELOCITY_BASELINE_S, MatFrame, VelocityEstimator

    frame = MatFrame()
    unit = frame.metres_per_unit
    standing = VelocityEstimator()
    worst = 0.0
    for k in range(40):  # 10 ms readings flickering between two neighbouring units
        v, _ = standing.update(frame.to_world(200 + (k % 2), 200, 0), 0.01 * k)
        if k >= 3:
            worst = max(worst, abs(v))
    assert unit / 0.01 > 0.13 and worst <= unit / VELOCITY_BASELINE_S + 1e-9
    driving = VelocityEstimator()
    speeds = [driving.update(frame.to_world(round(100 + 0.1 / unit * 0.01 * k), 200, 0),
                             0.01 * k)[0] for k in range(60)]
    assert all(abs(v - 0.1) <= unit / VELOCITY_BASELINE_S + 1e-9 for v in speeds[3:])


def test_the_cube_drive_replays_sent_commands_to_where_the_cube_is_when_the_next_acts():
    """orca_node plans a cube from where it will be when its new command acts, 0.14 s
    on, by replaying the commands already sent (SentCommands). With the cube's own
    wheel model (CubeDrive: wheel commands with their dead zone, the 40 ms time
    constant, the timed stop) the replay from the true pose lands on the cube's
    pose; speeds moving at the acceleration limits miss by millimetres (4.2 mm
    here)."""
    from orca_ros.core.models.toio_cube import CubeDrive, twist_to_wheels
    from orca_ros.core.robot.state import RobotState
    from orca_ros.core.models.bodies import DiffDriveLimits
    from orca_ros.core.robot.perception import SentCommands

    rng = random.Random(7)
    frame = MatFrame()
    body = CubeBody.at_world_pose(0.3, -0.3, 0.0, frame)
    limits = DiffDriveLimits(0.3, 4.0, 1.0, 20.0)
    with_drive = SentCommands(LAG_S, 0.3, drive=CubeDrive())
    with_limits = SentCommands(LAG_S, 0.3)
    dt, lag_steps = 0.05, round(LAG_S / 0.01)
    predictions, truth = {}, {}
    for k in range(80):
        now = k * dt
        x, y, yaw = body.world_pose()
        v, omega = body.twist
        state = RobotState((x, y), (v * math.cos(yaw), v * math.sin(yaw)), yaw, v, omega)
        if k > 4:  # both histories reach back over the lag
            predictions[round(now * 100) + lag_steps] = (
                with_drive.predict(state, now, now + LAG_S, limits).position,
                with_limits.predict(state, now, now + LAG_S, limits).position)
        # Cruise, turn, creep below the dead zone, stop: what a cube is sent near goals.
        linear = rng.choice([0.0, 0.004, 0.03, 0.12, 0.12])
        angular = rng.choice([0.0, 0.0, 1.5, -3.0])
        for sent in (with_drive, with_limits):
            sent.record(now, linear, angular)
        body.command(*twist_to_wheels(linear, angular), timed_duration_ms(0.3) / 1000.0)
        for _ in range(5):
            body.advance(0.01)
            truth[round(body.time * 100)] = body.world_pose()[:2]
    drive_errors = [math.dist(p[0], truth[key]) for key, p in predictions.items()
                    if key in truth]
    limits_errors = [math.dist(p[1], truth[key]) for key, p in predictions.items()
                     if key in truth]
    assert len(drive_errors) > 60
    # The body lets a command drive the whole 10 ms step it falls due in, the new one
    # included (not yet sent when the replay runs): up to 0.27 mm here.
    assert max(drive_errors) < 3e-4
    assert max(limits_errors) > 2e-3
