"""The toio SDK for Unity Navigator's reference scenes, as built-in toio scenarios.

The table below keeps every scene in mat units, as the SDK writes it
(doc/how_it_works/methods/navigator.md, "Reference scenes"; the SDK's
``Tests/PlayMode/D_Navigator.cs`` at commit e9e7278): start positions, start
headings in degrees clockwise as on the mat, targets, and walls as segments.
:func:`scenario_mapping` turns a scene into the mapping of a scenario file,
converting every position and heading with :class:`~orca_ros.toio.mat.MatFrame`
(descriptions name the SDK test methods; navigator.md shortens
e_Intersect4v4Longitudinal/Lateral to e_4v4Longitudinal/Lateral);
``python -m orca_ros.toio.scenes --write orca_ros/scenarios`` writes the
``toio_<scene>.yaml`` files.

Starts the design note leaves open:

- a_ToTarget1, c_Intersect1v1 (lateral and longitudinal): the cubes stand on the
  SDK test environment's home positions (``Tests/PlayMode/Core/Scripts/
  TestEnvironments.cs``: home i = (100 + 100 i, 70) facing 90 degrees and home
  4 + i = (100 + 100 i, 430) facing 270 degrees), turned to the heading the test
  gives them. a_ToTarget1 uses home 0, (100, 70) facing 90. Lateral: home 0
  (100, 70) facing 45 to (380, 380) and home 3 (400, 70) facing 130 to
  (120, 380), so the two paths cross in the middle of the mat. Longitudinal:
  home 0 facing 45 to (400, 400) and home 7 (400, 430) facing 225 to (100, 100),
  head-on along the diagonal (the two lines are 20 units apart, less than a
  cube's width).
- e_4v4Lateral: the second group's headings (0, 90, 0, 45) are the SDK test's.
- BoidsTutorial: the sample places its six cubes by hand; here they stand in a
  3 x 2 block in the lower left of the ring mat, at x = 80, 140, 200 and
  y = 340, 400 (60 units apart, no two closer), facing 0 degrees.
- f_Rearend and f_SideCollision start two cubes 30 units (40.9 mm) apart,
  closer than two 23 mm discs: the SDK positions are kept and those two scenes
  use a 20 mm radius (a cube's 31.8 mm footprint is 15.9 mm from centre to
  side, 22.5 mm to a corner).

Shared targets: the SDK sends several cubes to one point, which discs cannot
all reach. Each group of n cubes sharing a target gets n goals evenly spaced
on a circle centred on the target, adjacent goals ``2 * radius + 50 mm``
apart (circle radius ``(2 * radius + 50 mm) / (2 sin(pi / n))``). Two parked
cubes must stand outside each other's ORCA margin, or ORCA pushes them apart
and they dance around their goals: a cube's ORCA disc is ``1.5 radius`` plus
its 8.6 mm tracking error (most of it the 0.14 s command lag), 40 mm between
two cubes, and the readings (whole mat units, 1.36 mm) and neighbours'
predictions add a few mm. Measured in the world with cube dynamics on
d_ToTarget4, both e_4v4 and BoidsTutorial, 12 runs each with starts jittered
by up to 2 mm: with 35 mm gaps 295 of 312 cubes arrived, with 50 mm all 312,
the last of a run after 22 s on average instead of 29 s (45 mm: 153 of 156
in 6 runs). A ring that would bring a parked cube within those 50 mm
of the mat's edge (a wall: obstacle_server publishes it, and the world has it)
moves inwards as a whole (BoidsTutorial's, around (400, 400)). Otherwise the group's
mean goal is the target itself, which is what the SDK's group check measures.
The circle is turned so that the direction from the target to the group's
mean start falls midway between two goals, and the cubes get the goals by the
assignment with the least total straight-line distance, under which no two
straight start-goal paths cross. A cube alone on its target goes to the
target itself.

Walls: an SDK wall is a segment with a margin; here it is a convex polygon of
the segment's length and ``2 * half_width`` wide (b_Wall: the SDK margin, 10
units, on each side). Where two walls share an end point the joint is
bevelled: both polygons end on the bisector of the corner, and the outside is
cut straight across, within ``half_width`` of the corner like the SDK's round
margin. Parts of b_Wall's walls lie off the ring mat (x < 45), as in the SDK.
The mat's own edge is a wall for every scene (``Scenario.mat_edges``).

Two scenes come from our own issue rather than the SDK: ``toio_cross_4v4``
(two groups of four crossing diagonally to goals 54 mm apart) and
``toio_v_wall`` (one cube rounding the tip of a V-shaped wall).

:data:`SDK_CHECKS` holds the pass check each SDK test logs, in metres:
``(time_s, kind, threshold_m)``; kind ``"error"``: every cube within the
threshold of its own target; ``"centroid_error"``: for each group of cubes
sharing a target, the mean position within the threshold of the target (the
SDK computes ``|sum(position - target)| / n``). navigator.md lists the checks
of a_ToTarget1, d_ToTarget4 and e_4v4*; those of b_Wall, c_Intersect1v1*,
f_Rearend and f_SideCollision are read from D_Navigator.cs. The SDK drives
the cubes at maxSpd 80 (about 165 units/s, 225 mm/s) and starts its clock
once they stand still on their starts; these scenarios cap the speed at
0.12 m/s, so the check times are the SDK's, not a bound on ours.
"""

