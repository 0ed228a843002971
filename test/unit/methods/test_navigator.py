"""The toio SDK for Unity's Navigator (HLAvoid, Boids, three modes) and its cube follower.

Expected values come from the SDK's formulas in shared/design/navigator.md, worked by
hand here, and from the SDK tests' own pass checks on its navigator scenes."""

import math

import pytest

from orca_ros.core.models.toio_cube import TOIO, twist_to_wheels
from orca_ros.core.robot.tracking import move_to_target
from orca_ros.core.methods.navigator import (CUBE_RADIUS_DOTS, Ego, HLAvoid, NavigatorParameters,
                                             Other, Wall, boids_force, wrap)
from orca_ros.core.scenario.loader import load_scenario, parse_scenario, resolve_scenario
from orca_ros.core.sim.world import World, WorldOptions
from orca_ros.toio.scenes import SCENES, sdk_check_error, sdk_setup

P = NavigatorParameters()


def ego(x=0.0, y=0.0, heading=0.0, speed=0.0, angular_speed=0.0):
    velocity = (speed * math.cos(heading), speed * math.sin(heading))
    return Ego(x, y, heading, speed, velocity, angular_speed)


# --- units and angles -------------------------------------------------------------------------

def test_angles_wrap_as_the_sdk_does_with_a_truncating_remainder():
    assert wrap(0.5) == pytest.approx(0.5)
    assert wrap(math.pi + 0.5) == pytest.approx(-math.pi + 0.5)
    assert wrap(-math.pi - 0.5) == pytest.approx(math.pi - 0.5)
    # C#'s % keeps the sign of the dividend: below -3 pi the result leaves (-pi, pi].
    assert wrap(-4.0 * math.pi + 0.1) == pytest.approx(-2.0 * math.pi + 0.1)


def test_a_cube_is_planned_in_the_mats_own_dots():
    assert 0.023 / CUBE_RADIUS_DOTS == pytest.approx(1.3625e-3)


# --- HLAvoid -----------------------------------------------------------------------------------

def test_the_rays_cover_the_field_of_view_with_the_target_bearing_inserted_in_order():
    rays = HLAvoid(P).sample_rays(ego(heading=0.0), (100.0, 30.0))
    assert len(rays) == 20
    assert math.atan2(30.0, 100.0) in rays
    relative = [wrap(r) for r in rays]
    assert relative == sorted(relative)
    assert rays[0] == pytest.approx(-(2.0 * math.pi - 0.02) / 2.0)


def test_a_target_just_left_of_straight_behind_leaves_the_extra_ray_at_zero():
    """The SDK's quirk: a target within 0.01 rad of straight behind, on the side past the
    last ray, is never inserted; the twentieth ray stays at angle 0."""
    behind = math.pi - 0.005
    rays = HLAvoid(P).sample_rays(ego(heading=0.0), (100 * math.cos(behind),
                                                     100 * math.sin(behind)))
    assert len(rays) == 20 and rays[-1] == 0.0 and rays.count(0.0) == 2


def test_another_robot_ahead_is_reached_where_the_two_margins_meet():
    """Ego at the origin scans at max(speed, 20) = 20 dots/s; the other 100 dots ahead,
    coming at 10 dots/s: the margins (22 + 22) meet after (100 - 44) / 30 s, 20 dots/s
    x that = 37.3 dots along the ray straight at it."""
    hl = HLAvoid(P)
    scan = hl.scan_other(ego(), Other(100.0, 0.0, (-10.0, 0.0)), [0.0, math.pi])
    assert scan.distances[0] == pytest.approx(20.0 * (100.0 - 44.0) / 30.0)
    assert scan.distances[1] == hl.far  # moving away from it: never
    assert not scan.collision


def test_an_overlapping_robot_bars_the_rays_towards_it():
    """30 dots apart (margins 44): a collision scan; safety is cos(ray - away) x (1 +
    (22 + 16 - 30) / 22)."""
    scan = HLAvoid(P).scan_other(ego(), Other(30.0, 0.0, (0.0, 0.0)), [0.0, math.pi])
    assert scan.collision
    severity = 1.0 + 8.0 / 22.0
    assert scan.safety[0] == pytest.approx(-severity)
    assert scan.safety[1] == pytest.approx(severity)


