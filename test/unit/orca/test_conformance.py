"""ORCA against the RVO2 reference: all recorded single-step cases must match."""

import json

import pytest

from orca_ros.tools.cli import main
from orca_ros.core.orca.conformance import load_cases, run_cases, solve_case

from helpers.paths import DATA_DIR

DATA = DATA_DIR / "rvo2_single_step.jsonl"


def test_every_public_case_matches_rvo2_within_tolerance():
    reports = run_cases(load_cases(str(DATA)))
    outcomes = [o for report in reports.values() for o in report.outcomes]
    assert len(outcomes) == 320
    failures = [(o.case_id, o.error) for o in outcomes if not o.passed]
    assert failures == []
    # A float64 port should reproduce RVO2's double build almost exactly.
    assert max(o.error_f64 for o in outcomes) < 1e-9


def test_fallback_is_taken_exactly_when_rvo2_took_it():
    reports = run_cases(load_cases(str(DATA)))
    mismatched = [o.case_id for r in reports.values() for o in r.outcomes
                  if o.fallback_expected is not None and o.fallback_expected != o.fallback_used]
    assert mismatched == []


def test_obstacle_half_planes_come_first_and_match_rvo2_lines():
    for case in load_cases(str(DATA)):
        expected = case["diagnostics"]["orca_lines"]
        result = solve_case(case)
        assert result.num_obstacle_half_planes == case["diagnostics"]["num_obstacle_lines"]
        assert len(result.half_planes) == len(expected), case["id"]
        for ours, theirs in zip(result.half_planes, expected):
            assert ours.point_x == pytest.approx(theirs["point"][0], abs=2e-3)
            assert ours.direction_y == pytest.approx(theirs["direction"][1], abs=2e-3)


def test_cli_prints_categories_and_closing_line(capsys):
    assert main(["conformance", str(DATA)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] == "320 passed, 0 failed"
    assert len(lines) == 9  # 8 categories and the closing line


def test_cli_exits_nonzero_when_a_case_fails(tmp_path, capsys):
    case = json.loads(DATA.read_text().splitlines()[0])
    case["expected_velocity"] = [case["expected_velocity"][0] + 0.5, case["expected_velocity"][1]]
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(case) + "\n")
    assert main(["conformance", str(broken)]) == 1
    assert capsys.readouterr().out.strip().splitlines()[-1] == "0 passed, 1 failed"


def test_cli_reports_unreadable_file(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    assert main(["conformance", str(bad)]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err