from __future__ import annotations

import argparse
import itertools
import math
import pathlib
import sys
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import yaml

from ..core.geometry.types import signed_area
from ..core.models.toio_cube import (CUBE_AGENT_DEFAULTS, DEFAULT_MM_PER_UNIT, MatFrame,
                                     mat_named)

Point = Tuple[float, float]

HEADER = "# orca_ros built-in scenario (Apache-2.0). Format: doc/scenario_format.md.\n"
MAT_NAME = "collection_ring"
MAT = mat_named(MAT_NAME)
GOAL_GAP_M = 0.050          # between neighbouring discs on a shared target's circle
DECIMALS = 6                # micrometres, microradians in the files

SDK = "morikatron/toio-sdk-for-unity, commit e9e7278606f9eda37b9143695e3ad2df08b6aca6"
D_NAVIGATOR = "Tests/PlayMode/D_Navigator.cs"
BOIDS_TUTORIAL = "Tutorials/3.Advanced-Navigator/3.BoidsScene/BoidsTutorial.cs"
SDK_ROOT = "toio-sdk-unity/Assets/toio-sdk/"

SCENARIO_PARAMETERS: Dict[str, Any] = {
    "time_step": 0.05, "max_time": 60.0, "on_goal": "stay", "goal_tolerance": 0.01}
DEFAULTS: Dict[str, Any] = dict(CUBE_AGENT_DEFAULTS)

SDK_SPEED_NOTE = ("The SDK drives the cubes at maxSpd 80 (about 165 units/s, 225 mm/s) and "
                  "starts its clock once they stand on their starts; max_speed here is lower, "
                  "so the check's time is the SDK's, not a bound for this scenario.")
HOMES_NOTE = ("Starts are the SDK test environment's home positions "
              "(Tests/PlayMode/Core/Scripts/TestEnvironments.cs: (100 + 100 i, 70) facing 90 "
              "degrees, (100 + 100 i, 430) facing 270), turned to the heading the test gives.")
SHARED_NOTE = ("The SDK sends each group to one shared target; here a group of n cubes gets n "
               "goals evenly spaced on a circle centred on the target, adjacent goals "
               "2 * radius + 50 mm apart (outside each other's ORCA margin: 40 mm between two "
               "cubes under the 0.14 s command lag), so the mean goal is the target, unless the "
               "ring had to move inwards from the mat's edge. The circle is turned "
               "so the direction to the group's mean start falls midway between two goals, and "
               "goals are assigned for the least total straight-line distance (no two straight "
               "paths cross).")
CLOSE_START_NOTE = ("The SDK starts the two cubes 30 units (40.9 mm) apart, closer than two "
                    "23 mm discs: the positions are kept and the radius is 20 mm here (the cube's "
                    "footprint is 15.9 mm from centre to side, 22.5 mm to a corner).")


