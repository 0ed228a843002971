"""Small scenarios several test modules use."""

from orca_ros.core.scenario.loader import parse_scenario


def two_cube_scenario():
    """Two toio cubes 0.2 m apart on the collection ring mat, swapping places."""
    return parse_scenario({
        "name": "two_cubes", "time_step": 0.05, "max_time": 6.0, "goal_tolerance": 0.01,
        "defaults": {"radius": 0.023, "max_speed": 0.12, "pref_speed": 0.1,
                     "neighbor_dist": 0.3, "time_horizon": 2.0, "time_horizon_obst": 1.0},
        "agents": [{"name": "a", "start": [0.20, -0.30], "goal": [0.40, -0.28]},
                   {"name": "b", "start": [0.40, -0.30], "goal": [0.20, -0.32]}],
        "toio": {"mat": "collection_ring", "mm_per_unit": 1.38}})


def linked_scenario(tmp_path):
    """Five robots, two linked pairs crossing and one alone, written to ``tmp_path``."""
    path = tmp_path / "linked.yaml"
    path.write_text(
        "name: linked\ntime_step: 0.1\nmax_time: 30\n"
        "defaults: {radius: 0.2, max_speed: 0.5}\nagents:\n"
        "  - {name: a0, start: [-3, 0.4], goal: [3, 0.4]}\n"
        "  - {name: a1, start: [-3, -0.4], goal: [3, -0.4]}\n"
        "  - {name: b0, start: [0.4, -3], goal: [0.4, 3]}\n"
        "  - {name: b1, start: [-0.4, -3], goal: [-0.4, 3]}\n"
        "  - {name: solo, start: [3, 3], goal: [-3, -3]}\n"
        "links:\n"
        "  - {agents: [a0, a1], max_length: 1.2, rest_length: 0.8}\n"
        "  - {agents: [b0, b1], max_length: 1.0}\n")
    return path
