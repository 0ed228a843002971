"""Scenario files (format: doc/scenario_format.md) loaded into typed, validated data.

A file is rejected, with a message naming the file, the agent and the field,
when it has unknown keys, non-positive radius or speed, or an agent that
starts inside an obstacle or overlapping another agent.

``dimensions: 3`` (ours) makes a scenario of aerial robots: every start, goal
and waypoint has three components ``[x, y, z]`` and the robots are spheres.
What only exists on a floor is refused there by name: obstacles (RVO2-3D has
none), ``time_horizon_obst``, links, a toio mat, a supervisor block and an
agent's ``heading``.
"""

from __future__ import annotations

import functools

import math
import pathlib
import random
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import yaml

from ..errors import InputError
from ..geometry.polygons import point_polygon_signed_distance
from ..geometry.types import Polygon, Segment, Vector2, Vector3, as_finite, as_vector2, as_vector3
from ..robot.link_groups import LinkParameterError, LinkSpec, link_groups  # noqa: F401 (the format's links)

Point = Union[Vector2, Vector3]
"""A position in a scenario: ``(x, y)``, or ``(x, y, z)`` with ``dimensions: 3``."""

TOP_LEVEL_KEYS = {
    "name", "source", "description", "seed", "time_step", "max_time", "on_goal",
    "goal_tolerance", "waypoint_tolerance", "planned_waypoints", "notes", "defaults", "agents",
    "obstacles", "supervisor", "expected", "expected_paper_mode", "toio", "links",
    "dimensions", "map", "unmapped_obstacles",
}
DIMENSIONS = (2, 3)
FLOOR_ONLY_KEYS = ("obstacles", "links", "toio", "supervisor", "map", "unmapped_obstacles")
"""Top-level keys a 3D scenario may not have: nothing in 3D reads them."""
AGENT_PARAMETER_KEYS = {"radius", "max_speed", "pref_speed", "neighbor_dist", "max_neighbors",
                        "time_horizon", "time_horizon_obst"}
AGENT_KEYS = {"name", "start", "goal", "waypoints", "heading"} | AGENT_PARAMETER_KEYS
BUILTIN_DEFAULTS = {"neighbor_dist": 10.0, "max_neighbors": 10, "time_horizon": 2.0,
                    "time_horizon_obst": 2.0}


class ScenarioError(InputError):
    """A scenario file that cannot be run, with the place and the reason."""


@dataclass(frozen=True)
class AgentSpec:
    name: str
    start: Point
    goal: Point
    waypoints: Tuple[Point, ...]  # visited in order; the last one is the goal
    radius: float
    max_speed: float
    pref_speed: float
    neighbor_dist: float
    max_neighbors: int
    time_horizon: float
    time_horizon_obst: float
    heading: Optional[float] = None  # rad, world frame; None: facing the first waypoint

    @property
    def start_heading(self) -> float:
        """Where a robot faces at the start (rad): ``heading``, else its first waypoint."""
        if self.heading is not None:
            return self.heading
        first = self.waypoints[0]
        return math.atan2(first[1] - self.start[1], first[0] - self.start[0])

    @property
    def reference_length(self) -> float:
        """Length of the polyline start -> waypoints -> goal."""
        points = (self.start,) + self.waypoints
        return sum(math.dist(a, b) for a, b in zip(points, points[1:]))


