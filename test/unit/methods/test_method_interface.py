"""The method interface: the Capabilities record, reset(), the world's batch and the
rvo2 world backend (the registry's loading from entry points: test_method_plugins.py)."""

import dataclasses
import subprocess
import sys

import pytest

from orca_ros.core.methods import (AvoidanceMethod, Capabilities, MethodOutput, MethodSpec,
                                   method_names, method_spec, register_method,
                                   unregister_method, world_spec)
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.controller import RobotController
from orca_ros.core.robot.state import RobotState
from orca_ros.core.scenario.loader import load_scenario, resolve_scenario
from orca_ros.core.sim.backends import WorldBackendSpec, start_world_backend
from orca_ros.core.sim.batch import batch_for
from orca_ros.core.sim.world import World, WorldOptions

from helpers.paths import REPO

# What each built-in name promised before the flags became a record of their own.
BUILT_IN_CAPABILITIES = {
    "orca": dict(takes_constraints=True, collision_free=True),
    "orca_strict": dict(strict=True, keep_right=False, safety_filter=False,
                        takes_constraints=True, collision_free=True),
    "direct": dict(keep_right=False, safety_filter=False, avoids=False),
    "hlavoid": dict(keep_right=False, safety_filter=False, cube_tracking="move2target"),
    "boids": dict(keep_right=False, safety_filter=False, cube_tracking="move2target"),
    "boids_avoid": dict(keep_right=False, safety_filter=False, cube_tracking="move2target"),
    "rvo_sampling": dict(),
    "hrvo": dict(),
    "rfunction": dict(takes_constraints=True, collision_free=True),
    "rvo2": dict(strict=True, keep_right=False, safety_filter=False, holonomic_only=True),
}  # the methods, then the world backends (a registry of their own)


def test_the_capabilities_defaults_and_record():
    assert Capabilities() == Capabilities(strict=False, keep_right=True, safety_filter=True,
                                          takes_constraints=False, avoids=True,
                                          collision_free=False, holonomic_only=False,
                                          cube_tracking="unicycle")
    with pytest.raises(dataclasses.FrozenInstanceError):
        Capabilities().strict = True
    with pytest.raises(ValueError, match="cube_tracking"):
        Capabilities(cube_tracking="teleport")
    for field in dataclasses.fields(Capabilities):  # each flag is documented
        assert f"``{field.name}``" in Capabilities.__doc__


def test_the_built_in_names_keep_their_capabilities_and_order():
    assert method_names() == tuple(BUILT_IN_CAPABILITIES)
    for name, flags in BUILT_IN_CAPABILITIES.items():
        spec = world_spec(name)
        assert spec.capabilities == Capabilities(**flags), name
        for flag, value in dataclasses.asdict(spec.capabilities).items():
            assert getattr(spec, flag) == value  # the flags read through the spec
    assert method_names(ros=True) == tuple(n for n in BUILT_IN_CAPABILITIES if n != "rvo2")
    assert method_names(dimensions=3) == ("orca", "orca_strict", "direct", "rfunction",
                                          "rvo2")
    assert method_names(ros=True, dimensions=3) == ("orca", "orca_strict", "direct",
                                                    "rfunction")


class _Plain(AvoidanceMethod):
    def compute_velocity(self, view):
        return MethodOutput(view.pref_velocity)


def test_a_spec_takes_the_capabilities_or_the_flags_as_keywords():
    by_record = MethodSpec("test_a", "test", _Plain,
                           capabilities=Capabilities(keep_right=False, avoids=False))
    by_flags = MethodSpec("test_a", "test", _Plain, keep_right=False, avoids=False)
    assert by_record == by_flags and by_flags.capabilities.avoids is False
    with pytest.raises(TypeError, match="batch"):
        MethodSpec("test_a", "test", _Plain, batch=None)
    with pytest.raises(TypeError, match="not both"):
        MethodSpec("test_a", "test", _Plain, capabilities=Capabilities(), strict=True)
    with pytest.raises(TypeError):
        register_method(world_spec("rvo2"))  # a world backend is not a method


class _Counting(AvoidanceMethod):
    """Keeps a count of its periods; reset() forgets it."""

    resets = 0

    def __init__(self, params=None):
        super().__init__(params)
        self.periods = 0

    def compute_velocity(self, view):
        self.periods += 1
        return MethodOutput(view.pref_velocity)

    def reset(self):
        type(self).resets += 1
        self.periods = 0


@pytest.fixture
def counting():
    _Counting.resets = 0
    register_method(MethodSpec("test_counting", "test: counts its periods", _Counting))
    yield _Counting
    unregister_method("test_counting")


def test_a_new_path_resets_the_method(counting):
    controller = RobotController(ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0,
                                                  time_step=0.1, method="test_counting"))
    controller.set_path([(1.0, 0.0)])  # no method made yet: nothing to reset
    assert controller.avoidance.instance is None and counting.resets == 0
    for _ in range(3):
        controller.compute(RobotState((0.0, 0.0)), [])
    method = controller.method
    assert method.periods == 3
    controller.set_path([(0.0, 1.0)])
    assert controller.method is method and method.periods == 0 and counting.resets == 1
    assert AvoidanceMethod.reset(method) is None  # the default forgets nothing


def test_rvo2_is_a_world_backend_selected_by_name():
    spec = world_spec("rvo2")
    assert isinstance(spec, WorldBackendSpec) and spec.world_only and spec.supports_3d
    with pytest.raises(ValueError, match="whole world"):
        method_spec("rvo2")  # not a method: its registry is the world backends'
    assert world_spec("orca") is method_spec("orca")
    assert spec.factory_3d is None and dataclasses.fields(spec.parameters) == ()
    with pytest.raises(ValueError, match="whole world"):
        spec.create()
    with pytest.raises(ValueError, match="holonomic only"):
        WorldOptions(method="rvo2", kinematics="diff_drive")
    world = World(load_scenario(resolve_scenario("crossing_4")), WorldOptions())
    assert start_world_backend("orca", world) is None and world._backend is None
    assert not hasattr(sys.modules["orca_ros.core.methods"], "rvo2_reference")


def test_the_world_batches_the_methods_that_offer_an_array_function():
    for name in ("orca", "orca_strict", "rfunction"):
        assert callable(batch_for(name)), name
    for name in ("direct", "hlavoid", "rvo_sampling", "hrvo", "rvo2"):
        assert batch_for(name) is None, name
    # A method module reads nothing of the world: the world gathers the arrays itself.
    for path in (REPO / "orca_ros" / "core" / "methods").glob("*.py"):
        text = path.read_text()
        assert ".controllers" not in text and "margin.held" not in text, path.name


def test_the_registry_loads_in_order_whichever_module_is_imported_first():
    script = ("import sys\n"
              "import orca_ros.core.methods\n"
              "assert 'orca_ros.core.methods.hrvo' not in sys.modules  # nothing loaded yet\n"
              "import orca_ros.core.methods.rfunction\n"
              "import orca_ros.core.sim.backends.rvo2\n"
              "from orca_ros.core.methods import method_names\n"
              "print(','.join(method_names()))\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ",".join(BUILT_IN_CAPABILITIES)
