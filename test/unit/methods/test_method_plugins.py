"""A method from another package, found through the entry-point group ``orca_ros.methods``.

The test builds a tiny distribution, ``orca-ros-shift-left``, whose one module defines
``shift_left`` (ORCA with the preferred velocity turned left by ``turn_deg``) and
declares it as an entry point; installs it with pip into a directory of its own
(``pip install --no-deps --no-build-isolation --target``: the distribution's metadata,
entry points included, lands there); and then, in fresh Python processes that have that
directory on ``PYTHONPATH`` and nothing else telling them about the method, runs it in
``orca-ros bench`` and in an orca_node. Nothing here registers the method: if discovery
through the entry-point group breaks, the CLI refuses ``--method shift_left`` and
orca_node its ``method`` parameter.

Also: our own entry points in setup.py are the built-in list, and a broken outside
entry point is skipped with a warning naming it.
"""

import ast
import importlib
import json
import math
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from orca_ros.core.methods import plugins

from helpers.paths import REPO, TEST_DIR

PYPROJECT = """\
[build-system]
requires = []
build-backend = "tiny_backend"
backend-path = ["."]

[project]
name = "orca-ros-shift-left"
version = "0.1.0"
description = "test: an avoidance method from outside orca_ros"

[project.entry-points."orca_ros.methods"]
shift_left = "shift_left_method:register"

[tool.tiny-backend]
modules = ["shift_left_method"]
"""

# A PEP 517 build backend of the distribution's own (this machine's setuptools builds no
# wheel without the ``wheel`` package, and the build must not download anything): the
# wheel holds the modules and the metadata from pyproject.toml, entry points included;
# pip installs it as any other.
BACKEND = r'''import base64
import hashlib
import os
import tomllib
import zipfile


def _project():
    with open("pyproject.toml", "rb") as stream:
        return tomllib.load(stream)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    data = _project()
    project = data["project"]
    dist = project["name"].replace("-", "_")
    info = f"{dist}-{project['version']}.dist-info"
    files = {}
    for module in data["tool"]["tiny-backend"]["modules"]:
        with open(f"{module}.py", "rb") as stream:
            files[f"{module}.py"] = stream.read()
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {project['name']}\n"
        f"Version: {project['version']}\nSummary: {project['description']}\n").encode()
    files[f"{info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: tiny_backend\n"
                              b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    entry_points = ""
    for group, entries in project.get("entry-points", {}).items():
        entry_points += f"[{group}]\n" + "".join(f"{name} = {value}\n"
                                                   for name, value in entries.items())
    files[f"{info}/entry_points.txt"] = entry_points.encode()
    record = []
    for path, content in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(content)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    name = f"{dist}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as wheel:
        for path, content in files.items():
            wheel.writestr(path, content)
    return name
'''

MODULE = '''\
"""shift_left: ORCA with the preferred velocity turned left by turn_deg."""

import math
from dataclasses import dataclass

from orca_ros.core.methods import Capabilities, MethodSpec, register_method
from orca_ros.core.methods.orca import Orca


@dataclass(frozen=True)
class ShiftLeftParameters:
    time_horizon: float = 2.0
    time_horizon_obst: float = 2.0
    turn_deg: float = 20.0


class ShiftLeft(Orca):
    uses_links = False

    def compute_velocity(self, view):
        turn = math.radians(self.params.turn_deg)
        px, py = view.pref_velocity
        c, s = math.cos(turn), math.sin(turn)
        return super().compute_velocity(view._replace(pref_velocity=(c * px - s * py,
                                                                     s * px + c * py)))


def register():
    register_method(MethodSpec(
        "shift_left", "test: ORCA towards a goal turned left", ShiftLeft, ShiftLeftParameters,
        capabilities=Capabilities(takes_constraints=True, collision_free=True)))
'''

