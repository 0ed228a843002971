"""fleet_sim's engine parameter: the kinematic engine never loads MuJoCo; engine mujoco
moves the robots, and refuses a robot model file it cannot use, naming it.

Each check makes one fleet_sim in a fresh process (sys.modules then tells what it
imported); the runs through the engine are in doc/nodes/fleet_sim_physics.md.
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

from orca_ros.nodes.fleet_sim import FleetSim

rclpy.init()
out = {}
try:
    node = FleetSim(parameter_overrides=[
        Parameter(name, value=value) for name, value in json.loads(sys.argv[1]).items()])
    for _ in range(5):
        node.commands = {name: ((0.3, 0.0, 0.0, 0.0), node.sim_time) for name in node.names}
        node.step()
    out["moved"] = float(node.bodies[0].vx)
    node.destroy_node()
except ValueError as error:
    out["error"] = str(error)
finally:
    rclpy.shutdown()
out["mujoco"] = "mujoco" in sys.modules
print(json.dumps(out))
"""


def start(**parameters) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    done = subprocess.run([sys.executable, "-c", START, json.dumps(parameters)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_kinematic_engine_never_loads_mujoco():
    out = start(scenario="corridor_wall", kinematics="diff_drive")
    assert out["moved"] > 0.0 and not out["mujoco"]


def test_engine_mujoco_moves_the_robots_and_refuses_a_missing_model_naming_it(tmp_path):
    pytest.importorskip("mujoco")
    out = start(scenario="corridor_wall", kinematics="diff_drive", engine="mujoco")
    assert out["moved"] > 0.05 and out["mujoco"]
    missing = tmp_path / "my_robot.xml"
    out = start(scenario="corridor_wall", kinematics="diff_drive", engine="mujoco",
                robot_model_diff_drive=str(missing))
    assert out["error"] == f"robot model {missing}: no such file"
