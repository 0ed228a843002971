"""doc/results.md's tables, each from its command: ``orca-ros results``.

Each generated table of the page stands between two markers, ``<!-- results:NAME -->``
and ``<!-- /results:NAME -->``. Refreshing a section runs its ``orca-ros`` command (in a
child process, as a user would), renders what it printed or wrote (``--json``) as the
page shows it, and replaces what stood between the markers: a line that names the
command, the commit, the date and the machine, then the table. Everything outside the
markers is kept byte for byte, so the prose round a table is written by hand and a table
is never.

A section whose command needs the launch engine, real nodes or a long fleet is listed
(:data:`SECTIONS`, ``auto=False``) with its command: ``--only NAME`` runs it, a plain
refresh does not. A command may name ``$SCENARIOS`` (the public evaluation scenarios)
or ``$CASES`` (RVO2-3D's recorded cases), which are not shipped: such a section is
refused while the variable is unset.
"""

from __future__ import annotations

import datetime
import glob
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..core.errors import InputError

# A cell's figure from a bench JSON row (orca-ros bench --json), by field name.
FIELDS: Dict[str, Tuple[str, Callable[[dict], str]]] = {
    "arrived": ("arrived", lambda r: f"{r['reached']}/{r['agents']}"),
    "pairs": ("colliding pairs", lambda r: str(r["collisions"])),
    "makespan": ("makespan s", lambda r: _fixed(r.get("makespan"), 1)),
    "separation": ("min separation m", lambda r: _fixed(r.get("min_separation"), 3)),
    "closest_mm": ("closest mm", lambda r: _fixed(None if r.get("min_separation") is None
                                                  else 1000 * r["min_separation"], 0)),
    "us": ("µs/agent-step", lambda r: _fixed(r.get("compute_us_per_agent_step"), 0)),
    "crossings": ("link crossings", lambda r: str(r.get("link_crossings", "-"))),
    "stretches": ("over-stretched links", lambda r: str(r.get("link_overstretches", "-"))),
    "actions": ("supervisor actions", lambda r: str(r.get("conflicts", "-"))),
    "retreat": ("worst retreat m", lambda r: _fixed(r.get("retreat_max_m"), 2)),
    "steering": ("steering reversals /min (median robot)",
                 lambda r: _fixed(r.get("steering_reversals_per_min_median"), 1)),
}


