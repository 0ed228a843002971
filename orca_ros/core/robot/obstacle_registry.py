"""Obstacles from several sources, kept the way RViz keeps markers.

Every source (a static map server, a tracker of moving obstacles, ...) sends
updates keyed by ``(ns, id)``, as ``visualization_msgs/Marker`` does:

- ``ADD`` (Marker's ``ADD`` and ``MODIFY``, both 0) replaces that key's
  segments. An ADD with no points is valid: that key then has no segments.
- ``DELETE`` (2) removes that key. Deleting an unknown key changes nothing.
- ``DELETE_ALL`` (3) removes every key of the update's namespace, or every key
  of every namespace when the namespace is empty. This is what the Marker
  message definition says ("deletes all objects (or those with the given ns
  if any)") and what RViz 2 does (``MarkerCommon::processMessage``). It also
  means a source can clear its own obstacles without clearing anyone else's.
  An empty-namespace DELETE_ALL still clears every source's obstacles,
  including walls that were published only once.

The obstacle set is the union of all keys' segments: the keys without a lifetime, then
those with one, each in ``(ns, id)`` order, so every robot that holds the same keys
builds the same edges, whatever order the updates came in. It is handed out as RVO2 obstacle edges
(:func:`orca_ros.core.geometry.obstacles.build_obstacle_edges`). The edges are rebuilt
only after a change, as a new list. :attr:`ObstacleRegistry.version` counts
the changes.

Validation is per update, all or nothing. An ADD with a non-finite
coordinate, an odd number of points, or a segment shorter than
:data:`orca_ros.core.geometry.types.MIN_EDGE_LENGTH` is refused whole with
:class:`ObstacleUpdateError`. The error names the key and the problem, and
nothing that was known before changes. (Dropping only the bad segments would
let a half-broken update replace a good one.)

Sources heard (:attr:`ObstacleRegistry.sources`): the namespaces of every update
applied so far, whatever its action and whether it had segments. A robot that
was told which sources to expect (orca_node's ``obstacle_sources``) holds still
until each has been heard: an empty obstacle set is not free space until the
walls' publisher has spoken (latched walls have reached a node seconds late).

Lifetime (Marker's ``lifetime``; 0 = forever): a key's segments expire
``lifetime`` seconds after its last ADD. Every ADD of the key starts the
lifetime again, even one that repeats the same segments. Time is whatever
clock the caller passes as ``now`` (seconds). The registry has no clock of
its own: :meth:`ObstacleRegistry.expire` drops what has expired by ``now``.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..errors import InputError
from ..geometry.obstacles import ObstacleEdges, ObstacleVertex, build_obstacle_edges
from ..geometry.types import MIN_EDGE_LENGTH, Segment, Vector2

ObstacleKey = Tuple[str, int]
"""``(ns, id)`` of one source's group of segments, as in a Marker."""


class ObstacleAction(enum.IntEnum):
    """What an update does to its key; the values are ``visualization_msgs/Marker``'s."""

    ADD = 0  # Marker.ADD == Marker.MODIFY == 0: replace the key's segments
    DELETE = 2
    DELETE_ALL = 3


class ObstacleUpdateError(InputError):
    """An obstacle update that was refused whole, with the reason."""


@dataclass(frozen=True)
class ObstacleUpdate:
    """One source's change to the obstacle set: a Marker reduced to what matters here.

    ``points`` are ``(x, y)`` pairs in the world frame (metres). Each consecutive
    pair is one segment, as in a LINE_LIST. ``lifetime`` is in seconds; 0 means
    forever. Only ADD uses ``points`` and ``lifetime``. The registry checks the
    contents when it applies the update, not here.
    """

    ns: str
    marker_id: int
    action: ObstacleAction
    points: Tuple[Vector2, ...] = ()
    lifetime: float = 0.0

    @property
    def key(self) -> ObstacleKey:
        return (self.ns, self.marker_id)

    @property
    def name(self) -> str:
        """How the update is named in messages: ``ns "walls" id 3``."""
        return f"ns {self.ns!r} id {self.marker_id}"


def segments_of_update(update: ObstacleUpdate) -> Tuple[Segment, ...]:
    """The segments of an ADD, or :class:`ObstacleUpdateError` naming the key and the problem.

    The whole update is checked: every coordinate finite, an even number of
    points, no segment shorter than ``MIN_EDGE_LENGTH``.
    """
    points = update.points
    for index, point in enumerate(points):
        try:
            x, y = point
            x, y = float(x), float(y)
        except (TypeError, ValueError):
            raise ObstacleUpdateError(f"obstacles {update.name}: point {index} is not an "
                                      f"(x, y) pair of numbers: {point!r}") from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ObstacleUpdateError(f"obstacles {update.name}: point {index} is not finite "
                                      f"({x}, {y}); the whole update is ignored")
    if len(points) % 2:
        raise ObstacleUpdateError(f"obstacles {update.name}: odd number of points "
                                  f"({len(points)}); a LINE_LIST needs pairs, the whole "
                                  "update is ignored")
    segments = []
    for k in range(0, len(points), 2):
        a, b = points[k], points[k + 1]
        length = math.hypot(float(b[0]) - float(a[0]), float(b[1]) - float(a[1]))
        if not length >= MIN_EDGE_LENGTH:
            raise ObstacleUpdateError(
                f"obstacles {update.name}: segment {k // 2} (points {k} and {k + 1}) has zero "
                f"length at ({float(a[0])}, {float(a[1])}) (|b - a| = {length:.3g} m < "
                f"{MIN_EDGE_LENGTH} m); the whole update is ignored")
        segments.append(Segment(a, b))
    return tuple(segments)


