"""Each node's parameters in one declaration table, declared and validated in one place.

A table is a tuple of :class:`Param` (name, default, description, range or choices,
read-only or live), kept in a module of this package per node, with no rclpy import,
so the parameter reference in ``doc/parameters.md`` is generated from the very tables
the nodes declare (``python -m orca_ros.nodes.params --check doc/parameters.md``).

:func:`declare_table` declares a table on a node with descriptors (description, range,
``read_only``); :func:`check_values` is the one validation every node's
on-set-parameters callback runs first: a value of the wrong type, out of its range, not
one of its choices, or a change to a read-only parameter is refused with a reason that
names the parameter. A node adds only checks that join several parameters.

Parameters that are gone say what replaced them (:data:`Param.replaced_by`): a
parameters file that still sets one makes the node refuse to start, naming the
replacement, instead of being silently ignored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Sequence, Tuple, Union

Number = float


@dataclass(frozen=True)
class Param:
    """One parameter of a node.

    ``default``: a bool, int, float, str, or a list of str or of float (ROS's
    ``[""]`` / ``[-1.0]`` stand for an empty list, as a ROS array parameter cannot
    be empty and typed at once). ``range``: inclusive ``(low, high)`` for numbers;
    ``choices``: the strings it may take, or a function that gives them when asked
    (the registered avoidance methods: another package may add one). ``length``: how many
    values a list must have (a pose ``[x, y, yaw]``: 3). A number is always finite.
    ``description``
    may be such a function too. ``read_only``: read when the node starts (ROS refuses a
    later ``ros2 param set``); otherwise live. ``accepts``: a test of a value, for choices
    too costly to list at every start (another package's methods are found by reading
    every installed package's metadata): a value it accepts is taken without the choices
    being asked, and the node's descriptor does not list them (the description says
    what they are); a value it refuses is refused naming them.
    """

    name: str
    default: Any
    description: Union[str, Callable[[], str]]
    range: Optional[Tuple[Number, Number]] = None
    choices: Union[None, Tuple[str, ...], Callable[[], Tuple[str, ...]]] = None
    read_only: bool = False
    length: Optional[int] = None
    accepts: Optional[Callable[[Any], bool]] = None

    def describe(self) -> str:
        """The description (made now, if it is a function)."""
        return self.description() if callable(self.description) else self.description

    def allowed(self) -> Optional[Tuple[str, ...]]:
        """The choices (asked now, if they are a function), or None."""
        return tuple(self.choices()) if callable(self.choices) else self.choices

    def __post_init__(self) -> None:
        problem = value_problem(self, self.default)
        if problem is not None:
            raise ValueError(f"default of {self.name}: {problem}")

    @property
    def type_name(self) -> str:
        return type_name(self.default)

    @property
    def full_description(self) -> str:
        """The description as ``ros2 param describe`` shows it: with the choices (but
        those of a parameter with an ``accepts`` test)."""
        choices = None if self.accepts is not None else self.allowed()
        if choices:
            return f"{self.describe()} (one of: {', '.join(choices)})"
        return self.describe()


@dataclass(frozen=True)
class Removed:
    """A parameter that is gone, and what to set instead."""

    name: str
    replaced_by: str


def type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        inner = {type_name(v) for v in value} or {"string"}
        return f"{inner.pop()}[]" if len(inner) == 1 else "array"
    return type(value).__name__


def _same_kind(expected: Any, value: Any) -> bool:
    if isinstance(expected, bool):
        return isinstance(value, bool)
    if isinstance(expected, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(expected, float):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(expected, str):
        return isinstance(value, str)
    if isinstance(expected, (list, tuple)):
        if not isinstance(value, (list, tuple)) and type(value).__name__ != "array":
            return False
        return all(_same_kind(expected[0], v) for v in value) if expected else True
    return False


def value_problem(param: Param, value: Any) -> Optional[str]:
    """Why ``value`` cannot be this parameter's, or None."""
    if not _same_kind(param.default, value):
        return f"must be {param.type_name}, got {value!r}"
    values = list(value) if isinstance(value, (list, tuple)) or \
        type(value).__name__ == "array" else [value]
    if param.length is not None and len(values) != param.length:
        return f"must have {param.length} values, got {values!r}"
    if any(isinstance(v, float) and not math.isfinite(v) for v in values):
        return f"must be finite, got {values!r}"
    if param.range is not None:
        low, high = param.range
        for v in values:
            if not (math.isfinite(float(v)) and low <= v <= high):
                return f"must be within [{low:g}, {high:g}], got {value!r}"
    if param.accepts is not None and param.accepts(value):
        return None
    choices = param.allowed()
    if choices is not None and value not in choices:
        return f"must be one of {list(choices)}, got {value!r}"
    return None


def table_by_name(table: Iterable[Param]) -> Dict[str, Param]:
    by_name: Dict[str, Param] = {}
    for param in table:
        if param.name in by_name:
            raise ValueError(f"parameter {param.name} is declared twice")
        by_name[param.name] = param
    return by_name


def check_values(table: Mapping[str, Param], values: Mapping[str, Any],
                 started: bool = True) -> Optional[str]:
    """The reason to refuse these new ``values`` (name -> value), or None.

    Parameters not in ``table`` (``use_sim_time``, another node's) pass; with
    ``started`` a read-only parameter may not change at all."""
    for name, value in values.items():
        param = table.get(name)
        if param is None:
            continue
        if started and param.read_only:
            return f"{name} is read when the node starts; restart the node to change it"
        problem = value_problem(param, value)
        if problem is not None:
            return f"{name} {problem}"
    return None


def removed_problem(removed: Sequence[Removed], given: Iterable[str]) -> Optional[str]:
    """The reason to refuse a start whose parameters (``given`` names) set a removed one."""
    gone = {r.name: r for r in removed}
    for name in given:
        if name in gone:
            return (f"parameter {name} was removed: set {gone[name].replaced_by} instead")
    return None


def descriptor(param: Param):
    """The ``rcl_interfaces/ParameterDescriptor`` of a :class:`Param` (needs rclpy)."""
    from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor

    desc = ParameterDescriptor(description=param.full_description, read_only=param.read_only)
    if param.range is not None and isinstance(param.default, float):
        desc.floating_point_range = [FloatingPointRange(
            from_value=float(param.range[0]), to_value=float(param.range[1]), step=0.0)]
    elif param.range is not None and isinstance(param.default, int) \
            and not isinstance(param.default, bool):
        desc.integer_range = [IntegerRange(from_value=int(param.range[0]),
                                           to_value=int(param.range[1]), step=1)]
    if param.accepts is None and param.allowed():
        desc.additional_constraints = f"one of: {', '.join(param.allowed())}"
    return desc


def declare_table(node, table: Iterable[Param]) -> None:
    """Declare every parameter of ``table`` on ``node`` with its descriptor."""
    for param in table:
        default = list(param.default) if isinstance(param.default, tuple) else param.default
        node.declare_parameter(param.name, default, descriptor(param))


def check_start(node, table: Mapping[str, Param]) -> Optional[str]:
    """Why the values ``node`` started with (its parameters file, overrides) cannot be
    taken (ROS checks ranges only on later sets), or None."""
    values = {name: node.get_parameter(name).value for name in table
              if node.has_parameter(name)}
    return check_values(table, values, started=False)
