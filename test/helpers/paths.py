"""Where things are, wherever the test module that asks sits under ``test/``."""

import pathlib

TEST_DIR = pathlib.Path(__file__).resolve().parent.parent  # test/
REPO = TEST_DIR.parent
DATA_DIR = TEST_DIR / "data"
LAUNCH_DIR = REPO / "launch"
