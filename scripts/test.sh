#!/usr/bin/env bash
# Set up .venv (scripts/setup_venv.sh), the launch engine and a colcon install of this
# package (scripts/setup_launch.sh, into build/colcon_ws), then run the full test suite,
# the launch_testing tests in test/launch included.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_venv.sh
bash scripts/setup_launch.sh
. build/colcon_ws/orca_env.sh
exec .venv/bin/python -m pytest -q "$@"
