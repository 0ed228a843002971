"""No import circles in the package: the graph of which module imports which, read from
the source with ``ast``, has no cycle.

Every ``import`` and ``from ... import`` counts, wherever it stands: at module level, in
a function (a lazy import is still a dependency, only a later one) and under
``if TYPE_CHECKING:`` (a reader follows it all the same). ``from package import name``
is an edge to ``package.name`` when that is a module, else to the package. A package's
``__init__`` is not taken as imported by its modules unless one imports it: Python runs
it first, but nothing in it is used.
"""

import ast
import pathlib
from typing import Dict, List, Set

from helpers.paths import REPO

PACKAGE = "orca_ros"


def _modules() -> Dict[str, pathlib.Path]:
    modules = {}
    for path in sorted((REPO / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _imported(module: str, path: pathlib.Path, node: ast.AST, modules) -> List[str]:
    """The package's modules an import statement names."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
            base = base[:len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        names = [f"{prefix}.{alias.name}" if f"{prefix}.{alias.name}" in modules else prefix
                 for alias in node.names]
    found = []
    for name in names:
        while name and name not in modules:  # a name inside a module: the module
            name = name.rpartition(".")[0]
        if name and name != module:
            found.append(name)
    return found


def import_graph() -> Dict[str, Set[str]]:
    modules = _modules()
    graph: Dict[str, Set[str]] = {module: set() for module in modules}
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[module].update(_imported(module, path, node, modules))
    return graph


def cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """Each strongly connected group of more than one module (Tarjan), as one circle
    through it, sorted."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    groups: List[List[str]] = []

    def visit(start: str) -> None:  # iterative: the graph may be deeper than the recursion limit
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return [_circle(sorted(group), graph) for group in sorted(groups)]


def _circle(group: List[str], graph: Dict[str, Set[str]]) -> List[str]:
    """A shortest way from the group's first module back to itself (breadth first)."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & members):
                if child == start:
                    return paths[node] + [start]
                if child not in paths:
                    paths[child] = paths[node] + [child]
                    following.append(child)
        frontier = following
    return group


def test_the_package_has_no_import_circle():
    found = cycles(import_graph())
    assert not found, "import circles: " + "; ".join(" -> ".join(c) for c in found)


def test_a_circle_is_found_and_named():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c", "a"]]


def test_the_graph_sees_relative_lazy_and_package_imports():
    graph = import_graph()
    # a lazy relative import of a module, in a function
    assert "orca_ros.core.models.toio_cube" in graph["orca_ros.core.models.drive"]
    # from a package, a name that is a module of it
    assert "orca_ros.core.methods.registry" in graph["orca_ros.core.methods"]
    assert "orca_ros.fleet.nodespec" in graph["orca_ros.fleet.gazebo"]