def _fixed(value, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


@dataclass(frozen=True)
class Group:
    """One run of ``orca-ros bench`` (``argv`` after ``bench``) shown as columns:
    ``fields`` (keys of :data:`FIELDS`) a column each, or with ``joined`` one column
    whose cell is the fields joined by ", "."""

    label: str
    argv: Tuple[str, ...]
    fields: Tuple[str, ...]
    joined: bool = False


@dataclass(frozen=True)
class Section:
    """A table of doc/results.md: its marker name, the ``orca-ros`` commands that give it
    and how their output becomes the table. ``render``: ``"text"`` (what the command
    printed, as a text block), ``"markdown"`` (what it printed, a Markdown table already),
    ``"columns"`` (bench runs side by side, a row per scenario: ``groups``),
    ``"last-table"`` (the last Markdown table it printed: ``bench --compare``'s) or ``None``
    (measured by hand from ``commands``: listed only). ``auto``: refreshed by a plain
    ``orca-ros results`` (seconds to minutes), or only by ``--only`` (long)."""

    name: str
    title: str
    commands: Tuple[str, ...]
    render: Optional[str] = None
    groups: Tuple[Group, ...] = ()
    auto: bool = True

    @property
    def generated(self) -> bool:
        return self.render is not None


def _bench_group(label: str, argv: str, fields: str, joined: bool = False) -> Group:
    return Group(label, tuple(shlex.split(argv)), tuple(fields.split()), joined)


def _columns(name: str, title: str, groups: Sequence[Group], auto: bool = False) -> Section:
    commands = tuple("orca-ros bench " + " ".join(g.argv) for g in groups)
    return Section(name, title, commands, "columns", tuple(groups), auto)


PUBLIC = "$SCENARIOS/*.yaml"
TOIO_SCENES = ("toio_a_to_target1 toio_b_wall toio_boids_tutorial toio_c_intersect_lateral "
               "toio_c_intersect_longitudinal toio_cross_4v4 toio_d_to_target4 "
               "toio_e_4v4_lateral toio_e_4v4_longitudinal toio_f_rearend "
               "toio_f_side_collision toio_ring_swap_6 toio_v_wall")
LINKED = "linked_pairs_crossing linked_pair_meets_crowd linked_triad_doorway " \
         "linked_pairs_circle_swap"
CELL = "arrived pairs makespan us"

SECTIONS: Tuple[Section, ...] = (
    Section("conformance", "RVO2 conformance (2D)",
            ("orca-ros conformance test/data/rvo2_single_step.jsonl",), "text"),
    Section("conformance-3d", "RVO2-3D conformance",
            ("orca-ros conformance $CASES/rvo2_3d_single_step.jsonl",), "text"),
    _columns("public", "The public scenarios: RVO2 and orca", (
        _bench_group("RVO2", f"{PUBLIC} --method rvo2", "arrived pairs makespan"),
        _bench_group("holonomic", PUBLIC, "arrived pairs makespan"),
        _bench_group("holonomic as through ROS", f"{PUBLIC} --command-validity-periods 2",
                     "makespan"),
        _bench_group("diff-drive", f"{PUBLIC} --kinematics diff_drive",
                     "arrived pairs makespan"),
        _bench_group("diff-drive as through ROS",
                     f"{PUBLIC} --kinematics diff_drive --command-validity-periods 2",
                     "arrived makespan"))),
    _columns("public-supervisor", "The public scenarios with the cocoon supervisor", (
        _bench_group("", f"{PUBLIC} --supervisor", "arrived pairs makespan actions"),)),
    _columns("public-retreat", "The public scenarios: worst retreat, steering", (
        _bench_group("holonomic", PUBLIC, "retreat steering"),
        _bench_group("diff-drive", f"{PUBLIC} --kinematics diff_drive", "retreat steering"))),
    Section("peers", "Peers on the same files: RVO2 and navground",
            (f"orca-ros bench {PUBLIC} --compare navground rvo2 --compare-wall-limit 300",),
            "last-table",
            auto=False),
    Section("bench-step", "One velocity computation beside RVO2 and navground",
            ("orca-ros bench-step",), "markdown"),
    Section("bench-start", "What a node costs to start",
            ("orca-ros bench-start",), "markdown"),
    Section("bench-scaling", "One world step per agent at 100, 1,000 and 5,000 agents",
            ("orca-ros bench-scaling",), "markdown", auto=False),
    Section("bench-phases", "Where a world step's time goes, phase by phase",
            ("orca-ros bench-scaling --agents 1000 --phases",), "markdown", auto=False),
    _columns("toio-world", "The toio cube scenes in the world", (
        _bench_group("holonomic", TOIO_SCENES, "arrived pairs closest_mm makespan", True),
        _bench_group("diff-drive", f"{TOIO_SCENES} --kinematics diff_drive",
                     "arrived pairs closest_mm makespan", True),
        _bench_group("toio dynamics", f"{TOIO_SCENES} --kinematics toio",
                     "arrived pairs closest_mm makespan", True)), auto=True),
    _columns("linked", "Linked robots: orca, orca_strict, rvo_sampling, hrvo", (
        _bench_group("orca holonomic", LINKED, "arrived pairs crossings stretches makespan us",
                     True),
        _bench_group("orca diff-drive", f"{LINKED} --kinematics diff_drive",
                     "arrived pairs crossings stretches makespan us", True),
        _bench_group("orca_strict", f"{LINKED} --method orca_strict",
                     "arrived pairs crossings stretches makespan us", True),
        _bench_group("rvo_sampling holonomic", f"{LINKED} --method rvo_sampling",
                     "arrived pairs crossings stretches makespan us", True),
        _bench_group("rvo_sampling diff-drive",
                     f"{LINKED} --method rvo_sampling --kinematics diff_drive",
                     "arrived pairs crossings stretches makespan us", True),
        _bench_group("hrvo holonomic", f"{LINKED} --method hrvo",
                     "arrived pairs crossings stretches makespan us", True),
        _bench_group("hrvo diff-drive", f"{LINKED} --method hrvo --kinematics diff_drive",
                     "arrived pairs crossings stretches makespan us", True)), auto=True),
    _columns("rfunction", "The R-function velocity obstacle on the public scenarios", (
        _bench_group("orca", f"{PUBLIC} --method orca", CELL, True),
        _bench_group("rfunction (orca)", f"{PUBLIC} --method rfunction", CELL, True),
        _bench_group("rfunction (paper)",
                     f"{PUBLIC} --method rfunction --method-param variant=paper",
                     "arrived pairs separation makespan us", True))),
    _columns("rfunction-3d", "The R-function velocity obstacle in 3D", (
        _bench_group("orca", "octahedron_swap_3d two_layers_crossing_3d sphere_swap_3d",
                     CELL, True),
        _bench_group("rfunction (orca)", "octahedron_swap_3d two_layers_crossing_3d "
                     "sphere_swap_3d --method rfunction", CELL, True),
        _bench_group("rfunction (paper)", "octahedron_swap_3d two_layers_crossing_3d "
                     "sphere_swap_3d --method rfunction --method-param variant=paper",
                     "arrived pairs separation makespan us", True))),
    # Measured by hand: real nodes, the launch engine, or many runs of one scenario.
    Section("ros-timing", "The world predicts the nodes: --ros-timing",
            ("orca-ros bench corridor_wall crossing_4 "
             "$SCENARIOS/crowdnav_square_crossing_5h_case0.yaml --ros-timing "
             "[--kinematics diff_drive]",
             "orca-ros sim $S [--kinematics diff_drive] --speed-factor 4 --observer "
             "(five runs)")),
    Section("through-ros", "Through ROS as in the world: five runs a scenario",
            ("python scripts/through_ros.py out/through_ros $S... [--kinematics diff_drive]",)),
    Section("dense-crowds", "Block crowds, eight seeds",
            ("orca-ros bench /tmp/crowd_*_?.yaml [--kinematics diff_drive]",)),
    Section("fleet-scale", "Fleet scale through real nodes",
            ("orca-ros bench-ros --robots 100 --robots-per-process 10 --wall-limit 240",)),
    Section("faults", "Under faults: the fault suite",
            ("orca-ros fault-suite corridor_wall --kinematics holonomic --seed 1",
             "orca-ros fault-suite corridor_wall --kinematics diff_drive --seed 1")),
    Section("launch", "Through the launch engine",
            ("python -m orca_ros.launch_run fleet_sim.launch.py scenario:=crossing_4 "
             "speed_factor:=2",)),
    Section("toio-ros", "The toio cube scenes through fleet_sim and toio_bridge",
            ("orca-ros sim $SCENE --backend toio-sim --speed-factor 1 --observer",
             "orca-ros sim $SCENE --kinematics diff_drive --speed-factor 2 --max-time 40 "
             "--observer")),
)


def section_names() -> List[str]:
    return [s.name for s in SECTIONS]


def find_section(name: str) -> Section:
    for section in SECTIONS:
        if section.name == name:
            return section
    raise InputError(f"no section {name!r}; sections: {', '.join(section_names())}")


# -- the stamp -------------------------------------------------------------------------

def machine() -> str:
    """This machine as the page names it: system, cores, processor, memory
    (e.g. ``Debian GNU/Linux 12, 2 cores AMD EPYC, 24 GB``)."""
    system = platform.system()
    try:
        release = dict(line.split("=", 1) for line in
                       Path("/etc/os-release").read_text().splitlines() if "=" in line)
        system = f"{release.get('NAME', system).strip(chr(34))} " \
                 f"{release.get('VERSION_ID', '').strip(chr(34))}".strip()
    except OSError:
        pass
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f", {round(int(line.split()[1]) / 1024 ** 2)} GB"
                break
    except OSError:
        pass
    return f"{system}, {os.cpu_count()} cores {cpu}{memory}"


def commit(root: Path, ignore: Optional[Path] = None) -> str:
    """The checked-out commit (short), ``+changes`` when the work tree differs from it
    (but for ``ignore``: the page being written)."""
    def git(*args) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                              check=True).stdout.rstrip()

    try:
        head = git("rev-parse", "--short", "HEAD").strip()
        top = Path(git("rev-parse", "--show-toplevel"))
        changed = [line[3:] for line in
                   git("status", "--porcelain", "--untracked-files=no").splitlines()]
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    if ignore is not None:
        changed = [c for c in changed if (top / c).resolve() != ignore.resolve()]
    return head + ("+changes" if changed else "")


