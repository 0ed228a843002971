"""The names ``method`` takes, in two registries: the avoidance methods
(:class:`~.base.MethodSpec`, which run for one robot: orca_node, the world's controllers),
and the world backends (:mod:`orca_ros.core.sim.backends`: a library stepping the whole
world at once, which only the world runs).

The world's ``method`` takes a name of either (:func:`method_names`, :func:`world_spec`);
orca_node's, the fleet plan's and a controller's take a method's
(``method_names(ros=True)``, :func:`method_spec`). One name is in one registry only.

Both fill on first use: the built-in names in a fixed order, then, once a name is asked
for that is not built in or every name is, those of other packages' entry points
(:mod:`.plugins`). A built-in name is listed (:class:`~.plugins.Listed`) until its spec is
first asked for: a process imports the modules of the methods it runs, not of every
method.
"""

from __future__ import annotations

import threading
from typing import Any, Dict, Optional, Tuple

from .base import Capabilities, MethodSpec
from .plugins import BUILT_IN_LISTING, Listed, list_built_in, load_outside


class Registry:
    """The entries of one kind under their names, in registration order: a spec, or a
    :class:`~.plugins.Listed` entry until its spec is first asked for."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.entries: Dict[str, Any] = {}

    def spec(self, name: str) -> Any:
        """The spec registered under ``name`` (a listed one is imported now, and kept in
        its place); a KeyError for a name that is not here."""
        entry = self.entries[name]
        if not isinstance(entry, Listed):
            return entry
        spec = entry.load()
        with _LOCK:
            if self.entries.get(name) is entry:
                self.entries[name] = spec
        return spec


METHODS = Registry("method")
WORLD_BACKENDS = Registry("world backend")
_LOCK = threading.RLock()
_listed = False  # the built-in names are listed
_loaded = False  # and the other packages' entry points loaded
_loading = False


def _ensure_loaded(outside: bool = True) -> None:
    """List the built-in methods and backends, and with ``outside`` then load the other
    packages' entry points (each once per process)."""
    global _listed, _loaded, _loading
    if _loaded or (_listed and not outside):
        return
    with _LOCK:  # another thread waits here; the loading thread itself passes on
        if _loading:
            return
        _loading = True
        try:
            if not _listed:
                list_built_in(Registries)
                _listed = True
            if outside and not _loaded:
                load_outside(Registries)
                _loaded = True
        finally:
            _loading = False


def _ensure_known(name: str) -> None:
    """The registries as far as ``name`` needs: the built-in listing, and the entry points
    too when the name is not built in."""
    _ensure_loaded(outside=False)
    if not isinstance(name, str) or registered(name) is None:
        _ensure_loaded()


def _registry_of(spec: Any) -> Registry:
    return WORLD_BACKENDS if spec.world_only else METHODS


def check_name(name: str) -> None:
    if not isinstance(name, str) or not name or not name.replace("_", "").isalnum():
        raise ValueError(f"a method name is letters, digits and '_', got {name!r}")


def add_entry(spec: Any, replace: bool = False) -> Any:
    """Put a checked entry (a :class:`~.base.MethodSpec`, a world backend's spec, or a
    listed one) under its name in its registry; :func:`register_method` and
    :func:`~orca_ros.core.sim.backends.register_world_backend` check it first. A name
    taken in either registry is refused (``replace``: in its own one, replaced)."""
    _ensure_loaded()
    check_name(spec.name)
    registry = _registry_of(spec)
    with _LOCK:
        other = METHODS if registry is WORLD_BACKENDS else WORLD_BACKENDS
        if spec.name in other.entries or (spec.name in registry.entries and not replace):
            raise ValueError(f"method {spec.name!r} is already registered")
        registry.entries[spec.name] = spec
    return spec


