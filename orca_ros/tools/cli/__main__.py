"""``python -m orca_ros.tools.cli``: the ``orca-ros`` command."""

import sys

from . import main

sys.exit(main())
