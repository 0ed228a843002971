#!/usr/bin/env bash
# Make the real ROS 2 launch engine usable from .venv, and build this package the
# ROS way, so `launch_ros.actions.Node` finds our executables through the ament index.
#
#   bash scripts/setup_launch.sh            # then: source build/colcon_ws/orca_env.sh
#
# 1. Only where `import launch_ros` fails in the venv (no system ROS install),
#    install the vendored launch packages from ../shared/vendor as its README
#    says. launch_testing and launch_testing_ros are left out: their pytest
#    plugin needs pytest < 9, and nothing here uses them.
# 2. `colcon build --symlink-install` into $ORCA_ROS_COLCON_WS (default
#    build/colcon_ws, git-ignored). Python sources, launch and config files are
#    symlinks into this repository, so edits need no rebuild (only a new
#    executable, launch or config file does).
# 3. Write $ORCA_ROS_COLCON_WS/orca_env.sh: colcon's install/setup.bash, then
#    the venv on AMENT_PREFIX_PATH (its message packages). `python -m
#    orca_ros.launch_run` does without it: it adds both when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
VENV=${ORCA_ROS_VENV:-.venv}
WS=${ORCA_ROS_COLCON_WS:-build/colcon_ws}
VENDOR=${ORCA_ROS_VENDOR:-$repo/../shared/vendor}
venv_abs=$(cd "$VENV" && pwd)
py="$venv_abs/bin/python"
pip_log=$(mktemp)
trap 'rm -f "$pip_log"' EXIT
# pip, quiet; its output is shown only when it fails.
pip_quiet() {
  "$py" -m pip install -q "$@" >"$pip_log" 2>&1 || { cat "$pip_log" >&2; echo "pip install $* failed" >&2; exit 1; }
}

[ -x "$py" ] || { echo "no virtual environment at $VENV: run scripts/setup_venv.sh first" >&2; exit 1; }

if "$py" -c "import launch_ros" 2>/dev/null; then
  echo "launch_ros is importable ($("$py" -c 'import launch_ros, os; print(os.path.dirname(launch_ros.__file__))')): nothing to install"
else
  [ -d "$VENDOR" ] || { echo "launch_ros is not importable and $VENDOR is absent: cannot install the launch engine" >&2; exit 1; }
  echo "launch_ros is not importable in $VENV: installing the vendored launch packages from $VENDOR"
  echo "(a system ROS 2 install uses its own launch and launch_ros instead)"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp" "$pip_log"' EXIT
  pip_quiet osrf-pycommon lark pyyaml packaging ros-lifecycle-msgs ros-ament-index-python
  tar -xzf "$VENDOR/ros2-launch-3.7.1.tar.gz" -C "$tmp"
  tar -xzf "$VENDOR/ros2-launch_ros-0.28.0.tar.gz" -C "$tmp"
  for p in launch launch_xml launch_yaml; do pip_quiet --no-deps "$tmp/ros2-launch-3.7.1/$p"; done
  pip_quiet --no-deps "$tmp/ros2-launch_ros-0.28.0/launch_ros"
  pip_quiet --no-deps "$VENDOR/composition_interfaces_stub-0.0.1-py3-none-any.whl"
  "$py" -c "import launch, launch_ros.actions" \
    || { echo "the vendored launch packages did not install" >&2; exit 1; }
  echo "installed launch 3.7.1 and launch_ros 0.28.0 into $VENV"
fi

if [ ! -x "$venv_abs/bin/colcon" ]; then
  echo "installing colcon-common-extensions into $VENV"
  pip_quiet colcon-common-extensions
fi

mkdir -p "$WS"
ws_abs=$(cd "$WS" && pwd)
log="$ws_abs/colcon_build.log"
echo "colcon build --symlink-install orca_ros into $ws_abs/install"
if ! (cd "$ws_abs" && PATH="$venv_abs/bin:$PATH" "$venv_abs/bin/colcon" build \
        --base-paths "$repo" --packages-select orca_ros --symlink-install >"$log" 2>&1); then
  tail -n 40 "$log" >&2
  echo "colcon build failed (log: $log)" >&2
  exit 1
fi
prefix="$ws_abs/install/orca_ros"
for exe in orca_node fleet_sim obstacle_server supervisor_node toio_bridge orca-ros; do
  [ -x "$prefix/lib/orca_ros/$exe" ] || { echo "missing $prefix/lib/orca_ros/$exe" >&2; exit 1; }
done
[ -e "$prefix/share/orca_ros/launch/fleet_sim.launch.py" ] \
  || { echo "missing $prefix/share/orca_ros/launch/fleet_sim.launch.py" >&2; exit 1; }

cat >"$ws_abs/orca_env.sh" <<EOF
# Source this (bash) to use orca_ros's launch files with $VENV and no ROS install:
# colcon's setup (AMENT_PREFIX_PATH, PYTHONPATH), then the venv's message packages.
. "$ws_abs/install/setup.bash"
case ":\$AMENT_PREFIX_PATH:" in *":$venv_abs:"*) ;; *) export AMENT_PREFIX_PATH="\$AMENT_PREFIX_PATH:$venv_abs" ;; esac
export PATH="$venv_abs/bin:\$PATH"
EOF
echo "ready: source $ws_abs/orca_env.sh (AMENT_PREFIX_PATH gets $prefix and $venv_abs)"
