"""A robot's settings from its parameters, one way for every user: the
:class:`~.config.ControllerConfig` and :class:`~.cycle.PerceptionSettings` orca_node
runs with, the checks that join several parameters, a method's own arguments and the
neighbours' listed radii.

Each function takes ``params``, a mapping of parameter name to value (orca_node's
declared parameters; a plain dict in tests): the names and meanings are those of the
parameter table (:mod:`orca_ros.nodes.params.orca_node`, ``doc/parameters.md``).
"""

from __future__ import annotations

import dataclasses
import math
from collections import ChainMap
from typing import Any, Dict, Mapping, Optional, Tuple

from ..methods import method_names, method_spec
from .config import COMMAND_VALIDITY_PERIODS, ControllerConfig
from .cycle import PerceptionSettings
from .link_groups import parse_links

Params = Mapping[str, Any]


def method_parameter_defaults(method: str) -> dict:
    """A method's own parameters and their defaults as ROS parameter values (``[""]`` for
    an empty list), leaving out those orca_node has already (``time_horizon``, ...)."""
    robot = {f.name for f in dataclasses.fields(ControllerConfig)}
    defaults = {}
    for field in dataclasses.fields(method_spec(method).parameters):
        if field.name in robot:
            continue
        default = field.default if field.default is not dataclasses.MISSING \
            else field.default_factory()
        if isinstance(default, tuple):
            default = list(default) or [""]
        defaults[field.name] = default
    return defaults


def method_arguments(method: str, params: Params) -> dict:
    """The method's own arguments, from ``<method>.<field>`` where given; lists become
    tuples, ``[""]`` an empty one."""
    arguments = {}
    for field in method_parameter_defaults(method):
        name = f"{method}.{field}"
        if name not in params:
            continue
        value = params[name]
        if isinstance(value, (list, tuple)) or type(value).__name__ == "array":
            value = tuple(v for v in value if v != "")
        arguments[field] = value
    return arguments


def command_validity(params: Params) -> float:
    """How long (s) a command stands: ``command_validity``, 0 meaning two control periods."""
    return params["command_validity"] or COMMAND_VALIDITY_PERIODS / params["control_rate"]


NONE_WHEN_NEGATIVE = ("max_reverse_speed", "lag_error")
"""Parameters whose negative value (``-1``) means none: the field is ``None``."""


def _field(name: str, value: Any) -> Any:
    """A parameter's value as its :class:`~.config.ControllerConfig` field."""
    return None if name in NONE_WHEN_NEGATIVE and value < 0 else value


def controller_config(params: Params) -> ControllerConfig:
    """The controller's settings (a node's commands are acceleration limited)."""
    p = params
    method = p["method"]
    return ControllerConfig(
        radius=p["radius"], max_speed=max(p["max_speed"], 1e-6),
        pref_speed=max(p["pref_speed"], 1e-6), time_step=1.0 / p["control_rate"],
        neighbor_dist=p["neighbor_dist"], max_neighbors=p["max_neighbors"],
        time_horizon=p["time_horizon"], time_horizon_obst=p["time_horizon_obst"],
        kinematics=p["kinematics"], method=method,
        method_parameters=tuple(method_arguments(method, p).items()),
        safety_filter=p["safety_filter"], safety_margin_ratio=p["safety_margin_ratio"],
        margin_speed_ratio=p["margin_speed_ratio"], keep_right_deg=p["keep_right_deg"],
        stall_escape_deg=p["stall_escape_deg"], stall_escape_time=p["stall_escape_time"],
        stall_detour_time=p["stall_detour_time"],
        progress_escape_time=p["progress_escape_time"], goal_tolerance=p["goal_tolerance"],
        lookahead=p["lookahead"], max_angular_speed=p["max_angular_speed"],
        max_linear_accel=p["max_linear_accel"], max_angular_accel=p["max_angular_accel"],
        heading_time_constant=p["heading_time_constant"],
        max_reverse_speed=_field("max_reverse_speed", p["max_reverse_speed"]),
        tracking=p["tracking"], command_lag=p["command_lag"],
        lag_error=_field("lag_error", p["lag_error"]),
        command_validity=command_validity(p), accel_limited=True)


