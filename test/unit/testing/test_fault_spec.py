"""The fault harness's spec (``orca_ros.testing.faults``): the SPEC grammar of
``orca-ros sim --faults`` and its errors, the seeded decisions, and the standard suite
of ``orca-ros fault-suite`` with its table; without ROS. (The injectors through real
nodes: test/system/test_faults.py.)
"""

import numpy as np
import pytest

from orca_ros.testing.faults import (FaultSpec, FaultSpecError, _uniform, parse_faults,
                                     standard_faults, suite_table)


# --- the SPEC grammar -----------------------------------------------------------------


def test_spec_parses_every_fault_and_prints_back_canonically():
    spec = parse_faults("drop_odom=0.1, drop_cmd=north:0.2,delay=0.1,starve=all:0.3,"
                        "starve=east:0.5,kill=west@4.5,kill_supervisor@3,kill_obstacles=2,"
                        "bad_obstacles=0.5,foreign=south,seed=3")
    assert spec.drop_odom == (("all", 0.1),)
    assert spec.value("drop_cmd", "north") == 0.2 and spec.value("drop_cmd", "east") == 0.0
    assert spec.value("starve", "east", 1.0) == 0.5 and spec.value("starve", "north", 1.0) == 0.3
    assert spec.kill == (("west", 4.5),)
    assert spec.kill_supervisor == 3.0 and spec.kill_obstacles == 2.0
    assert spec.bad_obstacles == 0.5
    assert spec.foreign == (("south", "straight"),)
    assert spec.seed == 3
    assert parse_faults(str(spec)) == spec
    assert parse_faults("foreign=south:jitter").foreign == (("south", "jitter"),)
    assert parse_faults("").empty and parse_faults("none").empty and str(FaultSpec()) == "none"
    assert parse_faults("seed=5").empty  # a seed alone injects nothing


@pytest.mark.parametrize("text, named", [
    ("bogus=1", ["unknown fault 'bogus'"]),
    ("drop_odom=1.5,wobble@2", ["'drop_odom=1.5'", "[0, 1]", "unknown fault 'wobble'"]),
    ("drop_cmd=x", ["'x' is not a number"]),
    ("delay=-0.1", ["delay=-0.1", "[0, 60]"]),
    ("starve=all:0", ["(0, 1]"]),
    ("kill=north", ["kill needs ROBOT@T"]),
    ("kill=north@-1", [">= 0"]),
    ("kill_supervisor", ["kill_supervisor@T"]),
    ("bad_obstacles=0", ["(0, 3600]"]),
    ("foreign=north:fly", ["'fly'", "straight, jitter"]),
    ("seed=1.5", ["seed must be an integer"]),
    ("seed=1,seed=2", ["seed given twice"]),
    ("drop_odom=0.1,drop_odom=all:0.2", ["drop_odom for all given twice"]),
    ("kill=north@1,foreign=north", ["north is both killed and foreign"]),
    ("drop_odom=0.1,,seed=1", ["empty entry"]),
    ("delay=inf", ["'inf'"]),
])
def test_bad_specs_are_refused_naming_the_problem(text, named):
    with pytest.raises(FaultSpecError) as error:
        parse_faults(text)
    for part in named:
        assert part in str(error.value), (part, str(error.value))


def test_spec_check_names_unknown_robots_and_a_missing_supervisor():
    robots = ["north", "south", "east", "west"]
    parse_faults("kill=north@1,starve=all:0.5").check(robots, supervisor=False)
    with pytest.raises(FaultSpecError, match="unknown robot.*bob.*north, south"):
        parse_faults("kill=bob@1").check(robots, supervisor=False)
    with pytest.raises(FaultSpecError, match="needs the supervisor"):
        parse_faults("kill_supervisor@1").check(robots, supervisor=False)
    parse_faults("kill_supervisor@1").check(robots, supervisor=True)


def test_cli_refuses_bad_faults_with_exit_2_before_starting_anything(capsys):
    from orca_ros.tools.cli import main

    assert main(["sim", "crossing_4", "--faults", "drop_odom=2,bogus=1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "unknown fault 'bogus'" in err and "drop_odom=2" in err
    assert main(["sim", "crossing_4", "--faults", "kill=nobody@3", "--no-progress"]) == 2
    assert "nobody" in capsys.readouterr().err


def test_decisions_are_a_pure_function_of_seed_and_key():
    draws = [_uniform(3, "drop_odom", "north", "/east/odom", k) for k in range(2000)]
    assert draws == [_uniform(3, "drop_odom", "north", "/east/odom", k) for k in range(2000)]
    assert draws != [_uniform(4, "drop_odom", "north", "/east/odom", k) for k in range(2000)]
    assert all(0.0 <= d < 1.0 for d in draws)
    assert abs(np.mean(np.array(draws) < 0.1) - 0.1) < 0.03


def test_standard_suite_rows_and_table():
    from orca_ros.core.scenario.loader import load_scenario, resolve_scenario

    scenario = load_scenario(resolve_scenario("corridor_wall"))
    rows = standard_faults(scenario, seed=2)
    labels = [label for label, _, _ in rows]
    assert labels[0] == "none" and "none (--supervisor)" in labels
    assert "kill=left0@7" in labels  # 40% of left0's 7 m at 0.4 m/s
    assert all(spec.endswith("seed=2") for _, spec, _ in rows if spec)
    for _, spec, supervisor in rows:
        parse_faults(spec).check([a.name for a in scenario.agents], supervisor)

    def summary(makespan, reached=6, observer=0):
        return {"reached": reached, "agents": 6, "collisions": 0, "min_separation": 0.05,
                "makespan": makespan, "observer": {"colliding_pairs": observer}}

    table = suite_table([
        {"label": "none", "spec": "", "supervisor": False, "summary": summary(20.0)},
        {"label": "delay=0.1", "spec": "delay=0.1,seed=2", "supervisor": False,
         "summary": summary(25.0, observer=1)},
        {"label": "kill=left0@7", "spec": "kill=left0@7,seed=2", "supervisor": False,
         "summary": summary(30.0, reached=5)},
    ])
    lines = table.splitlines()
    assert lines[0].startswith("| fault | arrived | colliding pairs (fleet_sim) | observer")
    assert "| delay=0.1 | 6/6 | 0 | 1 | 0.050 | 25.0 | 1.25x |" in lines
    assert "5/6" in lines[4] and "1.50x (arrived only)" in lines[4]
