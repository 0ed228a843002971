"""Stand-ins for the launch modules: a launch file's ``generate_launch_description`` runs
without the launch engine, and each action records how it was constructed."""

import importlib.util
import sys
import types

from helpers.paths import LAUNCH_DIR


class Recorder:
    """Stands in for a launch action class: remembers how it was constructed."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


def stub_launch_modules(monkeypatch, arguments):
    """Replace launch, launch.actions, launch.substitutions and launch_ros(.actions) in
    ``sys.modules`` (for this test); LaunchConfiguration reads ``arguments`` first."""
    class LaunchConfiguration:
        def __init__(self, name, default=None):
            self.name, self.default = name, default

        def perform(self, context):
            if self.default is not None:
                return arguments.get(self.name, context.get(self.name, self.default))
            return arguments.get(self.name, context[self.name])

    modules = {
        "launch": types.SimpleNamespace(LaunchDescription=lambda actions: list(actions)),
        "launch.actions": types.SimpleNamespace(DeclareLaunchArgument=Recorder,
                                                OpaqueFunction=Recorder),
        "launch.substitutions": types.SimpleNamespace(LaunchConfiguration=LaunchConfiguration),
        "launch_ros": types.SimpleNamespace(),
        "launch_ros.actions": types.SimpleNamespace(Node=Recorder),
    }
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)


def load_launch_file(monkeypatch, file, arguments=None, module_name=None):
    """``launch/<file>`` executed as a module over the stubs."""
    stub_launch_modules(monkeypatch, dict(arguments or {}))
    name = module_name or file.replace(".launch.py", "_launch").replace(".", "_")
    spec = importlib.util.spec_from_file_location(name, LAUNCH_DIR / file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
