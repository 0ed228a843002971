"""``orca-ros map-segments``: a map_server map to segments, their count and time, and an
obstacles file obstacle_server reads; a broken map refused with status 2."""

import numpy as np
import pytest
from PIL import Image

from orca_ros.core.maps import load_map, map_segments
from orca_ros.tools.cli import main

pytest.importorskip("rclpy", reason="obstacle_server's module imports rclpy")
from orca_ros.nodes.obstacle_server import load_obstacles_file  # noqa: E402


def test_map_segments_writes_an_obstacles_file_with_the_maps_walls(tmp_path, capsys):
    pixels = np.full((40, 40), 254, dtype=np.uint8)
    pixels[:, :2] = pixels[:, -2:] = pixels[:2, :] = pixels[-2:, :] = 0  # a room
    pixels[15:25, 15:25] = 0  # a pillar
    Image.fromarray(pixels).save(tmp_path / "room.png")
    (tmp_path / "room.yaml").write_text("image: room.png\nresolution: 0.05\n"
                                        "origin: [0.0, 0.0, 0.0]\n")
    out = tmp_path / "walls.yaml"
    assert main(["map-segments", str(tmp_path / "room.yaml"), "--tolerance", "0.05",
                 "--out", str(out)]) == 0
    expected = map_segments(load_map(tmp_path / "room.yaml"), 0.05)
    printed = capsys.readouterr().out
    assert f"40 x 40 cells of 0.05 m, {int((pixels == 0).sum())} occupied: " \
           f"{len(expected)} segments within 0.05 m, in " in printed
    written = load_obstacles_file(str(out))
    assert [(s.a, s.b) for s in written] == [(s.a, s.b) for s in expected]


def test_map_segments_refuses_a_broken_map_naming_the_field(tmp_path, capsys):
    (tmp_path / "bad.yaml").write_text("image: x.pgm\nresolution: -1\norigin: [0, 0, 0]\n")
    assert main(["map-segments", str(tmp_path / "bad.yaml")]) == 2
    assert "field 'resolution' must be > 0" in capsys.readouterr().err


def test_map_segments_times_guidance_on_the_map_for_a_robot_size(tmp_path, capsys):
    """``--robot-radius``: the planner guidance builds for robots of that size (a grid on a
    map of more than 1,000 edges, a roadmap below) and the way to one goal, timed."""
    from orca_ros.core.maps.synthetic import warehouse_map

    warehouse_map(tmp_path / "warehouse.yaml", cells=400)
    assert main(["map-segments", str(tmp_path / "warehouse.yaml"), "--robot-radius",
                 "0.1"]) == 0
    printed = capsys.readouterr().out
    assert "guidance for robots of radius 0.1 m (clearance " in printed
    assert "a grid of " in printed and "cells of 0.0" in printed
    assert "s the first time (once per goal)" in printed and "heading for" in printed