NODE_CHECK = """\
import json
import sys

sys.path.insert(0, {test_dir!r})
from helpers.ros_helpers import RosHarness  # noqa: E402
from helpers.orca_rig import Rig, goal, odom  # noqa: E402

ros = RosHarness()
try:
    rig = Rig(ros, method="shift_left", **{{"shift_left.turn_deg": 30.0}})
    rig.goal.publish(goal(6.0, 0.0))
    cmd = rig.drive(0.6, odom(0.0, 0.0))
    ros.spin_until(lambda: rig.my_status()[1].get("method") == "shift_left", 5.0)
    print(json.dumps({{
        "vx": cmd.linear.x, "vy": cmd.linear.y,
        "status_method": rig.my_status()[1].get("method"),
        "declared": sorted(name for name in rig.node._parameters
                           if name.startswith(("shift_left.", "hlavoid.", "rfunction."))),
    }}))
finally:
    ros.close()
"""


def _env(target: pathlib.Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(target), str(REPO)])
    env.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> pathlib.Path:
    """The shift_left distribution, installed by pip into a directory of its own."""
    root = tmp_path_factory.mktemp("shift_left")
    source = root / "src"
    source.mkdir()
    (source / "pyproject.toml").write_text(PYPROJECT)
    (source / "shift_left_method.py").write_text(MODULE)
    (source / "tiny_backend.py").write_text(BACKEND)
    target = root / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps",
                           "--no-build-isolation", "--no-index", "--quiet",
                           "--target", str(target), str(source)],
                          capture_output=True, text=True, timeout=300, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    entry_points = list(target.glob("orca_ros_shift_left-*.dist-info/entry_points.txt"))
    assert entry_points and "orca_ros.methods" in entry_points[0].read_text()
    assert not (target / "orca_ros").exists()  # only the plugin went there
    return target


