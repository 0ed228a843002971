"""launch_testing tests: our launch files through the real launch engine, from a colcon
install of this package (as ``colcon test`` runs them).

The install is the one on AMENT_PREFIX_PATH (CI builds the committed tree and
sources it), else ``build/colcon_ws`` of ``scripts/setup_launch.sh``, which
is run here when that is missing too. Without launch_testing the modules skip
(``scripts/setup_launch.sh`` installs it where there is no ROS install).
"""

import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _prepare_install() -> None:
    try:
        import launch_ros  # noqa: F401
        import launch_testing  # noqa: F401
    except ImportError:
        return
    from orca_ros.testing.launch_run import SetupError, ensure_ament_prefix

    try:
        ensure_ament_prefix()
    except SetupError:
        print("test/launch: no colcon install of orca_ros on AMENT_PREFIX_PATH nor in "
              "build/colcon_ws: running scripts/setup_launch.sh", file=sys.stderr)
        subprocess.run(["bash", str(HERE.parent.parent / "scripts" / "setup_launch.sh")],
                       check=True, env=dict(os.environ, ORCA_ROS_VENV=sys.prefix))
        ensure_ament_prefix()


_prepare_install()
