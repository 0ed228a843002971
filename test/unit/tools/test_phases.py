"""bench-scaling --phases (orca_ros.tools.phases): exclusive times of nested phases, every
phase reached where the step has it, the world left as it was (no time is asserted)."""

from orca_ros.core.robot.safety_filter import SafetyFilter
from orca_ros.tools import phases
from orca_ros.tools.phases import PHASES, _Stopwatch, format_phases, world_phases


class _Clock:
    """A clock that moves only when work is done."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def work(self, seconds: float) -> None:
        self.now += seconds


def test_a_phase_inside_another_counts_once_in_the_inner_one(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(phases.time, "perf_counter", clock)
    watch = _Stopwatch()
    inner = watch.wrap("method", lambda: clock.work(2.0))

    def outer_body():
        clock.work(3.0)
        inner()
        clock.work(1.0)
    outer = watch.wrap("tracking", outer_body)
    outer()
    inner()
    assert watch.seconds["tracking"] == 4.0  # its own 3 + 1, not the 2 inside it
    assert watch.seconds["method"] == 4.0  # inside the other, and once on its own


def test_every_phase_of_a_unicycle_crowd_is_timed_and_the_world_left_as_it_was():
    constraints = SafetyFilter.constraints
    holonomic, unicycles = (world_phases(40, steps=2, kinematics=k)
                            for k in ("holonomic", "diff_drive"))
    assert SafetyFilter.constraints is constraints
    for key, _ in PHASES:
        assert unicycles.us[key] > 0.0, key
    assert holonomic.us["tracking"] == 0.0  # holonomic robots are not tracked
    assert holonomic.us["method"] > 0.0 and holonomic.us["batch"] > 0.0
    table = format_phases([holonomic, unicycles])
    assert "| 40 holonomic | 40 diff_drive |" in table
    assert len(table.splitlines()) == 2 + len(PHASES) + 1


def test_a_method_without_a_batch_builds_its_half_planes_in_the_cycle():
    hrvo = world_phases(20, steps=2, method="hrvo")
    assert hrvo.us["batch"] == 0.0
    assert hrvo.us["method"] > 0.0
