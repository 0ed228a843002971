"""Several robots' orca_nodes in one process: ``orca_robots --robots a b c``.

Each robot is still its own ``orca_node``, in its own namespace (``/a/orca_node``,
``/b/orca_node``, ...), with its own parameters and topics, so nothing changes for
the robots, RViz or ``ros2 param``; they only share one process and one executor
(rclpy's EventsExecutor where it has one), and one subscription to each robot's
odometry (:class:`~orca_ros.nodes.neighbor_odometry.NeighborOdometry`), which all of
them read. Two robots or more announce their states together, one message a period on
``/orca/state_batches`` (:mod:`~orca_ros.nodes.state_batch`; the robots' parameter
``state_batches``). Parameters come the ROS way, from a
parameters file keyed by each node's full name::

    ros2 run orca_ros orca_robots --robots a b --ros-args --params-file fleet.yaml

    # fleet.yaml
    /a/orca_node:
      ros__parameters: {radius: 0.3, max_speed: 1.0}
    /b/orca_node:
      ros__parameters: {radius: 0.4, max_speed: 1.2}

``fleet_sim.launch.py robots_per_process:=K`` starts the fleet this way
(:func:`orca_ros.fleet.plan.process_plan`).
"""

import argparse
import sys
from typing import List, Optional, Sequence

from .neighbor_odometry import NeighborOdometry
from .orca_node import OrcaNode
from .ros_common import run_nodes


def robot_namespaces(argv: Sequence[str]) -> List[str]:
    """The ``--robots`` of a command line (ROS arguments removed first)."""
    from rclpy.utilities import remove_ros_args

    parser = argparse.ArgumentParser(prog="orca_robots",
                                     description="several robots' orca_nodes in one process")
    parser.add_argument("--robots", nargs="+", required=True, metavar="NAMESPACE",
                        help="one orca_node per robot, in this namespace")
    names = parser.parse_args(remove_ros_args(list(argv))[1:]).robots
    cleaned = [name.strip("/") for name in names]
    if any(not name for name in cleaned) or len(set(cleaned)) != len(cleaned):
        parser.error(f"--robots needs distinct, non-empty namespaces, got {names}")
    return cleaned


def main(args: Optional[Sequence[str]] = None) -> None:
    argv = list(sys.argv if args is None else args)
    robots = robot_namespaces(argv)
    shared = NeighborOdometry(batch_states=len(robots) > 1)
    run_nodes(lambda: [OrcaNode(namespace=f"/{name}", neighbor_odometry=shared)
                       for name in robots], argv, "orca_robots",
              between_spins=shared.batch.due if shared.batch is not None else None)


if __name__ == "__main__":
    main(sys.argv)