def test_the_installed_method_is_found_through_its_entry_point_only(installed):
    script = textwrap.dedent("""\
        from importlib.metadata import entry_points
        from orca_ros.core.methods import method_names, method_spec
        found = [(e.name, e.value, e.dist.name) for e in entry_points(group="orca_ros.methods")]
        spec = method_spec("shift_left")
        print(repr((found, method_names(), method_names(ros=True), spec.collision_free,
                    type(spec.create()).__module__)))
        """)
    done = subprocess.run([sys.executable, "-c", script], env=_env(installed), cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found, names, ros_names, collision_free, module = ast.literal_eval(
        done.stdout.strip().splitlines()[-1])
    assert ("shift_left", "shift_left_method:register", "orca-ros-shift-left") in found
    # Our methods first, in their order; the outside method after them; the world backends.
    assert names == ("orca", "orca_strict", "direct", "hlavoid", "boids", "boids_avoid",
                     "rvo_sampling", "hrvo", "rfunction", "shift_left", "rvo2")
    assert "shift_left" in ros_names and "rvo2" not in ros_names
    assert collision_free and module == "shift_left_method"
    # Without the directory on the path the method is unknown: the entry point found it.
    plain = subprocess.run([sys.executable, "-c", "from orca_ros.core.methods import "
                            "method_names; print('shift_left' in method_names())"],
                           env=dict(_env(installed), PYTHONPATH=str(REPO)), cwd=REPO,
                           capture_output=True, text=True, timeout=120)
    assert plain.stdout.strip() == "False", plain.stderr


def test_orca_ros_bench_runs_the_installed_method(installed, tmp_path):
    out = tmp_path / "out.json"
    command = [sys.executable, "-m", "orca_ros.tools.cli", "bench", "crossing_4", "--method",
               "shift_left", "--json", str(out), "--no-progress"]
    done = subprocess.run(command, env=_env(installed), cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    row, = json.loads(out.read_text())
    assert row["method"] == "shift_left" and row["scenario"] == "crossing_4"
    assert row["reached"] == row["agents"] == 4 and row["collisions"] == 0  # ORCA's promise
    assert "| crossing_4 | shift_left |" in done.stdout
    # The method's effect: not ORCA's run (the robots swerve left early: they keep
    # farther apart and arrive sooner).
    orca_out = tmp_path / "orca.json"
    done = subprocess.run(command[:6] + ["orca", "--json", str(orca_out), "--no-progress"],
                          env=_env(installed), cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    orca_row, = json.loads(orca_out.read_text())
    assert row["min_separation"] > orca_row["min_separation"]
    assert row["makespan"] != orca_row["makespan"]
    helped = subprocess.run(command[:4] + ["--help"], env=_env(installed), cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    assert "shift_left: test: ORCA towards a goal turned left" in " ".join(helped.stdout.split())


@pytest.mark.ros
def test_an_orca_node_runs_the_installed_method(installed):
    pytest.importorskip("rclpy", reason="rclpy not installed (pip install .[ros])")
    done = subprocess.run([sys.executable, "-c", NODE_CHECK.format(test_dir=str(TEST_DIR))],
                          env=_env(installed), cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    # Alone, heading for (6, 0) at 1 m/s: ORCA would go straight; shift_left 30 degrees left.
    assert report["vx"] == pytest.approx(math.cos(math.radians(30.0)), abs=1e-6)
    assert report["vy"] == pytest.approx(math.sin(math.radians(30.0)), abs=1e-6)
    assert report["status_method"] == "shift_left"
    # orca_node declares the chosen method's own parameters, and no other method's.
    assert report["declared"] == ["shift_left.turn_deg"]


# --- our own entry points, and a broken one -----------------------------------------------------

def test_setup_py_declares_the_built_in_entry_points_in_their_order():
    tree = ast.parse((REPO / "setup.py").read_text())
    call = next(node for node in ast.walk(tree) if isinstance(node, ast.Call)
                and getattr(node.func, "id", "") == "setup")
    entry_points = ast.literal_eval(next(k.value for k in call.keywords
                                         if k.arg == "entry_points"))
    for group in plugins.GROUPS:
        assert entry_points[group] == plugins.entry_point_lines(group)


def test_the_built_in_listing_is_what_the_built_in_entry_points_register(monkeypatch):
    """The registry lists a built-in name without importing its module: each built-in entry
    point's register function registers exactly the listed specs, in the listed order, with
    the listed summary, world-only flag and 3D version, and the listing names those specs."""
    from orca_ros.core.methods import registry

    monkeypatch.setattr(registry.METHODS, "entries", {})
    monkeypatch.setattr(registry.WORLD_BACKENDS, "entries", {})
    monkeypatch.setattr(registry, "_loaded", True)  # only what the register functions add
    for _, _, value in plugins.BUILT_IN:
        module, _, function = value.partition(":")
        getattr(importlib.import_module(module), function)()
    specs = list(registry.METHODS.entries.values()) + list(registry.WORLD_BACKENDS.entries.values())
    listing = sorted(plugins.BUILT_IN_LISTING, key=lambda listed: listed.world_only)
    assert [spec.name for spec in specs] == [listed.name for listed in listing]
    for spec, listed in zip(specs, listing):
        assert listed.load() is spec, listed.name
        assert (listed.summary, listed.world_only, listed.supports_3d) == \
            (spec.summary, spec.world_only, spec.supports_3d), listed.name


def test_listing_the_methods_imports_none_of_their_modules():
    """Names, summaries and the 3D and ROS listings come from the listing; a spec asked for
    imports its own module (and what it needs), no other method's."""
    script = textwrap.dedent("""\
        import sys
        from orca_ros.core.methods import method_names, method_spec, method_summary
        listed = (method_names(), method_names(ros=True), method_names(ros=True, dimensions=3),
                  [method_summary(name) for name in method_names()])
        def loaded():
            return sorted(m for m in sys.modules if m.startswith(("orca_ros.core.methods.",
                                                                  "orca_ros.core.sim")))
        before = loaded()
        spec = method_spec("hrvo")
        print(repr((before, loaded(), spec.summary == method_summary("hrvo"))))
        """)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    before, after, same_summary = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    assert before == ["orca_ros.core.methods.base", "orca_ros.core.methods.plugins",
                      "orca_ros.core.methods.registry"]
    assert set(after) - set(before) == {"orca_ros.core.methods.hrvo",
                                        "orca_ros.core.methods.rvo_sampling"}  # hrvo's base
    assert same_summary


def test_a_built_in_name_is_known_without_reading_the_installed_packages():
    """Asking for a built-in method (its spec, its summary, whether it is one) lists the
    built-in names only; the other packages' entry points are read (every installed
    distribution's metadata, tens of milliseconds of a node's start) once a name is asked
    for that is not built in."""
    script = textwrap.dedent("""\
        import sys
        from orca_ros.core.methods import is_method, method_spec, method_summary, registry
        method_spec("orca"); method_summary("hrvo")
        known = (is_method("orca"), is_method("rvo2"), registry._loaded,
                 "importlib.metadata" in sys.modules)
        print(repr((known, is_method("no_such_method"), registry._loaded)))
        """)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    known, unknown, loaded = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    assert known == (True, False, False, False)  # rvo2: a world backend, not a method
    assert unknown is False and loaded is True


class _FakeEntryPoint:
    """An entry point as importlib.metadata gives it: ``load()`` gives its target, or
    raises the error importing it would."""

    def __init__(self, name, value, target=None, error=None):
        self.name, self.value, self.target, self.error = name, value, target, error

    def load(self):
        if self.error is not None:
            raise self.error
        return self.target


def test_a_broken_outside_entry_point_is_skipped_with_a_warning_naming_it(monkeypatch):
    from orca_ros.core.methods import (MethodSpec, method_names, method_spec, register_method,
                                       registry)

    def half_done():  # registers one method, then fails: nothing of it may stay
        from orca_ros.core.methods.direct import Direct

        register_method(MethodSpec("test_half_done", "test", Direct))
        raise RuntimeError("half way")

    def taken():  # a name that is ours
        from orca_ros.core.methods.direct import Direct

        return MethodSpec("orca", "test: not ORCA", Direct)

    def fine():
        from orca_ros.core.methods.direct import Direct

        return [MethodSpec("test_fine", "test", Direct)]

    found = {plugins.METHODS_GROUP: [
        _FakeEntryPoint("broken", "not_there", error=ImportError("No module named 'not_there'")),
        _FakeEntryPoint("half_done", "half:register", half_done),
        _FakeEntryPoint("taken", "taken:register", taken),
        _FakeEntryPoint("ours", "orca_ros.core.methods.orca:register", error=ImportError("no")),
        _FakeEntryPoint("not_callable", "thing:value", 42),
        _FakeEntryPoint("fine", "fine:register", fine)]}
    monkeypatch.setattr(plugins, "_outside_entry_points",
                        lambda: [(group, e) for group, entries in found.items() for e in entries
                                 if not plugins._is_ours(e)])
    orca = method_spec("orca")  # the registry is loaded
    monkeypatch.setattr(registry.METHODS, "entries", {})  # as a fresh process has it
    monkeypatch.setattr(registry.WORLD_BACKENDS, "entries", {})
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "_listed", False)
    with pytest.warns(RuntimeWarning) as caught:
        names = method_names()
    messages = [str(w.message) for w in caught]
    assert any("'broken'" in m and "not_there" in m for m in messages)
    assert any("'half_done'" in m and "half way" in m for m in messages)
    assert any("'taken'" in m and "already registered" in m for m in messages)
    assert any("'not_callable'" in m and "not a module or a callable" in m for m in messages)
    assert not any("'ours'" in m for m in messages)  # ours are loaded from the package
    assert names == ("orca", "orca_strict", "direct", "hlavoid", "boids", "boids_avoid",
                     "rvo_sampling", "hrvo", "rfunction", "test_fine", "rvo2")
    assert method_spec("orca") is orca
