"""The parameter reference (doc/parameters.md): generated from the nodes' tables
(``python -m orca_ros.nodes.params``) without rclpy, and up to date on the tree.
(Each node declaring exactly its table: test/ros/test_params_tables.py.)"""

import importlib.machinery
import subprocess
import sys
import types

import pytest

from orca_ros.core.methods import method_names
from orca_ros.nodes.params import Param, reference
from orca_ros.nodes.params import fleet_sim as fleet_sim_table
from orca_ros.nodes.params import obstacle_server as obstacle_server_table
from orca_ros.nodes.params import supervisor_node as supervisor_table
from orca_ros.nodes.params import toio_bridge as toio_bridge_table

from helpers.paths import REPO

DOC = REPO / "doc" / "parameters.md"

# executable -> its table (orca_node's, per method, is checked apart below)
TABLES = {
    "fleet_sim": fleet_sim_table.PARAMETERS,
    "obstacle_server": obstacle_server_table.PARAMETERS,
    "supervisor_node": supervisor_table.PARAMETERS,
    "toio_bridge": toio_bridge_table.PARAMETERS,
}


def run_generator(*args):
    return subprocess.run([sys.executable, "-m", "orca_ros.nodes.params", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=60)


def test_the_reference_on_the_tree_is_up_to_date():
    done = run_generator("--check", str(DOC))
    assert done.returncode == 0, done.stdout + done.stderr
    assert DOC.read_text(encoding="utf-8") == reference.render()


def test_check_fails_with_a_diff_on_a_changed_copy(tmp_path):
    changed = tmp_path / "parameters.md"
    changed.write_text(DOC.read_text(encoding="utf-8").replace(
        "| `command_validity` | double | `0.25` |", "| `command_validity` | double | `0.5` |"),
        encoding="utf-8")
    assert changed.read_text(encoding="utf-8") != DOC.read_text(encoding="utf-8")
    done = run_generator("--check", str(changed))
    assert done.returncode == 1
    assert "-| `command_validity` | double | `0.5` |" in done.stdout
    assert "+| `command_validity` | double | `0.25` |" in done.stdout
    missing = run_generator("--check", str(tmp_path / "none.md"))
    assert missing.returncode == 1


def test_write_then_check(tmp_path):
    out = tmp_path / "p.md"
    assert run_generator("--write", str(out)).returncode == 0
    assert run_generator("--check", str(out)).returncode == 0
    printed = run_generator()
    assert printed.returncode == 0 and printed.stdout == out.read_text(encoding="utf-8")


def test_the_reference_lists_every_parameter_of_every_table_without_ros():
    """Generated without rclpy, one section per executable, every row of every table."""
    code = ("import sys; from orca_ros.nodes.params import reference as r; "
            "text = r.render(); "
            "assert not [m for m in sys.modules if m.split('.')[0] in ('rclpy', 'rcl_interfaces')]"
            ", sorted(m for m in sys.modules if m.startswith('rcl')); print(text, end='')")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    for executable in ("orca_node", "orca_robots", "fleet_sim", "obstacle_server",
                       "supervisor_node", "toio_bridge"):
        assert f"\n## {executable}\n" in text
    assert "`use_sim_time` (bool, default `false`)" in text.split("\n## ")[0]
    assert "| `use_sim_time` |" not in text
    for executable, table in TABLES.items():
        section = text.split(f"\n## {executable}\n")[1].split("\n## ")[0]
        for param in table:
            row = next(line for line in section.splitlines()
                       if line.startswith(f"| `{param.name}` |"))
            assert ("| read-only |" if param.read_only else "| live |") in row


def fake_orca_node_table():
    module = types.ModuleType(reference.ORCA_NODE_TABLE)
    module.__spec__ = importlib.machinery.ModuleSpec(reference.ORCA_NODE_TABLE, None)
    module.PARAMETERS = (Param("radius", 0.2, "the robot's radius (m)", range=(0.01, 10.0)),
                         Param("method", "orca", "the avoidance method",
                               choices=method_names(ros=True), read_only=True))
    module.method_parameters = lambda method: (
        (Param(f"{method}.samples", 10, f"{method}'s samples", range=(1, 100)),)
        if method != "direct" else ())
    return module


def test_orca_node_table_is_included_with_every_method(monkeypatch):
    monkeypatch.setitem(sys.modules, reference.ORCA_NODE_TABLE, fake_orca_node_table())
    text = reference.render()
    section = text.split("\n## orca_node\n")[1].split("\n## ")[0]
    assert "not there yet" not in section
    assert "| `radius` | double | `0.2` | 0.01 to 10 | live | the robot's radius (m) |" \
        in section
    assert "declares only the parameters of the method it runs" in section
    for method in method_names(ros=True):
        assert f"\n#### {method}\n" in section
        if method != "direct":
            assert f"| `{method}.samples` | int | `10` | 1 to 100 | live |" in section
    assert "#### direct\n\nNo parameters of its own." in section


def test_markdown_cells_are_escaped():
    row = reference.table((Param("x", "a|b", "one | two *three* <tag> $m$ _u_ a_b"),))
    cells = row.splitlines()[2]
    assert cells.count(" | ") == 5  # six cells: no pipe of the content splits the row
    assert r"one \| two \*three\* \<tag> \$m\$ \_u\_ a_b" in cells


@pytest.mark.parametrize("path, table", [
    ("config/orca_node.yaml", "orca_node"), ("config/fleet_sim.yaml", "fleet_sim"),
    ("config/nav2/orca_node.yaml", "orca_node")])
def test_the_shipped_parameter_files_hold_only_valid_parameters(path, table):
    """A parameters file the package ships is taken by its node as it is: every key a
    parameter of the node (or use_sim_time), every value of its type, range and choices."""
    import importlib

    import yaml

    from helpers.paths import REPO
    from orca_ros.nodes.params import check_values, table_by_name

    loaded = yaml.safe_load((REPO / path).read_text(encoding="utf-8"))
    values = next(iter(loaded.values()))["ros__parameters"]
    by_name = table_by_name(importlib.import_module(f"orca_ros.nodes.params.{table}").PARAMETERS)
    assert set(values) - set(by_name) <= {"use_sim_time"}, set(values) - set(by_name)
    assert check_values(by_name, values, started=False) is None


@pytest.mark.parametrize("method", method_names(ros=True))
def test_every_method_parameter_says_what_it_is(method):
    """A method's parameters are described by their fields (methods.base.parameter), not
    by a pointer back to the reference that lists them."""
    from orca_ros.nodes.params.orca_node import method_parameters

    for param in method_parameters(method):
        field = param.name.split(".", 1)[1]
        assert param.description != f"{method}'s {field}", param.name
        assert "see doc/parameters.md" not in param.description, param.name


def test_unknown_parameters_are_those_of_no_table():
    """orca_node's names, any method's ``<method>.<field>``, removed ones (their own message
    says what replaced them) and rclpy's are known; a misspelt name is not."""
    from orca_ros.nodes.params.orca_node import unknown_parameters

    known = ["radius", "max_pose_uncertainty", "hrvo.uncertainty_offset", "planner",
             "use_sim_time", "qos_overrides./a/odom.subscription.depth"]
    assert unknown_parameters(known) == []
    assert unknown_parameters(["max_uncertainty", "radius", "orca.nope", "radiuss"]) == \
        ["max_uncertainty", "orca.nope", "radiuss"]
