"""Finding the avoidance methods: the built-in ones, in the order they are listed.

The registry loads on first use (:func:`~orca_ros.core.methods.base.method_names`,
:func:`~orca_ros.core.methods.base.method_spec`, a registration): the built-in methods
and world backends, in :data:`BUILT_IN`'s order (the order the CLI lists them in). Each
entry names a ``module:callable`` that registers them.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Tuple

BUILT_IN: Tuple[Tuple[str, str], ...] = (
    ("orca", "orca_ros.core.methods.orca:register"),  # orca, orca_strict
    ("rvo2", "orca_ros.core.sim.backends.rvo2:register"),  # the rvo2 world backend
    ("direct", "orca_ros.core.methods.direct:register"),
    ("navigator", "orca_ros.core.methods.navigator:register"),  # hlavoid, boids, boids_avoid
    ("rvo_sampling", "orca_ros.core.methods.rvo_sampling:register"),
    ("hrvo", "orca_ros.core.methods.hrvo:register"),
    ("rfunction", "orca_ros.core.methods.rfunction:register"),
)
"""The built-in registrations ``(name, value)``, in the order their names are listed."""


def _resolve(value: str) -> Any:
    """What a ``module`` or ``module:attribute`` names."""
    module_name, _, attribute = value.partition(":")
    target: Any = importlib.import_module(module_name.strip())
    for part in attribute.strip().split(".") if attribute.strip() else ():
        target = getattr(target, part)
    return target


def _run(target: Any) -> None:
    """A module is imported already; call a callable."""
    if inspect.ismodule(target):
        return
    target()


def load_all() -> None:
    """Register the built-in methods and backends. Called once, by the registry, on its
    first use."""
    for _, value in BUILT_IN:
        _run(_resolve(value))
