"""The nodes' console scripts (setup.py): stop handlers first, then the heavy imports.

Importing rclpy, numpy, scipy and the message packages takes about a second,
several on a busy machine. A SIGINT or SIGTERM in that time must end the
process with status 0 too, so the handlers of :mod:`orca_ros.nodes.stop` are in
place before the node's module is imported; ``run_node`` then sees the signal
and ends the node before it spins.
"""

import importlib

from . import stop


def _run(module: str) -> None:
    stop.install()
    importlib.import_module(f"{__package__}.{module}").main()


def orca_node() -> None:
    _run("orca_node")


def orca_lifecycle_node() -> None:
    _run("orca_lifecycle_node")


def orca_robots() -> None:
    _run("orca_robots")


def fleet_sim() -> None:
    _run("fleet_sim")


def obstacle_server() -> None:
    _run("obstacle_server")


def supervisor_node() -> None:
    _run("supervisor_node")


def toio_bridge() -> None:
    _run("toio_bridge")


def straight_driver() -> None:
    _run("straight_driver")
