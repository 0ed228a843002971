"""The neighbours' readings as arrays (``core.robot.readings``): what a row gives back,
and the rows a robot counts."""

import math

from orca_ros.core.robot.inputs import RobotInputs
from orca_ros.core.robot.perception import NeighborReading
from orca_ros.core.robot.readings import ReadingTable, Readings
from orca_ros.nodes.params.orca_node import PARAMETERS


def test_a_row_gives_back_the_reading_it_was_given_and_a_written_one_anew():
    table = ReadingTable(capacity=1)  # grows
    given_reading = NeighborReading(2.0, (1.0, -1.0), (0.5, 0.25), 0.3, 0.1, 0.05, True, 1.5)
    table.put_reading("a", given_reading)
    table.put("b", 3.0, math.nan, 4.0, 5.0, -1.0, 0.0)
    assert table["a"] is given_reading  # kept as given
    assert table["b"] == NeighborReading(3.0, (4.0, 5.0), (-1.0, 0.0))  # sent: None
    assert table.order("a") == 1.5 and table.order("b") == 3.0 and table.order("c") is None
    table.put("a", 4.0, 3.5, 0.0, 0.0, 0.0, 0.0, announced=True)
    assert table["a"] == NeighborReading(4.0, (0.0, 0.0), (0.0, 0.0), announced=True, sent=3.5)
    assert list(table) == ["a", "b"] and "b" in table and "c" not in table


def test_a_dict_of_readings_reads_the_same_through_the_arrays():
    readings = {"a": NeighborReading(1.0, (1.0, 2.0), (0.0, 1.0)),
                "b": NeighborReading(1.5, (3.0, 4.0), (1.0, 0.0), announced=True, sent=0.5)}
    rows = Readings.of(readings)
    assert dict(rows) == readings and rows["b"] is readings["b"]
    assert rows.data.shape == (2, 10) and Readings.of(rows) is rows
    assert dict(Readings.of(ReadingTable.of(readings))) == readings


def _inputs(**overrides):
    return RobotInputs("me", {**{p.name: p.default for p in PARAMETERS}, **overrides},
                       announcing=True)


def test_the_robots_that_count_are_worked_out_anew_when_the_followed_or_announced_grow():
    """The rows that count are kept between cycles while the tables and the followed
    robots stay as they are; a robot followed, announced or heard later counts at once."""
    robot = _inputs(neighbor_forget_after=5.0)
    latest, announced = ReadingTable(), ReadingTable()
    latest.put("a", 9.0, 9.0, 1.0, 0.0, 0.0, 0.0)
    latest.put("me", 9.0, 9.0, 0.0, 0.0, 0.0, 0.0, announced=True)
    announced.put("me", 9.0, 9.0, 0.0, 0.0, 0.0, 0.0, announced=True)
    assert set(robot.neighbors(10.0, latest, announced, False, 1.0)) == set()
    robot.followed.append("a")
    assert set(robot.neighbors(10.0, latest, announced, False, 1.0)) == {"a"}
    latest.put("b", 9.5, 9.5, 2.0, 0.0, 0.0, 0.0, announced=True)
    announced.put("b", 9.5, 9.5, 2.0, 0.0, 0.0, 0.0, announced=True)
    assert set(robot.neighbors(10.0, latest, announced, False, 1.0)) == {"a", "b"}
    # odometry only, silent past neighbor_forget_after: forgotten; announced: never
    assert set(robot.neighbors(20.0, latest, announced, False, 1.0)) == {"b"}
    assert robot.neighbors(10.0, latest, announced, False, 1.0)["b"].position == (2.0, 0.0)


def test_the_unheard_are_not_gone_through_again_once_all_were_heard():
    robot = _inputs(fleet_robots=["a", "b", "me"])
    heard = {"a"}
    assert robot.unheard(heard.__contains__) == ["b"]
    heard.add("b")
    assert robot.unheard(heard.__contains__) == []
    robot.params = {**robot.params, "fleet_robots": ["a", "b", "c"]}
    assert robot.unheard(heard.__contains__) == ["c"]  # a new fleet list is gone through
