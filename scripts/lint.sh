#!/usr/bin/env bash
# The linter (rules in ruff.toml): ruff check over the package, tests, launch files and scripts.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/ruff ] || .venv/bin/python -m pip install -q ruff
exec .venv/bin/ruff check . "$@"
