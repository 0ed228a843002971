"""The parameter reference (``doc/parameters.md``), generated from the nodes' tables.

``python -m orca_ros.nodes.params`` prints it as Markdown (MyST, for the Sphinx
site); ``--write PATH`` writes it; ``--check PATH`` exits 1 with a unified diff when
the file is not what the tables give (CI runs it on ``doc/parameters.md``). Needs no
ROS: the tables are plain Python.

orca_node's table (:mod:`orca_ros.nodes.params.orca_node`: ``PARAMETERS`` and
``method_parameters(method)``) is included when that module is there; until then its
section says that it is missing.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import importlib.util
import json
import pathlib
import re
import sys
import textwrap
from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Sequence

from . import Param, Removed

PACKAGE = __name__.rpartition(".")[0]  # orca_ros.nodes.params
ORCA_NODE_TABLE = f"{PACKAGE}.orca_node"
DEFAULT_PATH = "doc/parameters.md"
COLUMNS = ("name", "type", "default", "range or choices", "live or read-only", "description")
WIDTH = 84  # paragraphs are wrapped at this column (tables are not)


@dataclass(frozen=True)
class Executable:
    """One section of the reference: an executable and the node it runs."""

    name: str
    node: str  # the node's default name
    table: Optional[str]  # module of its table in this package; None: no parameters of its own
    summary: str


EXECUTABLES = (
    Executable("orca_node", "orca_node", "orca_node",
               "One robot's collision avoidance: its odometry, its neighbours' odometry, "
               "goals and walls in, `cmd_vel` out."),
    Executable("orca_robots", "orca_node", None,
               "Several robots' `orca_node`s in one process (`--robots a b c`)."),
    Executable("fleet_sim", "fleet_sim", "fleet_sim",
               "The kinematic simulator of a scenario's robots: odometry, `/clock`, "
               "ground-truth collision counts on `/diagnostics`."),
    Executable("obstacle_server", "obstacle_server", "obstacle_server",
               "Publishes walls (a scenario's polygons, an obstacles file, a toio mat's "
               "edges) as one latched marker on `/obstacles`."),
    Executable("supervisor_node", "supervisor", "supervisor_node",
               "The central virtual-cocoon conflict resolver: speed limits and detours for "
               "robots that would collide."),
    Executable("toio_bridge", "toio_bridge", "toio_bridge",
               "Sony toio Core Cubes as ROS 2 robots, over Bluetooth LE or simulated."),
    Executable("straight_driver", "straight_driver", "straight_driver",
               "A naive controller for filter mode: each robot's `cmd_vel_in` straight at "
               "its scenario goal, blind to everyone else."),
)

INTRO = f"""\
# Parameters

This page is generated from the parameter declaration tables in
`orca_ros/nodes/params/`, the very tables the nodes declare their parameters from:
`python -m {PACKAGE} --write {DEFAULT_PATH}` writes it, and CI checks
that it is up to date with `--check {DEFAULT_PATH}`. Do not edit it by hand.

A **live** parameter can be changed while the node runs (`ros2 param set`); a
**read-only** one is read when the node starts: give it in a parameters file or with
`--ros-args -p name:=value`, and `ros2 param set` refuses it. A value of the wrong
type, outside its range, not one of its choices, not finite (NaN, inf) or a list of
the wrong length is refused with a reason that names
the parameter, both at start (the node exits with status 2) and on a later set. A
list whose default is `[""]` (or `[-1.0]`) is empty: a ROS array parameter cannot be
empty and typed at once.

