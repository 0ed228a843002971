#!/usr/bin/env bash
# Set up .venv (scripts/setup_venv.sh) and run the full test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_venv.sh
exec .venv/bin/python -m pytest -q "$@"
