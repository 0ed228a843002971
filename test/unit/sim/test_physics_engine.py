"""The MuJoCo engine behind fleet_sim: contacts, slip, lasers, model files."""

import math

import numpy as np
import pytest
import yaml

from orca_ros.core.models.bodies import DiffDriveLimits
from orca_ros.core.scenario.loader import parse_scenario
from orca_ros.core.sim.physics import ModelError, default_model

mujoco = pytest.importorskip("mujoco")  # the optional extra `physics`

from orca_ros.core.sim.physics.engine import PhysicsFleet, braking_shortfall  # noqa: E402

WALL_X = 1.0  # a wall's face at x = 1 m, from y = -1 to 1


def scenario(agents, obstacles=(), radius=0.2):
    return parse_scenario(yaml.safe_load(yaml.safe_dump({
        "name": "physics_test", "time_step": 0.1, "max_time": 20.0, "on_goal": "stay",
        "defaults": {"radius": radius, "max_speed": 0.5, "pref_speed": 0.4,
                     "neighbor_dist": 2.0, "max_neighbors": 5, "time_horizon": 2.0,
                     "time_horizon_obst": 1.0},
        "agents": [dict(name=name, start=list(start), goal=list(goal), heading=heading)
                   for name, start, goal, heading in agents],
        "obstacles": [{"vertices": [list(p) for p in poly]} for poly in obstacles]})))


WALL = [(WALL_X, -1.0), (WALL_X + 0.2, -1.0), (WALL_X + 0.2, 1.0), (WALL_X, 1.0)]


def fleet(world, kinematics="diff_drive", **kwargs):
    limits = [DiffDriveLimits(a.max_speed, 3.0, 4.0, 20.0) for a in world.agents]
    return PhysicsFleet(world, kinematics, limits, world.time_step, **kwargs)


@pytest.mark.parametrize("kinematics", ["diff_drive", "holonomic"])
def test_a_robot_driven_at_a_wall_is_stopped_by_the_contact_and_it_is_counted(kinematics):
    world = scenario([("r0", (0.0, 0.0), (3.0, 0.0), 0.0)], [WALL])
    engine = fleet(world, kinematics)
    touching, speeds = [], []
    for step in range(60):  # 6 s at 0.5 m/s would carry it 3 m, through the wall
        engine.step([(0.5, 0.0, 0.0)])
        if step >= 40:
            touching.append(engine.contacts.now == {("r0", "obstacle0")})
            speeds.append(engine.bodies()[0].vx)
    x = engine.positions()[0, 0]
    # it stands at the wall, its 0.2 m disc against the face (the engine's contacts are
    # soft: a millimetre or two of give), and pushes no further: pressed on by its
    # motors it rocks against the face (in and out of contact by a fraction of a
    # millimetre, a few cm/s either way), going nowhere
    assert WALL_X - 0.2 - 0.01 < x < WALL_X - 0.2 + 0.005
    assert abs(np.mean(speeds)) < 0.01 and max(abs(v) for v in speeds) < 0.1
    assert engine.contacts.wall_pairs == {("r0", "obstacle0")}
    assert sum(touching) >= len(touching) // 2
    assert engine.contacts.robot_pairs == set()


@pytest.mark.parametrize("kinematics", ["diff_drive", "holonomic"])
@pytest.mark.parametrize("heading", [math.pi / 2, -2.5])
def test_a_robot_drives_where_its_body_frame_command_says(kinematics, heading):
    """Forward is the robot's heading, left is left, whatever its start heading."""
    world = scenario([("r0", (0.0, 0.0), (3.0, 0.0), heading)])
    engine = fleet(world, kinematics)
    for _ in range(10):
        engine.step([(0.3, 0.0, 0.0)])
    x, y = engine.positions()[0]
    assert math.atan2(y, x) == pytest.approx(heading, abs=0.02)
    assert math.hypot(x, y) == pytest.approx(0.3 * 1.0 - 0.3 ** 2 / (2 * 4.0), abs=0.02)
    if kinematics == "holonomic":
        for _ in range(5):  # sideways: to its left, once the forward speed is gone
            engine.step([(0.0, 0.3, 0.0)])
        x, y = engine.positions()[0]
        for _ in range(5):
            engine.step([(0.0, 0.3, 0.0)])
        dx, dy = engine.positions()[0] - (x, y)
        assert math.atan2(dy, dx) == pytest.approx(heading + math.pi / 2, abs=0.05)


