"""Helpers for tests that run real rclpy nodes in-process (each test gets its own context)."""

import time

import pytest

rclpy = pytest.importorskip("rclpy", reason="rclpy not installed (pip install .[ros])")

from rclpy.context import Context  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402


class RosHarness:
    def __init__(self):
        self.context = Context()
        rclpy.init(context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.nodes = []

    def add(self, node):
        self.nodes.append(node)
        self.executor.add_node(node)
        return node

    def node(self, name, **kwargs):
        return self.add(rclpy.create_node(name, context=self.context, **kwargs))

    def spin_for(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.01)

    def spin_until(self, predicate, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate():
                return True
            self.executor.spin_once(timeout_sec=0.01)
        return predicate()

    def close(self):
        for node in self.nodes:
            node.destroy_node()
        rclpy.try_shutdown(context=self.context)


def latest_status(diagnostics, name):
    """The newest DiagnosticStatus called ``name`` among received DiagnosticArrays, and its
    values as a dict; ``(None, {})`` if none came yet."""
    for array in reversed(diagnostics):
        for status in array.status:
            if status.name == name:
                return status, {kv.key: kv.value for kv in status.values}
    return None, {}


def params(**values):
    return [Parameter(k, value=v) for k, v in values.items()]
