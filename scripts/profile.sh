#!/usr/bin/env bash
# Where the time goes: cProfile of the world at N agents (orca-ros bench-scaling) and of
# N robots' nodes in one process over DDS (orca-ros bench-ros --in-process), each printed
# as the functions taking the most time of their own. The .prof files open in any
# cProfile viewer (snakeviz, or gprof2dot for a call graph).
#   bash scripts/profile.sh [OUT_DIR]      (ORCA_PROFILE_AGENTS, ORCA_PROFILE_ROBOTS)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${ORCA_ROS_VENV:-.venv}/bin/python
out=${1:-out/profile}
agents=${ORCA_PROFILE_AGENTS:-1000}
robots=${ORCA_PROFILE_ROBOTS:-100}
mkdir -p "$out"
"$python" -m cProfile -o "$out/world_$agents.prof" -m orca_ros.tools.cli \
  bench-scaling --agents "$agents" --steps 10
"$python" -m cProfile -o "$out/nodes_$robots.prof" -m orca_ros.tools.cli \
  bench-ros --in-process --robots "$robots" --duration 10
for prof in "$out/world_$agents.prof" "$out/nodes_$robots.prof"; do
  echo "== $prof: own time, then time with callees"
  "$python" -c 'import pstats, sys
stats = pstats.Stats(sys.argv[1])
stats.sort_stats("tottime").print_stats(15)
stats.sort_stats("cumulative").print_stats("orca_ros", 15)' "$prof"
done
