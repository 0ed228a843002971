"""Every command the README and doc/ show in a bash block names what exists: an
``orca-ros`` command line the parser takes, a launch file with the arguments it
declares, an executable of the package, a module ``python -m`` can run, a script of
the repository. (That a command *does* what the text says is the business of the
tests of each part.)"""

import ast
import importlib.util
import re
import shlex

import pytest

from helpers.paths import LAUNCH_DIR, REPO

from orca_ros.tools.cli import build_parser

DOCUMENTS = [REPO / "README.md"] + sorted((REPO / "doc").rglob("*.md"))
BLOCK = re.compile(r"```(?:bash|sh|console)\n(.*?)```", re.S)
PLACEHOLDERS = {"$SCENARIOS": "/tmp/scenarios", "$CASES": "/tmp/cases", "<unique>": "81",
                "${SCENE}": "toio_cross_4v4", "$SCENE": "toio_cross_4v4", "$RUN": "1",
                "$METHOD": "orca", "SCENARIO.yaml": "crossing_4", "SCENARIO": "crossing_4"}


def commands():
    """(document, line) for each command line of each bash block (continuations joined,
    comments and prompts dropped)."""
    found = []
    for document in DOCUMENTS:
        for block in BLOCK.findall(document.read_text(encoding="utf-8")):
            text = block.replace("\\\n", " ")
            for line in text.splitlines():
                line = line.split(" #")[0].strip()
                if line.startswith("$ "):
                    line = line[2:]
                if line and not line.startswith("#"):
                    found.append((document.relative_to(REPO).as_posix(), line))
    return found


def words(line):
    """The command's words, placeholders filled in and ``[optional parts]`` left out."""
    for key, value in PLACEHOLDERS.items():
        line = line.replace(key, value)
    line = re.sub(r"\s\[[^\]]*\]", "", line)
    parts = shlex.split(line)
    while parts and re.fullmatch(r"[A-Z_]+=\S*", parts[0]):  # VAR=value before the command
        parts = parts[1:]
    return parts


def declared_launch_arguments(path):
    """The arguments a launch file declares: DeclareLaunchArgument("name", ...) calls and
    the keys of a module-level ARGUMENTS dict."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "DeclareLaunchArgument" \
                and node.args and isinstance(node.args[0], ast.Constant):
            names.add(node.args[0].value)
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "ARGUMENTS"
                                                for t in node.targets):
            names |= {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
    return names | {"sigterm_timeout"}  # launch's own


def executables():
    text = (REPO / "setup.py").read_text(encoding="utf-8")
    return set(re.findall(r'"([\w-]+) = orca_ros\.', text))


ALL = commands()


def test_the_documents_show_commands():
    assert len(ALL) > 60  # the blocks were found at all


@pytest.mark.parametrize("document, line", [c for c in ALL if re.match(
    r"(\S*/)?orca-ros\b", words(c[1])[0] if words(c[1]) else "")])
def test_orca_ros_command_lines_parse(document, line):
    argv = words(line)[1:]
    try:
        build_parser().parse_args(argv)
    except SystemExit as exit_:
        pytest.fail(f"{document}: `{line}` is refused by orca-ros's parser ({exit_})")


@pytest.mark.parametrize("document, line", [c for c in ALL
                                            if words(c[1])[:2] == ["ros2", "launch"]])
def test_launch_commands_name_a_launch_file_and_its_arguments(document, line):
    parts = words(line)
    assert parts[2] == "orca_ros", f"{document}: `{line}`"
    path = LAUNCH_DIR / parts[3]
    assert path.is_file(), f"{document}: `{line}`: no launch/{parts[3]}"
    declared = declared_launch_arguments(path)
    for part in parts[4:]:
        name = part.split(":=")[0]
        assert ":=" in part and name in declared, \
            f"{document}: `{line}`: {parts[3]} declares no argument {name!r} ({sorted(declared)})"


@pytest.mark.parametrize("document, line", [c for c in ALL
                                            if words(c[1])[:2] == ["ros2", "run"]])
def test_ros2_run_names_an_executable_of_the_package(document, line):
    parts = words(line)
    if parts[2] != "orca_ros":
        pytest.skip(f"another package's executable: {parts[2]}")
    assert parts[3] in executables(), f"{document}: `{line}`"


@pytest.mark.parametrize("document, line", [c for c in ALL if "-m" in words(c[1])[1:2] and
                                            re.search(r"python3?$", words(c[1])[0])])
def test_python_dash_m_names_a_module(document, line):
    module = words(line)[2]
    if module in ("pytest", "pip", "venv", "sphinx"):
        return
    assert importlib.util.find_spec(module) is not None, f"{document}: `{line}`"


@pytest.mark.parametrize("document, line", [c for c in ALL if words(c[1])[:1] == ["bash"]])
def test_scripts_exist(document, line):
    script = words(line)[1]
    assert (REPO / script).is_file(), f"{document}: `{line}`"


def test_the_development_pages_method_example_registers_and_runs():
    from orca_ros.core.methods import method_names, method_spec, unregister_method
    from orca_ros.core.methods.base import RobotView

    text = (REPO / "doc" / "development.md").read_text(encoding="utf-8")
    code = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    namespace = {}
    exec(compile(code, "doc/development.md", "exec"), namespace)
    namespace["register"]()
    try:
        assert "slow" in method_names(ros=True)
        method = method_spec("slow").create(share=0.25)
        fields = {name: None for name in RobotView._fields}
        fields.update(pref_velocity=(0.8, -0.4))
        assert method.compute_velocity(RobotView(**fields)).velocity == (0.2, -0.1)
    finally:
        unregister_method("slow")


@pytest.mark.parametrize("document, line", [c for c in ALL if "--params-file" in words(c[1])])
def test_a_params_file_is_found_from_where_the_document_runs_it(document, line):
    """The shipped files are under the install's share/orca_ros/config/ (or given by
    the reader): a path like config/orca_node.yaml exists only in a clone of the
    repository, not in the colcon workspace the command runs from."""
    parts = words(line)
    path = parts[parts.index("--params-file") + 1]
    assert not path.startswith("config/"), f"{document}: `{line}`"

