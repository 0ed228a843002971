"""Neighbour cells: the floor cut into squares, one topic per square, so a robot's
process hears only the robots that can matter to it.

Every orca_node needs the states of the robots within its ``neighbor_dist``, not of
the whole fleet; subscribed robot by robot, every process takes every robot's
odometry, N topics x 10 Hz each (100 robots: 1,000 messages per second per process,
7.5k on the machine). With cells, each orca_node also publishes its own robot's
odometry (named by ``child_frame_id``) on the topic of every cell within its
*publication reach* of it, and each process subscribes to the cells that meet its
robots' *subscription reach*. Nothing central is added: the robots publish, the
processes listen.

A new subscription or publisher takes a while to match (discovery: about 20 ms on an
idle machine here, more under load). Both reaches carry that time, ``match_time``:

- A robot publishes on the cell it stands in, with a publisher made for every cell
  within ``v_max * match_time`` of it, so each has had ``match_time`` to connect
  before the robot enters its cell.
- A process subscribes to the cells that meet the disc of ``neighbor_dist +
  2 v_max * match_time`` round each of its robots, so a cell holding a robot that
  comes within ``neighbor_dist`` was subscribed at least ``match_time`` earlier, two
  robots closing at ``2 v_max`` at most (neighbours no faster than the robot itself:
  a faster fleet needs a longer ``match_time``).

It lets go of a cell only beyond half a cell more than that reach (hysteresis, so a
robot on a border does not subscribe and unsubscribe every cycle).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import FrozenSet, Tuple

from ..geometry.types import as_finite

Cell = Tuple[int, int]
CELL_TOPIC_PREFIX = "/orca/cells"


@dataclass(frozen=True)
class CellGrid:
    """Square cells of side ``size`` (m), cell ``(i, j)`` covering
    ``[i size, (i + 1) size) x [j size, (j + 1) size)``."""

    size: float

    def __post_init__(self) -> None:
        as_finite(self.size, "neighbor cell size", strictly_positive=True)

    def cell_of(self, x: float, y: float) -> Cell:
        return (math.floor(x / self.size), math.floor(y / self.size))

    def cells_within(self, x: float, y: float, reach: float) -> FrozenSet[Cell]:
        """The cells that meet the closed disc of radius ``reach`` round ``(x, y)``."""
        s = self.size
        cells = set()
        i_low, i_high = math.floor((x - reach) / s), math.floor((x + reach) / s)
        j_low, j_high = math.floor((y - reach) / s), math.floor((y + reach) / s)
        for i in range(i_low, i_high + 1):
            dx = max(i * s - x, 0.0, x - (i + 1) * s)  # to the cell's nearest point in x
            for j in range(j_low, j_high + 1):
                dy = max(j * s - y, 0.0, y - (j + 1) * s)
                if dx * dx + dy * dy <= reach * reach:
                    cells.add((i, j))
        return frozenset(cells)


def publication_reach(max_speed: float, match_time: float) -> float:
    """How far from a robot the cells it has publishers for reach (m): ``v_max * match_time``."""
    return max_speed * match_time


def subscription_reach(neighbor_dist: float, max_speed: float, match_time: float) -> float:
    """How far from a robot the cells its process subscribes to reach (m):
    ``neighbor_dist + 2 v_max * match_time``."""
    return neighbor_dist + 2.0 * max_speed * match_time


def cell_topic(cell: Cell) -> str:
    """The topic of a cell: ``/orca/cells/x<i>_y<j>``, a minus written ``m`` (topic
    names take letters, digits and underscores)."""
    def number(k: int) -> str:
        return f"m{-k}" if k < 0 else str(k)

    return f"{CELL_TOPIC_PREFIX}/x{number(cell[0])}_y{number(cell[1])}"
