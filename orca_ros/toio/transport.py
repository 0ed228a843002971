"""How bytes reach a cube: BLE through bleak, or a simulated cube.

Both implement :class:`CubeLink`: ``connect``, ``write`` (bytes to a
characteristic), notifications delivered as ``(characteristic, bytes)`` to a
callback, ``disconnect``. Only bytes cross the interface, so the simulated
cube exercises the real codec: it decodes what the host writes with the cube
side of :mod:`orca_ros.toio.protocol` and answers with encoded notifications.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Callable, Deque, List, Optional, Tuple

from ..core.drive import unicycle_step, wrap_angle
from . import protocol as p
from .drive import TOIO, WheelModel
from .mat import Mat, MatFrame

Notify = Callable[[str, bytes], None]
NOTIFYING = (p.ID_INFORMATION, p.MOTOR, p.SENSOR, p.BUTTON, p.BATTERY, p.CONFIGURATION)


class LinkLost(ConnectionError):
    """The BLE connection dropped (or the simulated one was cut)."""


class CubeLink:
    """The transport interface."""

    connected: bool = False

    async def connect(self, notify: Notify) -> None:
        raise NotImplementedError

    async def write(self, characteristic: str, data: bytes) -> None:
        raise NotImplementedError

    async def disconnect(self) -> None:
        raise NotImplementedError


class BleakLink(CubeLink):
    """A real cube over BLE (bleak): found by address, or by a fragment of its name."""

    def __init__(self, address_or_name: str, scan_timeout: float = 10.0) -> None:
        self.target = address_or_name
        self.scan_timeout = scan_timeout
        self.client = None

    async def connect(self, notify: Notify) -> None:
        from bleak import BleakClient, BleakScanner

        target = self.target
        if ":" in target or "-" in target:  # an address (Linux MAC, or macOS UUID)
            device = await BleakScanner.find_device_by_address(target, timeout=self.scan_timeout)
        else:
            device = await BleakScanner.find_device_by_filter(
                lambda d, adv: p.SERVICE in [u.lower() for u in adv.service_uuids]
                and target in (d.name or ""), timeout=self.scan_timeout)
        if device is None:
            raise LinkLost(f"no toio cube matching {target!r} found within "
                           f"{self.scan_timeout} s")
        self.client = BleakClient(device, disconnected_callback=self._lost)
        await self.client.connect()
        for characteristic in NOTIFYING:
            await self.client.start_notify(
                characteristic, lambda _, data, c=characteristic: notify(c, bytes(data)))
        self.connected = True

    def _lost(self, _client) -> None:
        self.connected = False

    async def write(self, characteristic: str, data: bytes) -> None:
        if not self.connected or self.client is None:
            raise LinkLost(f"cube {self.target!r} is not connected")
        await self.client.write_gatt_char(characteristic, data, response=False)

    async def disconnect(self) -> None:
        self.connected = False
        if self.client is not None:
            await self.client.disconnect()


@dataclass
class CubePhysics:
    """A cube's body on its mat: true pose (mat units, degrees) and wheel speeds (m/s)."""

    x: float
    y: float
    angle: float
    left: float = 0.0
    right: float = 0.0


