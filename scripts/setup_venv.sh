#!/usr/bin/env bash
# Create (or reuse) the virtual environment .venv with orca_ros, ROS 2 from PyPI
# wheels, the MCAP bag libraries, the test tools, MuJoCo (the `physics` extra: fleet_sim's
# engine mujoco) and the RVO2 references (pyrvo, and rvo23d for RVO2-3D).
# Needs python3 >= 3.10, a C compiler and the Python headers (installed with apt-get when
# run as root on Debian or Ubuntu, else asked for).
#
# ROS 2 Kilted by default; ORCA_ROS_DISTRO=jazzy makes .venv-jazzy with the Jazzy wheels
# instead (the `jazzy` extra), for running the suite on both distributions.
set -euo pipefail
cd "$(dirname "$0")/.."
DISTRO=${ORCA_ROS_DISTRO:-kilted}
case "$DISTRO" in
  kilted) ros_extra=ros; default_venv=.venv ;;
  jazzy) ros_extra=jazzy; default_venv=.venv-jazzy ;;
  *) echo "ORCA_ROS_DISTRO must be kilted or jazzy, not $DISTRO" >&2; exit 1 ;;
esac
VENV=${ORCA_ROS_VENV:-$default_venv}
PYTHON=${PYTHON:-python3}

"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || {
  echo "orca_ros needs Python >= 3.10; $PYTHON is $("$PYTHON" --version 2>&1)" >&2; exit 1; }

if [ ! -x "$VENV/bin/python" ]; then
  if ! "$PYTHON" -m venv "$VENV" 2>/dev/null; then
    rm -rf "$VENV"
    # Debian and Ubuntu ship venv separately.
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      ver=$("$PYTHON" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
      apt-get update -qq && (apt-get install -y -qq "python${ver}-venv" || apt-get install -y -qq python3-venv)
      "$PYTHON" -m venv "$VENV"
    else
      echo "python3 -m venv failed: install the venv module (sudo apt-get install python3-venv)" >&2
      exit 1
    fi
  fi
fi

# orca_ros compiles a C extension (orca_ros/core/orca/_orca2d.c): it needs a C compiler
# (the one Python was built with, or $CC) and the Python headers (Python.h).
build_tools_missing() {
  local cc
  cc=${CC:-$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("CC") or "cc")')}
  cc=${cc%% *}  # the command, without its options
  command -v "$cc" >/dev/null || { echo "a C compiler ($cc)"; return; }
  "$PYTHON" -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    || echo "the Python headers (Python.h)"
}
missing=$(build_tools_missing)
if [ -n "$missing" ]; then
  # Debian and Ubuntu ship them in build-essential and python3-dev.
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    ver=$("$PYTHON" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
    echo "installing build-essential and python${ver}-dev: orca_ros needs $missing"
    apt-get update -qq && (apt-get install -y -qq build-essential "python${ver}-dev" \
      || apt-get install -y -qq build-essential python3-dev)
    missing=$(build_tools_missing)
  fi
  if [ -n "$missing" ]; then
    echo "orca_ros compiles a C extension and needs $missing:" \
         "install a C compiler and the Python headers (sudo apt-get install build-essential python3-dev)" >&2
    exit 1
  fi
fi

# The multi-host harness (orca_ros/testing/hosts.py, test/system/test_hosts.py) puts
# robots in network namespaces (iproute2) with clocks set off by libfaketime; as root
# with apt-get they are installed here, elsewhere its test skips naming what is missing.
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null \
    && { ! command -v faketime >/dev/null || ! command -v ip >/dev/null; }; then
  echo "installing faketime and iproute2: the multi-host harness needs them"
  (apt-get update -qq && apt-get install -y -qq faketime iproute2) \
    || echo "note: faketime/iproute2 did not install; the multi-host test is skipped" >&2
fi

"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e ".[$ros_extra,bag,test,toio,physics]"
# The RVO2 reference for side-by-side benchmarks. --no-deps: its declared
# dependency (a simulator) is not needed for the bindings. x86_64 wheels only.
"$VENV/bin/python" -m pip install -q --no-deps pyrvo \
  || echo "note: pyrvo (RVO2 reference) did not install; RVO2 comparisons are skipped" >&2
# navground (C++ ORCA, HRVO, HL), the peer beside ours in orca-ros bench-scaling.
"$VENV/bin/python" -m pip install -q navground \
  || echo "note: navground did not install; its comparison columns stay empty" >&2
# The RVO2-3D reference (rvo23d) for 3D comparisons: CPython 3.11 x86_64 wheels only.
"$VENV/bin/python" -m pip install -q --no-deps jt-pyrvo23d \
  || echo "note: jt-pyrvo23d (RVO2-3D reference) did not install; RVO2-3D comparisons are skipped" >&2
# The official toio library, as an independent oracle for our codec in the tests.
# --no-deps: it pins an old setuptools; it needs Python < 3.13.
"$VENV/bin/python" -m pip install -q --no-deps toio-py \
  || echo "note: toio-py did not install; the codec's oracle tests are skipped" >&2
