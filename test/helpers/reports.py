"""A driving robot's diagnostics snapshot (core.robot.report), for the report's tests."""

from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.cycle import GoalState, RobotCycle, Status
from orca_ros.core.robot.inputs import RobotInputs
from orca_ros.core.robot.report import RobotSnapshot
from orca_ros.core.robot.timing import CycleTiming
from orca_ros.nodes.params.orca_node import PARAMETERS

CONFIG = ControllerConfig(radius=0.2, max_speed=0.5, pref_speed=0.4, time_step=0.1)


def snapshot(**changed) -> RobotSnapshot:
    """Robot ``me`` driving to (1, 2) at t = 10 s with the parameter table's defaults,
    no neighbours, nothing rejected; ``changed`` replaces any field."""
    values = {p.name: p.default for p in PARAMETERS}
    fields = dict(robot="me", now=10.0, status=Status(GoalState.DRIVING), goal=(1.0, 2.0),
                  dimensions=2, cycle=RobotCycle(CONFIG, key="me"), aerial=None,
                  aerial_error="", inputs=RobotInputs("me", values, False),
                  timing=CycleTiming(), neighbors={}, neighbor_timeout=1.0,
                  neighbor_messages=7, shared_by=2, obstacle_edges=4, rejected={},
                  last_problem="", commanders=1, cmd_topic="/me/cmd_vel",
                  reverse_limited=0, max_reverse_speed=0.1)
    fields.update(changed)
    return RobotSnapshot(**fields)
