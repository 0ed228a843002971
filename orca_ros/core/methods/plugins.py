"""Finding the avoidance methods: ours, then other packages' through entry points.

A package adds methods by declaring entry points in the group ``orca_ros.methods``
(:data:`METHODS_GROUP`), for example in its ``pyproject.toml``::

    [project.entry-points."orca_ros.methods"]
    shift_left = "my_package.shift_left"

Each entry point names a module, whose import registers its methods
(:func:`~orca_ros.core.methods.registry.register_method` at module level), a callable,
called without arguments, that registers them or returns them (a
:class:`~orca_ros.core.methods.base.MethodSpec` or several, registered here), or a
:class:`~orca_ros.core.methods.base.MethodSpec` itself. A world
backend (:mod:`orca_ros.core.sim.backends`) is found the same way in the group
``orca_ros.world_backends`` (:data:`BACKENDS_GROUP`).

The registries load on first use (:func:`~orca_ros.core.methods.registry.method_names`,
:func:`~orca_ros.core.methods.registry.method_spec`, a registration; this module fills
what :mod:`~orca_ros.core.methods.registry` gives it and imports none of it): first the
built-in methods and backends (:func:`list_built_in`), in :data:`BUILT_IN`'s order (the
order the CLI lists them in), from this package itself, so they are there whether or not
the package's metadata is installed (a source tree on ``PYTHONPATH``) or up to date;
setup.py declares the same entry points, and an entry point of ours found in the metadata
is not loaded twice. A built-in name is only listed (:data:`BUILT_IN_LISTING`: its
summary, whether it is a world backend and has a 3D version) until its spec is first asked
for, which imports its module: an orca_node imports its own method's module, not every
method's. Then, once a name is asked for that is not built in or every name is
(:func:`load_outside`), every other entry point of the two groups, in the order
:func:`importlib.metadata.entry_points` gives them. One that fails to load, or whose
methods cannot be registered (a name already taken, ...), is reported with a
:class:`RuntimeWarning` naming it and skipped: whatever it registered before failing is
taken out again, and the other methods are unaffected.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any, Iterable, List, NamedTuple, Tuple


class Listed(NamedTuple):
    """A built-in method or world backend as a registry lists it before its module is
    imported (:data:`BUILT_IN_LISTING`): what
    :func:`~orca_ros.core.methods.registry.method_names` and
    :func:`~orca_ros.core.methods.registry.method_summary` need, and ``target``, the
    ``"module:ATTRIBUTE"`` of its spec, imported when its spec is first asked for."""

    name: str
    target: str
    summary: str
    world_only: bool = False
    supports_3d: bool = False

    def load(self) -> Any:
        """The spec itself (its module is imported now, if it was not)."""
        import importlib

        module, _, attribute = self.target.partition(":")
        return getattr(importlib.import_module(module), attribute)


METHODS_GROUP = "orca_ros.methods"
"""The entry-point group of avoidance methods."""
BACKENDS_GROUP = "orca_ros.world_backends"
"""The entry-point group of world backends (a library stepping the whole world)."""
GROUPS = (METHODS_GROUP, BACKENDS_GROUP)

BUILT_IN: Tuple[Tuple[str, str, str], ...] = (
    (METHODS_GROUP, "orca", "orca_ros.core.methods.orca:register"),  # orca, orca_strict
    (BACKENDS_GROUP, "rvo2", "orca_ros.core.sim.backends.rvo2:register"),  # rvo2
    (METHODS_GROUP, "direct", "orca_ros.core.methods.direct:register"),
    (METHODS_GROUP, "navigator", "orca_ros.core.methods.navigator:register"),  # hlavoid,
    # boids, boids_avoid
    (METHODS_GROUP, "rvo_sampling", "orca_ros.core.methods.rvo_sampling:register"),
    (METHODS_GROUP, "hrvo", "orca_ros.core.methods.hrvo:register"),
    (METHODS_GROUP, "rfunction", "orca_ros.core.methods.rfunction:register"),
)
"""Our own entry points ``(group, name, value)``, in the order their names are listed:
setup.py declares exactly these."""

_METHODS = "orca_ros.core.methods"
BUILT_IN_LISTING: Tuple[Listed, ...] = (
    Listed("orca", f"{_METHODS}.orca:ORCA",
           "ORCA with guidance, keep-right, planning margin and the one-step safety filter",
           supports_3d=True),
    Listed("orca_strict", f"{_METHODS}.orca:ORCA_STRICT",
           "exactly RVO2's ORCA: no guidance, keep-right, margin or safety filter",
           supports_3d=True),
    Listed("rvo2", "orca_ros.core.sim.backends.rvo2:RVO2",
           "the reference RVO2 library through pyrvo, RVO2-3D through rvo23d in 3D (world "
           "only, holonomic)", world_only=True, supports_3d=True),
    Listed("direct", f"{_METHODS}.direct:DIRECT",
           "straight at the goal, no avoidance (a baseline; a supervisor alone)",
           supports_3d=True),
    Listed("hlavoid", f"{_METHODS}.navigator:HLAVOID",
           "the toio SDK Navigator's AVOID mode (HLAvoid, Guzzi et al. 2013)"),
    Listed("boids", f"{_METHODS}.navigator:BOIDS",
           "the toio SDK Navigator's BOIDS mode (attraction, separation, cohesion, "
           "alignment)"),
    Listed("boids_avoid", f"{_METHODS}.navigator:BOIDS_AVOID",
           "the toio SDK Navigator's BOIDS_AVOID mode (HLAvoid towards a target shifted by "
           "Boids)"),
    Listed("rvo_sampling", f"{_METHODS}.rvo_sampling:RVO_SAMPLING",
           "sampling reciprocal velocity obstacles (RVO_Py_MAS), with linked-robot apexes "
           "and link obstacles (Estevez et al. 2025)"),
    Listed("hrvo", f"{_METHODS}.hrvo:HRVO",
           "hybrid reciprocal velocity obstacles (Snape et al. 2011, snape/HRVO 1a13e4d), "
           "links and walls as segment obstacles"),
    Listed("rfunction", f"{_METHODS}.rfunction:RFUNCTION",
           "ORCA's half-planes from the R-function velocity obstacle (Loktev et al. 2020): "
           "variant orca (ORCA's, the default) or paper (only inside the VO, full share); "
           "backend exact or voxel template", supports_3d=True),
)
"""What :data:`BUILT_IN`'s ``register`` functions register, in their order, as the registry
lists it until a spec is asked for (each spec's own ``summary`` and 3D version say the
same: test_method_plugins.py checks it)."""

OWN_PACKAGE = "orca_ros"


def entry_point_lines(group: str) -> List[str]:
    """``name = value`` lines of our entry points in ``group``, as setup.py declares them."""
    return [f"{name} = {value}" for g, name, value in BUILT_IN if g == group]


def _register_returned(result: Any, registries) -> None:
    """Register what a registering callable returned, if it returned specs."""
    if result is None:
        return
    items: Iterable[Any] = [result] if hasattr(result, "name") else result
    for spec in items:
        if registries.registered(spec.name) is spec:
            continue  # the callable registered it itself
        if spec.world_only:  # a world backend (orca_ros.core.sim.backends)
            registries.add(spec)
        else:
            registries.register_method(spec)


def _run(target: Any, registries) -> None:
    """Load one entry point's target: a module is imported already; a spec is
    registered; a callable is called."""
    if inspect.ismodule(target):
        return
    if hasattr(target, "world_only") and hasattr(target, "name"):  # a spec itself
        _register_returned(target, registries)
        return
    if not callable(target):
        raise TypeError(f"names a {type(target).__name__}, not a module or a callable")
    _register_returned(target(), registries)


def _is_ours(entry_point) -> bool:
    return entry_point.value.partition(":")[0].strip().split(".")[0] == OWN_PACKAGE


def _outside_entry_points() -> List[Tuple[str, Any]]:
    """``(group, entry point)`` of every other package's entry point in :data:`GROUPS`, group
    by group: one pass over the installed distributions' metadata."""
    try:
        from importlib.metadata import entry_points

        found = entry_points()
        by_group = [(group, found.select(group=group)) for group in GROUPS]
    except Exception as error:  # a broken metadata directory must not stop ours
        warnings.warn(f"orca_ros: could not list the entry points of groups {GROUPS} "
                      f"({type(error).__name__}: {error}); only the built-in methods are "
                      "available", RuntimeWarning, stacklevel=4)
        return []
    out = []
    for group, group_entry_points in by_group:
        seen = set()
        for entry_point in group_entry_points:
            key = (entry_point.name, entry_point.value)
            if key in seen or _is_ours(entry_point):
                continue
            seen.add(key)
            out.append((group, entry_point))
    return out


