"""SteerSuite test cases (SteerBench XML, ``testcases/*.xml`` of SteerSuite/Release)
converted to orca_ros scenarios (doc/scenario_format.md, "SteerSuite test cases").

SteerSuite is GPL-3.0, so its scenes are not shipped; a user downloads its test cases
and converts them with ``orca-ros import-steersuite``. The rules:

- SteerSuite's ground plane (x, z) becomes (x, y): the scene is mirrored (left and
  right swap); an obstacle box [xmin, xmax] x [zmin, zmax] becomes a counter-clockwise
  rectangle.
- The defaults are SteerSuite's RVO2D plug-in parameters (radius 0.5, max_speed 1.33,
  neighbor_dist 10, max_neighbors 10, time horizons 2 s); ``pref_speed`` is the case's
  desiredSpeed (an agent faster than max_speed gets that speed as its max_speed);
  ``time_step`` 0.05 s (SteerSuite's 20 fps); arrival within 1.25 m (2.5 x radius, the
  RVO2D agent's test); ``on_goal: remove`` (SteerSuite disables an agent at its last
  target). Initial heading and speed are dropped.
- A goal sequence of static targets becomes waypoints; its last target is the goal.
- Random placement (agent regions, random positions and targets, obstacle regions) is
  drawn with numpy ``default_rng(seed)``: uniformly in the region, kept the radius inside
  it, drawn again while it overlaps an agent or an obstacle. It follows SteerSuite's
  rules, but not SteerSuite's random stream.
- Agents that touch exactly in the source are moved apart to a 0.01 m gap.
- Where a straight leg runs through an obstacle (more than the agent's radius of it),
  the source's agents used a global planner and straight-line ORCA gets stuck: corner
  points of a shortest path round the obstacles inflated by radius + 0.3 m (or + 0.06 m
  where only a tight gap exists) are added as waypoints (``planned_waypoints: true``).
"""

from __future__ import annotations

import heapq
import math
import pathlib
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import yaml

from ..core.errors import InputError

SOURCE_COMMIT = "7530270f307f"
"""The SteerSuite/Release commit whose test cases the public SteerSuite scenes came from."""
RADIUS = 0.5
DEFAULTS = {"radius": RADIUS, "max_speed": 1.33, "pref_speed": 1.3, "neighbor_dist": 10.0,
            "max_neighbors": 10, "time_horizon": 2.0, "time_horizon_obst": 2.0}
TIME_STEP = 0.05
GOAL_TOLERANCE = 1.25
TOUCH_GAP = 0.01
PLAN_MARGIN, TIGHT_PLAN_MARGIN = 0.3, 0.06
FLOW_STYLE_AGENTS = 24
"""Files with more agents write each agent on one line (flow style)."""
DIGITS = 4
MAX_DRAWS = 100_000
BASE_NOTES = (
    "SteerSuite/SteerBench test case, x-z ground plane mapped to x-y (a mirror image). "
    "Initial heading/speed of the source are dropped (all agents start at rest). Defaults "
    "are SteerSuite's RVO2D plug-in parameters; pref_speed is the case's desiredSpeed. "
    "on_goal=remove: SteerSuite disables an agent once it reaches its last target; "
    "goal_tolerance 1.25 m = 2.5 x radius, the arrival test of SteerSuite's RVO2D and "
    "social-forces agents.")

Box = Tuple[float, float, float, float]
"""An axis-aligned rectangle on the ground: (xmin, xmax, ymin, ymax), already in x-y."""
Point = Tuple[float, float]


class SteerSuiteError(InputError):
    """A test case the converter cannot read or convert, with the file and the reason."""


@dataclass
class _Target:
    location: Optional[Point]  # None: random
    speed: float


@dataclass
class _Agent:
    radius: float
    position: Optional[Point]  # None: drawn in `region` (or the world's bounds)
    targets: List[_Target]
    region: Optional[Box] = None


@dataclass
class TestCase:
    """One SteerBench test case as read: what the conversion needs."""

    name: str
    file_name: str
    description: str
    world: Box
    obstacles: List[Box] = field(default_factory=list)
    obstacle_regions: List[Tuple[int, float, Box]] = field(default_factory=list)
    agents: List[_Agent] = field(default_factory=list)

    @property
    def random(self) -> bool:
        return bool(self.obstacle_regions) or any(
            a.position is None or any(t.location is None for t in a.targets)
            for a in self.agents)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child(element, name: str):
    for child in element:
        if _local(child.tag) == name:
            return child
    return None


