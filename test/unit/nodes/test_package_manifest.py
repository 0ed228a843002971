"""package.xml names every ROS package the installed code imports, so that rosdep
installs them: a message package imported anywhere in orca_ros, and lifecycle_msgs
for rclpy.lifecycle (orca_lifecycle_node)."""

import ast
import xml.etree.ElementTree as ElementTree

from helpers.paths import REPO

PACKAGE = REPO / "orca_ros"


def ros_packages_imported():
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level \
                else []
            for name in names:
                top = name.split(".")[0]
                if top.endswith("_msgs") or top.endswith("_srvs"):
                    found.add(top)
                if name.startswith("rclpy.lifecycle"):
                    found.add("lifecycle_msgs")
    return found


def test_every_imported_message_package_is_an_exec_depend():
    root = ElementTree.parse(REPO / "package.xml").getroot()
    declared = {e.text.strip() for tag in ("depend", "exec_depend") for e in root.iter(tag)}
    imported = ros_packages_imported()
    assert {"geometry_msgs", "lifecycle_msgs"} <= imported  # the scan sees them
    assert imported - declared == set()
