"""Linked robots as a text parameter: orca_node's ``links`` (pure, no ROS).

The text is YAML (JSON is YAML too) of a list in the scenario format's
``links:`` (``doc/scenario_format.md``)::

    [{agents: [a0, a1], max_length: 1.2}, {agents: [b0, b1, b2], max_length: 0.8,
      rest_length: 0.6}]

An empty text (or ``[]``) is no links. :func:`parse_links` checks it by the
format's rules that need no agents' starts (:func:`link_groups`, which the scenario
loader reads ``links:`` with too): groups of 2 or 3 distinct names, an agent in one
group at most, ``max_length`` and ``rest_length`` positive and finite,
``rest_length <= max_length``, no other keys. Agent names are the robots' names as
orca_node knows them (namespaces without slashes).
:func:`links_text` writes the parameter for a scenario's links.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

import yaml

from ..errors import InputError
from ..methods.links import links_within
from ..methods import LinkView, TetherView
from ..geometry.types import Vector2, as_finite

LINK_KEYS = {"agents", "max_length", "rest_length"}

FORMAT = "a YAML/JSON list of {agents: [2 or 3 robot names], max_length: m, rest_length: m}"


class LinkParameterError(InputError):
    """A ``links`` text that cannot be used, with the place and the reason."""


@dataclass(frozen=True)
class LinkSpec:
    """Robots joined by a tether or a carried load: a pair, or a triad in which every
    pair is linked. ``max_length`` (m): no linked pair's centres may be farther
    apart; ``rest_length``: the distance they keep when nothing else matters
    (None: as they start)."""

    agents: Tuple[str, ...]
    max_length: float
    rest_length: Optional[float] = None

    @property
    def pairs(self) -> Tuple[Tuple[str, str], ...]:
        """Every linked pair of the group: one for a pair, three for a triad."""
        a = self.agents
        return tuple((a[i], a[j]) for i in range(len(a)) for j in range(i + 1, len(a)))


def _fail(where: str, message: str) -> LinkParameterError:
    return LinkParameterError(f"{where}: {message}")


def _length(value: Any, where: str, key: str) -> float:
    if isinstance(value, bool):
        raise _fail(where, f"{key} must be a number, got {value!r}")
    try:
        return as_finite(value, key, strictly_positive=True)
    except ValueError as error:
        raise _fail(where, str(error)) from None


def link_groups(data: list, where: str = "", key: str = "links",
                agents: Optional[Sequence[str]] = None) -> Tuple[LinkSpec, ...]:
    """The ``links:`` list's groups, checked by the format's rules: each a mapping of
    ``agents`` (2 or 3 distinct names, leading/trailing slashes dropped) and
    ``max_length`` (optional ``rest_length``, at most ``max_length``), lengths
    positive and finite, an agent in one group at most, no other keys, and, given
    ``agents``, only those names. A :class:`LinkParameterError` names the place
    (``where``, then ``key[k]``) and the field. The scenario loader and orca_node's
    ``links`` parameter (:func:`parse_links`) both read links with it."""
    taken: Dict[str, int] = {}
    known = None if agents is None else set(agents)
    links = []
    for k, group in enumerate(data):
        here = f"{where}: {key}[{k}]" if where else f"{key}[{k}]"
        if not isinstance(group, dict):
            raise _fail(here, f"must be a mapping with 'agents' and 'max_length', "
                              f"got {group!r}")
        unknown = set(group) - LINK_KEYS
        if unknown:
            raise _fail(here, f"unknown key(s) {sorted(map(str, unknown))}; "
                              f"allowed: {sorted(LINK_KEYS)}")
        for field_name in ("agents", "max_length"):
            if field_name not in group:
                raise _fail(here, f"missing '{field_name}'")
        names = group["agents"]
        if not isinstance(names, list) or len(names) not in (2, 3):
            raise _fail(here, f"agents must be a list of 2 or 3 names, got {names!r}")
        names = [str(n).strip("/") for n in names]
        if not all(names):
            raise _fail(here, f"agents has an empty name: {group['agents']!r}")
        if len(set(names)) != len(names):
            raise _fail(here, f"agents names an agent twice: {names}")
        for name in names:
            if known is not None and name not in known:
                raise _fail(here, f"agents: unknown agent {name!r}")
            if name in taken:
                raise _fail(here, f"agents: agent {name!r} is already in {key}[{taken[name]}]; "
                                  f"an agent belongs to one group at most")
            taken[name] = k
        max_length = _length(group["max_length"], here, "max_length")
        rest_length = None if group.get("rest_length") is None else \
            _length(group["rest_length"], here, "rest_length")
        if rest_length is not None and rest_length > max_length:
            raise _fail(here, f"rest_length {rest_length} exceeds max_length {max_length}")
        links.append(LinkSpec(tuple(names), max_length, rest_length))
    return tuple(links)


def parse_links(raw: Any, where: str = "links") -> Tuple[LinkSpec, ...]:
    """The link groups of ``raw`` (text, or the already parsed list), validated.

    Raises :class:`LinkParameterError` (a ValueError) whose message starts with
    ``where`` (the parameter's name) and says which group and field is wrong.
    """
    if raw is None:
        return ()
    if isinstance(raw, str):
        if not raw.strip():
            return ()
        try:
            data = yaml.safe_load(raw)
        except yaml.YAMLError as error:
            first = str(error).splitlines()[0] if str(error) else "syntax error"
            raise LinkParameterError(f"{where}: not valid YAML/JSON ({first}); expected "
                                     f"{FORMAT}") from None
    else:
        data = raw
    if data is None:
        return ()
    if not isinstance(data, list):
        raise LinkParameterError(f"{where}: expected {FORMAT}, got {type(data).__name__} "
                                 f"{data!r}")
    return link_groups(data, key=where)


def links_text(links: Sequence[LinkSpec]) -> str:
    """The ``links`` parameter for these groups (compact JSON; '' for none)."""
    if not links:
        return ""
    import json

    entries = []
    for link in links:
        entry: Dict[str, Any] = {"agents": list(link.agents), "max_length": link.max_length}
        if link.rest_length is not None:
            entry["rest_length"] = link.rest_length
        entries.append(entry)
    return json.dumps(entries, separators=(", ", ": "))


def group_of(links: Sequence[LinkSpec], name: str) -> Optional[LinkSpec]:
    """The group robot ``name`` belongs to, if any."""
    for link in links:
        if name in link.agents:
            return link
    return None


def linked_names(links: Sequence[LinkSpec]) -> Tuple[str, ...]:
    """Every robot named in a group, in order."""
    return tuple(name for link in links for name in link.agents)


class LinkedViews(NamedTuple):
    """What a robot of ``links`` knows of them in one control period."""

    tethers: List[TetherView]  # its group's partners it can see
    links: List[LinkView]  # the other groups' links within reach, nearest first
    missing: List[str]  # partners never seen
    stale: List[str]  # partners last seen longer ago than the timeout


def linked_views(robot: str, groups: Sequence[LinkSpec],
                 observed: Mapping[str, Tuple[Vector2, Vector2, float]],
                 radius_of: Callable[[str], float], lag: float, timeout: float,
                 position: Vector2, reach: float) -> LinkedViews:
    """``robot``'s partners and the other groups' links as they may be when its command
    acts, from ``observed`` (name -> last position, velocity, and age in s).

    Each robot is carried forward at its velocity for its age (at most
    ``timeout``) plus ``lag``, as the robot's own state is. A partner never seen,
    or seen longer than ``timeout`` ago, is left out and listed (where a tether
    or load pulls the robot is then not known: orca_node holds it). Another
    group's link is known once both its robots were seen; ``reach`` is the
    robot's ``neighbor_dist`` (:func:`~orca_ros.core.methods.links.links_within`).
    """
    def ahead(name: str) -> Vector2:
        (x, y), (vx, vy), age = observed[name]
        carried = min(age, timeout) + lag
        return (x + vx * carried, y + vy * carried)

    group = group_of(groups, robot)
    tethers: List[TetherView] = []
    missing: List[str] = []
    stale: List[str] = []
    for partner in group.agents if group is not None else ():
        if partner == robot:
            continue
        if partner not in observed:
            missing.append(partner)
        elif observed[partner][2] > timeout:
            stale.append(partner)
        else:
            tethers.append(TetherView(partner, ahead(partner), observed[partner][1],
                                      radius_of(partner), group.max_length,
                                      group.rest_length))
    known = [LinkView(ahead(a), ahead(b), observed[a][1], observed[b][1], (a, b))
             for link in groups if link is not group for a, b in link.pairs
             if a in observed and b in observed]
    return LinkedViews(tethers, links_within(position, known, reach), missing, stale)