@dataclass(frozen=True)
class Cube:
    """One cube in mat units: start ``(x, y)``, start heading (degrees clockwise), target.

    ``goal_offset_mm``: the goal is the target moved by this many millimetres
    along the mat's axes (exact in millimetres at any scale); such a cube never
    shares its target with others. ``heading`` None: face the first goal.
    """

    x: float
    y: float
    heading: Optional[float]
    target: Point
    goal_offset_mm: Optional[Point] = None


@dataclass(frozen=True)
class Wall:
    """A wall segment in mat units, ``half_width`` units on either side of it."""

    start: Point
    end: Point
    half_width: float


@dataclass(frozen=True)
class SdkCheck:
    """The pass check an SDK test logs, threshold in mat units."""

    time_s: float
    kind: str                   # "error" | "centroid_error"
    threshold: float

    def describe(self, mm_per_unit: float = DEFAULT_MM_PER_UNIT) -> str:
        bound = f"< {self.threshold:g} units ({self.threshold * mm_per_unit:.1f} mm)"
        if self.kind == "error":
            return f"SDK check: error {bound} for every cube at {self.time_s:g} s."
        return (f"SDK check: mean error {bound} at {self.time_s:g} s, the distance from the mean "
                f"position of each group sharing a target to that target.")


@dataclass(frozen=True)
class Scene:
    name: str                   # scenario name, file stem
    origin: str                 # the SDK scene's name, or "" for our own scenes
    summary: str                # what happens, in mat units
    cubes: Tuple[Cube, ...]
    walls: Tuple[Wall, ...] = ()
    check: Optional[SdkCheck] = None
    sdk_file: str = D_NAVIGATOR
    notes: Tuple[str, ...] = ()
    radius: float = DEFAULTS["radius"]
    max_speed: float = DEFAULTS["max_speed"]


def _v_wall_start(tip: Point, end: Point, other_end: Point, clearance_mm: float,
                  half_width: float, mm_per_unit: float = DEFAULT_MM_PER_UNIT) -> Point:
    """The point beside the middle of arm tip-end, ``clearance_mm`` from its outer surface."""
    dx, dy = end[0] - tip[0], end[1] - tip[1]
    length = math.hypot(dx, dy)
    nx, ny = -dy / length, dx / length
    if nx * (other_end[0] - tip[0]) + ny * (other_end[1] - tip[1]) > 0.0:
        nx, ny = -nx, -ny     # away from the other arm
    offset = half_width + clearance_mm / mm_per_unit
    return ((tip[0] + end[0]) / 2 + nx * offset, (tip[1] + end[1]) / 2 + ny * offset)


# Our V: tip (330, 250), arms to (170, 90) and (170, 410), 4 units thick.
V_TIP, V_END_A, V_END_B, V_HALF_WIDTH = (330.0, 250.0), (170.0, 90.0), (170.0, 410.0), 2.0
V_CLEARANCE_MM = 45.0
_V_START = _v_wall_start(V_TIP, V_END_A, V_END_B, V_CLEARANCE_MM, V_HALF_WIDTH)
_V_GOAL = (_V_START[0], 2 * V_TIP[1] - _V_START[1])   # mirrored across the V's axis

# toio_cross_4v4: 2 x 2 blocks 60 units apart at the starts, goals 54 mm apart.
_CROSS_GOAL_HALF_MM = 27.0


def _cross_group(starts: Sequence[Point], heading: float, goal_centre: Point) -> Tuple[Cube, ...]:
    cx = sum(p[0] for p in starts) / len(starts)
    cy = sum(p[1] for p in starts) / len(starts)
    return tuple(Cube(x, y, heading, goal_centre,
                      (math.copysign(_CROSS_GOAL_HALF_MM, x - cx),
                       math.copysign(_CROSS_GOAL_HALF_MM, y - cy)))
                 for x, y in starts)


_D_STARTS = ((100, 100, 0), (140, 100, 45), (100, 140, 0), (150, 150, 270))


