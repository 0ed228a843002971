"""Linked robots as a text parameter: orca_node's ``links`` (pure, no ROS).

The text is YAML (JSON is YAML too) of a list in the scenario format's
``links:`` (``doc/scenario_format.md``)::

    [{agents: [a0, a1], max_length: 1.2}, {agents: [b0, b1, b2], max_length: 0.8,
      rest_length: 0.6}]

An empty text (or ``[]``) is no links. :func:`parse_links` checks it by the
scenario loader's rules that need no agents' starts
(:func:`~orca_ros.core.scenario.loader.link_groups`): groups of 2 or 3 distinct
names, an agent in one group at most, ``max_length`` and ``rest_length``
positive and finite, ``rest_length <= max_length``, no other keys. Agent names
are the robots' names as orca_node knows them (namespaces without slashes).
:func:`links_text` writes the parameter for a scenario's links.
"""

from __future__ import annotations

from typing import (TYPE_CHECKING, Any, Callable, Dict, List, Mapping, NamedTuple, Optional,
                    Sequence, Tuple)

import yaml

from ..errors import InputError
from ..methods.links import links_within
from ..methods import LinkView, TetherView
from ..geometry.types import Vector2

if TYPE_CHECKING:
    from ..scenario.loader import LinkSpec

FORMAT = "a YAML/JSON list of {agents: [2 or 3 robot names], max_length: m, rest_length: m}"


class LinkParameterError(InputError):
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
    from ..scenario.loader import ScenarioError, link_groups  # only for a robot with links

    try:
        return link_groups(data, key=where)
    except ScenarioError as error:
        raise LinkParameterError(str(error)) from None


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
