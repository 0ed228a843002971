"""orca-ros's rule for errors (orca_ros/tools/cli/common.py), verb by verb: input it cannot use is
refused with its reason and status 2; an error of its own is a bug, printed with its
traceback and a line saying so, status 70, never passed off as a refusal."""

import json
import pathlib

import pytest

from orca_ros.core.errors import INTERNAL_ERROR, REFUSED
from orca_ros.tools.cli import main

BROKEN_SCENARIO = "name: broken\nagents: []\n"


def _broken_scenario(tmp_path) -> str:
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN_SCENARIO)
    return str(path)


def _bad_case(tmp_path) -> str:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"id": "c1", "agent": {"position": [0, 0]}}) + "\n")
    return str(path)


def _broken_map(tmp_path) -> str:
    path = tmp_path / "map.yaml"
    path.write_text("image: nowhere.pgm\nresolution: 0.05\norigin: [0, 0, 0]\n")
    return str(path)


# verb: (arguments with a bad input, what the refusal says)
REFUSALS = {
    "conformance": (lambda t: ["conformance", _bad_case(t)], "case c1: agent lacks"),
    "bench": (lambda t: ["bench", _broken_scenario(t), "--no-progress"], "missing 'time_step'"),
    "bench-rfunction": (lambda t: ["bench-rfunction", _broken_scenario(t)],
                        "missing 'time_step'"),
    "sim": (lambda t: ["sim", _broken_scenario(t), "--no-progress"], "missing 'time_step'"),
    "link-pairs": (lambda t: ["link-pairs", str(t / "nowhere.yaml"), "--out",
                              str(t / "o.yaml")], "nowhere.yaml"),
    "import-steersuite": (lambda t: ["import-steersuite", _broken_xml(t), "--out", str(t)],
                          "broken.xml: not valid XML"),
    "map-segments": (lambda t: ["map-segments", _broken_map(t)], "nowhere.pgm"),
    "plot": (lambda t: ["plot", str(t / "none.mcap"), "--out", str(t / "p.png")], "none.mcap"),
    "fault-suite": (lambda t: ["fault-suite", _broken_scenario(t)], "missing 'time_step'"),
    "bench-ros": (lambda t: ["bench-ros", "--robots", "2", "--robot-param", "radius"],
                  "is not NAME=VALUE"),
    "bench-scaling": (lambda t: ["bench-scaling", "--agents", "0"], "0 is not >= 1"),
    "bench-step": (lambda t: ["bench-step", "--cases", "-3"], "-3 is not >= 1"),
    "bench-start": (lambda t: ["bench-start", "--programs", "gazebo"],
                    "unknown start programs ['gazebo']"),
    "results": (lambda t: ["results", "--page", _results_page(t), "--only", "nope"],
                "no section 'nope'"),
}

# verb: (arguments of a good run, the function of its work an error is injected into)
INJECTIONS = {
    "conformance": (lambda t: ["conformance", "test/data/rvo2_single_step.jsonl"],
                    "orca_ros.core.orca.conformance.run_cases"),
    "bench": (lambda t: ["bench", "crossing_4", "--no-progress"],
              "orca_ros.core.sim.world.fleet_motion_quality"),
    "bench-rfunction": (lambda t: ["bench-rfunction"],
                        "orca_ros.tools.timing.rfunction_benchmark"),
    "sim": (lambda t: ["sim", "crossing_4", "--no-progress"], "orca_ros.tools.harness.run_fleet"),
    "link-pairs": (lambda t: ["link-pairs", "crossing_4", "--out", str(t / "o.yaml")],
                   "orca_ros.core.scenario.builders.with_link_pairs"),
    "import-steersuite": (lambda t: ["import-steersuite", _broken_xml(t), "--out", str(t)],
                          "orca_ros.tools.steersuite.import_test_cases"),
    "map-segments": (lambda t: ["map-segments", _good_map(t)], "orca_ros.core.maps.map_segments"),
    "plot": (lambda t: ["plot", str(t / "any.mcap"), "--out", str(t / "p.png")],
             "orca_ros.tools.bag.read_bag"),
    "fault-suite": (lambda t: ["fault-suite", "crossing_4", "--no-observer"],
                    "orca_ros.tools.harness.run_fleet"),
    "bench-ros": (lambda t: ["bench-ros", "--robots", "2"],
                  "orca_ros.tools.fleet_bench.plan_benchmark"),
    "bench-scaling": (lambda t: ["bench-scaling", "--agents", "4"],
                      "orca_ros.tools.timing.scaling_benchmark"),
    "bench-step": (lambda t: ["bench-step"], "orca_ros.tools.timing.step_benchmark"),
    "bench-start": (lambda t: ["bench-start", "--runs", "1"],
                    "orca_ros.tools.start_cost.measure"),
    "results": (lambda t: ["results", "--page", _results_page(t), "--only", "conformance"],
                "orca_ros.tools.results.render"),
}