def register_method(spec: MethodSpec, replace: bool = False) -> MethodSpec:
    """Make ``spec.name`` available to the CLI, the world, orca_node and launch."""
    if not isinstance(spec, MethodSpec):
        raise TypeError(f"register_method takes a MethodSpec, got {type(spec).__name__}")
    if not isinstance(spec.capabilities, Capabilities):
        raise TypeError(f"method {spec.name!r}: capabilities must be a Capabilities")
    return add_entry(spec, replace)


def unregister_method(name: str) -> None:
    with _LOCK:
        METHODS.entries.pop(name, None)


def registered(name: str) -> Optional[Any]:
    """The entry registered under ``name`` in either registry (a listed one as it is), or
    None (no loading: for the loader)."""
    entry = METHODS.entries.get(name)
    return entry if entry is not None else WORLD_BACKENDS.entries.get(name)


class Registries:
    """What :func:`~.plugins.load_all` fills: both registries, through these."""

    add = staticmethod(add_entry)
    registered = staticmethod(registered)
    register_method = staticmethod(register_method)

    @staticmethod
    def snapshot() -> Tuple[Dict[str, Any], Dict[str, Any]]:
        return dict(METHODS.entries), dict(WORLD_BACKENDS.entries)

    @staticmethod
    def restore(snapshot: Tuple[Dict[str, Any], Dict[str, Any]]) -> None:
        with _LOCK:
            for registry, entries in zip((METHODS, WORLD_BACKENDS), snapshot):
                registry.entries.clear()
                registry.entries.update(entries)


def method_names(ros: bool = False, dimensions: Optional[int] = None) -> Tuple[str, ...]:
    """The names the world's ``method`` takes: the methods in registration order, then the
    world backends. ``ros``: only the methods (those orca_node runs: a world backend steps
    a whole world at once); ``dimensions=3``: only those with a 3D version."""
    _ensure_loaded()
    registries = (METHODS,) if ros else (METHODS, WORLD_BACKENDS)
    return tuple(name for registry in registries for name, spec in list(registry.entries.items())
                 if not (dimensions == 3 and not spec.supports_3d))


def is_method(name: Any) -> bool:
    """Whether ``name`` is a registered method (one orca_node runs); a built-in name is
    known without loading the other packages' entry points."""
    if not isinstance(name, str):
        return False
    _ensure_known(name)
    return name in METHODS.entries


def built_in_method_names() -> Tuple[str, ...]:
    """The built-in methods' names (those orca_node runs), in their order, without
    loading the other packages' entry points."""
    _ensure_loaded(outside=False)
    return tuple(listed.name for listed in BUILT_IN_LISTING if not listed.world_only)


def method_spec(name: str) -> MethodSpec:
    """The registered method of that name, or a ValueError: a world backend's name says it
    runs only in the world, another lists the methods there are."""
    _ensure_known(name)
    if name in METHODS.entries:
        return METHODS.spec(name)
    if name in WORLD_BACKENDS.entries:
        raise ValueError(f"{name} steps the whole world at once (a world backend): it runs "
                         "only in `orca-ros bench`, not for one robot")
    raise ValueError(f"method must be one of {method_names(ros=True)}, got {name!r}")


def world_spec(name: str) -> Any:
    """What the world runs under ``name``: a method's :class:`~.base.MethodSpec`, or a world
    backend's :class:`~orca_ros.core.sim.backends.WorldBackendSpec` (its capability flags
    shape the preferred velocities the backend is given; ``world_only`` tells them apart);
    a ValueError listing the names there are."""
    _ensure_known(name)
    for registry in (METHODS, WORLD_BACKENDS):
        if name in registry.entries:
            return registry.spec(name)
    raise ValueError(f"method must be one of {method_names()}, got {name!r}")


def method_summary(name: str) -> str:
    """The one-line summary of a name of either registry (the CLI's and orca_node's help),
    without importing a built-in module; a ValueError as :func:`world_spec`'s."""
    _ensure_known(name)
    entry = registered(name)
    return entry.summary if entry is not None else world_spec(name).summary
