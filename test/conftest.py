import os
import pathlib
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
SHARED = pathlib.Path(os.environ.get("ORCA_ROS_SHARED", REPO.parent / "shared"))


@pytest.fixture
def shared_dir() -> pathlib.Path:
    """The read-only ../shared folder of public scenarios; the test skips without it."""
    if not SHARED.is_dir():
        pytest.skip(f"public suite not present: {SHARED} does not exist")
    return SHARED


# Keep this test run's DDS traffic to itself: another ROS 2 process on the
# machine (a user's, or a second CI run) must not leak into the assertions.
if "ROS_DOMAIN_ID" not in os.environ:
    os.environ["ROS_DOMAIN_ID"] = str(100 + os.getpid() % 100)
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")


@pytest.fixture
def ros():
    from ros_helpers import RosHarness

    harness = RosHarness()
    yield harness
    harness.close()
