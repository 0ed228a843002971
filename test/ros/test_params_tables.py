"""Each node declares exactly its parameter table and refuses what the table forbids, over
DDS. (The parameter reference doc/parameters.md the tables give, without ROS:
test/unit/nodes/test_params_reference.py.)"""

import array
import re

import pytest

from helpers.ros_helpers import params  # first: skips the module without rclpy

from rclpy.exceptions import ParameterException  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rosgraph_msgs.msg import Clock as ClockMsg  # noqa: E402

from orca_ros.nodes.fleet_sim import FleetSim  # noqa: E402
from orca_ros.nodes.obstacle_server import ObstacleServer  # noqa: E402
from orca_ros.nodes.params import fleet_sim as fleet_sim_table  # noqa: E402
from orca_ros.nodes.params import obstacle_server as obstacle_server_table  # noqa: E402
from orca_ros.nodes.params import supervisor_node as supervisor_table  # noqa: E402
from orca_ros.nodes.params import toio_bridge as toio_bridge_table  # noqa: E402
from orca_ros.nodes.supervisor_node import SupervisorNode  # noqa: E402
from orca_ros.nodes.toio_bridge import ToioBridge  # noqa: E402

pytestmark = pytest.mark.ros

CUBE = ["c1=sim:0.34,-0.34,0.0"]

# node class, its table, overrides it needs to start (the rest stays at the defaults)
NODES = {
    "fleet_sim": (FleetSim, fleet_sim_table.PARAMETERS, {}),
    "obstacle_server": (ObstacleServer, obstacle_server_table.PARAMETERS, {}),
    "supervisor_node": (SupervisorNode, supervisor_table.PARAMETERS, {}),
    # toio_bridge needs cubes or a scenario: once each, so both defaults are checked
    "toio_bridge/cubes": (ToioBridge, toio_bridge_table.PARAMETERS, {"cubes": CUBE}),
    "toio_bridge/scenario": (ToioBridge, toio_bridge_table.PARAMETERS,
                             {"scenario": "toio_ring_swap_6"}),
}


def start(ros, key, **more):
    node_class, table, overrides = NODES[key]
    settings = dict(overrides, **more)
    return ros.add(node_class(context=ros.context, parameter_overrides=params(**settings))), table


def plain(value):
    return list(value) if isinstance(value, (list, tuple, array.array)) else value


@pytest.mark.parametrize("key", sorted(NODES))
def test_a_node_declares_exactly_its_table(ros, key):
    node, table = start(ros, key)
    overridden = set(NODES[key][2])
    # what rclpy declares on every node: use_sim_time (and, from Jazzy on,
    # start_type_description_service)
    by_rclpy = set(ros.node("bare")._parameters)
    assert "use_sim_time" in by_rclpy
    declared = set(node._parameters) - by_rclpy
    assert declared == {p.name for p in table}
    listed = set(node.list_parameters([], 0).names) - by_rclpy
    assert listed == declared
    for param in table:
        described = node.describe_parameter(param.name)
        assert described.description == param.full_description, param.name
        assert described.read_only == param.read_only, param.name
        ranges = list(described.floating_point_range) + list(described.integer_range)
        if param.range is None:
            assert not ranges, param.name
        else:
            assert [(r.from_value, r.to_value) for r in ranges] == [param.range], param.name
        if param.name not in overridden:
            value = plain(node.get_parameter(param.name).value)
            assert value == plain(param.default), param.name
            assert type(value) is type(plain(param.default)), param.name


# per node: (live parameter, a value out of its range, a good value), a read-only
# parameter and a new value for it, and a parameter with choices and a wrong choice
REFUSALS = {
    "fleet_sim": (("command_validity", 100.0, 0.3), ("max_linear_accel", 2.0),
                  ("kinematics", "tank")),
    "obstacle_server": (("republish_period", -1.0, None), ("scenario", "corridor_wall"), None),
    "supervisor_node": (("robot_radius", 0.0, 0.3), ("horizon", 10.0), ("mode", "guess")),
    "toio_bridge/cubes": (("command_validity", 11.0, 0.25), ("cubes", ["c2=simulated"]), None),
}


