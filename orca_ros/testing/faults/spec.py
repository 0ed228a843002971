"""Fault specifications: the SPEC grammar of ``orca-ros sim --faults``, its parser, and
the specs of the standard suite (``orca-ros fault-suite``).

SPEC grammar (comma-separated entries, no spaces needed; ``none`` or an empty
string is no fault)::

    SPEC    := ENTRY ("," ENTRY)*
    ENTRY   := "drop_odom=" [TARGET ":"] P     each odometry delivery to an orca_node
                                               (own and neighbours') dropped with p = P
             | "drop_cmd=" [TARGET ":"] P      each cmd_vel delivery to the simulator dropped
             | "delay=" [TARGET ":"] S         odometry and cmd_vel deliveries held S sim s
             | "starve=" [TARGET ":"] F        the orca_node gets the CPU for a fraction F
                                               of its control periods
             | "kill=" ROBOT "@" T             at sim time T the robot's orca_node is removed
             | "kill_supervisor@" T            ... the supervisor (needs --supervisor)
             | "kill_obstacles@" T             ... the obstacle_server
             | "bad_obstacles=" PERIOD         a second /obstacles publisher, every PERIOD
                                               sim s, a LINE_LIST of 3 points, one NaN
             | "foreign=" ROBOT [":" MODE]     no orca_node: a driver that does not
                                               reciprocate (MODE straight (default) | jitter)
             | "seed=" N                       integer >= 0 (default 0)
    TARGET  := ROBOT | "all"                   (default all; a robot's own entry wins over all)

``P`` is in [0, 1], ``S`` in [0, 60], ``F`` in (0, 1], ``T`` >= 0, ``PERIOD`` > 0;
``kill_supervisor=T`` and ``kill_obstacles=T`` are accepted too.
``drop_odom``, ``drop_cmd``, ``delay`` and ``starve`` may appear once per
target, ``kill`` and ``foreign`` once per robot, the others once.

Time is the simulator's clock (``record.sim_time``, the ground truth that
``/clock`` carries), so a delay or a kill time means the same thing at any
``--speed-factor`` and on a slow machine.

What each fault does: :mod:`orca_ros.testing.faults.injector`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple
from ...core.errors import InputError

FOREIGN_MODES = ("straight", "jitter")
TARGETED = ("drop_odom", "drop_cmd", "delay", "starve")
ONCE = ("kill_supervisor", "kill_obstacles", "bad_obstacles", "seed")
KEYS = TARGETED + ("kill", "foreign") + ONCE
ALL = "all"


class FaultSpecError(InputError):
    """A fault specification that cannot be used; the message names every problem."""


@dataclass(frozen=True)
class FaultSpec:
    """Which faults a run gets. Build it with :func:`parse_faults`.

    Targeted faults are ``(target, value)`` pairs, the target a robot name or
    ``"all"``; :meth:`value` resolves them for one robot.
    """

    drop_odom: Tuple[Tuple[str, float], ...] = ()
    drop_cmd: Tuple[Tuple[str, float], ...] = ()
    delay: Tuple[Tuple[str, float], ...] = ()
    starve: Tuple[Tuple[str, float], ...] = ()
    kill: Tuple[Tuple[str, float], ...] = ()  # (robot, sim time)
    kill_supervisor: Optional[float] = None
    kill_obstacles: Optional[float] = None
    bad_obstacles: Optional[float] = None  # period, sim s
    foreign: Tuple[Tuple[str, str], ...] = ()  # (robot, mode)
    seed: int = 0

    def value(self, key: str, robot: str, default: float = 0.0) -> float:
        """The targeted fault ``key`` for ``robot``: its own entry, else ``all``'s, else default."""
        entries = dict(getattr(self, key))
        return entries.get(robot, entries.get(ALL, default))

    @property
    def empty(self) -> bool:
        return not self.entries(with_seed=False)

    def entries(self, with_seed: bool = True) -> List[str]:
        """The canonical SPEC entries (parsing their join gives this spec back)."""
        out: List[str] = []
        for key in TARGETED:
            for target, value in getattr(self, key):
                out.append(f"{key}={value:g}" if target == ALL else f"{key}={target}:{value:g}")
        out += [f"kill={robot}@{at:g}" for robot, at in self.kill]
        if self.kill_supervisor is not None:
            out.append(f"kill_supervisor@{self.kill_supervisor:g}")
        if self.kill_obstacles is not None:
            out.append(f"kill_obstacles@{self.kill_obstacles:g}")
        if self.bad_obstacles is not None:
            out.append(f"bad_obstacles={self.bad_obstacles:g}")
        out += [f"foreign={robot}" if mode == "straight" else f"foreign={robot}:{mode}"
                for robot, mode in self.foreign]
        if with_seed and out:
            out.append(f"seed={self.seed}")
        return out

    def __str__(self) -> str:
        return ",".join(self.entries()) or "none"

    @property
    def foreign_robots(self) -> Dict[str, str]:
        return dict(self.foreign)

    def robots_named(self) -> List[str]:
        names = [t for key in TARGETED for t, _ in getattr(self, key) if t != ALL]
        return names + [r for r, _ in self.kill] + [r for r, _ in self.foreign]

    def check(self, robots: Sequence[str], supervisor: bool) -> None:
        """Raise :class:`FaultSpecError` for robots the scenario lacks, or a missing supervisor."""
        known = list(robots)
        problems = []
        unknown = sorted({r for r in self.robots_named() if r not in known})
        if unknown:
            problems.append(f"unknown robot(s) {', '.join(unknown)} (the scenario has: "
                            f"{', '.join(known)})")
        if self.kill_supervisor is not None and not supervisor:
            problems.append("kill_supervisor needs the supervisor (--supervisor)")
        if problems:
            raise FaultSpecError(f"bad fault spec {','.join(self.entries(with_seed=False))!r}: "
                                 + "; ".join(problems))