Besides the parameters below, rclpy declares `use_sim_time` (bool, default `false`)
on every node: with `true` the node's clock follows `/clock`, which `fleet_sim` and a
`toio_bridge` with simulated cubes publish. From Jazzy on it also declares
`start_type_description_service` (bool, default `true`, read-only): whether the node
offers the `~/get_type_description` service.
"""


def _escape(text: str) -> str:
    """Plain text for a Markdown table cell: characters Markdown would read as markup
    are escaped (the descriptions are ``ros2 param describe``'s plain text)."""
    text = re.sub(r"([\\`*<|$])", r"\\\1", text)
    text = text.replace("](", "]\\(")
    return re.sub(r"(?<!\w)_|_(?!\w)", r"\\_", text)


def _code(text: str) -> str:
    """An inline code span (no pipe may be in it: a table would split there)."""
    if "|" in text or "`" in text:
        return _escape(text)
    return f"`{text}`"


def format_value(value: Any) -> str:
    """A value as it is written in a parameters file (YAML flow style)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return str(value)


def _paragraph(text: str) -> str:
    return textwrap.fill(text, WIDTH, break_long_words=False, break_on_hyphens=False) + "\n"


def _number(value: float) -> str:
    return f"{value:g}"


def _limits(param: Param) -> str:
    if param.range is not None:
        low, high = param.range
        return f"{_number(low)} to {_number(high)}"
    if param.allowed():
        return ", ".join(_code(choice) for choice in param.allowed())
    if param.length is not None:
        return f"{param.length} values"
    return ""


def table(params: Sequence[Param]) -> str:
    """A Markdown table of ``params``: name, type, default, range or choices, live or
    read-only, description."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for param in params:
        cells = (_code(param.name), param.type_name, _code(format_value(param.default)),
                 _limits(param), "read-only" if param.read_only else "live",
                 _escape(param.describe()))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _removed(removed: Iterable[Removed]) -> str:
    gone = list(removed)
    if not gone:
        return ""
    lines = [_paragraph("Removed parameters: a parameters file that still sets one makes "
                        "the node refuse to start, naming what to set instead.")]
    lines += [f"- {_code(r.name)}: set {_code(r.replaced_by)} instead" for r in gone]
    return "\n".join(lines) + "\n"


def _table_module(name: str):
    """The table module ``name`` of this package, or None if it is not there (an
    error inside a module that is there is raised, never hidden)."""
    full = f"{PACKAGE}.{name}"
    if importlib.util.find_spec(full) is None:
        return None
    return importlib.import_module(full)


def _methods() -> Sequence[str]:
    from ...core.methods import method_names

    return method_names(ros=True)


def _orca_node_section(module) -> List[str]:
    parts = [table(module.PARAMETERS)]
    removed = _removed(getattr(module, "REMOVED", ()))
    if removed:
        parts.append(removed)
    parts.append("### Method parameters\n\n" + _paragraph(
        "Each avoidance method has parameters of its own, named `<method>.<field>`. "
        "orca_node declares only the parameters of the method it runs (its `method` "
        "parameter); the other methods' are not declared on it. Per method that orca_node "
        "can run:"))
    for method in _methods():
        params = tuple(module.method_parameters(method))
        body = table(params) if params else "No parameters of its own.\n"
        parts.append(f"#### {method}\n\n{body}")
    return parts


def render() -> str:
    """The whole reference, as ``doc/parameters.md`` holds it."""
    sections = [INTRO]
    for exe in EXECUTABLES:
        parts = [f"## {exe.name}\n\n" + _paragraph(f"{exe.summary} Node name: `{exe.node}`.")]
        if exe.table is None:
            parts.append(_paragraph(
                "It has no parameters of its own: each robot's node is an `orca_node`, with "
                "the parameters listed under orca_node, given per node in a parameters file "
                "keyed by the node's full name (`/a/orca_node:`)."))
        else:
            module = _table_module(exe.table)
            if module is None:
                parts.append("```{note}\n" + _paragraph(
                    f"The parameter table of {exe.name} (`orca_ros/nodes/params/"
                    f"{exe.table}.py`) is not there yet, so its parameters are not listed "
                    "here.") + "```\n")
            elif exe.table == "orca_node":
                parts.extend(_orca_node_section(module))
            else:
                parts.append(table(module.PARAMETERS))
                removed = _removed(getattr(module, "REMOVED", ()))
                if removed:
                    parts.append(removed)
        sections.append("\n".join(parts))
    return "\n".join(sections)


def check(path: pathlib.Path, text: str) -> Optional[str]:
    """A unified diff from the file at ``path`` to ``text``, or None if they are equal."""
    try:
        current = path.read_text(encoding="utf-8")
    except OSError as error:
        return f"{path}: {error}\n"
    if current == text:
        return None
    return "".join(difflib.unified_diff(
        current.splitlines(keepends=True), text.splitlines(keepends=True),
        fromfile=str(path), tofile=f"{path} (generated from the parameter tables)"))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog=f"python -m {PACKAGE}",
        description="the parameter reference of every node, as Markdown (MyST), from the "
                    "nodes' parameter declaration tables")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", metavar="PATH", help="write it to this file")
    group.add_argument("--check", metavar="PATH",
                       help="exit 1 with a unified diff if this file differs from it")
    args = parser.parse_args(argv)
    text = render()
    if args.write:
        pathlib.Path(args.write).write_text(text, encoding="utf-8")
    elif args.check:
        diff = check(pathlib.Path(args.check), text)
        if diff is not None:
            sys.stdout.write(diff)
            sys.stderr.write(f"{args.check} is not what the parameter tables give; "
                             f"regenerate it: python -m {PACKAGE} --write {args.check}\n")
            return 1
    else:
        sys.stdout.write(text)
    return 0