WORLD_PARAMETERS = ("safety_filter", "safety_margin_ratio", "margin_speed_ratio",
                    "keep_right_deg", "stall_escape_deg", "stall_escape_time",
                    "stall_detour_time", "progress_escape_time", "max_angular_speed",
                    "max_linear_accel", "max_angular_accel", "heading_time_constant",
                    "max_reverse_speed", "tracking", "command_lag", "lag_error")
"""orca_node's parameters that the world's controllers take as the node does (``orca-ros
bench --robot-param``): :func:`controller_config` passes them on under their own names.
The others come from the scenario (radius, speeds, horizons, goal tolerance), from the
world's step (``control_rate``), or concern ROS alone."""


def world_overrides(values: Params) -> Tuple[Tuple[str, Any], ...]:
    """The :class:`~.config.ControllerConfig` fields these orca_node parameter ``values``
    set in the world, read as :func:`controller_config` reads them (``-1`` for
    ``max_reverse_speed`` and ``lag_error``: none). Raises ``ValueError`` naming any
    parameter the world does not take (:data:`WORLD_PARAMETERS`)."""
    other = [name for name in values if name not in WORLD_PARAMETERS]
    if other:
        raise ValueError(f"the world takes these orca_node parameters from the scenario or "
                         f"not at all: {', '.join(other)} (it takes "
                         f"{', '.join(WORLD_PARAMETERS)})")
    return tuple((name, _field(name, value)) for name, value in values.items())


def perception_settings(params: Params) -> PerceptionSettings:
    """How the robot perceives its neighbours."""
    p = params
    return PerceptionSettings(
        neighbor_max_speed=p["neighbor_max_speed"], neighbor_timeout=p["neighbor_timeout"],
        detect_non_reciprocating=bool(p["detect_non_reciprocating"]),
        non_reciprocating=frozenset(n.strip("/") for n in p["non_reciprocating"] or [] if n),
        share_predictions=bool(p["share_predictions"]), odom_timeout=p["odom_timeout"],
        unannounced_reciprocate=not p["announce"],
        max_uncertainty=p["max_pose_uncertainty"])


def neighbor_radii(params: Params) -> Dict[str, float]:
    """Each listed neighbour's radius (m), from ``neighbor_radii`` (``[-1.0]``: none)."""
    values = list(params["neighbor_radii"])
    if values == [-1.0]:
        return {}
    names = [n.strip("/") for n in params["neighbors"] if n]
    return dict(zip(names, (float(r) for r in values)))


def cross_check(values: Params, params: Params) -> Optional[str]:
    """What is wrong when ``values`` are set over ``params`` (None: nothing): the checks
    that join several parameters (the table checks each alone)."""
    merged = ChainMap(dict(values), params)
    dimensions = merged.get("dimensions", 2)
    method = merged.get("method", "orca")
    if dimensions == 3:
        kinematics = merged.get("kinematics", "holonomic")
        if kinematics != "holonomic":
            return f"dimensions 3 (an aerial robot) is holonomic, not kinematics {kinematics}"
        if method not in method_names(ros=True, dimensions=3):
            return (f"method {method} has no 3D version; with dimensions 3: "
                    f"{', '.join(method_names(ros=True, dimensions=3))}")
    for name in {n.partition(".")[0] for n in values if "." in n}:
        if name in method_names():
            try:
                method_spec(name).create(**method_arguments(name, merged))
            except (TypeError, ValueError) as error:
                return f"{name} parameters: {error}"
    radii = list(merged.get("neighbor_radii", [-1.0]))
    if radii != [-1.0]:
        names = [n for n in merged.get("neighbors", [""]) if n]
        if len(radii) != len(names) or not all(math.isfinite(r) and r >= 0 for r in radii):
            return (f"neighbor_radii {radii} must be one radius >= 0 (m) per entry of "
                    f"neighbors {names}, or [-1.0]")
    if "links" in values:
        try:
            parse_links(values["links"], "links")
        except ValueError as error:
            return str(error)
    return None