def _cubes(starts: Sequence[Tuple[float, float, Optional[float]]],
           *targets: Point) -> Tuple[Cube, ...]:
    """Cubes from ``(x, y, heading)`` starts; one target for all, or one each."""
    if len(targets) == 1:
        targets = targets * len(starts)
    assert len(targets) == len(starts)
    return tuple(Cube(float(x), float(y), None if h is None else float(h), (float(tx), float(ty)))
                 for (x, y, h), (tx, ty) in zip(starts, targets))


SCENE_LIST: Tuple[Scene, ...] = (
    Scene("toio_a_to_target1", "a_ToTarget1",
          "one cube from home 0, (100, 70) facing 90 degrees, to (250, 250).",
          _cubes([(100, 70, 90)], (250, 250)),
          check=SdkCheck(2.5, "error", 10), notes=(HOMES_NOTE, SDK_SPEED_NOTE)),
    Scene("toio_b_wall", "b_Wall",
          "one cube from (150, 150) facing 225 degrees around the tip of two walls "
          "(0, 150)-(150, 250) and (0, 300)-(150, 250), margin 10, to (130, 350).",
          _cubes([(150, 150, 225)], (130, 350)),
          walls=(Wall((0, 150), (150, 250), 10.0), Wall((0, 300), (150, 250), 10.0)),
          check=SdkCheck(2.5, "error", 10),
          notes=("Each wall is a polygon 20 units wide centred on the SDK's segment (its margin "
                 "of 10 on either side), the two bevelled where they meet at (150, 250). Parts "
                 "of the walls lie off the ring mat (x < 45), as in the SDK.", SDK_SPEED_NOTE)),
    Scene("toio_c_intersect_lateral", "c_Intersect1v1Lateral",
          "two cubes, home 0 (100, 70) facing 45 degrees to (380, 380) and home 3 (400, 70) "
          "facing 130 to (120, 380); the paths cross in the middle of the mat.",
          _cubes([(100, 70, 45), (400, 70, 130)], (380, 380), (120, 380)),
          check=SdkCheck(5.0, "error", 10), notes=(HOMES_NOTE, SDK_SPEED_NOTE)),
    Scene("toio_c_intersect_longitudinal", "c_Intersect1v1Longitudinal",
          "two cubes head-on along the diagonal, home 0 (100, 70) facing 45 degrees to "
          "(400, 400) and home 7 (400, 430) facing 225 to (100, 100).",
          _cubes([(100, 70, 45), (400, 430, 225)], (400, 400), (100, 100)),
          check=SdkCheck(4.0, "error", 10), notes=(HOMES_NOTE, SDK_SPEED_NOTE)),
    Scene("toio_d_to_target4", "d_ToTarget4",
          "four cubes from (100, 100, 0), (140, 100, 45), (100, 140, 0), (150, 150, 270) "
          "(x, y, heading) to the shared target (350, 350).",
          _cubes(_D_STARTS, (350, 350)),
          check=SdkCheck(4.0, "centroid_error", 40), notes=(SHARED_NOTE, SDK_SPEED_NOTE)),
    Scene("toio_e_4v4_longitudinal", "e_Intersect4v4Longitudinal",
          "two groups of four swap corners: (100, 100, 0), (140, 100, 45), (100, 140, 0), "
          "(150, 150, 270) to the shared target (380, 380); (350, 350, 90), (400, 360, 135), "
          "(360, 400, 90), (400, 400, 180) to (120, 120).",
          _cubes(_D_STARTS, (380, 380))
          + _cubes([(350, 350, 90), (400, 360, 135), (360, 400, 90), (400, 400, 180)],
                   (120, 120)),
          check=SdkCheck(5.5, "centroid_error", 60), notes=(SHARED_NOTE, SDK_SPEED_NOTE)),
    Scene("toio_e_4v4_lateral", "e_Intersect4v4Lateral",
          "two groups of four cross: (100, 100, 0), (140, 100, 45), (100, 140, 0), "
          "(150, 150, 270) to the shared target (380, 380); (360, 100, 0), (400, 100, 90), "
          "(350, 150, 0), (400, 140, 45) to (120, 380).",
          _cubes(_D_STARTS, (380, 380))
          + _cubes([(360, 100, 0), (400, 100, 90), (350, 150, 0), (400, 140, 45)], (120, 380)),
          check=SdkCheck(5.5, "centroid_error", 60),
          notes=(SHARED_NOTE, "The second group's headings are the SDK test's.", SDK_SPEED_NOTE)),
    Scene("toio_f_rearend", "f_Rearend",
          "two cubes in a row, (150, 200) facing 30 degrees to (400, 150) and (180, 200) "
          "facing 0 to (400, 250); the rear one must not run into the front one.",
          _cubes([(150, 200, 30), (180, 200, 0)], (400, 150), (400, 250)),
          check=SdkCheck(2.5, "error", 10), notes=(CLOSE_START_NOTE, SDK_SPEED_NOTE),
          radius=0.020),
    Scene("toio_f_side_collision", "f_SideCollision",
          "two cubes side by side, (100, 215) facing 350 degrees and (100, 185) facing 10, "
          "converging on the shared target (350, 200).",
          _cubes([(100, 215, 350), (100, 185, 10)], (350, 200)),
          check=SdkCheck(2.5, "centroid_error", 30),
          notes=(SHARED_NOTE, CLOSE_START_NOTE, SDK_SPEED_NOTE), radius=0.020),
    Scene("toio_boids_tutorial", "BoidsTutorial",
          "six cubes to the shared target (400, 400) (the sample runs five in BOIDS mode and one "
          "apart, maxSpd 50; here all are ORCA agents).",
          _cubes([(x, y, 0) for y in (340, 400) for x in (80, 140, 200)], (400, 400)),
          sdk_file=BOIDS_TUTORIAL,
          notes=("The sample places its cubes by hand; here they start in a 3 x 2 block in the "
                 "lower left of the mat, 60 units apart, facing 0 degrees.", SHARED_NOTE)),
    Scene("toio_cross_4v4", "",
          "Two groups of four toio cubes cross diagonally on the ring mat: group A from a 2 x 2 "
          "block at (110..170, 330..390) to a 2 x 2 block of goals 54 mm apart around "
          "(360, 140), group B from (110..170, 110..170) to goals around (360, 360).",
          _cross_group([(110, 330), (170, 330), (110, 390), (170, 390)], 315.0, (360.0, 140.0))
          + _cross_group([(110, 110), (170, 110), (110, 170), (170, 170)], 45.0, (360.0, 360.0)),
          notes=("Mat units (x, y); starts 60 units apart facing the diagonal; goals 54 mm "
                 "apart whatever the scale.",),
          radius=0.0225, max_speed=0.15),
    Scene("toio_v_wall", "",
          "One toio cube rounds the tip of a V-shaped wall: arms (330, 250)-(170, 90) and "
          "(330, 250)-(170, 410), 4 units thick; the cube starts 45 mm from the first arm "
          "facing along it towards the tip, and its goal lies behind the second arm, so the "
          "straight line to it crosses the wall.",
          (Cube(_V_START[0], _V_START[1], 45.0, _V_GOAL),),
          walls=(Wall(V_TIP, V_END_A, V_HALF_WIDTH), Wall(V_TIP, V_END_B, V_HALF_WIDTH)),
          notes=("Mat units (x, y); 45 mm is from the cube's centre to the wall's surface; the "
                 "goal mirrors the start across the V's axis y = 250.",)),
)

