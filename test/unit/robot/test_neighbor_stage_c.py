"""The neighbour stage after perception, in C (``_orca2d.observed_rows``,
``make_neighbors``, ``neighbor_views``, the reciprocity monitor's
``reciprocity_expect`` and ``reciprocity_observe``), against the Python they replaced
(``test/helpers/perception_reference.py``), value for value."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.geometry.linprog import HalfPlane
from orca_ros.core.methods import NeighborView
from orca_ros.core.orca import _orca2d
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.controller import RobotController
from orca_ros.core.robot.perception import NeighborRadii, NeighborReading, ReciprocityMonitor
from orca_ros.core.robot.readings import Readings
from orca_ros.core.robot.state import Neighbor, RobotState
from helpers import perception_reference as reference

coordinate = st.floats(-12.0, 12.0)
speed = st.floats(-2.0, 2.0)
reading = st.tuples(coordinate, coordinate, speed, speed, st.floats(0.0, 1.0),
                    st.floats(0.0, 0.4), st.booleans(), st.booleans())


def passed_rows(seen, x=0.0, y=0.0, now=5.0):
    """Readings of ``seen`` as perceive_rows passes them."""
    readings = {f"n{k}": NeighborReading(now - age, (nx, ny), (vx, vy), uncertainty=u,
                                         announced=announced)
                for k, (nx, ny, vx, vy, age, u, announced, _) in enumerate(seen)}
    rows = Readings.of(readings)
    return rows, _orca2d.perceive_rows(rows.data, rows.names, x, y, now, 0.1, 1.5, 2.0, 0.5,
                                       8.0, 0.3, None)


@settings(max_examples=300, deadline=None)
@given(st.lists(reading, max_size=10), st.data())
def test_observed_rows_note_new_stamps_and_return_the_awaited(seen, data):
    rows, passed = passed_rows(seen)
    names = rows.names
    some = st.lists(st.sampled_from(names), unique=True) if names else st.just([])
    known = {name: 4.0 + data.draw(st.sampled_from([0.0, 0.5, 1.0])) for name in
             data.draw(some)}
    waiting = {name: object() for name in data.draw(some)}
    observed_c, observed_py = dict(known), dict(known)
    judged = _orca2d.observed_rows(passed, names, observed_c, waiting)
    assert judged == reference.observed_rows(passed, names, observed_py, waiting)
    assert observed_c == observed_py


@settings(max_examples=300, deadline=None)
@given(st.lists(reading, max_size=10), st.data())
def test_make_neighbors_is_the_python_loop(seen, data):
    rows, passed = passed_rows(seen)
    names = rows.names
    some = st.lists(st.sampled_from(names), unique=True) if names else st.just([])
    listed = {name: 0.3 for name in data.draw(some)}
    heard = {name: 0.45 for name in data.draw(some)}
    refusing = frozenset(data.draw(some))
    keep = bytes(kept for *_, kept in seen)
    for mask in (None, keep):
        for unannounced in (False, True):
            args = (passed, names, mask, listed, heard, 0.2, refusing, unannounced)
            made = _orca2d.make_neighbors(*args, Neighbor)
            assert made == reference.make_neighbors(*args)
            assert all(type(n) is Neighbor for n in made)


def test_make_neighbors_takes_each_radius_listed_then_heard_then_default():
    _, passed = passed_rows([(1.0, 0.0, 0.0, 0.0, 0.0, 0.0, True, False),
                             (2.0, 0.0, 0.0, 0.0, 0.0, 0.0, False, False),
                             (3.0, 0.0, 0.0, 0.0, 0.0, 0.0, True, False)])
    made = _orca2d.make_neighbors(passed, ["n0", "n1", "n2"], None, {"n0": 0.5},
                                  {"n0": 0.9, "n1": 0.7}, 0.2, frozenset({"n2"}), False,
                                  Neighbor)
    assert [(n.key, n.radius, n.reciprocates) for n in made] == \
        [("n0", 0.5, True), ("n1", 0.7, False), ("n2", 0.2, False)]
    radii = NeighborRadii({"n0": 0.5}, lambda: {"n0": 0.9, "n1": 0.7}, 0.2)
    assert [radii(name) for name in ("n0", "n1", "n2")] == [0.5, 0.7, 0.2]


neighbor = st.builds(Neighbor, st.tuples(coordinate, coordinate), st.tuples(speed, speed),
                     st.floats(0.05, 0.6), st.sampled_from("abc"), st.floats(0.0, 1.0),
                     st.booleans(), st.floats(0.0, 1.0))


@settings(max_examples=400, deadline=None)
@given(st.lists(neighbor, max_size=8), st.tuples(speed, speed), st.floats(0.0, 1.0),
       st.sampled_from([0.0, 0.25, 0.5]), st.sampled_from([0.0, 0.5, 2.0]),
       st.sampled_from(["holonomic", "diff_drive"]))
def test_neighbor_views_are_the_python_loop(neighbors, velocity, held, margin, speed_ratio,
                                            kinematics):
    config = ControllerConfig(radius=0.3, max_speed=1.5, pref_speed=1.2, time_step=0.1,
                              safety_margin_ratio=margin,
                              margin_speed_ratio=speed_ratio, kinematics=kinematics)
    controller = RobotController(config)
    controller.preferred.margin.held = held
    state = RobotState((0.5, -0.25), velocity)
    own_radius = config.avoidance_radius(config.radius)
    views = controller.neighbor_views(state, own_radius, neighbors)
    assert views == reference.neighbor_views(config, state.position, velocity, own_radius,
                                             held, neighbors)
    assert all(type(v) is NeighborView for v in views)


def test_neighbor_views_refuse_what_they_cannot_read():
    args = (0.0, 0.0, 0.0, 0.0, 0.3, 0.3, 0.1, 0.0, 0.0, 1.5, 1.0)
    with pytest.raises(TypeError, match="Neighbor"):
        _orca2d.neighbor_views([(1.0, 2.0)], *args, NeighborView)
    with pytest.raises(TypeError, match="view_type"):
        _orca2d.neighbor_views([], *args, dict)
    # a position that is not a number: its gap is unknown, so, as in Python, the whole
    # uncertainty (0.1) is added (min(0.1, nan) is 0.1)
    bad = Neighbor((math.nan, 0.0), (0.0, 0.0), 0.3, "a", 0.1)
    assert _orca2d.neighbor_views([bad], *args, NeighborView)[0].radius == \
        pytest.approx(0.3 * 1.1 + 0.1)


# --- the reciprocity monitor ----------------------------------------------------------

event = st.tuples(st.sampled_from("ab"), st.sampled_from(["period", "expect", "observe"]),
                  st.floats(0.0, 0.3), st.floats(0.0, 0.15), st.tuples(speed, speed),
                  st.tuples(speed, speed))


@settings(max_examples=300, deadline=None)
@given(st.lists(event, max_size=60), st.sampled_from([0.5, 2.0]), st.integers(1, 4),
       st.sampled_from([0.3, 0.6]))
def test_the_monitor_in_c_judges_as_the_python_monitor(events, window, min_violations,
                                                        ratio):
    """Expectations and answers in any order, late or early, with violations or none:
    the same verdicts, flags and tables as the former Python monitor."""
    settings_ = dict(tolerance=0.1, window=window, min_violations=min_violations, ratio=ratio)
    ours, theirs = ReciprocityMonitor(**settings_), reference.ReciprocityMonitor(**settings_)
    line = HalfPlane(0.8, 0.3, 0.0, 1.0)  # asks |u|/2 = 0.36 of a robot at (1, 0.5)
    now = 0.0
    for name, kind, step, age, own_v, velocity in events:
        for monitor in (ours, theirs):
            if kind != "observe":  # its data age s old, the half-plane built now
                monitor.expect(name, now - age, line, (1.0, 0.5), own_v, now)
        now += step
        for monitor in (ours, theirs):
            if kind != "expect":
                monitor.observe(name, now, velocity)
        assert ours._flagged_at == theirs._flagged_at  # (when each was last flagged)
        assert ours.reciprocates(name, now) == theirs.reciprocates(name, now)
    assert ours.flagged == theirs.flagged
    assert ours.refusing(now) == theirs.refusing(now)
    assert {n: e[4] for n, e in ours.waiting.items()} == \
        {n: e.judge_after for n, e in theirs.waiting.items()}
    assert ours._violations == theirs._violations
    assert {n: list(h) for n, h in ours._history.items()} == \
        {n: list(h) for n, h in theirs._history.items()}


def test_the_monitor_takes_a_period_at_once():
    """expect_all and observe_all: each neighbour's expectation and answer as one by one."""
    line = HalfPlane(0.8, 0.3, 0.0, 1.0)
    neighbors = [Neighbor((2.0, 0.0), (-1.0, 0.0), 0.3, name) for name in "ab"]
    batch, single = ReciprocityMonitor(0.1, min_violations=1), \
        ReciprocityMonitor(0.1, min_violations=1)
    batch.expect_all(neighbors, {"a": 1.0, "b": 0.9}, [line, line], (1.0, 0.5), 1.0)
    single.expect("a", 1.0, line, (1.0, 0.5), (-1.0, 0.0), 1.0)
    single.expect("b", 0.9, line, (1.0, 0.5), (-1.0, 0.0), 1.0)
    assert batch.waiting == single.waiting
    answers = [("a", 1.2, (-1.0, 0.0)), ("b", 1.05, (-1.0, 0.0)), ("b", 1.3, (-1.0, 0.0))]
    batch.observe_all(answers)
    for answer in answers:
        single.observe(*answer)
    assert batch.flagged == single.flagged == ("a", "b")
    with pytest.raises(ValueError, match="one half-plane per neighbour"):
        batch.expect_all(neighbors, {"a": 1.0, "b": 1.0}, [line], (1.0, 0.5), 2.0)
    with pytest.raises(KeyError):
        batch.expect_all(neighbors, {"a": 1.0}, [line, line], (1.0, 0.5), 2.0)


def test_a_flagged_neighbour_that_violates_again_stays_flagged_from_then():
    """Flagged after four violations, then polite for long enough that violations are no
    longer the share that flags: one more violation still renews the flag at its stamp,
    so the flag lifts ``release_after`` s after the last violation, not the first."""
    line = HalfPlane(0.8, 0.3, 0.0, 1.0)
    own, stubborn, polite = (1.0, 0.5), (-1.0, 0.0), (-0.7, 0.0)  # violations 0.2, -0.1
    ours = ReciprocityMonitor(0.1, window=3.0)
    theirs = reference.ReciprocityMonitor(0.1, window=3.0)
    t = 0.0
    for velocity in [stubborn] * 4 + [polite] * 6 + [stubborn]:
        for monitor in (ours, theirs):
            monitor.expect("b", t, line, own, stubborn, t)
            monitor.observe("b", t + 0.1, velocity)
        t += 0.2
    last = t - 0.2 + 0.1
    assert ours._violations["b"] == 5 and len(ours._history["b"]) == 11  # 5 < 0.6 x 11
    assert ours._flagged_at == theirs._flagged_at == {"b": last}
    assert not ours.reciprocates("b", last + ours.release_after - 0.01)
