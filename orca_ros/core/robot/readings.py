"""The neighbours' latest readings as arrays, one row per robot (no ROS).

An orca_node at 100 robots hears 99 neighbours and plans ten times a second: handled one
neighbour at a time in Python, what it heard and what counts of it cost more than the
rest of its cycle (O(N^2) over the fleet). Here each reading is one row of a float
array (:class:`ReadingTable`), written as its message comes, and a cycle takes the rows
that count (:meth:`~.inputs.RobotInputs.neighbors`) and perceives them all in one call
into C (``_orca2d.perceive_rows``, from :meth:`~.cycle.RobotCycle.step`); a row becomes
a :class:`~.perception.NeighborReading` only when asked for by name.

Both are mappings of robot name to :class:`~.perception.NeighborReading`, so whatever
reads readings by name (diagnostics, the laser, links, the reciprocity monitor) reads
these as it reads a dict; a dict of readings (the world's timed readings, tests) is
turned into a table by :meth:`Readings.of`, and perceived through the same arrays.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from operator import itemgetter
from typing import Dict, Iterator, List, Optional

import numpy as np

from .perception import NeighborReading

STAMP, SENT, X, Y, VX, VY, Z, VZ, UNCERTAINTY, ANNOUNCED = range(10)
"""A row's columns: :class:`~.perception.NeighborReading`'s fields (``sent``: NaN for
None, ``announced``: 1.0 or 0.0)."""
COLUMNS = 10


def _reading(values: List[float]) -> NeighborReading:
    """A row (as a list of floats) as the reading it holds."""
    sent = values[SENT]
    return NeighborReading(values[STAMP], (values[X], values[Y]), (values[VX], values[VY]),
                           values[Z], values[VZ], values[UNCERTAINTY],
                           values[ANNOUNCED] != 0.0, None if sent != sent else sent)


def _row(reading: NeighborReading) -> tuple:
    return (reading.stamp, math.nan if reading.sent is None else reading.sent,
            reading.position[0], reading.position[1], reading.velocity[0],
            reading.velocity[1], reading.z, reading.vz, reading.uncertainty,
            1.0 if reading.announced else 0.0)


class ReadingTable(Mapping):
    """The latest reading of each robot heard, a row each, in the order first heard
    (rows are never removed: a robot once heard keeps its row)."""

    def __init__(self, capacity: int = 16) -> None:
        self.names: List[str] = []
        self.rows: Dict[str, int] = {}
        self._data = np.zeros((max(capacity, 1), COLUMNS))
        self._objects: List[Optional[NeighborReading]] = []  # rows built, kept until rewritten

    @classmethod
    def of(cls, readings: Mapping) -> "ReadingTable":
        """``readings`` (a mapping of name to reading) as a table (itself if it is one)."""
        if isinstance(readings, ReadingTable):
            return readings
        table = cls(len(readings))
        for name, reading in readings.items():
            table.put_reading(name, reading)
        return table

    @property
    def data(self) -> np.ndarray:
        """The rows, ``(len(self), COLUMNS)`` (a view: written in place as readings come)."""
        return self._data[:len(self.names)]

    def _add(self, name: str) -> int:
        row = len(self.names)
        if row == len(self._data):
            grown = np.zeros((2 * row, COLUMNS))
            grown[:row] = self._data
            self._data = grown
        self.names.append(name)
        self._objects.append(None)
        self.rows[name] = row
        return row

    def put(self, name: str, stamp: float, sent: float, x: float, y: float, vx: float,
            vy: float, z: float = 0.0, vz: float = 0.0, uncertainty: float = 0.0,
            announced: bool = False) -> None:
        """``name``'s latest reading, as :class:`~.perception.NeighborReading`'s fields
        (``sent``: NaN for None)."""
        row = self.rows.get(name)
        if row is None:
            row = self._add(name)
        self._data[row] = (stamp, sent, x, y, vx, vy, z, vz, uncertainty,
                           1.0 if announced else 0.0)
        self._objects[row] = None

    def put_reading(self, name: str, reading: NeighborReading) -> None:
        """``name``'s latest reading, given as one (kept: asked for, it is returned)."""
        row = self.rows.get(name)
        if row is None:
            row = self._add(name)
        self._data[row] = _row(reading)
        self._objects[row] = reading

    def copy_row(self, name: str, source: "ReadingTable") -> None:
        """``name``'s row as ``source`` holds it."""
        row = source.rows[name]
        own = self.rows.get(name)
        if own is None:
            own = self._add(name)
        self._data[own] = source._data[row]
        self._objects[own] = source._objects[row]

    def stamp(self, name: str) -> Optional[float]:
        """When ``name``'s reading was measured (s), None if none is held."""
        row = self.rows.get(name)
        return None if row is None else float(self._data[row, STAMP])

    def order(self, name: str) -> Optional[float]:
        """What orders ``name``'s readings (:attr:`~.perception.NeighborReading.order`),
        None if none is held."""
        row = self.rows.get(name)
        if row is None:
            return None
        sent = float(self._data[row, SENT])
        return float(self._data[row, STAMP]) if sent != sent else sent

    def reading(self, row: int) -> NeighborReading:
        reading = self._objects[row]
        if reading is None:
            reading = self._objects[row] = _reading(self._data[row].tolist())
        return reading

    def __getitem__(self, name: str) -> NeighborReading:
        return self.reading(self.rows[name])

    def __contains__(self, name: object) -> bool:
        return name in self.rows

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