@dataclass(frozen=True)
class Scenario:
    name: str
    time_step: float
    max_time: float
    on_goal: str
    agents: Tuple[AgentSpec, ...]
    obstacles: Tuple[Polygon, ...]
    goal_tolerance: Optional[float] = None
    waypoint_tolerance: Optional[float] = None
    description: str = ""
    source: str = ""
    path: str = ""
    supervisor: Dict[str, Any] = field(default_factory=dict)
    expected: Dict[str, Any] = field(default_factory=dict)
    expected_paper_mode: Dict[str, Any] = field(default_factory=dict)
    toio: Dict[str, Any] = field(default_factory=dict)
    links: Tuple[LinkSpec, ...] = ()
    dimensions: int = 2  # 3: aerial robots, positions (x, y, z)
    map_file: str = ""  # a map_server YAML whose occupied cells are walls (absolute path)
    # polygons that exist (robots collide with them, lasers see them) but nobody is told of
    unmapped_obstacles: Tuple[Polygon, ...] = ()

    def link_of(self, name: str) -> Optional[LinkSpec]:
        """The link group agent ``name`` belongs to, if any."""
        for link in self.links:
            if name in link.agents:
                return link
        return None

    def goal_tolerance_of(self, agent: AgentSpec) -> float:
        return agent.radius if self.goal_tolerance is None else self.goal_tolerance

    @property
    def mat_edges(self) -> Tuple[Segment, ...]:
        """The four edges of the scenario's toio mat (its ``toio:`` block), or none.

        They are walls: a cube that leaves its mat loses its position.
        obstacle_server publishes them beside the polygons, and the world,
        ``orca-ros sim``'s record and the observer count contact with them.
        """
        if not self.toio:
            return ()
        from ..models.toio_cube import mat_border

        return tuple(mat_border(self.toio))

    @property
    def map_walls(self) -> Tuple[Segment, ...]:
        """The boundaries of the occupied cells of the scenario's map (``map:``), as
        segments within one cell (:func:`~orca_ros.core.maps.map_segments`), or none."""
        return _map_walls(self.map_file) if self.map_file else ()

    @property
    def occupancy(self):
        """The scenario's map (``map:``) as an
        :class:`~orca_ros.core.maps.OccupancyMap`, read once per version of its file, or
        None: contact with its occupied cells is judged on the grid itself."""
        return _map_at(*_file_version(self.map_file)) if self.map_file else None

    @property
    def walls(self) -> Tuple[Union[Polygon, Segment], ...]:
        """Every obstacle robots must not touch: the polygons, the mat's edges, then the
        map's walls."""
        return self.obstacles + self.mat_edges + self.map_walls

    @property
    def wall_outlines(self) -> List[Tuple[Vector2, ...]]:
        """:attr:`walls` as vertex lists (a segment is a two-vertex outline)."""
        return [w.vertices if isinstance(w, Polygon) else (w.a, w.b) for w in self.walls]

    @property
    def solid_outlines(self) -> List[Tuple[Vector2, ...]]:
        """Everything a robot can touch: :attr:`wall_outlines`, then the
        ``unmapped_obstacles`` (which exist, but which no robot is told of)."""
        return self.wall_outlines + [p.vertices for p in self.unmapped_obstacles]

    def waypoint_tolerance_of(self, agent: AgentSpec) -> float:
        return agent.radius if self.waypoint_tolerance is None else self.waypoint_tolerance

    def agent(self, name: str) -> AgentSpec:
        for spec in self.agents:
            if spec.name == name:
                return spec
        raise KeyError(name)


def _fail(where: str, message: str) -> ScenarioError:
    return ScenarioError(f"{where}: {message}")


def _number(value: Any, where: str, key: str, *, positive: bool = False,
            minimum: Optional[float] = None) -> float:
    try:
        return as_finite(value, key, minimum=minimum, strictly_positive=positive)
    except ValueError as error:
        raise _fail(where, str(error)) from None


def _point(value: Any, where: str, key: str, dimensions: int = 2) -> Point:
    try:
        if dimensions == 3:
            return as_vector3(value, key)
        return as_vector2(value, key)
    except ValueError as error:
        hint = ""
        if dimensions == 2 and isinstance(value, (list, tuple)) and len(value) == 3:
            hint = " (a scenario of aerial robots, with [x, y, z], says dimensions: 3)"
        raise _fail(where, f"{error}{hint}") from None