PEER_DISTRIBUTIONS = {"navground": "navground", "rvo2": "pyrvo"}
"""The peer a command names (``--compare``, ``--method``) and the distribution whose
version the stamp gives for it."""


def peer_versions(section: Section, version: Optional[Callable[[str], str]] = None) -> List[str]:
    """``distribution version`` of each peer the section's commands run, installed ones only: a
    peer's figures are only as good as the release that made them."""
    import importlib.metadata

    version = version or importlib.metadata.version
    named = " ".join(section.commands)
    found = []
    for peer, distribution in PEER_DISTRIBUTIONS.items():
        if re.search(rf"(--compare [^;]*\b{peer}\b|--method {peer}\b)", named):
            try:
                found.append(f"{distribution} {version(distribution)}")
            except importlib.metadata.PackageNotFoundError:
                pass
    return found


def stamp_line(section: Section, at_commit: str, date: str, on_machine: str,
               version: Optional[Callable[[str], str]] = None) -> str:
    commands = "; ".join(f"`{c}`" for c in section.commands)
    where = "; ".join([on_machine] + peer_versions(section, version))
    return f"Measured with {commands} at commit {at_commit} on {date} ({where})."


# -- the page --------------------------------------------------------------------------

def _markers(name: str) -> Tuple[str, str]:
    return f"<!-- results:{name} -->", f"<!-- /results:{name} -->"