def _broken_xml(tmp_path) -> str:
    path = tmp_path / "broken.xml"
    path.write_text("<SteerBenchTestCase>", encoding="utf-8")
    return str(path)


def _results_page(tmp_path) -> str:
    path = tmp_path / "results.md"
    path.write_text("<!-- results:conformance -->\n<!-- /results:conformance -->\n")
    return str(path)


def _good_map(tmp_path) -> str:
    """A map_server pair of files: a 2 m room with a wall across it."""
    import numpy as np
    from PIL import Image

    pixels = np.full((40, 40), 254, dtype=np.uint8)
    pixels[:, 20] = 0
    Image.fromarray(pixels).save(tmp_path / "room.png")
    (tmp_path / "room.yaml").write_text("image: room.png\nresolution: 0.05\n"
                                        "origin: [0.0, 0.0, 0.0]\n")
    return str(tmp_path / "room.yaml")


def _run(argv, capsys):
    """main's status (argparse's SystemExit code too) and what it printed on stderr."""
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = exit_.code
    return status, capsys.readouterr().err


def test_every_verb_has_a_refusal_and_an_injection_here():
    from orca_ros.tools.cli import VERBS, build_parser

    verbs = set(build_parser()._subparsers._group_actions[0].choices)
    assert verbs == set(REFUSALS) == set(INJECTIONS)
    # one module per verb, named after it
    assert {verb.__name__.rpartition(".")[2].replace("_", "-") for verb in VERBS} == verbs


@pytest.mark.parametrize("verb", sorted(REFUSALS))
def test_bad_input_is_refused_with_status_2_and_its_reason(verb, tmp_path, capsys,
                                                           monkeypatch):
    monkeypatch.chdir(pathlib.Path(__file__).resolve().parents[4])
    arguments, reason = REFUSALS[verb]
    status, err = _run(arguments(tmp_path), capsys)
    assert status == REFUSED
    assert reason in err
    assert "Traceback" not in err and "internal error" not in err


@pytest.mark.parametrize("verb", ["sim", "bench-ros", "fault-suite"])
def test_a_robot_parameter_orca_node_lacks_is_refused_naming_it(verb, capsys, monkeypatch):
    """``--robot-param`` goes to every orca_node, which would ignore a name it has no
    parameter for: a misspelt one is refused before anything starts."""
    monkeypatch.chdir(pathlib.Path(__file__).resolve().parents[4])
    arguments = [verb] + (["--robots", "2"] if verb == "bench-ros" else ["corridor_wall"])
    status, err = _run(arguments + ["--robot-param", "max_uncertainty=0.0"], capsys)
    assert status == REFUSED
    assert "orca_node has no parameter max_uncertainty" in err


@pytest.mark.parametrize("verb", sorted(INJECTIONS))
def test_an_internal_error_is_a_bug_with_status_70_and_its_traceback(verb, tmp_path, capsys,
                                                                    monkeypatch):
    import importlib

    monkeypatch.chdir(pathlib.Path(__file__).resolve().parents[4])
    arguments, target = INJECTIONS[verb]
    argv = arguments(tmp_path)
    module, name = target.rsplit(".", 1)

    def injected(*args, **kwargs):
        raise RuntimeError("injected fault")

    monkeypatch.setattr(importlib.import_module(module), name, injected)
    status, err = _run(argv, capsys)
    assert status == INTERNAL_ERROR
    assert "Traceback (most recent call last)" in err
    assert "RuntimeError: injected fault" in err
    assert f"orca-ros {verb}" in err and "a bug in orca_ros" in err


def test_the_parser_imports_no_verbs_work():
    """``orca-ros --help`` stays cheap: building the parser imports no ROS, plotting,
    SciPy or progress bars; each verb imports them when it runs."""
    import subprocess
    import sys

    heavy = ("rclpy", "matplotlib", "scipy", "tqdm", "orca_ros.tools.harness",
             "orca_ros.core.sim.world")
    code = ("import sys; from orca_ros.tools.cli import build_parser; build_parser(); "
            f"print([m for m in {heavy!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