SCENES: Dict[str, Scene] = {scene.name: scene for scene in SCENE_LIST}

SDK_CHECKS: Dict[str, Tuple[float, str, float]] = {
    scene.name: (scene.check.time_s, scene.check.kind,
                 scene.check.threshold * DEFAULT_MM_PER_UNIT / 1000.0)
    for scene in SCENE_LIST if scene.check is not None}


SDK_SPEED_M_S = 80 * 2.0655 * DEFAULT_MM_PER_UNIT / 1000.0
"""The SDK tests' maxSpd 80 in m/s (80 motor units x 2.0655 dots/s x 1.3625 mm): 0.225."""


def sdk_check_error(scene_name: str, frame_times: Sequence[float],
                    trajectory: Sequence[Sequence[Point]],
                    mm_per_unit: float = DEFAULT_MM_PER_UNIT) -> Optional[Tuple[float, float]]:
    """``(error_m, threshold_m)`` of the scene's SDK check on a run's trajectory (world
    metres, one row per frame), at the check's time; None for a scene without one.

    ``error``: the largest distance of a cube from its own target; ``centroid_error``:
    for each group of cubes sharing a target, the distance from their mean position to
    it, the largest over the groups (the SDK's ``|sum(position - target)| / n``)."""
    scene = SCENES[scene_name]
    if scene.check is None:
        return None
    frame = MatFrame(mm_per_unit)
    at = min(range(len(frame_times)), key=lambda k: abs(frame_times[k] - scene.check.time_s))
    positions = trajectory[at]
    groups: Dict[Point, List[int]] = {}
    for i, cube in enumerate(scene.cubes):
        groups.setdefault(tuple(cube.target), []).append(i)
    errors = []
    for target, members in groups.items():
        tx, ty, _ = frame.to_world(target[0], target[1], 0.0)
        if scene.check.kind == "error":
            errors.extend(math.hypot(positions[i][0] - tx, positions[i][1] - ty) for i in members)
        else:
            mx = sum(positions[i][0] for i in members) / len(members)
            my = sum(positions[i][1] for i in members) / len(members)
            errors.append(math.hypot(mx - tx, my - ty))
    return max(errors), scene.check.threshold * mm_per_unit / 1000.0