def _agent(raw: Any, index: int, defaults: Dict[str, Any], where: str,
           dimensions: int = 2) -> AgentSpec:
    if not isinstance(raw, dict):
        raise _fail(f"{where}: agent #{index}", "must be a mapping")
    name = str(raw.get("name", f"#{index}"))
    here = f"{where}: agent '{name}'"
    unknown = set(raw) - AGENT_KEYS
    if unknown:
        raise _fail(here, f"unknown key(s) {sorted(unknown)}; allowed: {sorted(AGENT_KEYS)}")
    for key in ("name", "start", "goal"):
        if key not in raw:
            raise _fail(here, f"missing '{key}'")
    if dimensions == 3:
        for key in ("heading", "time_horizon_obst"):
            if key in raw:
                raise _fail(here, f"{key}: a 3D scenario (dimensions: 3) has no "
                                  f"{'unicycles' if key == 'heading' else 'obstacles'}; "
                                  f"leave '{key}' out")
    params = dict(BUILTIN_DEFAULTS)
    params.update(defaults)
    params.update({k: raw[k] for k in AGENT_PARAMETER_KEYS if k in raw})
    for key in ("radius", "max_speed"):
        if key not in params:
            raise _fail(here, f"missing '{key}' (neither in the agent nor in defaults)")
    radius = _number(params["radius"], here, "radius", positive=True)
    max_speed = _number(params["max_speed"], here, "max_speed", positive=True)
    pref_speed = _number(params.get("pref_speed", max_speed), here, "pref_speed", positive=True)
    max_neighbors = params["max_neighbors"]
    if isinstance(max_neighbors, bool) or not isinstance(max_neighbors, int) or max_neighbors < 0:
        raise _fail(here, f"max_neighbors must be a non-negative integer, got {max_neighbors!r}")
    start = _point(raw["start"], here, "start", dimensions)
    goal = _point(raw["goal"], here, "goal", dimensions)
    waypoints = tuple(_point(w, here, f"waypoints[{i}]", dimensions)
                      for i, w in enumerate(raw.get("waypoints") or []))
    if not waypoints or math.dist(waypoints[-1], goal) > 1e-9:
        waypoints = waypoints + (goal,)
    return AgentSpec(
        name=name, start=start, goal=goal, waypoints=waypoints, radius=radius,
        max_speed=max_speed, pref_speed=pref_speed,
        neighbor_dist=_number(params["neighbor_dist"], here, "neighbor_dist", minimum=0.0),
        max_neighbors=max_neighbors,
        time_horizon=_number(params["time_horizon"], here, "time_horizon", positive=True),
        time_horizon_obst=_number(params["time_horizon_obst"], here, "time_horizon_obst",
                                  positive=True),
        heading=None if raw.get("heading") is None else _number(raw["heading"], here, "heading"))


def parse_scenario(data: Any, where: str = "<scenario>") -> Scenario:
    """Validate a scenario mapping (as read from YAML) and return it typed."""
    if not isinstance(data, dict):
        raise _fail(where, "a scenario must be a mapping at the top level")
    unknown = set(data) - TOP_LEVEL_KEYS
    if unknown:
        raise _fail(where, f"unknown top-level key(s) {sorted(unknown)}")
    for key in ("time_step", "max_time", "agents"):
        if key not in data:
            raise _fail(where, f"missing '{key}'")
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise _fail(where, "'defaults' must be a mapping")
    unknown = set(defaults) - AGENT_PARAMETER_KEYS
    if unknown:
        raise _fail(f"{where}: defaults", f"unknown key(s) {sorted(unknown)}")
    dimensions = data.get("dimensions", 2)
    if isinstance(dimensions, bool) or dimensions not in DIMENSIONS:
        raise _fail(where, f"dimensions must be 2 or 3, got {dimensions!r}")
    if dimensions == 3:
        present = [key for key in FLOOR_ONLY_KEYS if data.get(key)]
        if present:
            raise _fail(where, f"{', '.join(repr(k) for k in present)}: a 3D scenario "
                               f"(dimensions: 3) has none (no obstacles in 3D, as in RVO2-3D; "
                               f"links, toio mats and the supervisor are 2D only)")
        if "time_horizon_obst" in defaults:
            raise _fail(f"{where}: defaults", "time_horizon_obst: a 3D scenario "
                                              "(dimensions: 3) has no obstacles; leave it out")
    on_goal = data.get("on_goal", "stay")
    if on_goal not in ("stay", "remove"):
        raise _fail(where, f"on_goal must be 'stay' or 'remove', got {on_goal!r}")
    raw_agents = data["agents"]
    if not isinstance(raw_agents, list) or not raw_agents:
        raise _fail(where, "'agents' must be a non-empty list")
    agents = tuple(_agent(raw, i, defaults, where, dimensions)
                   for i, raw in enumerate(raw_agents))
    names = [a.name for a in agents]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise _fail(where, f"agent names must be unique; repeated: {duplicates}")

    def polygons(key: str, what: str) -> Tuple[Polygon, ...]:
        found = []
        for i, raw in enumerate(data.get(key) or []):
            here = f"{where}: {what} #{i}"
            if not isinstance(raw, dict) or set(raw) != {"vertices"}:
                raise _fail(here, "must be a mapping with exactly the key 'vertices'")
            try:
                found.append(Polygon(tuple(raw["vertices"])))
            except (TypeError, ValueError) as error:
                raise _fail(here, str(error)) from None
        return tuple(found)

    obstacles = polygons("obstacles", "obstacle")
    unmapped = polygons("unmapped_obstacles", "unmapped obstacle")

    map_file = ""
    if data.get("map") is not None:
        if not isinstance(data["map"], str) or not data["map"]:
            raise _fail(where, f"'map' must be a map_server YAML file's path, got "
                               f"{data['map']!r}")
        map_file = str((pathlib.Path(where).parent / data["map"]).resolve())
        try:
            _map_walls(map_file)
        except ValueError as error:  # a MapError names the map's file and field
            raise _fail(where, f"map: {error}") from None

    scenario = Scenario(
        name=str(data.get("name", pathlib.Path(where).stem)),
        time_step=_number(data["time_step"], where, "time_step", positive=True),
        max_time=_number(data["max_time"], where, "max_time", positive=True),
        on_goal=on_goal, agents=agents, obstacles=obstacles,
        goal_tolerance=(None if data.get("goal_tolerance") is None else
                        _number(data["goal_tolerance"], where, "goal_tolerance", positive=True)),
        waypoint_tolerance=(None if data.get("waypoint_tolerance") is None else
                            _number(data["waypoint_tolerance"], where, "waypoint_tolerance",
                                    positive=True)),
        description=str(data.get("description", "")), source=str(data.get("source", "")),
        path=where, supervisor=dict(data.get("supervisor") or {}),
        expected=dict(data.get("expected") or {}),
        expected_paper_mode=dict(data.get("expected_paper_mode") or {}),
        toio=dict(data.get("toio") or {}),
        links=_links(data.get("links"), agents, where), dimensions=dimensions,
        map_file=map_file, unmapped_obstacles=unmapped)
    check_start_positions(scenario)
    return scenario