def marked_sections(text: str) -> List[str]:
    """The names of the marked blocks of a page, in order."""
    return re.findall(r"<!-- results:([A-Za-z0-9_.-]+) -->", text)


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with what stands between ``name``'s markers replaced by ``body`` (a newline
    after the opening marker and before the closing one); every other byte kept."""
    start, end = _markers(name)
    if text.count(start) != 1 or text.count(end) != 1:
        raise InputError(f"the page must hold {start} and {end} once each")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    if end in head or start in tail:
        raise InputError(f"{end} comes before {start}")
    return f"{head}{start}\n{body.rstrip(chr(10))}\n{end}{tail}"


# -- running a section -----------------------------------------------------------------

Runner = Callable[[Sequence[str]], str]


def _expand(argv: Sequence[str]) -> List[str]:
    """``$SCENARIOS``, ``$CASES`` expanded from the environment, globs expanded; refused
    when a variable is unset or a glob matches nothing."""
    out = []
    for word in argv:
        for variable in re.findall(r"\$([A-Z_]+)", word):
            if variable not in os.environ:
                raise InputError(f"{word} needs ${variable} (not shipped: see doc/results.md)")
        word = os.path.expandvars(word)
        if any(c in word for c in "*?["):
            matches = sorted(glob.glob(word))
            if not matches:
                raise InputError(f"{word} matches no file")
            out.extend(matches)
        else:
            out.append(word)
    return out


def run_orca_ros(argv: Sequence[str]) -> str:
    """``orca-ros ARGV`` in a child process (this interpreter); its standard output.
    A status other than 0 is refused with the command's last lines of stderr."""
    done = subprocess.run([sys.executable, "-m", "orca_ros.tools.cli", *argv],
                          capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise InputError(f"orca-ros {' '.join(argv)} ended with status {done.returncode}"
                         f"{': ' + tail if tail else ''}")
    return done.stdout


def _bench_rows(argv: Sequence[str], runner: Runner) -> List[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rows.json"
        runner(["bench", *_expand(argv), "--no-progress", "--json", str(out)])
        return json.loads(out.read_text())


def columns_table(groups: Sequence[Group], rows_by_group: Sequence[List[dict]]) -> str:
    """A Markdown table, a row per scenario (in the first run's order) and per group its
    fields' columns (or one joined column)."""
    header, align = ["scenario"], ["---"]
    for group in groups:
        prefix = f"{group.label}: " if group.label else ""
        if group.joined:
            header.append(prefix + ", ".join(FIELDS[f][0] for f in group.fields))
            align.append("---")
        else:
            header += [prefix + FIELDS[f][0] for f in group.fields]
            align += ["---:"] * len(group.fields)
    order: List[str] = []
    by_name = []
    for rows in rows_by_group:
        table = {}
        for row in rows:
            name = str(row["scenario"])
            table[name] = row
            if name not in order:
                order.append(name)
        by_name.append(table)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    for name in order:
        cells = [name]
        for group, table in zip(groups, by_name):
            row = table.get(name)
            values = [FIELDS[f][1](row) if row else "-" for f in group.fields]
            cells += [", ".join(values)] if group.joined else values
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def last_table(output: str) -> str:
    """The last Markdown table (a run of lines starting with ``|``) of ``output``."""
    tables, current = [], []
    for line in output.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    if not tables:
        raise InputError("the command printed no Markdown table")
    return "\n".join(tables[-1])


def render(section: Section, runner: Runner = run_orca_ros) -> str:
    """The section's table, from running its commands through ``runner``."""
    if not section.generated:
        raise InputError(f"section {section.name} is measured by hand: "
                         + "; ".join(section.commands))
    if section.render == "columns":
        rows = [_bench_rows(group.argv, runner) for group in section.groups]
        return columns_table(section.groups, rows)
    output = runner(_expand(shlex.split(section.commands[0])[1:]))
    if section.render == "last-table":
        return last_table(output)
    if section.render == "text":
        return "```text\n" + output.strip("\n") + "\n```"
    return output.strip("\n")


def refresh(page: Path, names: Sequence[str], root: Path, runner: Runner = run_orca_ros,
            date: Optional[str] = None, on_machine: Optional[str] = None,
            at_commit: Optional[str] = None, report=print) -> List[str]:
    """Rewrite ``names``' blocks of ``page`` (each run, rendered and stamped; the page
    written after each, so a section that fails keeps those done). Returns the names
    done."""
    sections = [find_section(name) for name in names]
    text = page.read_bytes().decode("utf-8")  # as it is: no newline translated
    for section in sections:  # every block checked before anything runs
        replace_block(text, section.name, "")
    date = date or datetime.date.today().isoformat()
    on_machine = on_machine or machine()
    at_commit = at_commit or commit(root, ignore=page)
    done = []
    for section in sections:
        report(f"{section.name}: {'; '.join(section.commands)}")
        body = stamp_line(section, at_commit, date, on_machine) + "\n\n" + render(section,
                                                                                   runner)
        text = replace_block(text, section.name, body)
        page.write_bytes(text.encode("utf-8"))
        done.append(section.name)
    return done


def needs(section: Section) -> List[str]:
    """The environment variables (``SCENARIOS``, ``CASES``) its commands name."""
    return sorted({v for c in section.commands for v in re.findall(r"\$([A-Z_]+)", c)})


def default_names(page_text: str, report=print) -> List[str]:
    """What a plain ``orca-ros results`` refreshes: the generated ``auto`` sections that
    have a block on the page, but those whose variables are unset (said)."""
    on_page = set(marked_sections(page_text))
    names = []
    for s in SECTIONS:
        if not (s.generated and s.auto and s.name in on_page):
            continue
        missing = [v for v in needs(s) if v not in os.environ]
        if missing:
            report(f"{s.name}: skipped, needs ${' and $'.join(missing)}")
            continue
        names.append(s.name)
    return names


def listing(page_text: str = "") -> str:
    """One line per section: name, whether a plain refresh runs it, its commands."""
    on_page = set(marked_sections(page_text))
    lines = []
    for s in SECTIONS:
        how = ("auto" if s.auto else "--only") if s.generated else "by hand"
        mark = "" if not page_text or s.name in on_page else " (no block on the page)"
        lines.append(f"{s.name:<18} {how:<8} {'; '.join(s.commands)}{mark}")
    return "\n".join(lines)
