"""``python -m orca_ros.nodes.params``: the parameter reference (see :mod:`.reference`)."""

import sys

from .reference import main

sys.exit(main())
