"""What an orca_node process imports to start: what its method and inputs need, no more.

Each check starts a fresh Python process (sys.modules then tells what the start imported)
that imports :mod:`orca_ros.nodes.orca_node` and makes one node with the given parameters.
Whether those nodes work (another method, scan_obstacles, dimensions 3) is what
test_nodes.py, test_nodes_3d.py and test_rfunction_nodes.py check.
"""

import json
import os
import subprocess
import sys

import pytest

from helpers.paths import REPO

pytestmark = pytest.mark.ros

START = """\
import json
import sys

import rclpy
from rclpy.parameter import Parameter

import orca_ros.nodes.orca_node as orca_node

imported = sorted(sys.modules)
rclpy.init()
try:
    node = orca_node.OrcaNode(parameter_overrides=[
        Parameter(name, value=value) for name, value in json.loads(sys.argv[1]).items()])
    started = sorted(sys.modules)
    node.destroy_node()
finally:
    rclpy.shutdown()
from orca_ros.core.methods import registry
print(json.dumps({"imported": imported, "started": started,
                  "entry_points_read": [str(registry._loaded)]}))
"""

# Never at a node's start: plotting, maps and their libraries, the simulated world.
HEAVY = ("scipy", "matplotlib", "skimage", "shapely", "PIL", "tqdm", "orca_ros.core.sim",
         "orca_ros.core.maps")
METHOD_MODULES = ("orca_ros.core.methods.orca", "orca_ros.core.methods.direct",
                  "orca_ros.core.methods.navigator", "orca_ros.core.methods.rvo_sampling",
                  "orca_ros.core.methods.hrvo", "orca_ros.core.methods.rfunction",
                  "orca_ros.core.sim.backends.rvo2")
# What only some starts need: a scan_obstacles robot's first scan, a toio cube's drive
# model, an aerial robot, a robot with links.
INPUT_MODULES = ("orca_ros.core.maps.scan", "orca_ros.core.models.toio_cube",
                 "orca_ros.core.robot.aerial", "orca_ros.core.scenario.loader")


def start(**parameters) -> dict:
    """``imported`` (after the import) and ``started`` (after the node is made): the
    modules of a fresh process that starts one orca_node with ``parameters``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    done = subprocess.run([sys.executable, "-c", START, json.dumps(parameters)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return {stage: set(modules) for stage, modules in report.items()}


def _within(modules, packages):
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


def test_a_default_node_start_imports_only_its_method_and_no_heavy_library():
    modules = start()
    for stage in ("imported", "started"):
        assert _within(modules[stage], HEAVY) == [], stage
        assert _within(modules[stage], INPUT_MODULES) == [], stage
    assert _within(modules["started"], METHOD_MODULES) == ["orca_ros.core.methods.orca"]
    # The import alone loads no method: the node's parameters choose one.
    assert _within(modules["imported"], METHOD_MODULES) == []
    # A built-in method is known without reading every installed package's metadata
    # (other packages' entry points: tens of milliseconds of the start).
    assert modules["entry_points_read"] == {"False"}


def test_a_node_imports_the_modules_of_the_method_and_inputs_it_is_given():
    toio = start(method="hrvo", kinematics="diff_drive", drive_model="toio",
                 scan_obstacles=True, links='[{agents: [orca_node, b], max_length: 1.0}]')
    assert _within(toio["started"], METHOD_MODULES) == ["orca_ros.core.methods.hrvo",
                                                        "orca_ros.core.methods.rvo_sampling"]
    # A toio cube's drive model; links are read without the scenario loader.
    assert _within(toio["started"], INPUT_MODULES) == ["orca_ros.core.models.toio_cube"]
    # The laser's walls come with the first scan (test_nodes.py), not at the start.
    assert _within(toio["started"], HEAVY) == []

    aerial = start(method="rfunction", dimensions=3)
    assert _within(aerial["started"], METHOD_MODULES) == ["orca_ros.core.methods.orca",
                                                          "orca_ros.core.methods.rfunction"]
    assert _within(aerial["started"], INPUT_MODULES) == ["orca_ros.core.robot.aerial"]
    assert _within(aerial["started"], HEAVY) == []
