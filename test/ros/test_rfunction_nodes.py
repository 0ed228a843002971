"""The ``rfunction`` method in orca_node and through real nodes over DDS."""

import math

import pytest

from helpers.ros_helpers import params  # first: skips the module without rclpy
from helpers.orca_rig import Rig, goal, odom  # noqa: E402

from orca_ros.core.methods.rfunction import Rfunction  # noqa: E402
from orca_ros.fleet.plan import FleetOptions  # noqa: E402
from orca_ros.tools.harness import run_fleet  # noqa: E402

pytestmark = pytest.mark.ros


def test_orca_node_runs_rfunction_with_its_own_parameters(ros):
    rig = Rig(ros, method="rfunction", **{"rfunction.variant": "paper",
                                          "rfunction.backend": "template",
                                          "rfunction.template_slices": 20})
    method = rig.node.controller.method
    assert isinstance(method, Rfunction)
    assert (method.params.variant, method.params.backend) == ("paper", "template")
    assert method.params.template_slices == 20 and method.params.time_horizon == 3.0
    results = rig.node.set_parameters(params(**{"rfunction.variant": "sideways"}))
    assert not results[0].successful and "variant" in results[0].reason
    rig.goal.publish(goal(6.0, 0.0))
    cmd = rig.drive(0.6, odom(0.0, 0.0), odom(2.0, 0.0, yaw=math.pi, vx=1.0))
    assert abs(math.atan2(cmd.linear.y, cmd.linear.x)) > math.radians(10), \
        f"command {cmd.linear.x:.3f}, {cmd.linear.y:.3f} does not turn away"


@pytest.mark.parametrize("variant", ["orca", "paper"])
def test_rfunction_runs_a_scenario_through_real_nodes(variant):
    """fleet_sim and four orca_nodes running rfunction, judged by the independent observer."""
    run = run_fleet("crossing_4", FleetOptions(
        method="rfunction", speed_factor=2.0,
        robot_parameters=(("rfunction.variant", variant),)), observer=True)
    seen = run.summary["observer"]
    assert seen["arrived"] == seen["robots"] == 4, seen
    assert seen["colliding_pairs"] == 0, seen["collisions"]
