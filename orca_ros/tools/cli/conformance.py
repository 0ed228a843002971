"""``orca-ros conformance``: single-step RVO2 (2D) or RVO2-3D cases replayed, one line
per category."""

from __future__ import annotations

import argparse

from .common import POSITIVE, refused


def add_parser(sub) -> None:
    conformance = sub.add_parser("conformance", help="replay single-step RVO2 (2D) or RVO2-3D "
                                                     "cases (JSON Lines)")
    conformance.add_argument("file", help="cases file, e.g. test/data/rvo2_single_step.jsonl")
    conformance.add_argument("--tolerance", type=POSITIVE, default=1e-3,
                             help="Euclidean velocity tolerance (default 1e-3)")
    conformance.add_argument("-v", "--verbose", action="store_true", help="list failing cases")
    conformance.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ...core.orca.conformance import load_cases, run_cases

    try:
        cases = load_cases(args.file)  # every case checked: what follows is work
    except (OSError, ValueError) as error:
        return refused("conformance", error)
    reports = run_cases(cases, tolerance=args.tolerance)
    total_passed = total_failed = 0
    for category, report in reports.items():
        total_passed += report.passed
        total_failed += report.failed
        print(f"{category:<26} {report.passed:>4}/{len(report.outcomes):<4} passed   "
              f"worst error {report.worst_error:.2e} "
              f"(vs float64 RVO2 {report.worst_error_f64:.2e})")
        if args.verbose:
            for outcome in report.outcomes:
                if not outcome.passed:
                    print(f"    FAIL {outcome.case_id}: error {outcome.error:.3e}, fallback "
                          f"expected {outcome.fallback_expected} used {outcome.fallback_used}")
    print(f"{total_passed} passed, {total_failed} failed")
    return 0 if total_failed == 0 and total_passed > 0 else 1