def _children(element, name: str):
    return [child for child in element if _local(child.tag) == name]


def _number(element, name: str, where: str) -> float:
    child = _child(element, name)
    if child is None or not (child.text or "").strip():
        raise SteerSuiteError(f"{where}: <{_local(element.tag)}> has no <{name}>")
    try:
        value = float(child.text)
    except ValueError:
        raise SteerSuiteError(f"{where}: <{name}> is not a number: {child.text.strip()!r}") \
            from None
    if not math.isfinite(value):
        raise SteerSuiteError(f"{where}: <{name}> is not finite: {child.text.strip()!r}")
    return value


def _box(element, where: str) -> Box:
    xmin, xmax, zmin, zmax = (_number(element, k, where) for k in ("xmin", "xmax", "zmin", "zmax"))
    if xmin > xmax or zmin > zmax:
        raise SteerSuiteError(f"{where}: a box with min > max: x [{xmin}, {xmax}], "
                              f"z [{zmin}, {zmax}]")
    return xmin, xmax, zmin, zmax


def _point(element, where: str) -> Optional[Point]:
    """An <x> <y> <z> tuple on the ground (x, z), or None for <random>true</random>."""
    flag = _child(element, "random")
    if flag is not None and (flag.text or "").strip().lower() == "true":
        return None
    return _number(element, "x", where), _number(element, "z", where)


def _goals(element, where: str) -> List[_Target]:
    sequence = _child(element, "goalSequence")
    if sequence is None or not len(sequence):
        raise SteerSuiteError(f"{where}: no <goalSequence> goal")
    targets = []
    for goal in sequence:
        kind = _local(goal.tag)
        if kind != "seekStaticTarget":
            raise SteerSuiteError(f"{where}: goal <{kind}> is not supported (only "
                                  "<seekStaticTarget>: an orca_ros agent walks to fixed points)")
        location = _child(goal, "targetLocation")
        if location is None:
            raise SteerSuiteError(f"{where}: <seekStaticTarget> has no <targetLocation>")
        targets.append(_Target(_point(location, where), _number(goal, "desiredSpeed", where)))
    return targets


def _initial(element, where: str):
    initial = _child(element, "initialConditions")
    if initial is None:
        raise SteerSuiteError(f"{where}: no <initialConditions>")
    radius = _number(initial, "radius", where) if _child(initial, "radius") is not None \
        else RADIUS
    if radius <= 0.0:
        raise SteerSuiteError(f"{where}: radius {radius} is not positive")
    return initial, radius


def read_test_case(path: str | pathlib.Path) -> TestCase:
    """Read a SteerBench test case XML file; refuse what cannot be converted."""
    path = pathlib.Path(path)
    try:
        root = ElementTree.parse(path).getroot()
    except OSError as error:
        raise SteerSuiteError(f"{path}: cannot read: {error.strerror}") from None
    except ElementTree.ParseError as error:
        raise SteerSuiteError(f"{path}: not valid XML: {error}") from None
    if _local(root.tag) != "SteerBenchTestCase":
        raise SteerSuiteError(f"{path}: not a SteerSuite test case (the root is "
                              f"<{_local(root.tag)}>, not <SteerBenchTestCase>)")
    header = _child(root, "header")
    if header is None or _child(header, "worldBounds") is None:
        raise SteerSuiteError(f"{path}: no <header> with <worldBounds>")
    name_element = _child(header, "name")
    name = (name_element.text or "").strip() if name_element is not None else path.stem
    text = _child(header, "description")
    description = " ".join((text.text or "").split()) if text is not None else ""
    case = TestCase(name=name or path.stem, file_name=path.name, description=description,
                    world=_box(_child(header, "worldBounds"), f"{path}: <worldBounds>"))
    counts: Dict[str, int] = {}
    for element in root:
        kind = _local(element.tag)
        counts[kind] = counts.get(kind, 0) + 1
        where = f"{path}: <{kind}> #{counts[kind]}"
        if kind == "obstacle":
            case.obstacles.append(_box(element, where))
        elif kind == "obstacleRegion":
            bounds = _child(element, "regionBounds")
            if bounds is None:
                raise SteerSuiteError(f"{where}: no <regionBounds>")
            case.obstacle_regions.append((int(_number(element, "numObstacles", where)),
                                          _number(element, "obstacleSize", where),
                                          _box(bounds, where)))
        elif kind == "agent":
            initial, radius = _initial(element, where)
            position = _child(initial, "position")
            if position is None:
                raise SteerSuiteError(f"{where}: no <position>")
            case.agents.append(_Agent(radius, _point(position, where), _goals(element, where)))
        elif kind == "agentRegion":
            initial, radius = _initial(element, where)
            bounds = _child(element, "regionBounds")
            if bounds is None:
                raise SteerSuiteError(f"{where}: no <regionBounds>")
            region = _box(bounds, where)
            targets = _goals(element, where)
            for _ in range(int(_number(element, "numAgents", where))):
                case.agents.append(_Agent(radius, None, targets, region))
    if not case.agents:
        raise SteerSuiteError(f"{path}: no agents")
    return case


