"""Where things are, wherever the test module that asks sits under ``test/``."""

import os
import pathlib

TEST_DIR = pathlib.Path(__file__).resolve().parent.parent  # test/
REPO = TEST_DIR.parent
DATA_DIR = TEST_DIR / "data"
LAUNCH_DIR = REPO / "launch"
SHARED = pathlib.Path(os.environ.get("ORCA_ROS_SHARED", REPO.parent / "shared"))
# SteerSuite's scenes as `orca-ros import-steersuite` writes them (they are GPL-3.0, so
# not shipped); without it, the ../shared copies; without either, their tests skip.
STEERSUITE = os.environ.get("ORCA_ROS_STEERSUITE")
