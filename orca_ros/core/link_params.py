"""Linked robots as a text parameter: orca_node's ``links`` (pure, no ROS).

The text is YAML (JSON is YAML too) of a list in the scenario format's
``links:`` (``shared/scenarios/README.md``)::

    [{agents: [a0, a1], max_length: 1.2}, {agents: [b0, b1, b2], max_length: 0.8,
      rest_length: 0.6}]

An empty text (or ``[]``) is no links. :func:`parse_links` checks it by the
scenario loader's rules that need no agents' starts: groups of 2 or 3 distinct
names, an agent in one group at most, ``max_length`` and ``rest_length``
positive and finite, ``rest_length <= max_length``, no other keys. Agent names
are the robots' names as orca_node knows them (namespaces without slashes).
:func:`links_text` writes the parameter for a scenario's links.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence, Tuple

import yaml

from .scenario import LINK_KEYS, LinkSpec
from .types import as_finite

FORMAT = "a YAML/JSON list of {agents: [2 or 3 robot names], max_length: m, rest_length: m}"


class LinkParameterError(ValueError):
    """A ``links`` text that cannot be used, with the place and the reason."""


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
    taken: Dict[str, int] = {}
    links: List[LinkSpec] = []
    for k, group in enumerate(data):
        here = f"{where}[{k}]"
        if not isinstance(group, dict):
            raise LinkParameterError(f"{here}: must be a mapping with 'agents' and "
                                     f"'max_length', got {group!r}")
        unknown = set(group) - LINK_KEYS
        if unknown:
            raise LinkParameterError(f"{here}: unknown key(s) {sorted(map(str, unknown))}; "
                                     f"allowed: {sorted(LINK_KEYS)}")
        for key in ("agents", "max_length"):
            if key not in group:
                raise LinkParameterError(f"{here}: missing '{key}'")
        names = group["agents"]
        if not isinstance(names, list) or len(names) not in (2, 3):
            raise LinkParameterError(f"{here}: agents must be a list of 2 or 3 robot names, "
                                     f"got {names!r}")
        names = [str(n).strip("/") for n in names]
        if not all(names):
            raise LinkParameterError(f"{here}: agents has an empty name: {group['agents']!r}")
        if len(set(names)) != len(names):
            raise LinkParameterError(f"{here}: agents names a robot twice: {names}")
        for name in names:
            if name in taken:
                raise LinkParameterError(
                    f"{here}: agents: robot {name!r} is already in {where}[{taken[name]}]; "
                    f"a robot belongs to one group at most")
            taken[name] = k
        max_length = _length(group["max_length"], here, "max_length")
        rest_length = None if group.get("rest_length") is None else \
            _length(group["rest_length"], here, "rest_length")
        if rest_length is not None and rest_length > max_length:
            raise LinkParameterError(f"{here}: rest_length {rest_length} exceeds max_length "
                                     f"{max_length}")
        links.append(LinkSpec(tuple(names), max_length, rest_length))
    return tuple(links)


def _length(value: Any, where: str, key: str) -> float:
    if isinstance(value, bool):
        raise LinkParameterError(f"{where}: {key} must be a number, got {value!r}")
    try:
        return as_finite(value, key, strictly_positive=True)
    except ValueError as error:
        raise LinkParameterError(f"{where}: {error}") from None


def links_text(links: Sequence[LinkSpec]) -> str:
    """The ``links`` parameter for these groups (compact JSON; '' for none)."""
    if not links:
        return ""
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