def sdk_setup(scene_name: str, mm_per_unit: float = DEFAULT_MM_PER_UNIT) -> Dict[str, Any]:
    """The scene as the SDK's test runs it, as a scenario mapping: every cube's goal is
    its SDK target (cubes of a group share it), the speed is the tests' maxSpd 80
    (:data:`SDK_SPEED_M_S`). For the toio SDK Navigator's methods, checked with
    :func:`sdk_check_error` (a run ends once every cube has arrived: the check then
    reads its last frame)."""
    scene = SCENES[scene_name]
    frame = MatFrame(mm_per_unit)
    data = scenario_mapping(scene, mm_per_unit)
    data["name"] = f"{scene.name}_sdk_setup"
    data["defaults"] = dict(data["defaults"], max_speed=_r(SDK_SPEED_M_S),
                            pref_speed=_r(SDK_SPEED_M_S))
    for agent, cube in zip(data["agents"], scene.cubes):
        if cube.goal_offset_mm is None:
            gx, gy, _ = frame.to_world(cube.target[0], cube.target[1], 0.0)
            agent["goal"] = [_r(gx), _r(gy)]
    return data


# ---------------------------------------------------------------- goals


def shared_target_goals(starts: Sequence[Point], target: Point, spacing: float,
                        shift: Point = (0.0, 0.0)) -> List[Point]:
    """Goals for cubes that share ``target`` (all in the same unit), one per start, in order.

    ``n`` goals evenly on a circle around ``target`` with neighbours ``spacing``
    apart, turned so the direction to the mean start lies midway between two of
    them, then moved by ``shift``; assigned for the least total straight-line distance.
    """
    n = len(starts)
    if n == 1:
        return [tuple(target)]
    radius = spacing / (2.0 * math.sin(math.pi / n))
    mx = sum(p[0] for p in starts) / n - target[0]
    my = sum(p[1] for p in starts) / n - target[1]
    approach = math.atan2(my, mx) if math.hypot(mx, my) > 1e-12 else 0.0
    angles = [approach + math.pi / n + 2 * math.pi * k / n for k in range(n)]
    slots = [(target[0] + shift[0] + radius * math.cos(angles[k]),
              target[1] + shift[1] + radius * math.sin(angles[k]))
             for k in range(n)]
    best = min(itertools.permutations(range(n)),
               key=lambda order: sum(math.dist(starts[i], slots[order[i]]) for i in range(n)))
    return [slots[best[i]] for i in range(n)]