def _load_outside(group: str, entry_point, registries) -> None:
    """One outside entry point, all or nothing: on failure a warning and no trace left."""
    before = registries.snapshot()
    try:
        _run(entry_point.load(), registries)
    except Exception as error:
        registries.restore(before)
        distribution = getattr(getattr(entry_point, "dist", None), "name", None)
        where = f" of {distribution}" if distribution else ""
        warnings.warn(f"orca_ros: skipped entry point {entry_point.name!r} "
                      f"({entry_point.value}){where} in group {group!r}: "
                      f"{type(error).__name__}: {error}", RuntimeWarning, stacklevel=4)


def list_built_in(registries) -> None:
    """List the built-in methods and backends (:data:`BUILT_IN_LISTING`) in ``registries``
    (:class:`~orca_ros.core.methods.registry.Registries`). Called once, by the registries,
    on their first use."""
    for listed in BUILT_IN_LISTING:
        registries.add(listed)


def load_outside(registries) -> None:
    """Register the other packages' entry points (module docstring) into ``registries``
    (``add``, ``register_method``, ``registered``, ``snapshot``, ``restore``), after the
    built-in ones. Called once, by the registries, when a name is asked for that is not
    built in, or every name is (reading every installed distribution's metadata costs a
    process tens of milliseconds: an orca_node running a built-in method never does)."""
    for group, entry_point in _outside_entry_points():
        _load_outside(group, entry_point, registries)
