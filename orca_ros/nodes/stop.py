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
import sys
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
    if interrupt and sys.unraisablehook is not _unraisable:
        _unraisable.previous = sys.unraisablehook
        sys.unraisablehook = _unraisable
    return {sig: signal.signal(sig, _note) for sig in SIGNALS}


def _note(signum, frame) -> None:
    _received.append(signum)
    if len(_received) == 1:
        _arm_deadline()
    if _interrupt and len(_received) == 1:
        raise KeyboardInterrupt


def _unraisable(unraisable) -> None:
    """Deliver again a KeyboardInterrupt that Python could not raise.

    A signal that lands while the main thread runs a weakref callback or a
    ``__del__`` (an import's module-lock callback, say) raises there, where
    Python can only print "Exception ignored" and carry on: the interrupt would
    be lost and the traceback would reach stderr. A one-shot SIGALRM 10 ms on
    raises it again, at an ordinary line by then (or lands here once more).
    """
    if not (_interrupt and _received and isinstance(unraisable.exc_value, KeyboardInterrupt)):
        _unraisable.previous(unraisable)
        return
    signal.signal(signal.SIGALRM, _interrupt_again)
    signal.setitimer(signal.ITIMER_REAL, 0.01)


def _interrupt_again(signum, frame) -> None:
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    raise KeyboardInterrupt


_unraisable.previous = sys.unraisablehook


STOP_WITHIN_ENV = "ORCA_ROS_STOP_WITHIN"
DEFAULT_STOP_WITHIN = 7.0
"""Seconds from the first SIGINT/SIGTERM to the end of the process, whatever happens.

``ros2 launch`` sends SIGKILL 10 s after its SIGINT unless told otherwise; our
launch files give large fleets longer and pass ``ORCA_ROS_STOP_WITHIN`` (three
seconds before their SIGKILL)."""
_deadline: List[threading.Timer] = []


def _arm_deadline() -> None:
    """End the process with status 0 if it is still there ``ORCA_ROS_STOP_WITHIN`` s from now.

    Winding down a node destroys its DDS endpoints. When dozens of
    participants leave at once, Fast DDS 3.x can deadlock in there: the main
    thread waits in ``ResourceEvent::unregister_timer`` for the event thread,
    which waits for a lock the main thread holds (seen at 40 robots, one
    process per node, on 2 cores; upstream eProsima/Fast-DDS#6502, open). The
    process would sit until launch kills it (status -9). This timer, a daemon
    thread, ends it a little earlier instead and says so on stderr.

    A Python thread needs the GIL, and a teardown stuck inside a library call that
    holds it (seen once in CI: ``fleet_sim`` still there 15 s after SIGINT, its
    7 s deadline never run) keeps it from running. So two watchdogs that need no
    Python back it up: half a second later ``faulthandler`` writes every thread's
    stack to stderr (where it hung), and a second later a POSIX timer runs libc's
    ``_exit(0)`` on a thread of its own (:func:`_exit_without_python`).
    """
    import faulthandler
    import os

    try:
        seconds = float(os.environ.get(STOP_WITHIN_ENV, DEFAULT_STOP_WITHIN))
    except ValueError:
        seconds = DEFAULT_STOP_WITHIN

    def leave() -> None:
        import sys

        sys.stderr.write(f"still stopping {seconds:g} s after the signal (the DDS teardown "
                         "hangs: a library deadlock when many processes end together); "
                         "leaving without it\n")
        sys.stderr.flush()
        os._exit(0)

    timer = threading.Timer(seconds, leave)
    timer.daemon = True
    timer.start()
    _deadline.append(timer)
    try:
        faulthandler.dump_traceback_later(seconds + 0.5, exit=False)
    except (OSError, ValueError, RuntimeError):
        pass  # no usable stderr: the exit below still comes
    _exit_without_python(seconds + 1.0)


_posix_timers: List[object] = []


