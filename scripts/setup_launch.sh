#!/usr/bin/env bash
# Make the real ROS 2 launch engine and launch_testing usable from .venv, and build this
# package the ROS way, so `launch_ros.actions.Node` finds our executables through the
# ament index.
#
#   bash scripts/setup_launch.sh            # then: source build/colcon_ws/orca_env.sh
#
# 1. Only where `import launch_ros` (or `import launch_testing`) fails in the venv (no
#    system ROS install), install the vendored launch packages from ../shared/vendor as
#    its README says, and says so: launch, launch_xml, launch_yaml, launch_ros, and
#    launch_testing with launch_testing_ros (their pytest plugin needs pytest < 9).
#    A system ROS 2 install uses its own. Without either (no ../shared), it says so and
#    goes on: the package builds all the same, and the tests in test/launch skip.
# 2. `colcon build` into $ORCA_ROS_COLCON_WS (default build/colcon_ws, git-ignored),
#    from $ORCA_ROS_COLCON_SOURCE (default this repository) with --symlink-install
#    unless ORCA_ROS_SYMLINK_INSTALL=0. With symlinks, Python sources, launch and config
#    files point into this repository, so edits need no rebuild (only a new
#    executable, launch or config file does, or a change to a C extension (setup.py's
#    EXTENSIONS), which are compiled into the source tree as by `pip install -e .`).
#    CI builds the committed tree, copied. Then the install must import them.
# 3. Write $ORCA_ROS_COLCON_WS/orca_env.sh: colcon's install/setup.bash, then
#    the venv on AMENT_PREFIX_PATH (its message packages). `python -m
#    orca_ros.testing.launch_run` and test/launch do without it: they add both when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
VENV=${ORCA_ROS_VENV:-.venv}
WS=${ORCA_ROS_COLCON_WS:-build/colcon_ws}
VENDOR=${ORCA_ROS_VENDOR:-$repo/../shared/vendor}
SOURCE=${ORCA_ROS_COLCON_SOURCE:-$repo}
SYMLINK=${ORCA_ROS_SYMLINK_INSTALL:-1}
venv_abs=$(cd "$VENV" && pwd)
py="$venv_abs/bin/python"
pip_log=$(mktemp)
trap 'rm -f "$pip_log"' EXIT
# pip, quiet; its output is shown only when it fails.
pip_quiet() {
  "$py" -m pip install -q "$@" >"$pip_log" 2>&1 || { cat "$pip_log" >&2; echo "pip install $* failed" >&2; exit 1; }
}

[ -x "$py" ] || { echo "no virtual environment at $VENV: run scripts/setup_venv.sh first" >&2; exit 1; }

