"""When ``python -m orca_ros.launch_run`` stops a run, and what its summary says of the
arrivals (no launch engine needed: the stop rule and the summary only)."""

import json

import pytest

from orca_ros.testing import launch_run


class StatusBoard:
    """The observer's status file as a Stopper reads it, on a clock the test moves."""

    def __init__(self, tmp_path, monkeypatch) -> None:
        self.now = 100.0
        monkeypatch.setattr(launch_run.time, "monotonic", lambda: self.now)
        self.path = tmp_path / "status.json"

    def stopper(self) -> launch_run.Stopper:
        return launch_run.Stopper(service=None, status_path=str(self.path), wall_limit=600.0)

    def says(self, **status) -> None:
        self.path.write_text(json.dumps({"robots": 8, **status}))


@pytest.fixture
def board(tmp_path, monkeypatch) -> StatusBoard:
    return StatusBoard(tmp_path, monkeypatch)


def test_a_stop_on_fleet_sims_word_gives_the_observer_time_to_see_it(board):
    """toio_cross_4v4 with two busy loops beside: launch_run stopped the moment fleet_sim
    counted 8 of 8 arrived and reported the observer's 3 of 8, which trailed it. The
    observer gets OBSERVER_CATCH_UP wall seconds first (its own count stops the run at
    once)."""
    stopper = board.stopper()
    board.says(reached=3, arrived=3, fleet_sim_arrived=8, fleet_sim_at_goal=8)
    assert stopper._why_stop() is None
    board.now += launch_run.OBSERVER_CATCH_UP - 0.5
    assert stopper._why_stop() is None
    board.now += 0.5
    assert stopper._why_stop() == "every robot at its goal (fleet_sim /diagnostics)"


def test_a_run_ends_when_every_robot_is_at_its_goal_not_when_each_once_reached_it(board):
    """A goal is held, not only reached: a robot pushed off its goal after reaching it
    (8 of 8 reached, 6 of 8 at their goals now) keeps the run going until it is back,
    by the observer's count and by fleet_sim's."""
    stopper = board.stopper()
    board.says(reached=8, arrived=6, fleet_sim_arrived=8, fleet_sim_at_goal=6)
    assert stopper._why_stop() is None
    board.now += 2 * launch_run.OBSERVER_CATCH_UP
    assert stopper._why_stop() is None
    board.says(reached=8, arrived=8, fleet_sim_arrived=8, fleet_sim_at_goal=8)
    assert stopper._why_stop() == "every robot at its goal (observer)"


def test_a_stop_on_the_observers_word_gives_fleet_sim_time_to_agree(board):
    """toio_cross_4v4 with two busy loops beside: the run stopped the moment the
    observer counted 8 of 8 and printed fleet_sim's 7 of 8 from its diagnostics of up
    to a second before. fleet_sim gets OBSERVER_CATCH_UP to agree."""
    stopper = board.stopper()
    board.says(reached=8, arrived=8, fleet_sim_at_goal=7)
    assert stopper._why_stop() is None
    board.now += 1.0
    board.says(reached=8, arrived=8, fleet_sim_at_goal=8)
    assert stopper._why_stop() == "every robot at its goal (observer)"

    stopper = board.stopper()
    board.says(reached=8, arrived=8, fleet_sim_at_goal=7)  # fleet_sim never agrees
    assert stopper._why_stop() is None
    board.now += launch_run.OBSERVER_CATCH_UP
    assert stopper._why_stop() == "every robot at its goal (observer)"


def test_the_summary_names_what_each_count_is():
    both = {"robots": 8, "reached": 8, "arrived": 6, "fleet_sim_arrived": 8}
    assert launch_run._arrivals(both) == "8/8 reached their goals, 6/8 at them at the end"
    lagging = {"robots": 8, "reached": 3, "arrived": 3, "fleet_sim_arrived": 8}
    assert launch_run._arrivals(lagging) == \
        "3/8 reached their goals by the observer, 8/8 by fleet_sim"
    assert launch_run._arrivals({"robots": 8, "reached": 8, "arrived": 8,
                                 "fleet_sim_arrived": None}) == "8/8 reached their goals"
