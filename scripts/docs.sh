#!/usr/bin/env bash
# Build the documentation site (doc/, Sphinx + MyST, as rosdoc2 builds package docs) with
# warnings as errors, after checking that the parameter reference (doc/parameters.md)
# is exactly what the nodes' declaration tables give. Output: build/doc/index.html.
#
#   bash scripts/docs.sh            # sets up .venv (scripts/setup_venv.sh) first if missing
#   python -m orca_ros.nodes.params --write doc/parameters.md   # regenerate the reference
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${ORCA_ROS_VENV:-.venv}
[ -x "$VENV/bin/python" ] || bash scripts/setup_venv.sh
"$VENV/bin/python" -c "import sphinx, myst_parser" 2>/dev/null \
  || "$VENV/bin/python" -m pip install -q -e ".[doc]"
"$VENV/bin/python" -m orca_ros.nodes.params --check doc/parameters.md
"$VENV/bin/python" -m sphinx -W --keep-going -q -b html doc build/doc
echo "documentation: build/doc/index.html (no warnings)"
