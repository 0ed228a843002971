"""Replay single-step ORCA cases recorded from RVO2 or RVO2-3D (the JSON Lines format:
doc/development.md, "Conformance cases").

A case is 3D when its agent's position has three components; it is then
solved by :func:`~orca_ros.core.orca.orca3d.compute_new_velocity_3d` (RVO2-3D has
no obstacles: a 3D case with any is refused), else by
:func:`~orca_ros.core.orca.orca2d.compute_new_velocity`. One file may mix both.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Union

from ..errors import InputError
from ..geometry.obstacles import build_obstacle_edges
from .orca2d import OrcaOptions, OrcaResult, STRICT_RVO2, compute_new_velocity
from .orca3d import Orca3DResult, compute_new_velocity_3d
from ..geometry.types import AgentState, AgentState3D, NeighborState, NeighborState3D, Segment

DEFAULT_TOLERANCE = 1e-3


@dataclass
class CaseOutcome:
    case_id: str
    category: str
    error: float
    error_f64: Optional[float]
    fallback_expected: Optional[bool]
    fallback_used: bool
    passed: bool


@dataclass
class CategoryReport:
    category: str
    outcomes: List[CaseOutcome] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(o.passed for o in self.outcomes)

    @property
    def failed(self) -> int:
        return len(self.outcomes) - self.passed

    @property
    def worst_error(self) -> float:
        return max((o.error for o in self.outcomes), default=0.0)

    @property
    def worst_error_f64(self) -> float:
        return max((o.error_f64 for o in self.outcomes if o.error_f64 is not None), default=0.0)


def load_cases(path: str) -> List[dict]:
    """Read a JSON Lines file of cases; blank lines are skipped. A line that is not JSON,
    or a case without the fields its solver reads (:func:`check_case`), is refused with
    :class:`~orca_ros.core.errors.InputError` naming the file and line."""
    cases = []
    with open(path, encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
            except json.JSONDecodeError as error:
                raise InputError(f"{path}:{line_no}: not valid JSON: {error}") from None
            problem = check_case(case)
            if problem:
                raise InputError(f"{path}:{line_no}: case {_case_id(case)}: {problem}")
            cases.append(case)
    return cases


AGENT_FIELDS = {"position": "vector", "velocity": "vector", "pref_velocity": "vector",
                "radius": "number", "max_speed": "number", "time_horizon": "number",
                "neighbor_dist": "number", "max_neighbors": "number"}
"""The agent's fields every case needs, and their kinds; a 2D case also
``time_horizon_obst``."""


def _case_id(case) -> str:
    return str(case.get("id", "?")) if isinstance(case, dict) else "?"


def _kind_problem(value, kind: str, size: Optional[int] = None) -> Optional[str]:
    """What is wrong with ``value`` as a finite number or a vector of ``size`` of them."""
    def number(x) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)

    if kind == "number":
        return None if number(value) else f"{value!r} is not a finite number"
    if not isinstance(value, list) or not all(number(x) for x in value):
        return f"{value!r} is not a list of finite numbers"
    if size is not None and len(value) != size:
        return f"{value!r} has {len(value)} components, not {size}"
    if len(value) not in (2, 3):
        return f"{value!r} has {len(value)} components, not 2 or 3"
    return None


def check_case(case) -> Optional[str]:
    """What makes ``case`` unusable (None when nothing does): an agent, a ``time_step``
    and an ``expected_velocity`` of the agent's dimensions, neighbours with
    position, velocity and radius, obstacles with ``a`` and ``b`` (2D only)."""
    if not isinstance(case, dict):
        return "not a JSON object"
    agent = case.get("agent")
    if not isinstance(agent, dict):
        return "no 'agent' object"
    fields = dict(AGENT_FIELDS)
    dims = len(agent["position"]) if isinstance(agent.get("position"), list) else None
    if dims == 2:
        fields["time_horizon_obst"] = "number"
    for name, kind in fields.items():
        if name not in agent:
            return f"agent lacks '{name}'"
        problem = _kind_problem(agent[name], kind, dims if kind == "vector" else None)
        if problem:
            return f"agent '{name}': {problem}"
    for name, kind in (("time_step", "number"), ("expected_velocity", "vector")):
        if name not in case:
            return f"lacks '{name}'"
        problem = _kind_problem(case[name], kind, dims if kind == "vector" else None)
        if problem:
            return f"'{name}': {problem}"
    for k, neighbor in enumerate(case.get("neighbors") or []):
        if not isinstance(neighbor, dict):
            return f"neighbour #{k} is not an object"
        for name, kind in (("position", "vector"), ("velocity", "vector"), ("radius", "number")):
            problem = (f"lacks '{name}'" if name not in neighbor else
                       _kind_problem(neighbor[name], kind, dims if kind == "vector" else None))
            if problem:
                return f"neighbour #{k} '{name}': {problem}"
    for k, obstacle in enumerate(case.get("obstacles") or []):
        if dims == 3:
            return "3D cases have no obstacles (RVO2-3D has none)"
        if not isinstance(obstacle, dict):
            return f"obstacle #{k} is not an object"
        for name in ("a", "b"):
            problem = (f"lacks '{name}'" if name not in obstacle else
                       _kind_problem(obstacle[name], "vector", 2))
            if problem:
                return f"obstacle #{k} '{name}': {problem}"
    try:  # the values the states themselves refuse (a negative radius, ...)
        case_states(case)
    except ValueError as error:
        return str(error)
    return None


def is_3d_case(case: dict) -> bool:
    """Whether a recorded case is RVO2-3D's (its agent's position has three components)."""
    try:
        return len(case["agent"]["position"]) == 3
    except (KeyError, TypeError):
        return False


def case_states(case: dict):
    """A case's agent, neighbours and (2D) obstacle edges as the solvers take them; the
    states check their own values (a negative radius raises ``ValueError``)."""
    a = case["agent"]
    if is_3d_case(case):
        if case.get("obstacles"):
            raise ValueError(f"case {case.get('id', '?')}: 3D cases have no obstacles "
                             "(RVO2-3D has none)")
        agent = AgentState3D(position=a["position"], velocity=a["velocity"],
                             radius=a["radius"], max_speed=a["max_speed"],
                             pref_velocity=a["pref_velocity"], time_horizon=a["time_horizon"],
                             neighbor_dist=a["neighbor_dist"], max_neighbors=a["max_neighbors"])
        return agent, [NeighborState3D(n["position"], n["velocity"], n["radius"])
                       for n in case.get("neighbors", [])], []
    agent = AgentState(position=a["position"], velocity=a["velocity"], radius=a["radius"],
                       max_speed=a["max_speed"], pref_velocity=a["pref_velocity"],
                       time_horizon=a["time_horizon"], time_horizon_obst=a["time_horizon_obst"],
                       neighbor_dist=a["neighbor_dist"], max_neighbors=a["max_neighbors"])
    neighbors = [NeighborState(n["position"], n["velocity"], n["radius"])
                 for n in case.get("neighbors", [])]
    edges = build_obstacle_edges(Segment(o["a"], o["b"]) for o in case.get("obstacles", []))
    return agent, neighbors, edges


def solve_case_3d(case: dict) -> Orca3DResult:
    """Run ``compute_new_velocity_3d`` on one recorded RVO2-3D case."""
    agent, neighbors, _ = case_states(case)
    return compute_new_velocity_3d(agent, neighbors, case["time_step"])


def solve_case(case: dict,
               options: OrcaOptions = STRICT_RVO2) -> Union[OrcaResult, Orca3DResult]:
    """Run ``compute_new_velocity`` (``compute_new_velocity_3d`` for a 3D case) on one
    recorded case."""
    if is_3d_case(case):
        return solve_case_3d(case)
    agent, neighbors, edges = case_states(case)
    return compute_new_velocity(agent, neighbors, edges, case["time_step"], options)


def run_cases(cases: Iterable[dict],
              tolerance: float = DEFAULT_TOLERANCE) -> Dict[str, CategoryReport]:
    """Solve every case and compare with the reference's recorded velocity (Euclidean
    distance, 2D or 3D); reports keyed by category. A malformed case raises
    ``ValueError`` naming it."""
    reports: Dict[str, CategoryReport] = {}
    for case in cases:
        result = solve_case(case)
        expected = case["expected_velocity"]
        if len(expected) != len(result.velocity):
            raise ValueError(f"case {case.get('id', '?')}: expected_velocity has "
                             f"{len(expected)} components, the agent {len(result.velocity)}")
        error = math.dist(result.velocity, expected)
        f64 = case.get("expected_velocity_f64")
        error_f64 = math.dist(result.velocity, f64) if f64 else None
        category = case.get("category", "uncategorised")
        outcome = CaseOutcome(case.get("id", "?"), category, error, error_f64,
                              case.get("uses_fallback"), result.used_fallback,
                              passed=error <= tolerance)
        reports.setdefault(category, CategoryReport(category)).outcomes.append(outcome)
    return reports