def _links(raw: Any, agents: Tuple[AgentSpec, ...], where: str) -> Tuple[LinkSpec, ...]:
    """The ``links:`` list (:func:`link_groups`, with the scenario's agents), and starts
    within ``max_length`` of every partner (a tether cannot start over-stretched)."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _fail(where, "'links' must be a list of {agents: [...], max_length: ...}")
    starts = {a.name: a.start for a in agents}
    try:
        links = link_groups(raw, where, agents=list(starts))
    except LinkParameterError as error:
        raise ScenarioError(str(error)) from None
    for k, link in enumerate(links):
        for a, b in link.pairs:
            apart = math.dist(starts[a], starts[b])
            if apart > link.max_length:
                raise _fail(f"{where}: links[{k}]",
                            f"max_length: agents {a!r} and {b!r} start {apart:.3f} m "
                            f"apart, more than max_length {link.max_length} m")
    return links


def check_start_positions(scenario: Scenario) -> None:
    """Reject agents that start overlapping each other or inside an obstacle, and,
    on a toio mat, a start or goal off the mat or within the agent's radius of its edge."""
    agents = scenario.agents
    where = scenario.path
    if len(agents) > 1:
        from scipy.spatial import cKDTree

        starts = [a.start for a in agents]
        max_radius = max(a.radius for a in agents)
        for i, j in sorted(cKDTree(starts).query_pairs(2.0 * max_radius)):
            a, b = agents[i], agents[j]
            gap = math.dist(a.start, b.start) - a.radius - b.radius
            if gap < 0.0:
                raise _fail(f"{where}: agent '{b.name}'",
                            f"start overlaps agent '{a.name}' by {-gap:.3f} m")
    for agent in agents:
        for k, polygon in enumerate(scenario.obstacles):
            distance = point_polygon_signed_distance(agent.start, polygon.vertices)
            if distance < agent.radius:
                raise _fail(f"{where}: agent '{agent.name}'",
                            f"start {agent.start} is inside or within its radius of "
                            f"obstacle #{k} (distance {distance:.3f} m, radius {agent.radius} m)")
    occupancy = scenario.occupancy
    if occupancy is not None:
        starts = np.array([a.start for a in agents], dtype=float).reshape(-1, 2)
        radii = np.array([a.radius for a in agents])
        distance = occupancy.occupied_distance(starts, float(radii.max()))
        for k in np.flatnonzero(distance < radii):
            agent = agents[k]
            raise _fail(f"{where}: agent '{agent.name}'",
                        f"start {agent.start} is on or within its radius of the map's "
                        f"occupied cells (distance {distance[k]:.3f} m, radius "
                        f"{agent.radius} m)")
    if scenario.mat_edges:
        corners = [point for edge in scenario.mat_edges for point in (edge.a, edge.b)]
        x0, x1 = min(p[0] for p in corners), max(p[0] for p in corners)
        y0, y1 = min(p[1] for p in corners), max(p[1] for p in corners)
        for agent in agents:
            for what, (x, y) in (("start", agent.start), ("goal", agent.goal)):
                clearance = min(x - x0, x1 - x, y - y0, y1 - y)
                if clearance < agent.radius:
                    raise _fail(f"{where}: agent '{agent.name}'",
                                f"{what} {(x, y)} is off the toio mat or within its radius of "
                                f"the mat's edge (clearance {clearance:.4f} m, radius "
                                f"{agent.radius} m)")


