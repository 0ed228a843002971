"""orca_ros.tools.start_cost: a fresh process's CPU time and peak memory, as os.wait4 gives."""

import pytest

from orca_ros.tools import start_cost


def test_a_program_that_holds_memory_and_burns_cpu_is_measured_so(monkeypatch):
    hungry = "import time\nb = bytearray(150 * 1024 * 1024)\nt = time.process_time()\n" \
             "while time.process_time() - t < 0.3:\n    pass\n"
    idle = "pass\n"
    monkeypatch.setattr(start_cost, "PROGRAMS", {"hungry": hungry, "idle": idle})
    costs = {c.program: c for c in start_cost.measure(["hungry", "idle"], runs=1)}
    assert costs["hungry"].rss_mb_median >= 150.0
    assert costs["idle"].rss_mb_median < 100.0
    assert costs["hungry"].cpu_s_median >= 0.3
    assert costs["idle"].cpu_s_median < costs["hungry"].cpu_s_median


def test_a_failing_program_is_reported_with_its_error(monkeypatch):
    monkeypatch.setattr(start_cost, "PROGRAMS", {"broken": "raise SystemExit('no such node')"})
    with pytest.raises(RuntimeError, match="no such node"):
        start_cost.measure(["broken"], runs=1)

