"""SIGINT and SIGTERM as a request to stop: how every executable of orca_ros exits 0.

Python's default SIGINT handler raises KeyboardInterrupt wherever the main
thread happens to be (in an import it can even surface as ImportError),
SIGTERM's default kills the process, and rclpy's handler shuts the ROS
context down from another thread under a running executor. The handlers here
only note the signal; the program's main loop asks :func:`requested` and
winds down in order. Light on purpose (no rclpy, no numpy): the console
scripts install it before importing anything heavy.
"""

from __future__ import annotations

import signal
import threading
from typing import Dict, List

SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: List[int] = []
_interrupt = False


def install(interrupt: bool = False) -> Dict[int, object]:
    """Route SIGINT and SIGTERM here; returns their former handlers (for :func:`restore`).

    With ``interrupt``, the first signal also raises KeyboardInterrupt, for
    plain Python work that has no loop to ask :func:`requested`. Later signals
    are only noted, so a second Ctrl-C never breaks a wind-down. Signals
    already noted stay noted. Only the main thread can do this: elsewhere it
    does nothing.
    """
    global _interrupt
    if threading.current_thread() is not threading.main_thread():
        return {}
    _interrupt = interrupt
    return {sig: signal.signal(sig, _note) for sig in SIGNALS}


def _note(signum, frame) -> None:
    _received.append(signum)
    if _interrupt and len(_received) == 1:
        raise KeyboardInterrupt


def requested() -> bool:
    """Whether SIGINT or SIGTERM arrived since :func:`install`."""
    return bool(_received)


def ignore() -> None:
    """The program is ending: SIGINT and SIGTERM are ignored from here on.

    While Python exits it puts the default handlers back in place of its own,
    so a second signal during those last moments would kill the process
    (status -2 or -15); an ignored signal stays ignored.
    """
    if threading.current_thread() is threading.main_thread():
        for sig in SIGNALS:
            signal.signal(sig, signal.SIG_IGN)


def restore(previous: Dict[int, object]) -> None:
    """Give the signals their former handlers back and forget what arrived.

    For callers inside a longer-lived Python process (tests); an executable
    ends with :func:`ignore` instead.
    """
    for sig, handler in previous.items():
        if handler is not None:
            signal.signal(sig, handler)
    _received.clear()