@dataclass
class _Entry:
    segments: Tuple[Segment, ...]
    expires_at: Optional[float]  # seconds on the caller's clock; None = never


class ObstacleRegistry:
    """The obstacle set built from updates of several sources (see the module docstring).

    Read :attr:`edges` for the controller and :attr:`version` to tell whether
    the set changed. :meth:`apply` and :meth:`expire` return whether it did.
    """

    def __init__(self) -> None:
        self._entries: Dict[ObstacleKey, _Entry] = {}
        self.version = 0
        """Goes up by one with every change of the segments (never on a no-op or a refusal)."""
        self._edges: List[ObstacleVertex] = ObstacleEdges()
        self._edges_version = 0
        self._lasting_version = 0  # goes up when a key without a lifetime changes
        self._lasting: ObstacleEdges = ObstacleEdges()
        self._lasting_built = 0
        self.sources: Set[str] = set()
        """The namespaces of the updates applied so far (refused ones not counted)."""

    # --- reading -----------------------------------------------------------------

    @property
    def keys(self) -> List[ObstacleKey]:
        """Every known key, sorted (keys with no segments included)."""
        return sorted(self._entries)

    def segments_of(self, key: ObstacleKey) -> Tuple[Segment, ...]:
        """One key's segments; none for an unknown key."""
        entry = self._entries.get(key)
        return entry.segments if entry else ()

    @property
    def segments(self) -> List[Segment]:
        """The union of all keys' segments, in sorted key order."""
        return [s for key in sorted(self._entries) for s in self._entries[key].segments]

    @property
    def edges(self) -> List[ObstacleVertex]:
        """The union as RVO2 obstacle edges: the keys without a lifetime first, then those
        with one, each in key order (an :class:`ObstacleEdges` whose ``lasting`` part is
        rebuilt only when a key without a lifetime changes). A new list after each
        change, else the same one."""
        if self._edges_version != self.version:
            if self._lasting_built != self._lasting_version:
                self._lasting = build_obstacle_edges(self._segments_where(lasting=True))
                self._lasting_built = self._lasting_version
            self._edges = ObstacleEdges.joined(
                self._lasting, build_obstacle_edges(self._segments_where(lasting=False)))
            self._edges_version = self.version
        return self._edges

    def _segments_where(self, lasting: bool) -> List[Segment]:
        return [s for key in sorted(self._entries)
                if (self._entries[key].expires_at is None) == lasting
                for s in self._entries[key].segments]

    def missing_sources(self, expected: Sequence[str]) -> List[str]:
        """The namespaces of ``expected`` not heard from yet, in their order."""
        return [ns for ns in expected if ns not in self.sources]

    @property
    def next_expiry(self) -> Optional[float]:
        """The earliest time (caller's clock, s) a key expires, or None if none ever does."""
        times = [e.expires_at for e in self._entries.values() if e.expires_at is not None]
        return min(times) if times else None

    # --- changing ----------------------------------------------------------------

    def apply(self, update: ObstacleUpdate, now: float = 0.0) -> bool:
        """Apply one update at time ``now`` (s). Returns True when the segments changed.

        A bad update raises :class:`ObstacleUpdateError` and changes nothing,
        not even expiry. Keys that expired by ``now`` are dropped first.
        """
        try:
            action = ObstacleAction(update.action)
        except ValueError:
            raise ObstacleUpdateError(
                f"obstacles {update.name}: unknown action {update.action!r} (ADD/MODIFY "
                f"{ObstacleAction.ADD.value}, DELETE {ObstacleAction.DELETE.value}, DELETEALL "
                f"{ObstacleAction.DELETE_ALL.value})") from None
        if action is ObstacleAction.ADD:
            segments = segments_of_update(update)
            lifetime = update.lifetime
            if not (math.isfinite(lifetime) and lifetime >= 0.0):
                raise ObstacleUpdateError(f"obstacles {update.name}: lifetime must be >= 0 s "
                                          f"(0 = forever), got {lifetime}")
            if not math.isfinite(now):
                raise ObstacleUpdateError(f"obstacles {update.name}: time now is {now}")

        changed = self._drop_expired(now)
        self.sources.add(update.ns)
        if action is ObstacleAction.ADD:
            old = self._entries.get(update.key)
            new = self._entries[update.key] = _Entry(segments,
                                                     now + lifetime if lifetime > 0 else None)
            was_lasting = old is not None and old.expires_at is None and bool(old.segments)
            is_lasting = new.expires_at is None and bool(segments)
            moved = (old.segments if old else ()) != segments
            if (was_lasting or is_lasting) and (moved or was_lasting != is_lasting):
                self._lasting_version += 1
                changed = True
            changed |= moved
        elif action is ObstacleAction.DELETE:
            changed |= self._remove([update.key])
        else:
            doomed = [k for k in self._entries if not update.ns or k[0] == update.ns]
            changed |= self._remove(doomed)
        if changed:
            self.version += 1
        return changed

    def expire(self, now: float) -> bool:
        """Drop the keys whose lifetime ran out by ``now`` (s). Returns True when segments went."""
        changed = self._drop_expired(now)
        if changed:
            self.version += 1
        return changed

    def _drop_expired(self, now: float) -> bool:
        expired = [k for k, e in self._entries.items()
                   if e.expires_at is not None and e.expires_at <= now]
        return self._remove(expired)

    def _remove(self, keys: Iterable[ObstacleKey]) -> bool:
        """Forget the keys; True when any of them had segments."""
        had_segments = False
        for key in list(keys):
            entry = self._entries.pop(key, None)
            had_segments |= bool(entry and entry.segments)
            if entry and entry.segments and entry.expires_at is None:
                self._lasting_version += 1
        return had_segments