class Readings(Mapping):
    """Some robots' readings at one time (those that count for one cycle): a row each of
    ``data`` (a copy, ``(K, COLUMNS)``), named by ``names``; what :meth:`__getitem__`
    returns is the table's reading where the row is the table's."""

    def __init__(self, names: List[str], data: np.ndarray,
                 objects: List[Optional[NeighborReading]]) -> None:
        self.names = names
        self.data = data
        self._objects = objects
        self._index: Optional[Dict[str, int]] = None

    @classmethod
    def of(cls, readings: Mapping) -> "Readings":
        """``readings`` (a mapping of name to reading) as :class:`Readings` (itself if it
        is one)."""
        if isinstance(readings, Readings):
            return readings
        if isinstance(readings, ReadingTable):
            return readings_of(readings, np.arange(len(readings)))
        names = list(readings)
        objects = [readings[name] for name in names]
        data = np.array([_row(r) for r in objects], dtype=float).reshape(len(names), COLUMNS)
        return cls(names, data, objects)

    @property
    def index(self) -> Dict[str, int]:
        """Row of each name (made when first asked)."""
        if self._index is None:
            self._index = dict(zip(self.names, range(len(self.names))))
        return self._index

    def reading(self, k: int) -> NeighborReading:
        reading = self._objects[k]
        if reading is None:
            reading = self._objects[k] = _reading(self.data[k].tolist())
        return reading

    def __getitem__(self, name: str) -> NeighborReading:
        return self.reading(self.index[name])

    def __contains__(self, name: object) -> bool:
        return name in self.index

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def readings_of(table: ReadingTable, rows: np.ndarray,
                replaced: Optional[Dict[int, NeighborReading]] = None) -> Readings:
    """The ``rows`` of ``table`` (in that order) as :class:`Readings`; ``replaced``: row
    -> the reading that stands for it instead."""
    index = np.asarray(rows, dtype=np.intp)
    rows = index.tolist()
    data = table._data.take(index, axis=0)
    taken = _pick(table._objects, rows)
    if replaced:
        for k, row in enumerate(rows):
            if row in replaced:
                data[k] = _row(replaced[row])
                taken[k] = replaced[row]
    return Readings(_pick(table.names, rows), data, taken)


def _pick(items: list, rows: List[int]) -> list:
    """``[items[r] for r in rows]``, in one call (a cycle picks up to every row)."""
    if len(rows) < 2:
        return [items[r] for r in rows]
    return list(itemgetter(*rows)(items))