def goals_in_mat(scene: Scene, frame: MatFrame) -> List[Point]:
    """Each cube's goal in mat units."""
    spacing = (2.0 * scene.radius + GOAL_GAP_M) / frame.metres_per_unit
    goals: List[Optional[Point]] = [None] * len(scene.cubes)
    groups: Dict[Point, List[int]] = {}
    for i, cube in enumerate(scene.cubes):
        if cube.goal_offset_mm is None:
            groups.setdefault(tuple(cube.target), []).append(i)
        else:
            goals[i] = (cube.target[0] + cube.goal_offset_mm[0] / frame.mm_per_unit,
                        cube.target[1] + cube.goal_offset_mm[1] / frame.mm_per_unit)
    inset = (scene.radius + GOAL_GAP_M) / frame.metres_per_unit
    (x_low, x_high), (y_low, y_high) = MAT.x_range, MAT.y_range
    for target, members in groups.items():
        starts = [(scene.cubes[i].x, scene.cubes[i].y) for i in members]
        ring = shared_target_goals(starts, target, spacing)
        # A ring that would park a cube within GOAL_GAP_M of the mat's edge moves inwards.
        dx = max(0.0, x_low + inset - min(g[0] for g in ring)) - \
            max(0.0, max(g[0] for g in ring) - (x_high - inset))
        dy = max(0.0, y_low + inset - min(g[1] for g in ring)) - \
            max(0.0, max(g[1] for g in ring) - (y_high - inset))
        if dx or dy:  # assign again around the moved centre, so no two paths cross
            ring = shared_target_goals(starts, target, spacing, (dx, dy))
        for i, goal in zip(members, ring):
            goals[i] = goal
    return goals  # type: ignore[return-value]


# ---------------------------------------------------------------- walls


def _unit(x: float, y: float) -> Point:
    length = math.hypot(x, y)
    return (x / length, y / length)


def _joint_partner(walls: Sequence[Tuple[Point, Point, float]], index: int,
                   point: Point) -> Optional[Point]:
    """The far end of another wall that also ends at ``point``, if any."""
    for j, (a, b, _) in enumerate(walls):
        if j == index:
            continue
        if math.dist(a, point) < 1e-12:
            return b
        if math.dist(b, point) < 1e-12:
            return a
    return None


def wall_polygons(walls: Sequence[Wall], frame: MatFrame) -> List[List[Point]]:
    """Counter-clockwise world polygons (metres), one per wall; shared ends are bevelled."""
    s = frame.metres_per_unit
    world = [(frame.to_world(w.start[0], w.start[1], 0.0)[:2],
              frame.to_world(w.end[0], w.end[1], 0.0)[:2], w.half_width * s) for w in walls]
    polygons = []
    for index, (a, b, h) in enumerate(world):
        corners: List[Point] = []
        for p, q in ((a, b), (b, a)):
            d = _unit(q[0] - p[0], q[1] - p[1])              # along the wall, away from p
            normal = (-d[1], d[0])
            partner = _joint_partner(world, index, p)
            if partner is None:
                corners += [(p[0] + normal[0] * h, p[1] + normal[1] * h),
                            (p[0] - normal[0] * h, p[1] - normal[1] * h)]
                continue
            d2 = _unit(partner[0] - p[0], partner[1] - p[1])
            if normal[0] * d2[0] + normal[1] * d2[1] > 0.0:
                normal = (-normal[0], -normal[1])            # outward: away from the other wall
            normal2 = (-d2[1], d2[0])
            if normal2[0] * d[0] + normal2[1] * d[1] > 0.0:
                normal2 = (-normal2[0], -normal2[1])
            bisector = _unit(d[0] + d2[0], d[1] + d2[1])      # into the corner
            half_angle = 0.5 * math.acos(max(-1.0, min(1.0, d[0] * d2[0] + d[1] * d2[1])))
            inner = h / math.sin(half_angle)
            corners += [(p[0] + normal[0] * h, p[1] + normal[1] * h),
                        (p[0] + (normal[0] + normal2[0]) * h / 2,
                         p[1] + (normal[1] + normal2[1]) * h / 2),
                        (p[0] + bisector[0] * inner, p[1] + bisector[1] * inner)]
        cx = sum(c[0] for c in corners) / len(corners)
        cy = sum(c[1] for c in corners) / len(corners)
        corners.sort(key=lambda c: math.atan2(c[1] - cy, c[0] - cx))   # convex: CCW
        assert signed_area(corners) > 0.0
        polygons.append(corners)
    return polygons


