"""Reproducible fault injection for fleet runs: ``orca-ros sim SCENARIO --faults SPEC``.

* :mod:`~orca_ros.testing.faults.spec`: the SPEC grammar, :func:`parse_faults` and
  :class:`FaultSpec`, and the standard suite's specs (``orca-ros fault-suite``);
* :mod:`~orca_ros.testing.faults.injector`: :class:`FaultInjector`, which applies a spec
  to the running nodes of a run (what each fault does, and how it stays reproducible);
* :mod:`~orca_ros.testing.faults.actors`: the stand-in nodes it adds (the intruding
  ``/obstacles`` publisher, foreign drivers);
* :mod:`~orca_ros.testing.faults.report`: the lines ``orca-ros sim`` prints per fault
  and the suite's table.

The names below are importable from here.
"""

from .actors import INTRUDER_NS, JITTER_SPEED
from .injector import FaultInjector, _uniform, filter_plan
from .report import result_lines, suite_table
from .spec import (ALL, FOREIGN_MODES, KEYS, LIMITS, ONCE, TARGETED, FaultSpec, FaultSpecError,
                   kill_time, parse_faults, standard_faults)

__all__ = [
    "ALL", "FOREIGN_MODES", "INTRUDER_NS", "JITTER_SPEED", "KEYS", "LIMITS", "ONCE", "TARGETED",
    "FaultInjector", "FaultSpec", "FaultSpecError", "_uniform", "filter_plan", "kill_time",
    "parse_faults", "result_lines", "standard_faults", "suite_table",
]
