"""The whole suite's setup.

test/unit/<room>/  tests of one room of orca_ros, without ROS: no rclpy, no DDS.
test/ros/          rclpy nodes over DDS in this process (the ``ros`` fixture, run_fleet).
test/system/       whole systems: executables in processes of their own, fault runs,
                   recorded bags, the bench over processes.
test/launch/       launch files through the launch engine (launch_testing).
test/helpers/      what tests share (``from helpers.<module> import ...``).

Every test that needs rclpy is marked ``ros`` (every module of test/ros and test/system,
and each test of test/launch here); ``-m "not ros"`` then does not even collect
test/ros, test/system and test/launch, so nothing imports rclpy.
"""

import itertools
import os
import pathlib
import re
import sys

import pytest

TEST_DIR = pathlib.Path(__file__).resolve().parent
REPO = TEST_DIR.parent
sys.path.insert(0, str(TEST_DIR))  # the helpers package
from helpers.paths import SHARED, STEERSUITE  # noqa: E402

ROS_ONLY_DIRS = tuple(TEST_DIR / name for name in ("ros", "system", "launch"))
LAUNCH_DIR = TEST_DIR / "launch"


@pytest.fixture
def shared_dir() -> pathlib.Path:
    """The read-only ../shared folder of public scenarios; the test skips without it."""
    if not SHARED.is_dir():
        pytest.skip(f"public suite not present: {SHARED} does not exist")
    return SHARED


def public_scenario_path(name: str) -> pathlib.Path:
    """A public benchmark scenario by name: the shipped copy (orca_ros/scenarios/public,
    its cocoon/ cases included), else a converted SteerSuite scene from
    ``ORCA_ROS_STEERSUITE`` or ../shared/scenarios; the test skips without one."""
    from orca_ros.core.scenario.loader import public_scenario_dir

    shipped = public_scenario_dir()
    folders = [shipped, shipped / "cocoon"]
    folders += [pathlib.Path(STEERSUITE)] if STEERSUITE else []
    folders.append(SHARED / "scenarios")
    for folder in folders:
        if (folder / f"{name}.yaml").is_file():
            return folder / f"{name}.yaml"
    pytest.skip(f"{name}.yaml is not shipped (SteerSuite's scenes are GPL-3.0): write it with "
                f"orca-ros import-steersuite and set ORCA_ROS_STEERSUITE to that folder")


@pytest.fixture
def public_scenario():
    """:func:`public_scenario_path`, for a test to call with a scenario's name."""
    return public_scenario_path


# Keep this test run's DDS traffic to itself: another ROS 2 process on the
# machine (a user's, or a second CI run) must not leak into the assertions.
if "ROS_DOMAIN_ID" not in os.environ:
    os.environ["ROS_DOMAIN_ID"] = str(100 + os.getpid() % 100)
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")


@pytest.fixture
def ros():
    from helpers.ros_helpers import RosHarness

    harness = RosHarness()
    yield harness
    harness.close()


def _ros_deselected(config) -> bool:
    """Whether ``-m`` leaves out every test marked ``ros``, whatever its other marks."""
    text = config.getoption("markexpr", "") or ""
    if not text.strip():
        return False
    try:
        from _pytest.mark.expression import Expression

        expression = Expression.compile(text)
    except Exception:  # an older or newer pytest: collect, and let -m deselect
        return False
    names = set(re.findall(r"[A-Za-z_][\w.]*", text)) - {"and", "or", "not", "ros"}
    for count in range(len(names) + 1):
        for others in itertools.combinations(sorted(names), count):
            if expression.evaluate(_has_marks({"ros", *others})):
                return False
    return True


def _has_marks(marks):
    def matcher(name, /, **kwargs):
        return not kwargs and name in marks
    return matcher


def pytest_ignore_collect(collection_path, config):
    """With ``ros`` deselected, test/ros, test/system and test/launch are not collected:
    their modules import rclpy (or the launch engine) when pytest imports them."""
    if collection_path in ROS_ONLY_DIRS and _ros_deselected(config):
        return True
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """launch_testing's items take no module marks: each test of test/launch starts the
    nodes of a launch file (``ros``) and runs for a while (``slow``). A test that uses the
    ``ros`` fixture needs rclpy, whatever its module says."""
    for item in items:
        path = pathlib.Path(str(item.fspath))
        if LAUNCH_DIR in path.parents:
            item.add_marker(pytest.mark.ros)
            item.add_marker(pytest.mark.slow)
        elif "ros" in getattr(item, "fixturenames", ()) and item.get_closest_marker("ros") is None:
            item.add_marker(pytest.mark.ros)