def _exit_without_python(seconds: float) -> bool:
    """Arm a POSIX timer that, ``seconds`` from now, calls libc's ``_exit(0)`` on a
    thread glibc starts for it (``timer_create`` with ``SIGEV_THREAD``): no Python and
    no GIL involved, so it ends a process whose main thread hangs in a library call
    that holds the GIL. Linux with glibc; elsewhere (or if it cannot be armed) returns
    False and only the Python deadline remains."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None)  # timer_create is in libc from glibc 2.34, librt before
        try:
            timer_create, timer_settime = libc.timer_create, libc.timer_settime
        except AttributeError:
            import ctypes.util

            librt = ctypes.CDLL(ctypes.util.find_library("rt"))
            timer_create, timer_settime = librt.timer_create, librt.timer_settime

        class SigevThread(ctypes.Structure):
            _fields_ = [("function", ctypes.c_void_p), ("attribute", ctypes.c_void_p)]

        class SigevUnion(ctypes.Union):  # struct sigevent is 64 bytes on Linux
            _fields_ = [("pad", ctypes.c_int * 12), ("thread", SigevThread)]

        class Sigevent(ctypes.Structure):
            _fields_ = [("value", ctypes.c_void_p), ("signo", ctypes.c_int),
                        ("notify", ctypes.c_int), ("un", SigevUnion)]

        class Timespec(ctypes.Structure):
            _fields_ = [("seconds", ctypes.c_long), ("nanoseconds", ctypes.c_long)]

        class Itimerspec(ctypes.Structure):
            _fields_ = [("interval", Timespec), ("value", Timespec)]

        sigev_thread, clock_monotonic = 2, 1
        event = Sigevent()
        event.value = None  # the function's argument: _exit(0)
        event.notify = sigev_thread
        event.un.thread.function = ctypes.cast(libc._exit, ctypes.c_void_p)
        handle = ctypes.c_void_p()
        if timer_create(clock_monotonic, ctypes.byref(event), ctypes.byref(handle)) != 0:
            return False
        when = Itimerspec()
        when.value.seconds = int(seconds)
        when.value.nanoseconds = int((seconds - int(seconds)) * 1e9)
        if timer_settime(handle, 0, ctypes.byref(when), None) != 0:
            return False
        _posix_timers.append((libc, handle))
        return True
    except (OSError, AttributeError, TypeError, ValueError):
        return False


def _disarm_without_python() -> None:
    """Delete the POSIX exit timers and the traceback dump (:func:`restore`)."""
    import faulthandler

    faulthandler.cancel_dump_traceback_later()
    while _posix_timers:
        libc, handle = _posix_timers.pop()
        try:
            libc.timer_delete(handle)
        except (OSError, AttributeError):
            pass


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


def leave(status: int) -> None:
    """End the process now with ``status``, its output flushed, without Python's finalization.

    For an executable that a signal interrupted and that has wound down its
    own work (files written and closed, nodes destroyed). What would remain is
    the interpreter's teardown, which then meets whatever the signal left half
    done: a module whose import it broke, a library's thread it caught while
    starting. In one CI run that teardown aborted ``orca-ros bench``
    (SIGTERM about when its imports end: "Fatal Python error: PyThreadState_Get
    ... Python runtime state: finalizing", status -6). The deadline timer above
    ends a stuck teardown the same way.
    """
    import logging
    import os

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed pipe: nothing more can reach it
    os._exit(status)


def restore(previous: Dict[int, object]) -> None:
    """Give the signals their former handlers back and forget what arrived.

    For callers inside a longer-lived Python process (tests); an executable
    ends with :func:`ignore` instead.
    """
    for sig, handler in previous.items():
        if handler is not None:
            signal.signal(sig, handler)
    if sys.unraisablehook is _unraisable:
        sys.unraisablehook = _unraisable.previous
    _received.clear()
    while _deadline:
        _deadline.pop().cancel()
    _disarm_without_python()

