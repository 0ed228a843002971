"""One node of a fleet's plan (:class:`NodeSpec`), as ``ros2 launch`` or the in-process
runner starts it; the plans (:mod:`.plan`, :mod:`.gazebo`) are lists of them. Nothing
here imports rclpy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple

PACKAGE = "orca_ros"


@dataclass(frozen=True)
class NodeSpec:
    """One node of the plan, as ``ros2 launch`` or the runner starts it."""

    executable: str
    name: str
    namespace: str = ""
    parameters: Dict[str, Any] = field(default_factory=dict)
    remappings: Tuple[Tuple[str, str], ...] = ()
    package: str = PACKAGE
    hosted: Tuple["NodeSpec", ...] = ()  # orca_robots: the orca_nodes this process runs

    @property
    def arguments(self) -> List[str]:
        """Command-line arguments (an ``orca_robots`` host: ``--robots``, its robots, and
        their remappings as rules on full names, ``/<robot>/odom:=...``)."""
        if not self.hosted:
            return []
        remaps = [part for spec in self.hosted for source, target in spec.remappings
                  for part in ("-r", f"{_full_name(source, spec.namespace)}:={target}")]
        return ["--robots", *(spec.namespace for spec in self.hosted)] + (
            ["--ros-args", *remaps] if remaps else [])

    @property
    def marker_namespace(self) -> str:
        """The ``ns`` of this node's ``/obstacles`` markers, were it an obstacle_server
        (its full node name without the leading slash)."""
        return f"{self.namespace.strip('/')}/{self.name}".lstrip("/")

    def parameters_file(self) -> Dict[str, Any]:
        """An ``orca_robots`` host's parameters file: each hosted node's parameters under
        its full name (``/<robot>/orca_node``), as ``--params-file`` takes them."""
        return {f"/{spec.namespace}/{spec.name}": {"ros__parameters": dict(spec.parameters)}
                for spec in self.hosted}


def _full_name(topic: str, namespace: str) -> str:
    """A relative topic name as seen from ``namespace`` (``odom`` in ``a``: ``/a/odom``)."""
    return topic if topic.startswith("/") else f"/{namespace.strip('/')}/{topic}"