def scenario_name(file_name: str) -> str:
    """``steersuite_<case>`` from a test case's file name, as the public set names them:
    a trailing ``-1`` dropped, ``N-way`` written ``Nway``, SteerSuite's ``oncomming``
    spelt ``oncoming``, ``-`` as ``_`` (``3-way-confusion-1.xml``: steersuite_3way_confusion)."""
    stem = pathlib.Path(file_name).stem.lower()
    stem = re.sub(r"-1$", "", stem)
    stem = re.sub(r"(\d)-way", r"\1way", stem).replace("oncomming", "oncoming")
    return "steersuite_" + re.sub(r"[^a-z0-9]+", "_", stem).strip("_")


# --- geometry on axis-aligned boxes ---------------------------------------------------

def _box_distance(point: Point, box: Box) -> float:
    """Distance from a point to a box (0 inside)."""
    dx = max(box[0] - point[0], 0.0, point[0] - box[1])
    dy = max(box[2] - point[1], 0.0, point[1] - box[3])
    return math.hypot(dx, dy)


def _chord(p: Point, q: Point, box: Box) -> Tuple[float, float]:
    """The part [t0, t1] of the segment p + t (q - p), t in [0, 1], inside the closed box
    (t0 > t1: none)."""
    t0, t1 = 0.0, 1.0
    for axis, (low, high) in enumerate(((box[0], box[1]), (box[2], box[3]))):
        d = q[axis] - p[axis]
        if abs(d) < 1e-12:
            if not low <= p[axis] <= high:
                return 1.0, 0.0
            continue
        a, b = (low - p[axis]) / d, (high - p[axis]) / d
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
    return t0, t1


def _crosses(p: Point, q: Point, box: Box) -> bool:
    """Whether the segment runs through the box's interior (not along or at its edge)."""
    t0, t1 = _chord(p, q, box)
    if t1 - t0 <= 1e-9:
        return False
    t = 0.5 * (t0 + t1)
    x, y = p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])
    return box[0] + 1e-9 < x < box[1] - 1e-9 and box[2] + 1e-9 < y < box[3] - 1e-9


def _inside_length(p: Point, q: Point, boxes: Sequence[Box]) -> float:
    length = math.dist(p, q)
    total = 0.0
    for box in boxes:
        t0, t1 = _chord(p, q, box)
        total += max(t1 - t0, 0.0) * length
    return total


def _inflate(box: Box, margin: float) -> Box:
    return box[0] - margin, box[1] + margin, box[2] - margin, box[3] + margin


def _strictly_inside(point: Point, box: Box) -> bool:
    return box[0] + 1e-9 < point[0] < box[1] - 1e-9 and box[2] + 1e-9 < point[1] < box[3] - 1e-9


