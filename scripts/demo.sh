#!/usr/bin/env bash
# Set up .venv (scripts/setup_venv.sh), then run the main job: six differential-drive
# robots pass each other in a walled corridor, each robot an orca_node, all
# talking over DDS with fleet_sim and obstacle_server. Writes out/demo.json and
# the picture out/demo.png.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_venv.sh
mkdir -p out
.venv/bin/orca-ros sim corridor_wall --kinematics diff_drive --speed-factor 4 \
  --json out/demo.json --plot out/demo.png "$@"