def _number(text: str, what: str, low: float, high: float, low_open: bool = False) -> float:
    try:
        value = float(text)
    except ValueError:
        raise FaultSpecError(f"{what!r}: {text!r} is not a number") from None
    if not math.isfinite(value) or value > high or value < low or (low_open and value <= low):
        if math.isinf(high):
            rule = f"> {low:g}" if low_open else f">= {low:g}"
        else:
            rule = f"in {'(' if low_open else '['}{low:g}, {high:g}]"
        raise FaultSpecError(f"{what!r}: {text!r} must be a number {rule}")
    return value


LIMITS = {  # key -> (low, high, low excluded)
    "drop_odom": (0.0, 1.0, False), "drop_cmd": (0.0, 1.0, False),
    "delay": (0.0, 60.0, False), "starve": (0.0, 1.0, True),
    "bad_obstacles": (0.0, 3600.0, True),
}


def parse_faults(text: Optional[str]) -> FaultSpec:
    """Parse a SPEC (module docstring) into a :class:`FaultSpec`.

    Every problem is collected; one :class:`FaultSpecError` names them all
    (unknown keys, bad values, repeated entries, conflicting robots).
    """
    text = (text or "").strip()
    if text.lower() in ("", "none"):
        return FaultSpec()
    problems: List[str] = []
    targeted: Dict[str, Dict[str, float]] = {key: {} for key in TARGETED}
    kills: Dict[str, float] = {}
    foreign: Dict[str, str] = {}
    once: Dict[str, Any] = {}
    for raw in text.split(","):
        entry = raw.strip()
        if not entry:
            problems.append("empty entry (two commas in a row?)")
            continue
        if "=" in entry:
            key, _, value = entry.partition("=")
        elif "@" in entry:
            key, _, value = entry.partition("@")
            if key.strip() in KEYS and key.strip() not in ("kill_supervisor", "kill_obstacles"):
                problems.append(f"{entry!r}: only kill_supervisor@T and kill_obstacles@T "
                                "take '@' without '='")
                continue
        else:
            key, value = entry, None
        key = key.strip()
        if key not in KEYS:
            problems.append(f"unknown fault {key!r} in {entry!r} (known: {', '.join(KEYS)})")
            continue
        if value is None or not value.strip():
            problems.append(f"{entry!r}: {key} needs a time ({key}@T)"
                            if key in ("kill_supervisor", "kill_obstacles") else
                            f"{entry!r}: {key} needs a value ({key}=...)")
            continue
        value = value.strip()
        try:
            if key in TARGETED:
                target, sep, number = value.rpartition(":")
                target = target.strip() if sep else ALL
                if not target:
                    raise FaultSpecError(f"{entry!r}: empty robot name before ':'")
                low, high, low_open = LIMITS[key]
                parsed = _number(number.strip(), entry, low, high, low_open)
                if target in targeted[key]:
                    raise FaultSpecError(f"{entry!r}: {key} for {target} given twice")
                targeted[key][target] = parsed
            elif key == "kill":
                robot, sep, at = value.partition("@")
                if not sep or not robot.strip():
                    raise FaultSpecError(f"{entry!r}: kill needs ROBOT@T")
                robot = robot.strip()
                if robot in kills:
                    raise FaultSpecError(f"{entry!r}: {robot} is killed twice")
                kills[robot] = _number(at.strip(), entry, 0.0, math.inf)
            elif key == "foreign":
                robot, sep, mode = value.partition(":")
                robot, mode = robot.strip(), (mode.strip() if sep else "straight")
                if not robot:
                    raise FaultSpecError(f"{entry!r}: foreign needs a robot name")
                if mode not in FOREIGN_MODES:
                    raise FaultSpecError(f"{entry!r}: foreign mode {mode!r} is not one of "
                                         f"{', '.join(FOREIGN_MODES)}")
                if robot in foreign:
                    raise FaultSpecError(f"{entry!r}: {robot} is foreign twice")
                foreign[robot] = mode
            else:
                if key in once:
                    raise FaultSpecError(f"{entry!r}: {key} given twice")
                if key == "seed":
                    try:
                        seed = int(value)
                    except ValueError:
                        raise FaultSpecError(f"{entry!r}: seed must be an integer >= 0") from None
                    if seed < 0:
                        raise FaultSpecError(f"{entry!r}: seed must be an integer >= 0")
                    once[key] = seed
                elif key == "bad_obstacles":
                    low, high, low_open = LIMITS[key]
                    once[key] = _number(value, entry, low, high, low_open)
                else:  # kill_supervisor, kill_obstacles
                    once[key] = _number(value.lstrip("@"), entry, 0.0, math.inf)
        except FaultSpecError as error:
            problems.append(str(error))
    for robot in foreign:
        if robot in kills:
            problems.append(f"{robot} is both killed and foreign (a foreign robot has no "
                            "orca_node to kill)")
        for key in ("drop_odom", "starve"):
            if robot in targeted[key]:
                problems.append(f"{key}={robot}:... names a foreign robot, which has no orca_node")
    if problems:
        raise FaultSpecError(f"bad fault spec {text!r}: " + "; ".join(problems))
    return FaultSpec(
        **{key: tuple(targeted[key].items()) for key in TARGETED},
        kill=tuple(kills.items()), kill_supervisor=once.get("kill_supervisor"),
        kill_obstacles=once.get("kill_obstacles"), bad_obstacles=once.get("bad_obstacles"),
        foreign=tuple(foreign.items()), seed=once.get("seed", 0))


# --- the standard suite (``orca-ros fault-suite``) --------------------------------------

def kill_time(scenario) -> float:
    """When the suite kills things: 40% of the first robot's straight-line time, in sim s."""
    agent = scenario.agents[0]
    return round(0.4 * agent.reference_length / max(agent.pref_speed, 1e-6), 1)


def standard_faults(scenario, seed: int, at: Optional[float] = None) -> List[Tuple[str, str, bool]]:
    """``(label, spec, supervisor)`` rows of the suite: no fault, then each standard fault."""
    first = scenario.agents[0].name
    t = kill_time(scenario) if at is None else at
    rows = [("none", "", False)]
    for entry in ("drop_odom=0.1", "drop_cmd=0.1", "delay=0.1", "starve=all:0.3",
                  f"kill={first}@{t:g}"):
        rows.append((entry, f"{entry},seed={seed}", False))
    rows.append(("none (--supervisor)", "", True))
    rows.append((f"kill_supervisor@{t:g} (--supervisor)", f"kill_supervisor@{t:g},seed={seed}",
                 True))
    for entry in (f"kill_obstacles@{t:g}", "bad_obstacles=0.5", f"foreign={first}"):
        rows.append((entry, f"{entry},seed={seed}", False))
    return rows
