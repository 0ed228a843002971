"""The robot's pose in the shared frame from what robots have (core/robot/localization.py):
odometry in the shared frame, odometry with a known origin, and drifting odometry with
a late, noisy localization, composed as TF's map -> odom."""

import math

import numpy as np
import pytest

from orca_ros.core.geometry.frames import Pose2
from orca_ros.core.robot.localization import SharedFramePose, position_deviation


def test_odometry_in_the_shared_frame_is_the_pose_and_an_origin_moves_it():
    assert SharedFramePose("odom").in_shared_frame(Pose2(1.0, 2.0, 0.3)) == Pose2(1.0, 2.0, 0.3)
    spawned = SharedFramePose("odom_origin", odom_origin=Pose2(5.0, 0.0, math.pi))
    assert tuple(spawned.in_shared_frame(Pose2(1.0, 0.0, 0.0))) == \
        pytest.approx((4.0, 0.0, math.pi))
    assert spawned.velocity_in_shared_frame((0.5, 0.0)) == pytest.approx((-0.5, 0.0))
    with pytest.raises(ValueError, match="pose source"):
        SharedFramePose("tf")


def test_without_a_fix_there_is_no_pose():
    estimate = SharedFramePose("localization")
    estimate.odometry(0.0, Pose2())
    assert not estimate.known and estimate.in_shared_frame(Pose2()) is None


def _drive(seconds, dt=0.02):
    """Truth of a robot driving a slow arc from (3, -2), and its odometry: started at its
    own origin, with a 1% wheel-scale error and 0.5 deg of heading drift per metre."""
    truth, odom = [], []
    x, y, yaw = 3.0, -2.0, 0.4
    ox = oy = oyaw = 0.0
    v, omega = 0.3, 0.15
    for k in range(int(seconds / dt)):
        truth.append((k * dt, Pose2(x, y, yaw)))
        odom.append((k * dt, Pose2(ox, oy, oyaw)))
        x += v * math.cos(yaw) * dt
        y += v * math.sin(yaw) * dt
        yaw += omega * dt
        travelled = 1.01 * v * dt
        ox += travelled * math.cos(oyaw)
        oy += travelled * math.sin(oyaw)
        oyaw += omega * dt + math.radians(0.5) * travelled
    return truth, odom


def test_late_noisy_fixes_keep_the_pose_on_the_truth_between_them():
    """AMCL-like fixes: 2 Hz, 2 cm and 1 deg of noise, 50 ms old when they arrive. The
    shared-frame pose follows the odometry between fixes; its error stays at the fixes'
    noise plus what the odometry drifts in half a second, while the odometry alone is
    wrong by metres (it started at its own origin)."""
    rng = np.random.default_rng(3)
    truth, odom = _drive(20.0)
    estimate = SharedFramePose("localization")
    errors, raw = [], []
    for k, ((t, true), (_, measured)) in enumerate(zip(truth, odom)):
        estimate.odometry(t, measured)
        if k % 25 == 0 and k >= 3:  # every 0.5 s, about the fix of 50 ms ago
            stamp, seen = truth[k - 3]
            noisy = Pose2(seen.x + rng.normal(0.0, 0.02), seen.y + rng.normal(0.0, 0.02),
                          seen.yaw + math.radians(rng.normal(0.0, 1.0)))
            estimate.fix(stamp, noisy, deviation=0.02, heading_deviation=math.radians(1.0))
        pose = estimate.in_shared_frame(measured)
        if pose is not None:
            errors.append(math.hypot(pose.x - true.x, pose.y - true.y))
        raw.append(math.hypot(measured.x - true.x, measured.y - true.y))
    assert estimate.fixes == 39
    assert max(errors) < 0.12 and float(np.median(errors)) < 0.05, (max(errors), np.median(errors))
    assert min(raw) > 2.0  # odometry alone: metres off
    assert estimate.uncertainty == pytest.approx(0.06)  # 3 sigma of a 2 cm localization
    # 0.5 deg of heading drift per metre hides in the fixes' 1 deg of noise: no drift
    assert estimate.heading_drift == 0.0 and estimate.drift_uncertainty == 0.0