def test_a_free_robot_touches_nothing():
    world = scenario([("r0", (-2.0, 0.0), (0.0, 0.0), 0.0)], [WALL])
    engine = fleet(world)
    for _ in range(20):
        engine.step([(0.5, 0.0, 0.5)])
    assert engine.contacts.pairs == set() and engine.contacts.contact_steps == 0


def test_two_robots_driven_into_each_other_touch_and_push():
    world = scenario([("a", (-0.5, 0.0), (1.0, 0.0), 0.0), ("b", (0.5, 0.0), (-1.0, 0.0), 0.0)])
    engine = fleet(world, "holonomic")
    for _ in range(30):  # a drives at b; b is told to stand
        engine.step([(0.5, 0.0, 0.0), (0.0, 0.0, 0.0)])
    assert engine.contacts.robot_pairs == {("a", "b")}
    assert engine.positions()[1, 0] > 0.5 + 0.05  # b was pushed: its motors give way


def test_odometry_and_ground_truth_part_ways_when_a_robot_is_shoved():
    world = scenario([("r0", (0.0, 0.0), (5.0, 0.0), 0.0)])
    engine = fleet(world)
    for _ in range(10):
        engine.step([(0.3, 0.0, 0.0)])
    pose, _ = engine.odometry(0)
    truth = engine.positions()[0]
    # no slip yet: the wheels' account is the truth (odometry starts at the start pose)
    assert pose.x == pytest.approx(truth[0], abs=0.01) and abs(pose.y) < 0.005
    engine.shove(0, (0.0, 60.0))  # a kick sideways: the tyres slide, the wheels do not turn
    engine.step([(0.3, 0.0, 0.0)])
    engine.release()
    for _ in range(5):
        engine.step([(0.3, 0.0, 0.0)])
    pose, _ = engine.odometry(0)
    truth = engine.positions()[0]
    assert truth[1] > 0.05  # pushed off its line
    assert abs(pose.y) < 0.02 + 0.2 * abs(truth[1] - pose.y)  # the wheels saw little of it
    assert abs(truth[1] - pose.y) > 0.04


def test_odometry_drifts_on_slippery_tyres(tmp_path):
    text = default_model("diff_drive").read_text().replace(
        'friction="1.0 0.005 0.0001"', 'friction="0.05 0.005 0.0001"')
    slippery = tmp_path / "slippery.xml"
    slippery.write_text(text)
    world = scenario([("r0", (0.0, 0.0), (5.0, 0.0), 0.0)])
    engine = fleet(world, models={"diff_drive": str(slippery)})
    for _ in range(20):  # full speed at 4 m/s^2: the wheels spin faster than the robot goes
        engine.step([(0.5, 0.0, 0.0)])
    pose, _ = engine.odometry(0)
    truth = engine.positions()[0]
    assert pose.x > truth[0] + 0.05


def test_the_laser_sees_the_wall_and_another_robot():
    world = scenario([("r0", (0.0, 0.0), (3.0, 0.0), 0.0), ("r1", (0.0, 1.0), (0.0, 3.0), 0.0)],
                     [WALL])
    engine = fleet(world)
    angles = np.array([0.0, math.pi / 2, math.pi])
    ranges = engine.scan(0, angles, (0.0, 0.0, 0.0), 3.5)
    assert ranges[0] == pytest.approx(WALL_X, abs=1e-6)  # straight ahead: the wall's face
    assert ranges[1] == pytest.approx(1.0 - 0.2, abs=1e-6)  # left: r1's disc
    assert math.isinf(ranges[2])  # behind: nothing within 3.5 m
    # from a mount 0.1 m ahead, turned to face left
    ranges = engine.scan(0, np.array([0.0, -math.pi / 2]), (0.1, 0.0, math.pi / 2), 3.5)
    assert ranges[1] == pytest.approx(WALL_X - 0.1, abs=1e-6)