vendored() {  # extract the vendored sources once
  if [ -z "${tmp:-}" ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp" "$pip_log"' EXIT
    tar -xzf "$VENDOR/ros2-launch-3.7.1.tar.gz" -C "$tmp"
    tar -xzf "$VENDOR/ros2-launch_ros-0.28.0.tar.gz" -C "$tmp"
  fi
}

if ! "$py" -c "import launch_ros, launch_testing" 2>/dev/null && [ ! -d "$VENDOR" ]; then
  # Not an error: the package builds without it, and test/launch skips.
  echo "launch_ros or launch_testing is not importable in $VENV and $VENDOR is absent:" \
       "the launch engine is not installed (the launch tests in test/launch skip)"
elif "$py" -c "import launch_ros" 2>/dev/null; then
  echo "launch_ros is importable ($("$py" -c 'import launch_ros, os; print(os.path.dirname(launch_ros.__file__))')): nothing to install"
else
  vendored launch_ros
  echo "launch_ros is not importable in $VENV: installing the vendored launch packages from $VENDOR"
  echo "(a system ROS 2 install uses its own launch and launch_ros instead)"
  pip_quiet osrf-pycommon lark pyyaml packaging ros-lifecycle-msgs ros-ament-index-python
  for p in launch launch_xml launch_yaml; do pip_quiet --no-deps "$tmp/ros2-launch-3.7.1/$p"; done
  pip_quiet --no-deps "$tmp/ros2-launch_ros-0.28.0/launch_ros"
  pip_quiet --no-deps "$VENDOR/composition_interfaces_stub-0.0.1-py3-none-any.whl"
  "$py" -c "import launch, launch_ros.actions" \
    || { echo "the vendored launch packages did not install" >&2; exit 1; }
  echo "installed launch 3.7.1 and launch_ros 0.28.0 into $VENV"
fi

if [ ! -d "$VENDOR" ] && ! "$py" -c "import launch_testing" 2>/dev/null; then
  :  # said above
elif "$py" -c "import launch_testing, launch_testing_ros" 2>/dev/null; then
  echo "launch_testing is importable: nothing to install"
else
  vendored launch_testing
  echo "launch_testing is not importable in $VENV: installing the vendored launch_testing" \
       "and launch_testing_ros from $VENDOR, with pytest < 9 (their pytest plugin needs it)"
  pip_quiet 'pytest<9'
  pip_quiet --no-deps "$tmp/ros2-launch-3.7.1/launch_testing"
  pip_quiet --no-deps "$tmp/ros2-launch_ros-0.28.0/launch_testing_ros"
  "$py" -c "import launch_testing.asserts, launch_testing_ros" \
    || { echo "the vendored launch_testing did not install" >&2; exit 1; }
  echo "installed launch_testing 3.7.1 and launch_testing_ros 0.28.0 into $VENV"
fi

if [ ! -x "$venv_abs/bin/colcon" ]; then
  echo "installing colcon-common-extensions into $VENV"
  pip_quiet colcon-common-extensions
fi

mkdir -p "$WS"
ws_abs=$(cd "$WS" && pwd)
log="$ws_abs/colcon_build.log"
symlink=(); [ "$SYMLINK" = 0 ] || symlink=(--symlink-install)
echo "colcon build ${symlink[*]} orca_ros from $SOURCE into $ws_abs/install"
if ! (cd "$ws_abs" && PATH="$venv_abs/bin:$PATH" "$venv_abs/bin/colcon" build \
        --base-paths "$SOURCE" --packages-select orca_ros "${symlink[@]}" >"$log" 2>&1); then
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
# The C extensions (setup.py's EXTENSIONS) are built with the package: the install must
# import them (from /, so that no source folder stands in for them).
if ! (set +u; . "$ws_abs/install/setup.bash"; cd / \
      && "$py" -c "import orca_ros.core.orca._orca2d, orca_ros.core.robot._guidance, orca_ros.nodes._state_batch") \
    >>"$log" 2>&1; then
  tail -n 5 "$log" >&2
  echo "the colcon install of orca_ros does not import its C extensions" \
       "(setup.py's EXTENSIONS; log: $log)" >&2
  exit 1
fi

cat >"$ws_abs/orca_env.sh" <<EOF
# Source this (bash) to use orca_ros's launch files with $VENV and no ROS install:
# colcon's setup (AMENT_PREFIX_PATH, PYTHONPATH), then the venv's message packages.
# colcon's scripts read unset variables: a caller's \`set -u\` is lifted around them.
case \$- in *u*) _orca_nounset=1; set +u ;; *) _orca_nounset= ;; esac
. "$ws_abs/install/setup.bash"
[ -z "\$_orca_nounset" ] || set -u
unset _orca_nounset
case ":\$AMENT_PREFIX_PATH:" in *":$venv_abs:"*) ;; *) export AMENT_PREFIX_PATH="\$AMENT_PREFIX_PATH:$venv_abs" ;; esac
export PATH="$venv_abs/bin:\$PATH"
EOF
echo "ready: source $ws_abs/orca_env.sh (AMENT_PREFIX_PATH gets $prefix and $venv_abs)"
