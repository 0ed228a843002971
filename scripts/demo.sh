#!/usr/bin/env bash
# Set up .venv (scripts/setup_venv.sh), then run the main job: six differential-drive
# robots pass each other in a walled corridor, each robot an orca_node, all
# talking over DDS with fleet_sim and obstacle_server. Writes out/demo.json, the
# ROS 2 bag of the run out/demo.mcap, and its picture out/demo.png drawn from the bag.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_venv.sh
mkdir -p out
.venv/bin/orca-ros sim corridor_wall --kinematics diff_drive --speed-factor 4 \
  --json out/demo.json --record out/demo.mcap "$@"
.venv/bin/orca-ros plot out/demo.mcap --scenario corridor_wall --out out/demo.png