# ---------------------------------------------------------------- scenario files


def _r(value: float) -> float:
    return round(float(value), DECIMALS) + 0.0          # no "-0.0" in the files


def scenario_mapping(scene: Scene, mm_per_unit: float = DEFAULT_MM_PER_UNIT) -> Dict[str, Any]:
    """The scene as a scenario mapping (doc/scenario_format.md), in world metres."""
    frame = MatFrame(mm_per_unit)
    if scene.origin:
        sdk_file = SDK_ROOT + scene.sdk_file
        source = f"toio SDK for Unity, {SDK}, {sdk_file}"
        description = f"toio SDK for Unity ({scene.sdk_file}, {scene.origin}): {scene.summary}"
        if scene.check is not None:
            description += " " + scene.check.describe(mm_per_unit)
    else:
        source = "orca_ros"
        description = scene.summary
    defaults = dict(DEFAULTS, radius=scene.radius, max_speed=scene.max_speed)
    agents = []
    for i, (cube, goal) in enumerate(zip(scene.cubes, goals_in_mat(scene, frame))):
        x, y, yaw = frame.to_world(cube.x, cube.y, cube.heading or 0.0)
        gx, gy, _ = frame.to_world(goal[0], goal[1], 0.0)
        agent: Dict[str, Any] = {"name": f"cube{i}", "start": [_r(x), _r(y)]}
        if cube.heading is not None:
            agent["heading"] = _r(yaw)
        agent["goal"] = [_r(gx), _r(gy)]
        agents.append(agent)
    data: Dict[str, Any] = {"name": scene.name, "source": source, "description": description}
    if scene.notes:
        data["notes"] = " ".join(scene.notes)
    data.update(SCENARIO_PARAMETERS)
    data["defaults"] = defaults
    data["agents"] = agents
    data["obstacles"] = [{"vertices": [[_r(x), _r(y)] for x, y in polygon]}
                         for polygon in wall_polygons(scene.walls, frame)]
    data["toio"] = {"mat": MAT_NAME, "mm_per_unit": mm_per_unit}
    return data


def render(scene: Scene, mm_per_unit: float = DEFAULT_MM_PER_UNIT) -> str:
    """The text of the scene's scenario file."""
    body = yaml.safe_dump(scenario_mapping(scene, mm_per_unit), sort_keys=False,
                          default_flow_style=None, width=90)
    return HEADER + body


def write_all(directory: pathlib.Path) -> List[pathlib.Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for scene in SCENE_LIST:
        path = directory / f"{scene.name}.yaml"
        path.write_text(render(scene), encoding="utf-8")
        paths.append(path)
    return paths


def stale_files(directory: pathlib.Path) -> List[str]:
    """Names of scenes whose file in ``directory`` is missing or differs from :func:`render`."""
    stale = []
    for scene in SCENE_LIST:
        path = directory / f"{scene.name}.yaml"
        if not path.exists() or path.read_text(encoding="utf-8") != render(scene):
            stale.append(scene.name)
    return stale


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m orca_ros.toio.scenes",
        description="The toio SDK Navigator's reference scenes as scenario files.")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", metavar="DIR", type=pathlib.Path,
                       help="write toio_<scene>.yaml files into DIR")
    group.add_argument("--check", metavar="DIR", type=pathlib.Path,
                       help="exit 1 if a file in DIR is missing or differs from the table")
    args = parser.parse_args(argv)
    if args.write is not None:
        for path in write_all(args.write):
            print(path)
        return 0
    if args.check is not None:
        stale = stale_files(args.check)
        for name in stale:
            print(f"{args.check / (name + '.yaml')}: missing or out of date", file=sys.stderr)
        return 1 if stale else 0
    for scene in SCENE_LIST:
        check = SDK_CHECKS.get(scene.name)
        extra = f"  check {check[1]} < {check[2] * 1000:.1f} mm at {check[0]:g} s" if check else ""
        print(f"{scene.name:32s} {scene.origin or '(orca_ros)':28s} "
              f"{len(scene.cubes)} cube(s){extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
