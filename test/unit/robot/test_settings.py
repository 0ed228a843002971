"""orca_node's settings from its parameters (core.robot.settings), with no ROS: the table's
defaults as a plain mapping, changed one name at a time."""

import pytest

from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.settings import (WORLD_PARAMETERS, command_validity,
                                          controller_config, cross_check, method_arguments,
                                          neighbor_radii, perception_settings,
                                          world_overrides)
from orca_ros.nodes.params.orca_node import PARAMETERS, method_parameters


def params(**changed):
    values = {p.name: p.default for p in PARAMETERS + method_parameters("orca")}
    values.update(changed)
    return values


def test_the_config_takes_each_parameter_by_its_name():
    config = controller_config(params(radius=0.31, max_speed=0.4, control_rate=20.0,
                                      max_reverse_speed=-1.0, lag_error=0.02))
    assert (config.radius, config.max_speed, config.time_step) == (0.31, 0.4, 0.05)
    assert config.max_reverse_speed is None and config.lag_error == 0.02
    assert config.accel_limited


OTHER_VALUES = {"safety_filter": "off", "tracking": "move2target", "max_reverse_speed": -1.0,
                "lag_error": 0.03}


@pytest.mark.parametrize("name", WORLD_PARAMETERS)
def test_the_world_reads_each_parameter_it_takes_as_orca_node_does(name):
    """``orca-ros bench --robot-param``: a value other than the default, set in the world's
    configuration, gives the field orca_node's configuration gets from it."""
    default = next(p.default for p in PARAMETERS if p.name == name)
    value = OTHER_VALUES.get(name, default + 0.5 if isinstance(default, float) else None)
    node = controller_config(params(**{name: value}))
    world = ControllerConfig(radius=0.2, max_speed=0.5, pref_speed=0.4, time_step=0.1,
                             **dict(world_overrides({name: value})))
    assert getattr(world, name) == getattr(node, name) != \
        getattr(controller_config(params()), name)


def test_the_world_refuses_a_parameter_it_takes_from_the_scenario_naming_it():
    with pytest.raises(ValueError, match="control_rate, radius"):
        world_overrides({"stall_detour_time": 0.0, "control_rate": 20.0, "radius": 0.3})


def test_a_speed_of_zero_stays_positive_and_a_zero_validity_is_two_periods():
    config = controller_config(params(max_speed=0.0, pref_speed=0.0, command_validity=0.0,
                                      control_rate=10.0))
    assert config.max_speed == 1e-6 and config.pref_speed == 1e-6
    assert command_validity(params(command_validity=0.0, control_rate=10.0)) == 0.2
    assert command_validity(params(command_validity=0.7)) == 0.7


def test_perception_strips_slashes_and_empty_names_and_follows_announce():
    settings = perception_settings(params(non_reciprocating=["/a", "", "b"], announce=True))
    assert settings.non_reciprocating == frozenset({"a", "b"})
    assert settings.unannounced_reciprocate is False


def test_method_arguments_take_given_fields_as_tuples_without_the_empty_entry():
    lookup = {"hrvo.unknown": 1, "orca.nothing": 2}
    assert method_arguments("orca", lookup) == {}
    fields = [p.name.partition(".")[2] for p in method_parameters("orca")]
    if fields:
        assert method_arguments("orca", {f"orca.{fields[0]}": 5})[fields[0]] == 5
    listed = [p for p in PARAMETERS + method_parameters("orca")
              if isinstance(p.default, list) and p.name.startswith("orca.")]
    for p in listed:
        assert method_arguments("orca", {p.name: ["x", ""]})[p.name[5:]] == ("x",)


def test_neighbor_radii_pair_names_and_radii_and_minus_one_means_none():
    assert neighbor_radii(params(neighbors=["/a", "b"], neighbor_radii=[0.5, 0.25])) == \
        {"a": 0.5, "b": 0.25}
    assert neighbor_radii(params(neighbors=["a"], neighbor_radii=[-1.0])) == {}


@pytest.mark.parametrize("values, problem", [
    ({"dimensions": 3, "kinematics": "diff_drive"}, "holonomic, not kinematics diff_drive"),
    ({"neighbor_radii": [0.3, 0.4]}, "one radius >= 0 (m) per entry"),
    ({"neighbor_radii": [-0.3], "neighbors": ["a"]}, "one radius >= 0 (m) per entry"),
    ({"links": "[{agents: [a]}]"}, "links"),
])
def test_cross_checks_refuse_values_that_do_not_fit_the_others(values, problem):
    found = cross_check(values, params(neighbors=[""]))
    assert found is not None and problem in found


def test_cross_checks_read_the_current_values_for_what_is_not_being_set():
    current = params(neighbors=["a", "b"])
    assert cross_check({"neighbor_radii": [0.3, 0.4]}, current) is None
    assert cross_check({"neighbor_radii": [0.3, 0.4]}, params(neighbors=["a"])) is not None
    assert cross_check({"dimensions": 3}, params(kinematics="holonomic")) is None
    assert "no 3D version" in cross_check({"dimensions": 3, "method": "hrvo"}, current)
