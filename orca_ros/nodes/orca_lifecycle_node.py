"""orca_lifecycle_node: orca_node as a managed (lifecycle) node, for Nav2's
``lifecycle_manager`` and anyone who brings nodes up with configure and activate.

The node is orca_node (same name, parameters, topics and diagnostics); what the states
change is whether it commands the robot:

* **unconfigured, inactive**: no ``cmd_vel`` at all. It still hears its odometry, its
  neighbours and the walls, and still announces its own state on ``/orca/states``, so
  that the other robots keep avoiding it while its Nav2 is paused: a robot does not
  vanish from the fleet because its navigation stopped.
* **active**: it commands the robot, as orca_node does.
* **deactivate**: one stop command, then silence (the last command it passed must not
  keep acting).
* **cleanup**: it forgets its goal, plan and ``cmd_vel_in``, as a node configured anew.

Its subscriptions exist from the start (the parameters are checked then: a node that
refuses them never reaches unconfigured). Nav2's ``lifecycle_manager`` binds its nodes
with a bond (bondcpp), which rclpy has no port of: give the manager that brings this
node up ``bond_timeout: 0.0``, or a manager of its own with it (see
doc/using_with_robots.md).
"""

from __future__ import annotations

import sys

from rclpy.lifecycle import LifecycleNode, TransitionCallbackReturn

from .orca_node import OrcaNode
from .ros_common import run_node


class OrcaLifecycleNode(OrcaNode, LifecycleNode):
    """orca_node whose commands follow its lifecycle state (module docstring)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.commanding = False  # unconfigured: silent until activated

    def on_configure(self, state) -> TransitionCallbackReturn:
        self.get_logger().info("configured: silent until activated")
        return TransitionCallbackReturn.SUCCESS

    def on_activate(self, state) -> TransitionCallbackReturn:
        self.commanding = True
        self.get_logger().info("active: commanding the robot")
        return TransitionCallbackReturn.SUCCESS

    def on_deactivate(self, state) -> TransitionCallbackReturn:
        self._publish_command(0.0, 0.0, 0.0)  # the last command passed must not linger
        self.commanding = False
        self.get_logger().info("inactive: one stop sent, silent until activated")
        return TransitionCallbackReturn.SUCCESS

    def on_cleanup(self, state) -> TransitionCallbackReturn:
        self.commanding = False
        self.goal, self.plan, self.cmd_vel_in = None, [], None
        self.core.update_path()
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, state) -> TransitionCallbackReturn:
        if self.commanding:
            self._publish_command(0.0, 0.0, 0.0)
        self.commanding = False
        return TransitionCallbackReturn.SUCCESS


def main(args=None) -> None:
    run_node(OrcaLifecycleNode, args)


if __name__ == "__main__":
    main(sys.argv)