def shortest_path(start: Point, goal: Point, boxes: Sequence[Box]) -> Optional[List[Point]]:
    """The corners of a shortest path from start to goal round the (inflated) boxes, then
    the goal; None when start or goal is inside one or no path exists."""
    if any(_strictly_inside(start, b) or _strictly_inside(goal, b) for b in boxes):
        return None
    corners = [(x, y) for b in boxes for x in (b[0], b[1]) for y in (b[2], b[3])]
    nodes = [start, goal] + [c for c in corners if not any(_strictly_inside(c, b) for b in boxes)]
    best = {0: 0.0}
    previous: Dict[int, int] = {}
    queue = [(0.0, 0)]
    done = set()
    while queue:
        cost, i = heapq.heappop(queue)
        if i in done:
            continue
        done.add(i)
        if i == 1:
            path = []
            while i != 0:
                path.append(nodes[i])
                i = previous[i]
            return path[::-1]
        for j, node in enumerate(nodes):
            if j in done or any(_crosses(nodes[i], node, b) for b in boxes):
                continue
            candidate = cost + math.dist(nodes[i], node)
            if candidate < best.get(j, math.inf) - 1e-12:
                best[j] = candidate
                previous[j] = i
                heapq.heappush(queue, (candidate, j))
    return None


# --- the conversion -------------------------------------------------------------------

def _round(value: float) -> float:
    rounded = round(float(value), DIGITS)
    return 0.0 if rounded == 0.0 else rounded


def _rpoint(point: Point) -> List[float]:
    return [_round(point[0]), _round(point[1])]


class _Placer:
    """Random placement with numpy default_rng(seed): uniform in a box kept `radius` inside
    it, drawn again while it overlaps what is already placed."""

    def __init__(self, seed: int, obstacles: List[Box]):
        self.rng = np.random.default_rng(seed)
        self.obstacles = obstacles
        self.placed: List[Tuple[Point, float]] = []

    def free(self, point: Point, radius: float) -> bool:
        return all(math.dist(point, p) >= radius + r for p, r in self.placed) and \
            all(_box_distance(point, b) >= radius for b in self.obstacles)

    def draw(self, region: Box, radius: float, where: str) -> Point:
        low_x, high_x = region[0] + radius, region[1] - radius
        low_y, high_y = region[2] + radius, region[3] - radius
        if low_x > high_x or low_y > high_y:
            raise SteerSuiteError(f"{where}: region {region} is narrower than an agent")
        for _ in range(MAX_DRAWS):
            point = (float(self.rng.uniform(low_x, high_x)), float(self.rng.uniform(low_y, high_y)))
            if self.free(point, radius):
                return point
        raise SteerSuiteError(f"{where}: no free place for an agent after {MAX_DRAWS} draws")

    def target(self, region: Box) -> Point:
        return float(self.rng.uniform(region[0], region[1])), \
            float(self.rng.uniform(region[2], region[3]))


def _obstacle_regions(case: TestCase, rng: np.random.Generator) -> List[Box]:
    boxes = []
    for count, size, region in case.obstacle_regions:
        half = 0.5 * size
        for _ in range(count):
            x = float(rng.uniform(region[0] + half, region[1] - half))
            y = float(rng.uniform(region[2] + half, region[3] - half))
            boxes.append((x - half, x + half, y - half, y + half))
    return boxes


def _separate_touching(starts: List[Point], radii: List[float]) -> int:
    """Move each agent that touches an earlier one exactly (in the source) away from it,
    along the line between them, to a TOUCH_GAP gap. Returns how many moved."""
    moved = 0
    for j in range(len(starts)):
        for i in range(j):
            distance = math.dist(starts[i], starts[j])
            contact = radii[i] + radii[j]
            if distance > 0.0 and abs(distance - contact) < 1e-9:
                scale = (contact + TOUCH_GAP) / distance
                starts[j] = (starts[i][0] + (starts[j][0] - starts[i][0]) * scale,
                             starts[i][1] + (starts[j][1] - starts[i][1]) * scale)
                moved += 1
    return moved


def _plan(points: List[Point], radius: float, boxes: Sequence[Box]) -> Tuple[List[Point], int]:
    """The reference polyline start -> targets, with shortest-path corners added on legs
    that run through an obstacle for more than the radius; how many legs were planned."""
    out, planned = [points[0]], 0
    for p, q in zip(points, points[1:]):
        if _inside_length(p, q, boxes) <= radius:
            out.append(q)
            continue
        path = None
        for margin in (PLAN_MARGIN, TIGHT_PLAN_MARGIN):
            path = shortest_path(p, q, [_inflate(b, radius + margin) for b in boxes])
            if path is not None:
                break
        if path is None:  # no way round: keep the leg straight
            out.append(q)
            continue
        out.extend(path)
        planned += 1
    return out, planned


