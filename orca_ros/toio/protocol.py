"""The toio Core Cube BLE protocol (v2.4.0), both directions, as typed messages.

``encode`` turns a message into the bytes written to (or notified by) a
characteristic; ``decode_notification`` parses what the cube sends, and
``decode_command`` what the host writes (the simulated cube's side). Bytes
that are not a message we know (wrong length, unknown type) raise
:class:`ProtocolError` naming the characteristic and the bytes. All fields are
little-endian (doc/how_it_works/toio.md).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Union
from ..core.errors import InputError

SUFFIX = "-5b3b-4571-9508-cf3efcd7bbae"
SERVICE = "10b20100" + SUFFIX
ID_INFORMATION = "10b20101" + SUFFIX
MOTOR = "10b20102" + SUFFIX
LIGHT = "10b20103" + SUFFIX
SOUND = "10b20104" + SUFFIX
SENSOR = "10b20106" + SUFFIX
BUTTON = "10b20107" + SUFFIX
BATTERY = "10b20108" + SUFFIX
CONFIGURATION = "10b201ff" + SUFFIX

MOTOR_RESPONSE_CODES = {0: "ok", 1: "timeout", 2: "id missed", 3: "bad parameters",
                        4: "bad state", 5: "overwritten", 6: "unsupported",
                        7: "cannot append"}


class ProtocolError(InputError):
    """Bytes that are not a valid message for that characteristic."""


def _error(characteristic: str, data: bytes, reason: str) -> ProtocolError:
    return ProtocolError(f"{_NAMES.get(characteristic, characteristic)}: {reason} "
                         f"(bytes {bytes(data).hex(' ') or 'none'})")


# --- cube -> host ----------------------------------------------------------------------------

@dataclass(frozen=True)
class PositionId:
    """Cube centre and optical sensor on the mat (mat units, degrees clockwise)."""

    x: int
    y: int
    angle: int
    sensor_x: int
    sensor_y: int
    sensor_angle: int


@dataclass(frozen=True)
class StandardId:
    value: int
    angle: int


@dataclass(frozen=True)
class PositionIdMissed:
    """The cube has left the mat (lifted, or off its edge)."""


@dataclass(frozen=True)
class StandardIdMissed:
    pass


@dataclass(frozen=True)
class MotorResponse:
    """Result of a target-position (``0x83``) or multi-target (``0x84``) command."""

    kind: int  # 0x83 or 0x84
    request_id: int
    code: int

    @property
    def meaning(self) -> str:
        return MOTOR_RESPONSE_CODES.get(self.code, "unknown")


@dataclass(frozen=True)
class MotorSpeed:
    """Wheel speed magnitudes (``0xE0``), when speed notifications are on."""

    left: int
    right: int


@dataclass(frozen=True)
class Battery:
    percent: int


@dataclass(frozen=True)
class Button:
    pressed: bool


@dataclass(frozen=True)
class MotionDetection:
    horizontal: bool
    collision: bool
    double_tap: bool
    posture: int
    shake: int


@dataclass(frozen=True)
class ConfigResponse:
    """A configuration answer: ``0x98`` ID notification, ``0x99`` ID missed, ``0x9C``
    motor speed; ``result`` 0 = accepted."""

    kind: int
    result: int


@dataclass(frozen=True)
class ProtocolVersion:
    version: str


# --- host -> cube ------------------------------------------------------------------------------

@dataclass(frozen=True)
class MotorBasic:
    """Wheel speeds (-115..115, sign = direction) until the next write (``0x01``)."""

    left: int
    right: int


@dataclass(frozen=True)
class MotorTimed:
    """Wheel speeds for ``duration_ms`` (10 ms steps, 0 = unlimited), then stop (``0x02``).

    The duration doubles as a watchdog: a lost command stream stops the cube."""

    left: int
    right: int
    duration_ms: int


@dataclass(frozen=True)
class MotorTarget:
    """Drive to a mat position (``0x03``); arrival within 15 units and 4°."""

    request_id: int
    timeout_s: int
    move_type: int
    max_speed: int
    speed_change: int
    x: int
    y: int
    angle: int  # degrees, 13 bits
    rotation_type: int = 0  # 3 bits


@dataclass(frozen=True)
class MotorAcceleration:
    """Speed with acceleration (``0x05``)."""

    speed: int
    acceleration: int
    angular_speed: int  # deg/s
    rotation_direction: int
    travel_direction: int
    priority: int
    duration_ms: int


@dataclass(frozen=True)
class RequestProtocolVersion:
    pass


@dataclass(frozen=True)
class ConfigureIdNotification:
    """Position ID at most every ``interval_ms`` (10 ms steps), on ``condition``
    (0 always, 1 on change, 0xFF on change but at least every 300 ms)."""

    interval_ms: int
    condition: int


@dataclass(frozen=True)
class ConfigureIdMissed:
    """Report "missed" after ``sensitivity_ms`` off the mat (10 ms steps)."""

    sensitivity_ms: int


@dataclass(frozen=True)
class ConfigureMotorSpeed:
    enabled: bool


Message = Union[PositionId, StandardId, PositionIdMissed, StandardIdMissed, MotorResponse,
                MotorSpeed, Battery, Button, MotionDetection, ConfigResponse, ProtocolVersion,
                MotorBasic, MotorTimed, MotorTarget, MotorAcceleration, RequestProtocolVersion,
                ConfigureIdNotification, ConfigureIdMissed, ConfigureMotorSpeed]

_NAMES = {ID_INFORMATION: "ID information", MOTOR: "motor", SENSOR: "sensor", BUTTON: "button",
          BATTERY: "battery", CONFIGURATION: "configuration"}

_POSITION = struct.Struct("<BHHHHHH")
_STANDARD = struct.Struct("<BIH")
_TARGET = struct.Struct("<BBBBBBBHHH")
_ACCEL = struct.Struct("<BBBHBBBB")


def _wheel(speed: int, side: int) -> bytes:
    if not -255 <= speed <= 255:
        raise ProtocolError(f"motor: wheel speed {speed} out of range -255..255")
    return bytes((side, 1 if speed >= 0 else 2, abs(speed)))


def _signed(direction: int, speed: int, characteristic: str, data: bytes) -> int:
    if direction not in (1, 2):
        raise _error(characteristic, data, f"wheel direction {direction} is not 1 or 2")
    return speed if direction == 1 else -speed


def _steps(ms: int, what: str) -> int:
    steps = int(round(ms / 10))
    if not 0 <= steps <= 255:
        raise ProtocolError(f"{what} {ms} ms out of range 0..2550 ms")
    return steps


def encode(message: Message) -> bytes:
    """The bytes of a message (host commands, or the cube's notifications)."""
    m = message
    if isinstance(m, PositionId):
        return _POSITION.pack(0x01, m.x, m.y, m.angle, m.sensor_x, m.sensor_y, m.sensor_angle)
    if isinstance(m, StandardId):
        return _STANDARD.pack(0x02, m.value, m.angle)
    if isinstance(m, PositionIdMissed):
        return b"\x03"
    if isinstance(m, StandardIdMissed):
        return b"\x04"
    if isinstance(m, MotorResponse):
        return bytes((m.kind, m.request_id, m.code))
    if isinstance(m, MotorSpeed):
        return bytes((0xE0, m.left, m.right))
    if isinstance(m, Battery):
        return bytes((m.percent,))
    if isinstance(m, Button):
        return bytes((0x01, 0x80 if m.pressed else 0x00))
    if isinstance(m, MotionDetection):
        return bytes((0x01, int(m.horizontal), int(m.collision), int(m.double_tap), m.posture,
                      m.shake))
    if isinstance(m, ConfigResponse):
        return bytes((m.kind, 0x00, m.result))
    if isinstance(m, ProtocolVersion):
        return bytes((0x81, 0x00)) + m.version.encode("ascii")
    if isinstance(m, MotorBasic):
        return b"\x01" + _wheel(m.left, 1) + _wheel(m.right, 2)
    if isinstance(m, MotorTimed):
        return b"\x02" + _wheel(m.left, 1) + _wheel(m.right, 2) + \
            bytes((_steps(m.duration_ms, "motor duration"),))
    if isinstance(m, MotorTarget):
        return _TARGET.pack(0x03, m.request_id, m.timeout_s, m.move_type, m.max_speed,
                            m.speed_change, 0, m.x, m.y,
                            (m.rotation_type << 13) | (m.angle & 0x1FFF))
    if isinstance(m, MotorAcceleration):
        return _ACCEL.pack(0x05, m.speed, m.acceleration, m.angular_speed,
                           m.rotation_direction, m.travel_direction, m.priority,
                           _steps(m.duration_ms, "acceleration duration"))
    if isinstance(m, RequestProtocolVersion):
        return b"\x01\x00"
    if isinstance(m, ConfigureIdNotification):
        return bytes((0x18, 0x00, _steps(m.interval_ms, "ID interval"), m.condition))
    if isinstance(m, ConfigureIdMissed):
        return bytes((0x19, 0x00, _steps(m.sensitivity_ms, "ID missed sensitivity")))
    if isinstance(m, ConfigureMotorSpeed):
        return bytes((0x1C, 0x00, 0x01 if m.enabled else 0x00))
    raise TypeError(f"not a toio message: {message!r}")


def _expect(characteristic: str, data: bytes, length: int) -> None:
    if len(data) != length:
        raise _error(characteristic, data, f"expected {length} bytes, got {len(data)}")


def decode_notification(characteristic: str, data: bytes) -> Message:
    """What the cube sent on a characteristic, typed; :class:`ProtocolError` if malformed."""
    data = bytes(data)
    c = characteristic.lower()
    if not data:
        raise _error(c, data, "empty notification")
    kind = data[0]
    if c == ID_INFORMATION:
        if kind == 0x01:
            _expect(c, data, 13)
            return PositionId(*_POSITION.unpack(data)[1:])
        if kind == 0x02:
            _expect(c, data, 7)
            return StandardId(*_STANDARD.unpack(data)[1:])
        if kind in (0x03, 0x04):
            _expect(c, data, 1)
            return PositionIdMissed() if kind == 0x03 else StandardIdMissed()
    elif c == MOTOR:
        if kind in (0x83, 0x84):
            _expect(c, data, 3)
            return MotorResponse(kind, data[1], data[2])
        if kind == 0xE0:
            _expect(c, data, 3)
            return MotorSpeed(data[1], data[2])
    elif c == BATTERY:
        _expect(c, data, 1)
        if kind > 100:
            raise _error(c, data, f"battery level {kind}% above 100")
        return Battery(kind)
    elif c == BUTTON:
        if kind == 0x01:
            _expect(c, data, 2)
            if data[1] not in (0x00, 0x80):
                raise _error(c, data, f"button state {data[1]:#04x} is neither 0x00 nor 0x80")
            return Button(data[1] == 0x80)
    elif c == SENSOR:
        if kind == 0x01:
            _expect(c, data, 6)
            return MotionDetection(bool(data[1]), bool(data[2]), bool(data[3]), data[4], data[5])
    elif c == CONFIGURATION:
        if kind == 0x81 and len(data) >= 3 and data[1] == 0x00:
            try:
                return ProtocolVersion(data[2:].decode("ascii"))
            except UnicodeDecodeError:
                raise _error(c, data, "protocol version is not ASCII") from None
        if kind in (0x98, 0x99, 0x9C):
            _expect(c, data, 3)
            return ConfigResponse(kind, data[2])
    else:
        raise _error(c, data, "unknown characteristic")
    raise _error(c, data, f"unknown message type {kind:#04x}")


def decode_command(characteristic: str, data: bytes) -> Message:
    """What the host wrote to a characteristic (the cube's side), typed."""
    data = bytes(data)
    c = characteristic.lower()
    if not data:
        raise _error(c, data, "empty write")
    kind = data[0]
    if c == MOTOR:
        if kind in (0x01, 0x02):
            _expect(c, data, 7 if kind == 0x01 else 8)
            if data[1] != 1 or data[4] != 2:
                raise _error(c, data, "wheel ids must be 1 (left) then 2 (right)")
            left = _signed(data[2], data[3], c, data)
            right = _signed(data[5], data[6], c, data)
            return MotorBasic(left, right) if kind == 0x01 else MotorTimed(left, right,
                                                                          data[7] * 10)
        if kind == 0x03:
            _expect(c, data, 13)
            _, req, timeout, move, speed, change, _, x, y, theta = _TARGET.unpack(data)
            return MotorTarget(req, timeout, move, speed, change, x, y, theta & 0x1FFF,
                               theta >> 13)
        if kind == 0x05:
            _expect(c, data, 9)
            _, v, a, w, wdir, tdir, prio, steps = _ACCEL.unpack(data)
            return MotorAcceleration(v, a, w, wdir, tdir, prio, steps * 10)
    elif c == CONFIGURATION:
        if kind == 0x01:
            _expect(c, data, 2)
            return RequestProtocolVersion()
        if kind == 0x18:
            _expect(c, data, 4)
            return ConfigureIdNotification(data[2] * 10, data[3])
        if kind == 0x19:
            _expect(c, data, 3)
            return ConfigureIdMissed(data[2] * 10)
        if kind == 0x1C:
            _expect(c, data, 3)
            return ConfigureMotorSpeed(data[2] == 0x01)
    else:
        raise _error(c, data, "not a writable characteristic we use")
    raise _error(c, data, f"unknown command type {kind:#04x}")
