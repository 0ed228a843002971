"""How bytes reach a cube: BLE through bleak, or a simulated cube.

Both implement :class:`CubeLink`: ``connect``, ``write`` (bytes to a
characteristic), notifications delivered as ``(characteristic, bytes)`` to a
callback, ``disconnect``. Only bytes cross the interface, so the simulated
cube exercises the real codec: it decodes what the host writes with the cube
side of :mod:`orca_ros.toio.protocol` and answers with encoded notifications.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Tuple

from ..core.models.toio_cube import (ID_INTERVAL_S, LAG_S, TIME_CONSTANT_S, TOIO, CubeBody,
                                     WheelModel)
from . import protocol as p
from ..core.models.toio_cube import Mat, MatFrame

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


class SimulatedCube(CubeLink):
    """A cube in software, driven by :meth:`advance` with the simulation's time step.

    Physics: :class:`orca_ros.core.models.toio_cube.CubeBody` (the scenario world's cubes
    use the same model): commands act after ``lag_s`` (0.14 s); wheel speeds
    follow them with a first-order time constant of 0.04 s, through the dead
    zone and saturation; a timed command stops the motors when its duration
    runs out. Position notifications come every ``id_interval_s`` while on the
    mat; leaving the mat (or :meth:`lift`) sends "position ID missed" once.
    A request for a shorter notification interval is honoured only down to
    ``ble_interval_s`` (default :data:`~orca_ros.core.models.toio_cube.ID_INTERVAL_S`,
    30 ms, as in the world): the cube accepts 10 ms, but a BLE link delivers
    20-57 Hz (doc/how_it_works/toio.md), so a faster simulated cube would be
    better informed than a real one.
    """

    def __init__(self, mat: Mat, frame: MatFrame, x: float, y: float, angle: float,
                 wheels: WheelModel = TOIO, lag_s: float = LAG_S,
                 time_constant_s: float = TIME_CONSTANT_S, id_interval_s: float = ID_INTERVAL_S,
                 battery_percent: int = 90, ble_interval_s: float = ID_INTERVAL_S) -> None:
        self.mat, self.frame, self.wheels = mat, frame, wheels
        self.ble_interval_s = ble_interval_s
        self.body = CubeBody(x, y, angle, frame, wheels, lag_s, time_constant_s, id_interval_s)
        self.battery_percent = battery_percent
        self.notify: Optional[Notify] = None
        self.lifted = False
        self.reported_missed = False
        self.writes: List[p.Message] = []

    @property
    def time(self) -> float:
        return self.body.time

    @property
    def lag_s(self) -> float:
        return self.body.lag_s

    @property
    def time_constant_s(self) -> float:
        return self.body.time_constant_s

    @property
    def id_interval_s(self) -> float:
        return self.body.id_interval_s

    @property
    def target_wheels(self) -> Tuple[int, int]:
        return self.body.target

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
            timed = isinstance(message, p.MotorTimed) and message.duration_ms > 0
            self.body.command(message.left, message.right,
                              message.duration_ms / 1000.0 if timed else None)
        elif isinstance(message, p.RequestProtocolVersion):
            self._send(p.CONFIGURATION, p.ProtocolVersion("2.4.0"))
        elif isinstance(message, p.ConfigureIdNotification):
            self.body.id_interval_s = max(0.01, self.ble_interval_s,
                                          message.interval_ms / 1000.0)
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
        return self.body.world_pose()

    def _send(self, characteristic: str, message: p.Message) -> None:
        if self.connected and self.notify is not None:
            self.notify(characteristic, p.encode(message))

    def advance(self, dt: float) -> None:
        """Move the simulated time on by ``dt`` seconds."""
        self.body.advance(dt, lifted=self.lifted)
        if self.on_mat:
            self.reported_missed = False
            reading = self.body.poll_reading()
            if reading is not None:
                x, y, a = reading
                self._send(p.ID_INFORMATION, p.PositionId(x, y, a, x, y, a))
        elif not self.reported_missed:
            self.reported_missed = True
            self._send(p.ID_INFORMATION, p.PositionIdMissed())


def parse_cube(entry: str) -> Tuple[str, str, str]:
    """A toio_bridge ``cubes`` entry -> ``(name, kind, argument)``.

    ``'name=simulated'`` and ``'name=sim:x,y,yaw'`` give kind ``sim`` (a
    :class:`SimulatedCube`), ``'name=ble:<address or name fragment>'`` kind ``ble``.
    """
    name, sep, spec = entry.partition("=")
    kind, _, arg = spec.partition(":")
    if not sep or not name.strip() or kind not in ("simulated", "sim", "ble") or \
            (kind == "ble" and not arg):
        raise ValueError(f"cube entry {entry!r}: use 'name=simulated', 'name=sim:x,y,yaw' "
                         "or 'name=ble:<address or name fragment>'")
    return name.strip().strip("/"), "ble" if kind == "ble" else "sim", arg