def refused(node, name, value):
    before = plain(node.get_parameter(name).value)
    [result] = node.set_parameters([Parameter(name, value=value)])
    assert not result.successful, f"{name} := {value!r} was taken"
    assert name in result.reason, result.reason
    assert plain(node.get_parameter(name).value) == before
    return result.reason


@pytest.mark.parametrize("key", sorted(REFUSALS))
def test_a_node_refuses_what_its_table_forbids_and_keeps_running(ros, key):
    node, table = start(ros, key)
    by_name = {p.name: p for p in table}
    (ranged, outside, good), (fixed, new), choice = REFUSALS[key]
    assert by_name[fixed].read_only and by_name[ranged].range is not None
    low, high = by_name[ranged].range
    assert not low <= outside <= high
    refused(node, ranged, outside)
    reason = refused(node, fixed, new)
    assert "read-only" in reason or "read when the node starts" in reason
    if choice is not None:
        name, wrong = choice
        assert by_name[name].choices and wrong not in by_name[name].choices
        refused(node, name, wrong)
    # ... and the node goes on: it spins, and takes a good value of a live parameter.
    ros.spin_for(0.3)
    if good is not None:
        [result] = node.set_parameters([Parameter(ranged, value=good)])
        assert result.successful, result.reason
        assert node.get_parameter(ranged).value == good
    assert node.context.ok()


def test_the_on_set_callback_refuses_by_the_table_itself(ros):
    """The nodes' own check (check_values), not only ROS's descriptors: a read-only
    parameter, a value out of range and a wrong choice, each named."""
    for key in ("fleet_sim", "obstacle_server", "supervisor_node", "toio_bridge/cubes"):
        node, table = start(ros, key)
        for param in table:
            result = node._check_parameters([Parameter(param.name, value=param.default)])
            if param.read_only:
                assert not result.successful and param.name in result.reason
                assert "read when the node starts" in result.reason
            else:
                assert result.successful, result.reason
            if not param.read_only and param.range is not None:
                high = param.range[1] * 2 + 1
                outside = type(param.default)(high)
                result = node._check_parameters([Parameter(param.name, value=outside)])
                assert not result.successful and param.name in result.reason
                assert "within" in result.reason


def test_fleet_sim_keeps_running_after_refusals(ros):
    sim, _ = start(ros, "fleet_sim")
    clocks = []
    ros.node("clock_listener").create_subscription(ClockMsg, "/clock", clocks.append, 10)
    refused(sim, "command_validity", 1000.0)
    refused(sim, "kinematics", "tank")
    refused(sim, "speed_factor", 2.0)
    assert ros.spin_until(lambda: len(clocks) > 3, 10.0)
    seen = len(clocks)
    assert ros.spin_until(lambda: len(clocks) > seen + 3, 10.0)


@pytest.mark.parametrize("node_class, name, wrong", [
    (FleetSim, "kinematics", "tank"),
    (SupervisorNode, "mode", "guess"),
    (SupervisorNode, "yield_mode", "dance"),
])
def test_a_wrong_choice_is_refused_at_start(ros, node_class, name, wrong):
    # check_values' words (the list, not a tuple of the core's own checks)
    with pytest.raises(ValueError, match=re.escape(f"{name} must be one of [")):
        node_class(context=ros.context, parameter_overrides=params(**{name: wrong}))


@pytest.mark.parametrize("node_class, name, value", [
    (ObstacleServer, "mm_per_unit", 1000.0),
    (ToioBridge, "command_duration_ms", 5),
    (FleetSim, "goal_subscribers", 0),
])
def test_a_value_out_of_range_is_refused_at_start(ros, node_class, name, value):
    with pytest.raises((ValueError, ParameterException), match=name):
        node_class(context=ros.context, parameter_overrides=params(**{name: value}))