def jitter_starts(scenario: Scenario, max_offset: float, seed: int) -> Scenario:
    """The scenario with every start moved on the floor (x and y) by up to
    ``max_offset`` m each, uniformly at random from ``random.Random(seed)``: one of many
    runs of a scene whose outcome turns on millimetres (toio cubes, dense crowds)."""
    max_offset = as_finite(max_offset, "start jitter", minimum=0.0)
    rng = random.Random(seed)

    def moved(start):
        return (start[0] + rng.uniform(-max_offset, max_offset),
                start[1] + rng.uniform(-max_offset, max_offset), *start[2:])

    return replace(scenario, agents=tuple(replace(a, start=moved(a.start))
                                          for a in scenario.agents))


@functools.lru_cache(maxsize=8)
def _map_at(path: str, modified_ns: int, size: int):
    from ..maps import load_map

    return load_map(path)


@functools.lru_cache(maxsize=8)
def _map_walls_at(path: str, modified_ns: int, size: int) -> Tuple[Segment, ...]:
    from ..maps import map_segments

    return tuple(map_segments(_map_at(path, modified_ns, size)))


def _file_version(path: str) -> Tuple[str, int, int]:
    from ..maps import MapError

    try:
        stat = pathlib.Path(path).stat()
    except OSError as error:
        raise MapError(f"{path}: cannot read: {error.strerror}") from None
    return path, stat.st_mtime_ns, stat.st_size


def _map_walls(path: str) -> Tuple[Segment, ...]:
    """A map's walls, read once per version of its file (a scenario is loaded by every
    node of a run)."""
    return _map_walls_at(*_file_version(path))


def load_scenario(path: str | pathlib.Path) -> Scenario:
    """Read and validate a scenario YAML file."""
    path = pathlib.Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ScenarioError(f"{path}: cannot read: {error.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ScenarioError(f"{path}: not valid YAML: {error}") from None
    return parse_scenario(data, str(path))


def builtin_scenario_dir() -> pathlib.Path:
    """The scenarios shipped inside the package."""
    return pathlib.Path(__file__).resolve().parents[2] / "scenarios"


def public_scenario_dir() -> pathlib.Path:
    """The public benchmark scenarios shipped inside the package (RVO2, Menge, CrowdNav
    scenes, and the supervisor's cases in ``cocoon/``); NOTICE.md there says where each
    came from and its licence."""
    return builtin_scenario_dir() / "public"


def _named_dirs() -> Tuple[pathlib.Path, ...]:
    """Where a scenario's bare name is looked up, in this order."""
    public = public_scenario_dir()
    return builtin_scenario_dir(), public, public / "cocoon"


def resolve_scenario(name_or_path: str) -> pathlib.Path:
    """A path as given, or the name of a built-in or public scenario (with or without
    .yaml)."""
    path = pathlib.Path(name_or_path)
    if path.exists():
        return path
    file_name = path.name if path.suffix else path.name + ".yaml"
    for folder in _named_dirs():
        if (folder / file_name).exists():
            return folder / file_name
    builtin = ", ".join(sorted(p.stem for p in builtin_scenario_dir().glob("*.yaml")))
    public = ", ".join(sorted(p.stem for folder in _named_dirs()[1:]
                              for p in folder.glob("*.yaml")))
    raise ScenarioError(f"{name_or_path}: no such file, and no built-in or public scenario of "
                        f"that name (built-in: {builtin}; public: {public})")
