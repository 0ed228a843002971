"""The simulated cube behind toio_bridge (``orca_ros.toio.transport``): timed commands,
its notification rate, and the ``cubes`` entries; without ROS."""

import asyncio

import numpy as np
import pytest

from orca_ros.core.models.toio_cube import MatFrame, mat_named
from orca_ros.toio import protocol as p
from orca_ros.toio.transport import SimulatedCube, parse_cube


def test_a_timed_command_stops_the_simulated_cube_when_it_runs_out():
    cube = SimulatedCube(mat_named("collection_ring"), MatFrame(), 250, 250, 0)
    sent = []
    asyncio.run(cube.connect(lambda c, data: sent.append((c, data))))
    asyncio.run(cube.write(p.MOTOR, p.encode(p.MotorTimed(60, 60, 300))))
    for _ in range(10):  # 0.1 s: still inside the 0.14 s command lag
        cube.advance(0.01)
    assert cube.body.left == 0.0
    for _ in range(20):
        cube.advance(0.01)
    assert cube.body.left > 0.1  # 60 units ~ 0.17 m/s, after the lag
    for _ in range(40):
        cube.advance(0.01)
    assert abs(cube.body.left) < 1e-3  # the 300 ms duration ran out: stopped
    assert any(p.decode_notification(c, d) == p.Battery(90) for c, d in sent)
    assert any(isinstance(p.decode_notification(c, d), p.PositionId) for c, d in sent)


@pytest.mark.parametrize("requested_ms, expected_s", [(10, 0.03), (50, 0.05)])
def test_the_simulated_cube_reports_no_faster_than_a_ble_link_delivers(requested_ms, expected_s):
    # toio_bridge asks for 10 ms; real cubes deliver 20-57 Hz over BLE.
    cube = SimulatedCube(mat_named("collection_ring"), MatFrame(), 250, 250, 0)
    sent = []
    asyncio.run(cube.connect(
        lambda c, data: sent.append((cube.time, p.decode_notification(c, data)))))
    asyncio.run(cube.write(p.CONFIGURATION,
                           p.encode(p.ConfigureIdNotification(requested_ms, 0x00))))
    for _ in range(100):
        cube.advance(0.01)
    times = [t for t, message in sent if isinstance(message, p.PositionId)]
    gaps = np.diff(times)
    assert len(times) >= 10 and gaps.min() == pytest.approx(expected_s, abs=0.011)
    assert np.median(gaps) == pytest.approx(expected_s, abs=0.011)


def test_cube_entries_are_parsed_or_refused_with_the_format():
    assert parse_cube("c1=simulated") == ("c1", "sim", "")
    assert parse_cube("c2=sim:0.1,-0.2,1.5") == ("c2", "sim", "0.1,-0.2,1.5")
    assert parse_cube("c3=ble:toio-a9R") == ("c3", "ble", "toio-a9R")
    with pytest.raises(ValueError, match="name=simulated"):
        parse_cube("c4=bluetooth")
