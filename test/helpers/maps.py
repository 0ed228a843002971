"""A scenario walled only by a map_server map, for the tests of maps in the world and
through nodes."""

import numpy as np
import yaml
from PIL import Image


def write_walled_scenario(directory, map_fields=""):
    """Two robots swap ends of a 6 m x 3 m room whose only walls are a map: its outer walls
    and a 1.5 m wall across the middle of the straight line between them."""
    cells = np.full((60, 120), 254, dtype=np.uint8)  # 6 m x 3 m at 5 cm, rows top down
    cells[:2, :] = cells[-2:, :] = cells[:, :2] = cells[:, -2:] = 0
    cells[15:45, 58:62] = 0  # the middle wall, 1.5 m long, 20 cm thick
    (directory / "maps").mkdir(exist_ok=True)
    Image.fromarray(cells).save(directory / "maps" / "room.pgm")
    (directory / "maps" / "room.yaml").write_text(
        "image: room.pgm\nresolution: 0.05\norigin: [-3.0, -1.5, 0.0]\nnegate: 0\n"
        "occupied_thresh: 0.65\nfree_thresh: 0.25\n" + map_fields)
    scenario = {"name": "map_swap", "time_step": 0.1, "max_time": 60.0,
                "defaults": {"radius": 0.2, "max_speed": 0.5, "pref_speed": 0.4},
                "map": "maps/room.yaml",
                "agents": [{"name": "west", "start": [-2.0, 0.0], "goal": [2.0, 0.0]},
                           {"name": "east", "start": [2.0, 0.1], "goal": [-2.0, 0.1]}]}
    path = directory / "map_swap.yaml"
    path.write_text(yaml.safe_dump(scenario))
    return path


def write_unmapped_box_scenario(directory):
    """Two robots pass a 0.6 m x 0.7 m box that stands on the straight line of one of them
    and that is on no map and no /obstacles: only a laser sees it."""
    scenario = {"name": "unmapped_box", "time_step": 0.1, "max_time": 60.0,
                "defaults": {"radius": 0.2, "max_speed": 0.5, "pref_speed": 0.4,
                             "neighbor_dist": 4.0, "time_horizon": 3.0,
                             "time_horizon_obst": 1.5},
                "agents": [{"name": "west", "start": [-2.5, 0.0], "goal": [2.5, 0.0]},
                           {"name": "east", "start": [2.5, 0.6], "goal": [-2.5, 0.6]}],
                "unmapped_obstacles": [{"vertices": [[-0.3, -0.4], [0.3, -0.4], [0.3, 0.3],
                                                     [-0.3, 0.3]]}]}
    path = directory / "unmapped_box.yaml"
    path.write_text(yaml.safe_dump(scenario))
    return path


def write_warehouse_scenario(directory, cells=600, robots=4, seed=7, boxes=0, max_time=200.0):
    """Robots cross a warehouse of racks, pillars and a scanned map's speckle (the
    benchmarks' synthetic map, ``cells`` x ``cells`` at 5 cm, drawn with ``seed``) from
    the west aisle to the east one, each to the mirrored row: thousands of walls, every
    one from the map. ``boxes``: that many 0.4 m boxes on no map (``unmapped_obstacles``),
    on the floor nearest the straight ways of r0, r1, ..., a quarter, half, three
    quarters of the way along (for three)."""
    from orca_ros.core.maps import load_map
    from orca_ros.core.maps.synthetic import warehouse_map

    map_path = warehouse_map(directory / "warehouse.yaml", cells=cells, seed=seed)
    occupancy = load_map(map_path)
    size = cells * 0.05
    margin = size / 40.0

    def free(x, y, clear=0.45):  # the nearest point up the aisle that far from every cell
        while occupancy.occupied_distance(np.array([[x, y]]), 1.0)[0] < clear:
            y += 0.1
        return [round(float(x), 3), round(float(y), 3)]

    agents = []
    for i in range(robots):
        y = 2.0 * margin + (size - 4.0 * margin) * (i + 0.5) / robots
        agents.append({"name": f"r{i}", "start": free(margin + 0.3, y),
                       "goal": free(size - margin - 0.3, size - y)})
    scenario = {"name": "warehouse_crossing", "time_step": 0.1, "max_time": float(max_time),
                "defaults": {"radius": 0.2, "max_speed": 1.0, "pref_speed": 0.8},
                "map": map_path.name, "agents": agents}
    if boxes:
        scenario["unmapped_obstacles"] = []
        for k, agent in enumerate(agents[:boxes]):
            along = (k + 1) / (boxes + 1)
            x, y = free(*((1.0 - along) * np.array(agent["start"]) + along * np.array(
                agent["goal"])), clear=0.6)
            scenario["unmapped_obstacles"].append({"vertices": [
                [x - 0.2, y - 0.2], [x + 0.2, y - 0.2], [x + 0.2, y + 0.2], [x - 0.2, y + 0.2]]})
    path = directory / "warehouse_crossing.yaml"
    path.write_text(yaml.safe_dump(scenario))
    return path
