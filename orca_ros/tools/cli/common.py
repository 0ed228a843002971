"""What the verbs of ``orca-ros`` share: the rule for errors (a refusal, status 2; a bug,
status 70), the argument types, and the ``NAME=VALUE`` and ``--method`` options."""

from __future__ import annotations

import argparse
import sys


def internal_error(what: str) -> int:
    """The exception being handled, as a bug: its traceback, then ``orca-ros <what>:
    internal error ...`` on stderr; status :data:`~orca_ros.core.errors.INTERNAL_ERROR`."""
    import traceback

    from ...core.errors import INTERNAL_ERROR

    traceback.print_exc()
    print(f"orca-ros {what}: internal error: a bug in orca_ros, not a fault of the input; "
          "please report it with the traceback above", file=sys.stderr)
    return INTERNAL_ERROR


def refused(what: str, error: BaseException) -> int:
    """Status 2 and ``orca-ros <what>: <error>`` on stderr, for a bad input.

    Unless SIGINT or SIGTERM came first: then the error is the signal's
    KeyboardInterrupt in another guise (Python 3.11 wraps one raised in a class
    body's ``__set_name__``, as matplotlib's import runs, in a RuntimeError), and
    it goes on up to :func:`main`, which ends with status 0.
    """
    from ...nodes import stop

    if stop.requested():
        raise error
    print(f"orca-ros {what}: {error}", file=sys.stderr)
    return 2


def method_choice(args: argparse.Namespace, command: str) -> str:
    """``--method``, or the deprecated ``--planner direct`` (the same axis)."""
    planner = getattr(args, "planner", None)
    if planner is None:
        return args.method
    print(f"orca-ros {command}: --planner is deprecated, use --method "
          f"({'--method direct' if planner == 'direct' else 'it defaults to orca'})",
          file=sys.stderr)
    return "direct" if planner == "direct" else args.method


def name_values(entries, option: str = "--robot-param") -> tuple:
    """``NAME=VALUE`` entries (``--robot-param``, ``--method-param``), values read as YAML;
    a ``--robot-param`` orca_node has no parameter for is refused, naming it."""
    import yaml

    parameters = []
    for entry in entries or []:
        name, sep, value = entry.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"{option} {entry!r} is not NAME=VALUE")
        value = yaml.safe_load(value)
        if option == "--method-param" and isinstance(value, list):
            value = tuple(value)  # method parameters are frozen dataclasses
        parameters.append((name.strip(), value))
    if option == "--robot-param":
        from ...nodes.params.orca_node import unknown_parameters

        unknown = unknown_parameters(name for name, _ in parameters)
        if unknown:
            raise ValueError(f"{option}: orca_node has no parameter {', '.join(unknown)} "
                             "(orca_node's parameters: doc/parameters.md)")
    return tuple(parameters)


def robot_overrides(entries) -> tuple:
    """``--robot-param`` entries as the world's controller fields
    (:func:`~orca_ros.core.robot.settings.world_overrides`), each value checked against
    orca_node's declaration of it; ``ValueError`` names what is wrong."""
    from ...core.robot.settings import world_overrides
    from ...nodes.params import check_values, table_by_name
    from ...nodes.params.orca_node import PARAMETERS

    table = table_by_name(PARAMETERS)
    values = {}
    for name, value in name_values(entries):
        param = table.get(name)
        if param is not None and isinstance(param.default, float) and type(value) is int:
            value = float(value)  # YAML reads 0 as an int
        values[name] = value
    problem = check_values(table, values, started=False)
    if problem is not None:
        raise ValueError(f"--robot-param {problem}")
    return world_overrides(values)


def number_type(kind, minimum: float, above: bool = False):
    """An argparse type: a finite ``kind`` at least ``minimum`` (above it with ``above``);
    anything else is refused by argparse with the reason (status 2)."""
    def parse(text: str):
        import math

        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'a whole number' if kind is int else 'a number'}") from None
        if not math.isfinite(value) or value < minimum or (above and value == minimum):
            raise argparse.ArgumentTypeError(f"{text} is not {'>' if above else '>='} "
                                             f"{minimum:g}")
        return value
    return parse


COUNT = number_type(int, 1)
POSITIVE = number_type(float, 0.0, above=True)
NON_NEGATIVE = number_type(float, 0.0)


def method_help(names) -> str:
    from ...core.methods import method_summary

    return "avoidance method (default orca): " + "; ".join(
        f"{name}: {method_summary(name)}" for name in names)
