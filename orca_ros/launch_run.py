"""``python -m orca_ros.launch_run``: kept at this path; the module is
:mod:`orca_ros.testing.launch_run`."""

import sys

from orca_ros.testing.launch_run import main

if __name__ == "__main__":
    sys.exit(main())
