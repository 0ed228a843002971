import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED = pathlib.Path(os.environ.get("ORCA_ROS_SHARED", REPO.parent / "shared"))


@pytest.fixture
def shared_dir() -> pathlib.Path:
    """The read-only ../shared folder of public scenarios; the test skips without it."""
    if not SHARED.is_dir():
        pytest.skip(f"public suite not present: {SHARED} does not exist")
    return SHARED
