"""What guidance costs on a map (orca_ros/tools/map_guidance.py)."""

import numpy as np

from orca_ros.core.maps import load_map, map_segments
from orca_ros.tools.map_guidance import format_guidance_cost, guidance_cost


def _room(tmp_path, wall_cells: int):
    from PIL import Image

    pixels = np.full((40, 40), 254, dtype=np.uint8)
    pixels[:wall_cells, :] = pixels[-wall_cells:, :] = 0
    pixels[:, :wall_cells] = pixels[:, -wall_cells:] = 0
    Image.fromarray(pixels).save(tmp_path / "room.png")
    (tmp_path / "room.yaml").write_text("image: room.png\nresolution: 0.05\n"
                                        "origin: [0.0, 0.0, 0.0]\n")
    return load_map(tmp_path / "room.yaml")


def test_a_room_gives_a_planner_and_a_timed_way(tmp_path):
    occupancy = _room(tmp_path, 2)
    cost = guidance_cost(occupancy, map_segments(occupancy, None), 0.1)
    assert cost.radius == 0.1 and cost.built_s >= 0.0
    assert cost.start is not None and cost.first_s >= 0.0 and cost.again_s >= 0.0
    text = format_guidance_cost(cost)
    assert text.startswith("guidance for robots of radius 0.1 m (clearance ")
    assert "s the first time (once per goal)" in text


def test_a_map_with_no_room_for_the_robot_says_so(tmp_path):
    occupancy = _room(tmp_path, 2)
    cost = guidance_cost(occupancy, map_segments(occupancy, None), 0.6)
    assert cost.start is None
    assert format_guidance_cost(cost).endswith(
        "no place on the map is two clearances from every occupied cell")
