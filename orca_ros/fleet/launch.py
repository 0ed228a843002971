"""The launch side of a fleet: launch_ros ``Node`` actions for the processes of a plan
(:func:`~orca_ros.fleet.plan.process_plan`), as ``launch/fleet_sim.launch.py`` and
``launch/toio.launch.py`` start them, and the environment that tells each process when
to end once launch has asked it to stop."""

from __future__ import annotations

from typing import Any, List, Mapping, Sequence

from .plan import NodeSpec


def shutdown_environment(sigterm_timeout: str) -> dict:
    """Environment for a node under ``ros2 launch``: when to end, come what may.

    launch sends SIGKILL ``sigterm_timeout`` + 5 s (its ``sigkill_timeout``)
    after SIGINT; a node still stopping three seconds before that ends itself
    with status 0 (see :func:`orca_ros.nodes.stop._arm_deadline`): on a loaded
    machine the signal reaches Python, and the deadline's thread wakes, late. A node
    killed by a fatal signal (a crash in a C library) prints its Python stack first
    (``PYTHONFAULTHANDLER``), so the launch log says where."""
    from ..nodes.stop import STOP_WITHIN_ENV

    return {STOP_WITHIN_ENV: f"{float(sigterm_timeout) + 2.0:g}", "PYTHONFAULTHANDLER": "1"}


def write_yaml_files(files: Mapping[str, Any]) -> None:
    """Write each value as YAML to its path (a plan's configuration files, e.g.
    :func:`orca_ros.fleet.gazebo.bridge_files`), before the nodes that read them start."""
    import yaml

    for path, data in files.items():
        with open(path, "w", encoding="utf-8") as stream:
            yaml.safe_dump(data, stream, sort_keys=False)


def launch_actions(processes: Sequence[NodeSpec], sigterm_timeout: str) -> List[Any]:
    """launch_ros ``Node`` actions for the plan's processes, as the launch files start
    them: output on screen, launch's SIGTERM after ``sigterm_timeout`` s, and the
    shutdown environment (:func:`shutdown_environment`). An ``orca_robots`` host gets
    its robots' parameters as a file keyed by their full node names (written to a
    temporary directory, as launch_ros does with parameter dictionaries) and no node
    name or namespace of its own, which would rename every node it hosts."""
    import tempfile

    import yaml
    from launch_ros.actions import Node

    actions = []
    for spec in processes:
        common = dict(package=spec.package, executable=spec.executable, output="screen",
                      sigterm_timeout=sigterm_timeout,
                      additional_env=shutdown_environment(sigterm_timeout))
        if spec.hosted:
            handle, path = tempfile.mkstemp(prefix=f"{spec.name}_", suffix=".yaml")
            with open(handle, "w") as stream:
                yaml.safe_dump(spec.parameters_file(), stream)
            actions.append(Node(arguments=spec.arguments, parameters=[path], **common))
        else:
            actions.append(Node(name=spec.name, namespace=spec.namespace or None,
                                parameters=[spec.parameters],
                                remappings=list(spec.remappings), **common))
    return actions

