"""The one line between bad input and a bug.

:class:`InputError` is what orca_ros raises for input it refuses: a scenario, map, bag,
parameter, fault specification, links text, message or argument that cannot be used,
its message naming the input and what is wrong. Every refusal class derives from it
(:class:`~orca_ros.core.scenario.loader.ScenarioError`,
:class:`~orca_ros.core.maps.occupancy.MapError`, ...), so a caller that has started work
can still tell the two apart: an :class:`InputError` is the user's to fix and is
refused with its message (``orca-ros`` exits 2); anything else raised is a bug in
orca_ros, reported with its traceback (``orca-ros`` exits :data:`INTERNAL_ERROR`).

It derives from :class:`ValueError`, so code that catches ``ValueError`` while it reads
its input keeps catching every refusal.
"""

from __future__ import annotations


class InputError(ValueError):
    """Input orca_ros refuses; the message names the input and the reason."""


REFUSED = 2
"""``orca-ros``'s exit status for refused input (argparse's for a usage error)."""
INTERNAL_ERROR = 70
"""``orca-ros``'s exit status for an internal error, a bug (sysexits' EX_SOFTWARE)."""