def test_a_wall_across_the_way_is_reached_when_the_margin_circle_touches_it():
    wall = Wall((100.0, -50.0), (100.0, 50.0))
    hl = HLAvoid(P)
    scan = hl.scan_wall(ego(), wall, [0.0, math.pi / 2.0, math.radians(30.0)])
    assert scan.distances[0] == pytest.approx(100.0 - 22.0)
    assert scan.distances[1] == hl.far
    # At 30 degrees the circle's centre meets the margin line x = 78 at 78 / cos 30,
    # where y = 45 < 50: on the segment.
    assert scan.distances[2] == pytest.approx(78.0 / math.cos(math.radians(30.0)))


def test_the_circle_cast_catches_a_wall_end_sideways():
    """A ray passing 10 dots from the wall's end: the circle (22) touches the end point
    (100, 0) after 100 - sqrt(22**2 - 10**2) dots."""
    wall = Wall((100.0, 0.0), (200.0, 0.0))
    scan = HLAvoid(P).scan_wall(ego(y=-10.0), wall, [0.0])
    assert scan.distances[0] == pytest.approx(100.0 - math.sqrt(22.0 ** 2 - 10.0 ** 2))


def test_alone_the_waypoint_is_the_target_and_the_speed_is_unlimited():
    waypoint, colliding, limit = HLAvoid(P).run_towards(ego(), [], (120.0, 50.0), [])
    assert waypoint == pytest.approx((120.0, 50.0)) and not colliding and limit > 1e9


def test_a_robot_in_the_way_turns_the_waypoint_aside():
    target = (300.0, 0.0)
    blocker = Other(80.0, 0.0, (0.0, 0.0))
    waypoint, colliding, _ = HLAvoid(P).run_towards(ego(), [blocker], target, [])
    assert not colliding
    assert abs(math.atan2(waypoint[1], waypoint[0])) > math.radians(15.0)


def test_nowhere_safe_means_stay():
    """Boxed in by four overlapping robots: every ray has safety <= 0.15: waypoint 0."""
    others = [Other(30.0 * math.cos(a), 30.0 * math.sin(a), (0.0, 0.0))
              for a in (0.0, math.pi / 2.0, math.pi, -math.pi / 2.0)]
    waypoint, colliding, _ = HLAvoid(P).run_towards(ego(), others, (300.0, 0.0), [])
    assert colliding and waypoint == (0.0, 0.0)


# --- Boids -------------------------------------------------------------------------------------

def test_boids_attraction_alone_is_fifty_towards_the_target():
    assert boids_force(ego(), [], (0.0, 400.0), P) == pytest.approx((0.0, 50.0))


def test_boids_separation_cohesion_and_alignment_by_hand():
    """One other 100 dots ahead moving at (0, 20): separation (150 / (100 - 50) - 1) = 2
    away, cohesion 0.3 x 100 = 30 towards it, alignment 0.3 x 20 = 6 along y."""
    force = boids_force(ego(), [Other(100.0, 0.0, (0.0, 20.0))], None, P)
    assert force == pytest.approx((-2.0 + 30.0, 6.0))


def test_boids_sees_by_signed_bearing_as_the_sdk_does_unless_told_otherwise():
    behind_right = [Other(-60.0, -60.0, (0.0, 0.0))]  # bearing -135 degrees
    assert boids_force(ego(), behind_right, None, P) != (0.0, 0.0)
    symmetric = NavigatorParameters(boids_signed_fov=False)
    assert boids_force(ego(), behind_right, None, symmetric) == (0.0, 0.0)


# --- Move2Target -------------------------------------------------------------------------------

def test_move_to_target_stops_within_eight_dots_and_turns_in_place_when_facing_away():
    assert move_to_target((0.0, 0.0), 0.0, (0.010, 0.0), 0.2) == (0.0, 0.0)
    v, omega = move_to_target((0.0, 0.0), 0.0, (-0.3, 0.001), 0.2)
    assert v == 0.0 and omega > 0.0  # behind, a little to the left: turn left on the spot