def _max_time(polylines: List[List[Point]], speeds: List[float]) -> float:
    """2.5 times the slowest agent's reference time (its polyline at its pref_speed),
    rounded up to 10 s, at least 60 s."""
    slowest = max(sum(math.dist(a, b) for a, b in zip(line, line[1:])) / speed
                  for line, speed in zip(polylines, speeds))
    return float(max(60, 10 * math.ceil(round(2.5 * slowest, 6) / 10.0)))


def convert(case: TestCase, seed: int = 0, name: Optional[str] = None,
            commit: str = SOURCE_COMMIT, max_time: Optional[float] = None) -> dict:
    """The scenario (a dict in the order of doc/scenario_format.md) of one test case."""
    name = name or scenario_name(case.file_name)
    obstacles = list(case.obstacles)
    placer = _Placer(seed, obstacles)
    obstacles += _obstacle_regions(case, placer.rng)
    where = case.file_name
    radii = [a.radius for a in case.agents]
    # the agents placed in the source hold their places; random ones are drawn round them
    fixed = [a for a in case.agents if a.position is not None]
    fixed_starts = [a.position for a in fixed]
    moved = _separate_touching(fixed_starts, [a.radius for a in fixed])
    placer.placed += [(p, a.radius) for p, a in zip(fixed_starts, fixed)]
    fixed_iter = iter(fixed_starts)
    starts: List[Point] = []
    targets: List[List[Point]] = []
    for k, agent in enumerate(case.agents):
        if agent.position is not None:
            start = next(fixed_iter)
        else:
            start = placer.draw(agent.region or case.world, agent.radius, f"{where}: agent a{k}")
            placer.placed.append((start, agent.radius))
        starts.append(start)
        targets.append([t.location if t.location is not None else placer.target(case.world)
                        for t in agent.targets])
    for k, (start, radius) in enumerate(zip(starts, radii)):
        for b, box in enumerate(obstacles):
            if _box_distance(start, box) < radius - 1e-9:
                raise SteerSuiteError(f"{where}: agent a{k} starts inside obstacle #{b} "
                                      f"at {_rpoint(start)}")
    agents, polylines, speeds, planned = [], [], [], 0
    for k, agent in enumerate(case.agents):
        line, legs = _plan([starts[k]] + targets[k], agent.radius, obstacles)
        planned += legs
        speed = agent.targets[0].speed
        entry = {"name": f"a{k}", "start": _rpoint(starts[k]), "goal": _rpoint(line[-1])}
        if len(line) > 2:
            entry["waypoints"] = [_rpoint(p) for p in line[1:]]
        if agent.radius != DEFAULTS["radius"]:
            entry["radius"] = _round(agent.radius)
        if speed > DEFAULTS["max_speed"]:
            entry["max_speed"] = _round(speed)
        if speed != DEFAULTS["pref_speed"]:
            entry["pref_speed"] = _round(speed)
        agents.append(entry)
        polylines.append(line)
        speeds.append(speed)
    notes = BASE_NOTES
    if case.random:
        notes += (f" Random placement re-sampled with numpy default_rng({seed}): uniform in "
                  "the source's region, a radius inside it, drawn again on overlap; it follows "
                  "SteerSuite's rule but not its random stream.")
    if moved:
        notes += (f" {moved} agent{'s' if moved != 1 else ''} touching exactly in the source "
                  f"moved apart to a {TOUCH_GAP} m gap.")
    if any(len(set(t.speed for t in a.targets)) > 1 for a in case.agents):
        notes += " Where an agent's targets have different desiredSpeeds, the first is used."
    if planned:
        notes += (f" {planned} straight agent leg{'s' if planned != 1 else ''} crossed an "
                  "obstacle; SteerSuite agents use a global planner and straight-line ORCA gets "
                  "stuck there, so shortest-path corner waypoints (obstacles inflated by "
                  "radius+0.3 m, or +0.06 m where only a tight gap exists) were added.")
    scenario = {"name": name,
                "source": f"SteerSuite/Release testcases/{case.file_name} (commit {commit})",
                "description": case.description or
                f"SteerSuite test case {case.name}: {len(agents)} agents, "
                f"{len(obstacles)} obstacles."}
    if case.random:
        scenario["seed"] = seed
    scenario.update({"time_step": TIME_STEP,
                     "max_time": max_time if max_time is not None
                     else _max_time(polylines, speeds),
                     "on_goal": "remove", "goal_tolerance": GOAL_TOLERANCE})
    if planned:
        scenario.update({"waypoint_tolerance": GOAL_TOLERANCE, "planned_waypoints": True})
    scenario.update({"notes": notes, "defaults": dict(DEFAULTS), "agents": agents,
                     "obstacles": [{"vertices": [[_round(b[0]), _round(b[2])],
                                                 [_round(b[1]), _round(b[2])],
                                                 [_round(b[1]), _round(b[3])],
                                                 [_round(b[0]), _round(b[3])]]}
                                   for b in obstacles]})
    return scenario


