"""``python -m orca_ros.rviz``: kept at this path; the module is :mod:`orca_ros.tools.rviz`."""

import sys

from orca_ros.tools.rviz import main

if __name__ == "__main__":
    sys.exit(main())