def test_a_relocalisation_moves_the_pose_at_once_and_is_reported():
    estimate = SharedFramePose("localization")
    estimate.odometry(0.0, Pose2())
    estimate.odometry(1.0, Pose2(1.0, 0.0, 0.0))
    assert estimate.fix(1.0, Pose2(2.0, 0.0, 0.0)) is None  # the first fix: nothing before
    assert tuple(estimate.in_shared_frame(Pose2(1.0, 0.0, 0.0))) == pytest.approx((2.0, 0, 0))
    report = estimate.fix(1.0, Pose2(2.5, 0.0, 0.0))
    assert report is not None and "0.500 m" in report and estimate.jumps == 1
    assert estimate.in_shared_frame(Pose2(1.0, 0.0, 0.0)).x == pytest.approx(2.5)
    assert estimate.fix(1.0, Pose2(2.505, 0.0, 0.0)) is None  # 5 mm: not a jump
    # An ordinary correction of a noisy localization is not a jump: 6 cm from fixes of
    # 2 cm deviation (under 10 cm); 0.4 m from fixes of 0.2 m (within 3 sigma) neither.
    assert estimate.fix(1.0, Pose2(2.565, 0.0, 0.0), deviation=0.02) is None
    assert estimate.fix(1.0, Pose2(2.965, 0.0, 0.0), deviation=0.2) is None
    assert estimate.jumps == 1
    estimate.fix(1.0, Pose2(2.965, 0.0, 0.0), deviation=0.02)
    assert "0.300 m" in estimate.fix(1.0, Pose2(2.665, 0.0, 0.0), deviation=0.02)
    assert estimate.jumps == 2


def test_the_uncertainty_is_the_larger_axis_and_bounded():
    assert position_deviation(0.0004, 0.0, 0.0001) == pytest.approx(0.02)
    assert position_deviation(0.0002, 0.0002, 0.0002) == pytest.approx(0.02)
    estimate = SharedFramePose("localization", max_uncertainty=0.3)
    estimate.odometry(0.0, Pose2())
    estimate.fix(0.0, Pose2(), deviation=2.0)
    assert estimate.uncertainty == 0.3


def test_the_drift_grows_with_the_distance_driven_on_a_heading_that_drifts():
    """Wheels that slip turn the odometry's heading away from the truth; driven on it, the
    robot ends up to the side of where it thinks it is. The heading corrections beyond
    the fixes' own noise say by how much: the drift grows by the distance driven since
    the last fix times their sine, and shrinks back when the corrections do; the fix's
    own uncertainty is unchanged by it, and both together stay within the bound."""
    estimate = SharedFramePose("localization", max_uncertainty=0.3)
    one_degree = math.radians(1.0)
    estimate.odometry(0.0, Pose2())
    estimate.fix(0.0, Pose2(), deviation=0.02, heading_deviation=one_degree)
    estimate.odometry(0.5, Pose2(0.5, 0.0, 0.0))
    assert estimate.heading_drift == 0.0 and estimate.drift_uncertainty == 0.0
    # the next fix finds the heading 23 degrees off (20 beyond three deviations)
    estimate.fix(0.5, Pose2(0.5, 0.0, math.radians(23.0)), deviation=0.02,
                 heading_deviation=one_degree)
    assert estimate.heading_drift == pytest.approx(math.radians(20.0))
    assert estimate.drift_uncertainty == 0.0  # nothing driven since the fix
    # a fix that arrives late: what was driven since its stamp counts already
    late = SharedFramePose("localization", max_uncertainty=0.3)
    for k in range(4):
        late.odometry(0.1 * k, Pose2(0.1 * k, 0.0, 0.0))
    late.fix(0.0, Pose2(), deviation=0.02, heading_deviation=one_degree)
    late.fix(0.1, Pose2(0.1, 0.0, math.radians(23.0)), deviation=0.02,
             heading_deviation=one_degree)
    assert late.drift_uncertainty == pytest.approx(0.2 * math.sin(math.radians(20.0)))
    estimate.odometry(0.75, Pose2(0.75, 0.0, 0.0))
    assert estimate.drift_uncertainty == pytest.approx(0.25 * math.sin(math.radians(20.0)))
    assert estimate.uncertainty == pytest.approx(0.06)
    for k in range(2, 6):  # corrections within the noise: four fixes on, no drift left
        estimate.odometry(0.5 * k, Pose2(0.75, 0.0, 0.0))
        estimate.fix(0.5 * k, Pose2(0.5, 0.0, math.radians(23.0 + (-1) ** k)),
                     deviation=0.02, heading_deviation=one_degree)
    assert estimate.heading_drift == 0.0
    estimate.odometry(3.0, Pose2(5.75, 0.0, 0.0))
    assert estimate.drift_uncertainty == 0.0
    estimate.fix(3.0, Pose2(0.5, 0.0, 2.0), deviation=0.02, heading_deviation=one_degree)
    estimate.odometry(4.0, Pose2(6.75, 0.0, 0.0))  # a re-localization turned it: bounded
    assert estimate.uncertainty + estimate.drift_uncertainty == pytest.approx(0.3)