def _flow(value) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, width=math.inf).strip()
    return text[:-3].rstrip() if text.endswith("\n...") else text


def scenario_yaml(scenario: dict) -> str:
    """The scenario as YAML text: points as [x, y], each agent on one line past
    FLOW_STYLE_AGENTS agents."""
    lines = []
    for key, value in scenario.items():
        if key == "defaults":
            lines.append("defaults:")
            lines += [f"  {k}: {_flow(v)}" for k, v in value.items()]
        elif key == "agents":
            lines.append("agents:")
            for agent in value:
                if len(value) > FLOW_STYLE_AGENTS:
                    lines.append(f"  - {_flow(agent)}")
                    continue
                first = True
                for k, v in agent.items():
                    lines.append(f"  {'- ' if first else '  '}{k}: {_flow(v)}")
                    first = False
        elif key == "obstacles":
            lines.append("obstacles:" + ("" if value else " []"))
            lines += [f"  - vertices: {_flow(o['vertices'])}" for o in value]
        else:
            lines.append(f"{key}: {_flow(value)}")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Written:
    path: pathlib.Path
    source: str
    agents: int
    obstacles: int
    planned: bool


def import_test_cases(paths: Sequence[str | pathlib.Path], out_dir: str | pathlib.Path,
                      seed: int = 0, name: Optional[str] = None, commit: str = SOURCE_COMMIT,
                      max_time: Optional[float] = None) -> List[Written]:
    """Convert test case files into ``out_dir/<name>.yaml``; every file is read and
    converted before any is written. ``name`` only with one file."""
    from ..core.scenario.loader import parse_scenario

    if name is not None and len(paths) != 1:
        raise SteerSuiteError(f"--name names one scenario, but {len(paths)} test cases given")
    out_dir = pathlib.Path(out_dir)
    converted: Dict[str, Tuple[str, dict]] = {}
    for path in paths:
        scenario = convert(read_test_case(path), seed=seed, name=name, commit=commit,
                           max_time=max_time)
        if scenario["name"] in converted:
            raise SteerSuiteError(f"{path} and {converted[scenario['name']][0]} would both be "
                                  f"{scenario['name']}.yaml")
        parse_scenario(yaml.safe_load(scenario_yaml(scenario)), str(path))  # it loads
        converted[scenario["name"]] = (str(path), scenario)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for scenario_name_, (source, scenario) in converted.items():
        target = out_dir / f"{scenario_name_}.yaml"
        target.write_text(scenario_yaml(scenario), encoding="utf-8")
        written.append(Written(target, source, len(scenario["agents"]), len(scenario["obstacles"]),
                               bool(scenario.get("planned_waypoints"))))
    return written


def copy_shipped(out_dir: str | pathlib.Path) -> List[pathlib.Path]:
    """Copy the shipped public scenarios (not the supervisor's cases) into ``out_dir``."""
    import shutil

    from ..core.scenario.loader import public_scenario_dir

    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return [pathlib.Path(shutil.copy(path, out_dir / path.name))
            for path in sorted(public_scenario_dir().glob("*.yaml"))]