def test_the_model_is_fitted_to_each_robots_radius():
    world = scenario([("r0", (0.0, 0.0), (3.0, 0.0), 0.0)], radius=0.4)
    engine = fleet(world)
    chassis = mujoco.mj_name2id(engine.m, mujoco.mjtObj.mjOBJ_GEOM, "r0/chassis")
    assert engine.m.geom_size[chassis, 0] == pytest.approx(0.4)
    for _ in range(20):
        engine.step([(0.4, 0.0, 0.0)])
    assert engine.bodies()[0].vx == pytest.approx(0.4, abs=0.02)  # drives as the small one


def test_a_missing_model_file_is_refused_naming_it(tmp_path):
    world = scenario([("r0", (0.0, 0.0), (3.0, 0.0), 0.0)])
    missing = tmp_path / "nowhere.xml"
    with pytest.raises(ModelError, match=f"robot model {missing}: no such file"):
        fleet(world, models={"diff_drive": str(missing)})


def test_a_broken_model_file_is_refused_naming_it(tmp_path):
    world = scenario([("r0", (0.0, 0.0), (3.0, 0.0), 0.0)])
    broken = tmp_path / "broken.xml"
    broken.write_text("<mujoco><worldbody><body name='base'>")
    with pytest.raises(ModelError, match=f"robot model {broken}: not a MuJoCo model"):
        fleet(world, models={"diff_drive": str(broken)})


def test_a_model_without_the_types_actuators_is_refused_naming_them(tmp_path):
    world = scenario([("r0", (0.0, 0.0), (3.0, 0.0), 0.0)])
    holonomic = default_model("holonomic")  # a holonomic model where wheels are wanted
    with pytest.raises(ModelError, match=f"robot model {holonomic}: .*missing: left, right"):
        fleet(world, models={"diff_drive": str(holonomic)})
    wheel_less = tmp_path / "wheel_less.xml"
    wheel_less.write_text(default_model("diff_drive").read_text().replace(
        '<numeric name="wheel_radius" data="0.033"/>', ""))
    with pytest.raises(ModelError, match="needs the numeric wheel_radius"):
        fleet(world, models={"diff_drive": str(wheel_less)})


def _braking_distance(engine, speed):
    """How far the robot rolls from ``speed`` (m/s, straight on) once commanded to stop."""
    for _ in range(40):
        engine.step([(speed, 0.0, 0.0)])
    start = engine.positions()[0, 0]
    for _ in range(40):
        engine.step([(0.0, 0.0, 0.0)])
    return engine.positions()[0, 0] - start


@pytest.mark.parametrize("kinematics", ["diff_drive", "holonomic"])
@pytest.mark.parametrize("radius", [0.2, 0.5])
def test_the_default_models_stop_within_what_the_limits_promise(kinematics, radius):
    # fleet_sim and the nodes plan stops at max_linear_accel (4 m/s^2 here): a model whose
    # motors cannot give it stops later than the safety layer planned
    world = scenario([("r0", (0.0, 0.0), (30.0, 0.0), 0.0)], radius=radius)
    engine = fleet(world, kinematics)
    assert engine.braking[0] >= 4.0
    assert _braking_distance(engine, 0.4) <= 0.4 ** 2 / (2 * 4.0)


