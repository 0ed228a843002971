"""toio protocol codec, mats and wheel conversion (no ROS, no hardware)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.toio import protocol as p
from orca_ros.core.models.toio_cube import TOIO, twist_to_wheels, wheels_to_twist
from orca_ros.core.models.toio_cube import MatFrame, body_velocity, mat_named

u8, u16 = st.integers(0, 255), st.integers(0, 65535)
speed = st.integers(-115, 115)


def test_the_specs_own_example_bytes():
    assert p.decode_command(p.MOTOR, bytes.fromhex("01 01 01 64 02 02 14")) == \
        p.MotorBasic(100, -20)
    target = p.decode_command(p.MOTOR, bytes.fromhex("03 00 05 00 50 00 00 bc 02 82 01 5a 00"))
    assert (target.timeout_s, target.max_speed, target.x, target.y, target.angle) == \
        (5, 80, 700, 386, 90)
    accel = p.decode_command(p.MOTOR, bytes.fromhex("05 32 05 0f 00 00 00 00 64"))
    assert (accel.speed, accel.acceleration, accel.angular_speed, accel.duration_ms) == \
        (50, 5, 15, 1000)
    for hex_bytes in ("01 01 01 64 02 02 14", "03 00 05 00 50 00 00 bc 02 82 01 5a 00",
                      "05 32 05 0f 00 00 00 00 64"):
        data = bytes.fromhex(hex_bytes)
        assert p.encode(p.decode_command(p.MOTOR, data)) == data
    assert p.decode_notification(p.CONFIGURATION, b"\x81\x002.4.0") == p.ProtocolVersion("2.4.0")


notifications = st.one_of(
    st.builds(p.PositionId, u16, u16, st.integers(0, 359), u16, u16, st.integers(0, 359)),
    st.builds(p.StandardId, st.integers(0, 2**32 - 1), u16),
    st.just(p.PositionIdMissed()), st.just(p.StandardIdMissed()),
    st.builds(p.MotorResponse, st.sampled_from([0x83, 0x84]), u8, st.integers(0, 7)),
    st.builds(p.MotorSpeed, st.integers(0, 115), st.integers(0, 115)),
    st.builds(p.Battery, st.integers(0, 100)), st.builds(p.Button, st.booleans()),
    st.builds(p.MotionDetection, st.booleans(), st.booleans(), st.booleans(),
              st.integers(1, 6), u8),
    st.builds(p.ConfigResponse, st.sampled_from([0x98, 0x99, 0x9C]), u8))
CHARACTERISTIC = {p.PositionId: p.ID_INFORMATION, p.StandardId: p.ID_INFORMATION,
                  p.PositionIdMissed: p.ID_INFORMATION, p.StandardIdMissed: p.ID_INFORMATION,
                  p.MotorResponse: p.MOTOR, p.MotorSpeed: p.MOTOR, p.Battery: p.BATTERY,
                  p.Button: p.BUTTON, p.MotionDetection: p.SENSOR,
                  p.ConfigResponse: p.CONFIGURATION}
commands = st.one_of(
    st.builds(p.MotorBasic, speed, speed),
    st.builds(p.MotorTimed, speed, speed, st.integers(0, 255).map(lambda s: s * 10)),
    st.builds(p.MotorTarget, u8, u8, st.integers(0, 2), u8, st.integers(0, 3), u16, u16,
              st.integers(0, 360), st.integers(0, 6)),
    st.builds(p.MotorAcceleration, u8, u8, u16, st.integers(0, 1), st.integers(0, 1),
              st.integers(0, 1), st.integers(0, 255).map(lambda s: s * 10)),
    st.just(p.RequestProtocolVersion()),
    st.builds(p.ConfigureIdNotification, st.integers(0, 255).map(lambda s: s * 10),
              st.sampled_from([0x00, 0x01, 0xFF])),
    st.builds(p.ConfigureIdMissed, st.integers(0, 255).map(lambda s: s * 10)),
    st.builds(p.ConfigureMotorSpeed, st.booleans()))


@settings(max_examples=300, deadline=None)
@given(notifications)
def test_notifications_round_trip(message):
    assert p.decode_notification(CHARACTERISTIC[type(message)], p.encode(message)) == message


@settings(max_examples=300, deadline=None)
@given(commands)
def test_commands_round_trip(message):
    characteristic = p.MOTOR if type(message).__name__.startswith("Motor") else p.CONFIGURATION
    assert p.decode_command(characteristic, p.encode(message)) == message


@pytest.mark.parametrize("characteristic,data,reason", [
    (p.ID_INFORMATION, b"\x01\x00\x01", "expected 13 bytes, got 3"),
    (p.ID_INFORMATION, b"\x07", "unknown message type 0x07"),
    (p.ID_INFORMATION, b"", "empty notification"),
    (p.BATTERY, b"\xc8", "above 100"),
    (p.BUTTON, b"\x01\x42", "neither 0x00 nor 0x80"),
    (p.MOTOR, b"\x83\x00", "expected 3 bytes"),
    ("12345678-0000", b"\x01", "unknown characteristic"),
])
def test_malformed_notifications_raise_a_clear_error(characteristic, data, reason):
    with pytest.raises(p.ProtocolError, match=reason):
        p.decode_notification(characteristic, data)


def test_malformed_commands_raise_a_clear_error():
    with pytest.raises(p.ProtocolError, match="motor: wheel direction 3"):
        p.decode_command(p.MOTOR, bytes.fromhex("01 01 03 10 02 01 10"))
    with pytest.raises(p.ProtocolError, match="expected 8 bytes"):
        p.decode_command(p.MOTOR, bytes.fromhex("02 01 01 10 02 01 10"))
    with pytest.raises(p.ProtocolError, match="out of range"):
        p.encode(p.MotorBasic(300, 0))


# --- toio.py (the official library) as an independent oracle ---------------------------

try:
    import toio.cube.api  # noqa: F401
    HAVE_TOIO_PY = True
except ImportError:
    HAVE_TOIO_PY = False
needs_toio_py = pytest.mark.skipif(not HAVE_TOIO_PY, reason="toio-py not installed "
                                   "(pip install --no-deps toio-py); only the oracle tests skip")


@needs_toio_py
@settings(max_examples=200, deadline=None)
@given(notifications)
def test_toio_py_decodes_our_notification_bytes_the_same(message):
    from toio.cube.api.battery import Battery
    from toio.cube.api.button import Button
    from toio.cube.api.id_information import IdInformation
    from toio.cube.api.sensor import Sensor

    data = p.encode(message)
    if isinstance(message, p.PositionId):
        theirs = IdInformation.is_my_data(data)
        assert (theirs.center.point.x, theirs.center.point.y, theirs.center.angle,
                theirs.sensor.point.x, theirs.sensor.point.y, theirs.sensor.angle) == \
            (message.x, message.y, message.angle, message.sensor_x, message.sensor_y,
             message.sensor_angle)
    elif isinstance(message, p.StandardId):
        theirs = IdInformation.is_my_data(data)
        assert (theirs.value, theirs.angle) == (message.value, message.angle)
    elif isinstance(message, (p.PositionIdMissed, p.StandardIdMissed)):
        assert type(IdInformation.is_my_data(data)).__name__ == type(message).__name__
    elif isinstance(message, p.Battery):
        assert Battery.is_my_data(data).battery_level == message.percent
    elif isinstance(message, p.Button):
        assert (Button.is_my_data(data).state != 0) == message.pressed
    elif isinstance(message, p.MotionDetection):
        theirs = Sensor.is_my_data(data)
        assert (theirs.horizontal, theirs.collision, theirs.double_tap, int(theirs.posture),
                theirs.shake) == (message.horizontal, message.collision, message.double_tap,
                                  message.posture, message.shake)


@needs_toio_py
@settings(max_examples=200, deadline=None)
@given(speed, speed, st.one_of(st.none(), st.integers(1, 255).map(lambda s: s * 10)))
def test_toio_py_encodes_motor_commands_to_our_bytes(left, right, duration_ms):
    from toio.cube.api.motor import MotorControl

    ours = p.MotorBasic(left, right) if duration_ms is None else \
        p.MotorTimed(left, right, duration_ms)
    assert p.encode(ours) == bytes(MotorControl(left, right, duration_ms))


@needs_toio_py
def test_toio_py_encodes_configuration_to_our_bytes():
    from toio.cube.api.configuration import (RequestProtocolVersion, SetIdMissedNotification,
                                             SetIdNotification)

    assert p.encode(p.RequestProtocolVersion()) == bytes(RequestProtocolVersion())
    assert p.encode(p.ConfigureIdNotification(50, 0x01)) == bytes(SetIdNotification(50, 0x01))
    assert p.encode(p.ConfigureIdMissed(70)) == bytes(SetIdMissedNotification(70))


# --- mats and wheels ---------------------------------------------------------------------------

def test_mat_frame_is_right_handed_metres():
    frame = MatFrame(1.3625)
    x, y, yaw = frame.to_world(250, 250, 90)  # centre of the ring mat, facing mat +y (down)
    assert (x, y) == pytest.approx((0.340625, -0.340625))
    assert yaw == pytest.approx(-math.pi / 2)
    assert frame.to_mat(x, y, yaw) == pytest.approx((250, 250, 90))
    assert mat_named("collection_ring").contains(250, 250)
    assert not mat_named("collection_ring").contains(40, 250)
    with pytest.raises(ValueError, match="unknown toio mat"):
        mat_named("kitchen_table")
    with pytest.raises(ValueError, match="mm_per_unit"):
        MatFrame(0.0)


def test_wheel_commands_respect_dead_zone_and_keep_curvature_when_saturating():
    assert twist_to_wheels(0.0, 0.0) == (0, 0)
    assert twist_to_wheels(0.008, 0.0) == (0, 0)  # 2.8 units: below half the dead zone
    assert twist_to_wheels(0.015, 0.0) == (8, 8)  # 5.3 units: raised to the first moving value
    left, right = twist_to_wheels(1.0, 5.0)  # far beyond the top speed
    assert max(abs(left), abs(right)) == 115
    v, omega = 1.0, 5.0
    wanted = (v + omega * TOIO.track_m / 2) / (v - omega * TOIO.track_m / 2)
    assert right / left == pytest.approx(wanted, rel=0.02)  # same curvature
    v_back, omega_back = wheels_to_twist(*twist_to_wheels(0.1, 1.0))
    assert v_back == pytest.approx(0.1, abs=0.003) and omega_back == pytest.approx(1.0, abs=0.2)
    assert wheels_to_twist(5, 5) == (0.0, 0.0)  # dead zone
    with pytest.raises(ValueError, match="finite"):
        twist_to_wheels(math.nan, 0.0)


def test_body_velocity_from_successive_poses():
    v, omega = body_velocity((0.0, 0.0, math.pi / 2), (0.0, 0.01, math.pi / 2 + 0.05), 0.1)
    assert (v, omega) == pytest.approx((0.1, 0.5))
    v, _ = body_velocity((0.0, 0.0, 0.0), (-0.01, 0.0, 0.0), 0.1)
    assert v == pytest.approx(-0.1)  # reversing