def test_move_to_target_gives_the_sdks_wheel_values():
    """Straight ahead 100 dots, top speed 80 units: uL = uR = 80."""
    dot = 1.3625e-3
    v, omega = move_to_target((0.0, 0.0), 0.0, (100 * dot, 0.0), 80 * TOIO.mps_per_unit)
    assert twist_to_wheels(v, omega) == (80, 80)
    # 30 degrees to the left, 40 dots away, top 50: translate = 50 x (1 - 20/end) x 1,
    # end = 110 x min(1, 40 / 50 / 2.0655 / 1.5 / 0.25); rotate = (pi/6)/0.25 x
    # 19.52 / 2.0655 x (|t/50| mu + 1 - mu), mu = t / 115.
    target = (40 * dot * math.cos(math.pi / 6), 40 * dot * math.sin(math.pi / 6))
    v, omega = move_to_target((0.0, 0.0), 0.0, target, 50 * TOIO.mps_per_unit)
    end = 110.0 * min(1.0, 40.0 / 50.0 / 2.0655 / 1.5 / 0.25)
    translate = 50.0 * (1.0 - 20.0 / end)
    mu = translate / 115.0
    rotate = (math.pi / 6) / 0.25 * 19.52 / 2.0655 * (translate / 50.0 * mu + 1.0 - mu)
    assert v / TOIO.mps_per_unit == pytest.approx(translate)
    assert omega * TOIO.track_m / TOIO.mps_per_unit == pytest.approx(rotate, rel=2e-3)


# --- the methods on the SDK's scenes ------------------------------------------------------------

CHECKED = [name for name, scene in SCENES.items() if scene.check is not None]


@pytest.mark.parametrize("scene", CHECKED)
def test_hlavoid_meets_the_sdks_own_check_on_cubes(scene):
    """As the SDK's test runs it (shared targets, maxSpd 80), on simulated cubes: the
    check the SDK logs (error < 10 units at 2.5 s, mean error < 40 at 4 s, ...)."""
    result = World(parse_scenario(sdk_setup(scene)),
                   WorldOptions(method="hlavoid", kinematics="toio")).run()
    error, threshold = sdk_check_error(scene, result.frame_times, result.trajectory)
    assert error < threshold, f"{scene}: {error * 1000:.1f} mm, the SDK's bound " \
                              f"{threshold * 1000:.1f} mm"


@pytest.mark.parametrize("method", ["hlavoid", "boids", "boids_avoid"])
def test_no_cube_leaves_the_mat(method):
    scenario = load_scenario(resolve_scenario("toio_e_4v4_longitudinal"))
    result = World(scenario, WorldOptions(method=method, kinematics="toio")).run()
    x, y = result.trajectory[..., 0], result.trajectory[..., 1]
    corners = [p for edge in scenario.mat_edges for p in (edge.a, edge.b)]
    xs, ys = [p[0] for p in corners], [p[1] for p in corners]
    assert (x >= min(xs)).all() and (x <= max(xs)).all()
    assert (y >= min(ys)).all() and (y <= max(ys)).all()


def test_a_cube_uses_the_sdks_follower_with_the_navigator_and_ours_with_orca():
    scenario = load_scenario(resolve_scenario("toio_a_to_target1"))
    assert World(scenario, WorldOptions(method="hlavoid", kinematics="toio")) \
        .controllers[0].config.tracking == "move2target"
    assert World(scenario, WorldOptions(method="orca", kinematics="toio")) \
        .controllers[0].config.tracking == "unicycle"


@pytest.mark.parametrize("tracking", ["move2target", "unicycle"])
def test_a_unicycle_held_at_speed_zero_still_turns_towards_the_waypoint(tracking):
    """HLAvoid's speed limit 0 (heading into a robot it touches): the SDK's Move2Target
    with top speed 0 keeps its full turn, so the cube turns on the spot, away; our
    unicycle tracking does the same with a method that gives a waypoint."""
    from orca_ros.core.robot.config import ControllerConfig
    from orca_ros.core.robot.controller import RobotController
    from orca_ros.core.robot.state import RobotState
    from orca_ros.core.methods import (AvoidanceMethod, MethodOutput, MethodSpec,
                                       register_method, unregister_method)

    class HeldBack(AvoidanceMethod):
        def compute_velocity(self, view):
            waypoint = (view.position[0] - 0.1, view.position[1] + 0.02)  # behind, left
            return MethodOutput((0.0, 0.0), waypoint=waypoint, waypoint_speed=0.0)

    register_method(MethodSpec("test_held_back", "test", HeldBack, keep_right=False,
                               safety_filter=False))
    try:
        config = ControllerConfig(radius=0.023, max_speed=0.2, pref_speed=0.2, time_step=0.05,
                                  kinematics="diff_drive", method="test_held_back",
                                  tracking=tracking)
        controller = RobotController(config)
        controller.set_path([(1.0, 0.0)])
        command = controller.compute(RobotState((0.0, 0.0)), [])
        assert command.linear == 0.0 and command.angular > 0.5
    finally:
        unregister_method("test_held_back")
