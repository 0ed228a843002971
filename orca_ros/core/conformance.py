"""Replay single-step ORCA cases recorded from RVO2 (format: shared/conformance/README.md)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional

from .obstacles import build_obstacle_edges
from .orca import OrcaOptions, OrcaResult, STRICT_RVO2, compute_new_velocity
from .types import AgentState, NeighborState, Segment

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
    """Read a JSON Lines file of cases; blank lines are skipped."""
    cases = []
    with open(path, encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                cases.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{line_no}: not valid JSON: {error}") from None
    return cases


def solve_case(case: dict, options: OrcaOptions = STRICT_RVO2) -> OrcaResult:
    """Run ``compute_new_velocity`` on one recorded case."""
    a = case["agent"]
    agent = AgentState(position=a["position"], velocity=a["velocity"], radius=a["radius"],
                       max_speed=a["max_speed"], pref_velocity=a["pref_velocity"],
                       time_horizon=a["time_horizon"], time_horizon_obst=a["time_horizon_obst"],
                       neighbor_dist=a["neighbor_dist"], max_neighbors=a["max_neighbors"])
    neighbors = [NeighborState(n["position"], n["velocity"], n["radius"])
                 for n in case.get("neighbors", [])]
    edges = build_obstacle_edges(Segment(o["a"], o["b"]) for o in case.get("obstacles", []))
    return compute_new_velocity(agent, neighbors, edges, case["time_step"], options)


def run_cases(cases: Iterable[dict],
              tolerance: float = DEFAULT_TOLERANCE) -> Dict[str, CategoryReport]:
    """Solve every case and compare with RVO2's recorded velocity; reports keyed by category."""
    reports: Dict[str, CategoryReport] = {}
    for case in cases:
        result = solve_case(case)
        vx, vy = result.velocity
        ex, ey = case["expected_velocity"]
        error = math.hypot(vx - ex, vy - ey)
        f64 = case.get("expected_velocity_f64")
        error_f64 = math.hypot(vx - f64[0], vy - f64[1]) if f64 else None
        category = case.get("category", "uncategorised")
        outcome = CaseOutcome(case.get("id", "?"), category, error, error_f64,
                              case.get("uses_fallback"), result.used_fallback,
                              passed=error <= tolerance)
        reports.setdefault(category, CategoryReport(category)).outcomes.append(outcome)
    return reports