def test_a_model_with_weak_motors_is_measured_and_named(tmp_path):
    text = default_model("diff_drive").read_text(encoding="utf-8")
    weak = tmp_path / "weak.xml"
    weak.write_text(text.replace('forcerange="-0.4 0.4"', 'forcerange="-0.1 0.1"'),
                    encoding="utf-8")
    world = scenario([("r0", (0.0, 0.0), (30.0, 0.0), 0.0)])
    engine = fleet(world, models={"diff_drive": str(weak)})
    braking = engine.braking[0]
    assert braking < 2.0
    # its stop from 0.4 m/s is the one the engine's own deceleration gives
    assert _braking_distance(engine, 0.4) == pytest.approx(0.4 ** 2 / (2 * braking), rel=0.2)
    warning = braking_shortfall(["r0", "r1"], [braking, 5.0], [4.0, 4.0])
    assert "1 of 2 robots" in warning and "r0" in warning and f"{braking:.2f}" in warning
    assert braking_shortfall(["r0"], [5.0], [4.0]) == ""


def test_a_diff_drive_robot_braking_at_its_motors_limit_stays_level():
    # tipped onto its nose, the chassis' top edge would reach past the footprint the
    # safety layer keeps clear: the engine would count contacts the planner never saw
    world = scenario([("r0", (0.0, 0.0), (30.0, 0.0), 0.0)], radius=0.5)
    engine = fleet(world)
    worst = 0.0
    for command in [(1.3, 0.0, 0.0)] * 40 + [(0.0, 0.0, 0.0)] * 20 + [(-0.3, 0.0, 0.0)] * 20:
        engine.step([command])
        w, x, y, z = engine.d.qpos[3:7]
        worst = max(worst, abs(math.degrees(math.asin(max(-1.0, min(1.0, 2 * (w * y - z * x)))))))
    assert worst < 2.0


def test_an_engine_that_resets_an_unstable_state_says_when(tmp_path):
    # a velocity servo far too stiff for the engine's time step: explicit integration
    # diverges, and MuJoCo puts every body back at its origin
    text = default_model("holonomic").read_text(encoding="utf-8")
    stiff = tmp_path / "stiff.xml"
    stiff.write_text(text.replace('kv="500" forcelimited="true" forcerange="-16 16"',
                                  'kv="1e12" forcelimited="false"'), encoding="utf-8")
    world = scenario([("r0", (1.0, 0.5), (3.0, 0.0), 0.0)])
    engine = fleet(world, "holonomic", models={"holonomic": str(stiff)})
    for _ in range(5):
        engine.step([(0.5, 0.0, 0.0)])
    assert engine.contacts.resets and engine.contacts.resets[0] == pytest.approx(0.0)
    assert tuple(engine.positions()[0]) == pytest.approx((1.0, 0.5))  # never moved on


def test_a_stable_run_has_no_resets():
    world = scenario([("r0", (0.0, 0.0), (3.0, 0.0), 0.0)])
    engine = fleet(world)
    for _ in range(30):
        engine.step([(0.5, 0.0, 0.5)])
    assert engine.contacts.resets == []


@pytest.mark.parametrize("offset", [0.0, 0.15])
def test_two_unicycles_pressed_into_each_other_by_their_motors_stay_stable(offset):
    # head on, and glancing: each drives on at 1.5 m/s into the other for 3 s (with
    # MuJoCo's default pyramidal friction cones this reset the engine within a second)
    world = scenario([("a", (0.0, 0.0), (3.0, 0.0), 0.0),
                      ("b", (1.5, offset), (-3.0, offset), math.pi)], radius=0.25)
    limits = [DiffDriveLimits(1.5, 3.0, 4.0, 15.0)] * 2
    engine = PhysicsFleet(world, "diff_drive", limits, world.time_step)
    for _ in range(30):
        engine.step([(1.5, 0.0, 0.0), (1.5, 0.0, 0.0)])
    assert engine.contacts.robot_pairs == {("a", "b")}
    assert engine.contacts.resets == []
    assert np.all(np.abs(engine.positions()) < 3.0)  # nobody flew off