class SimulatedCube(CubeLink):
    """A cube in software, driven by :meth:`advance` with the simulation's time step.

    Physics (shared/design/toio.md): commands act after ``lag_s`` (0.14 s);
    wheel speeds follow them with a first-order time constant of 0.04 s,
    through the dead zone and saturation; a timed command stops the motors
    when its duration runs out. Position notifications come every
    ``id_interval_s`` while on the mat; leaving the mat (or :meth:`lift`)
    sends "position ID missed" once.
    """

    def __init__(self, mat: Mat, frame: MatFrame, x: float, y: float, angle: float,
                 wheels: WheelModel = TOIO, lag_s: float = 0.14, time_constant_s: float = 0.04,
                 id_interval_s: float = 0.03, battery_percent: int = 90) -> None:
        self.mat, self.frame, self.wheels = mat, frame, wheels
        self.body = CubePhysics(x, y, angle)
        self.lag_s, self.time_constant_s, self.id_interval_s = lag_s, time_constant_s, id_interval_s
        self.battery_percent = battery_percent
        self.time = 0.0
        self.notify: Optional[Notify] = None
        self.pending: Deque[Tuple[float, p.Message]] = deque()
        self.target_wheels: Tuple[int, int] = (0, 0)
        self.stop_at: Optional[float] = None
        self.lifted = False
        self.reported_missed = False
        self.next_report = 0.0
        self.writes: List[p.Message] = []

    # transport side
    async def connect(self, notify: Notify) -> None:
        self.notify = notify
        self.connected = True
        self._send(p.BATTERY, p.Battery(self.battery_percent))

    async def write(self, characteristic: str, data: bytes) -> None:
        if not self.connected:
            raise LinkLost("simulated cube is not connected")
        message = p.decode_command(characteristic, data)  # the cube side of the codec
        self.writes.append(message)
        if isinstance(message, (p.MotorBasic, p.MotorTimed)):
            self.pending.append((self.time + self.lag_s, message))
        elif isinstance(message, p.RequestProtocolVersion):
            self._send(p.CONFIGURATION, p.ProtocolVersion("2.4.0"))
        elif isinstance(message, p.ConfigureIdNotification):
            self.id_interval_s = max(0.01, message.interval_ms / 1000.0)
            self._send(p.CONFIGURATION, p.ConfigResponse(0x98, 0))

    async def disconnect(self) -> None:
        self.connected = False

    # test and simulation hooks
    def cut_connection(self) -> None:
        """The BLE link drops (the cube keeps doing what it was told)."""
        self.connected = False

    def lift(self) -> None:
        self.lifted = True

    def place(self) -> None:
        self.lifted = False

    @property
    def on_mat(self) -> bool:
        return not self.lifted and self.mat.contains(self.body.x, self.body.y)

    def world_pose(self) -> Tuple[float, float, float]:
        return self.frame.to_world(self.body.x, self.body.y, self.body.angle)

    def _send(self, characteristic: str, message: p.Message) -> None:
        if self.connected and self.notify is not None:
            self.notify(characteristic, p.encode(message))

    def advance(self, dt: float) -> None:
        """Move the simulated time on by ``dt`` seconds."""
        self.time += dt
        while self.pending and self.pending[0][0] <= self.time:
            _, command = self.pending.popleft()
            self.target_wheels = (command.left, command.right)
            timed = isinstance(command, p.MotorTimed) and command.duration_ms > 0
            self.stop_at = self.time + command.duration_ms / 1000.0 if timed else None
        if self.stop_at is not None and self.time >= self.stop_at:
            self.target_wheels, self.stop_at = (0, 0), None  # the timed command's watchdog
        if self.lifted:
            self.body.left = self.body.right = 0.0
        else:
            gain = 1.0 - math.exp(-dt / self.time_constant_s)
            want_left = self.wheels.wheel_speed(self.target_wheels[0])
            want_right = self.wheels.wheel_speed(self.target_wheels[1])
            self.body.left += gain * (want_left - self.body.left)
            self.body.right += gain * (want_right - self.body.right)
            self._move(dt)
        if self.on_mat:
            self.reported_missed = False
            if self.time >= self.next_report:
                self.next_report = self.time + self.id_interval_s
                x, y, a = round(self.body.x), round(self.body.y), round(self.body.angle) % 360
                self._send(p.ID_INFORMATION, p.PositionId(x, y, a, x, y, a))
        elif not self.reported_missed:
            self.reported_missed = True
            self._send(p.ID_INFORMATION, p.PositionIdMissed())

    def _move(self, dt: float) -> None:
        v = (self.body.left + self.body.right) / 2.0
        omega = (self.body.right - self.body.left) / self.wheels.track_m
        x, y, yaw = self.world_pose()
        x, y, yaw = unicycle_step(x, y, yaw, v, omega, dt)
        self.body.x, self.body.y, self.body.angle = self.frame.to_mat(x, y, wrap_angle(yaw))
