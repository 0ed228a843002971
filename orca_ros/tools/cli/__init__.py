"""The ``orca-ros`` command: conformance replay, benchmarks, and scenario runs.

One rule for every verb's errors (:mod:`orca_ros.core.errors`): input it cannot use (a
file, an argument, a parameter a node refuses) is refused with ``orca-ros VERB:
<reason>`` and status 2; anything else raised is a bug, printed with its traceback and a
line saying so, status 70 (:func:`main`). A verb reads and checks its input first, where a
``ValueError`` is a refusal; once its work has started only an
:class:`~orca_ros.core.errors.InputError` is.
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from . import (bench, bench_rfunction, bench_ros, bench_scaling, bench_start, bench_step,
               conformance,
               fault_suite, import_steersuite, link_pairs, map_segments, plot, results, sim)
from .common import internal_error


# The verbs in the order ``orca-ros --help`` lists them; each module holds its verb's
# arguments (``add_parser``) and its work (``run``), and imports what the work needs only
# when it runs.
VERBS = (conformance, bench, sim, link_pairs, import_steersuite, map_segments, plot, fault_suite,
         bench_ros, bench_scaling, bench_step, bench_start, bench_rfunction, results)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="orca-ros", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for verb in VERBS:
        verb.add_parser(sub)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """``orca-ros``. Status 0 when the verb did its work, 2 for refused input, 70 for an
    internal error (a bug: its traceback is printed), 1 where a verb says its result
    failed (``conformance``'s failing cases). SIGINT or SIGTERM at any moment ends it
    with status 0 (see orca_ros.nodes.stop); ``sim`` then ends its run in order and
    still reports it."""
    from ...nodes import stop

    previous = stop.install(interrupt=True)
    try:
        args = None
        try:
            args = build_parser().parse_args(argv)
            status = args.func(args)
        except SystemExit:  # argparse's refusal of the arguments (status 2), or --help
            raise
        except BaseException as error:  # after a signal: the KeyboardInterrupt, or what it broke
            if stop.requested():
                print("orca-ros: interrupted", file=sys.stderr)
                status = 0
            elif isinstance(error, Exception):  # not refused by the verb: a bug
                status = internal_error(args.command if args is not None else "")
            else:
                raise
        interrupted = stop.requested()
    finally:
        if argv is None:  # the orca-ros command: it ends now, a second Ctrl-C must not kill it
            stop.ignore()
        else:  # called from Python (tests): give the signals back
            stop.restore(previous)
    if interrupted and argv is None:
        stop.leave(status)  # its work is wound down; Python's teardown is not needed
    return status

