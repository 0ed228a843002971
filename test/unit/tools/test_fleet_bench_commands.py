"""``orca-ros bench-ros`` without running it: the process commands it starts are what
launch_ros would run. (The bench itself: test/system/test_fleet_bench.py.)"""

from orca_ros.fleet.plan import NodeSpec


def test_process_commands_are_what_launch_ros_would_run(tmp_path):
    import yaml

    from orca_ros.tools.fleet_bench import process_command

    robot = NodeSpec("orca_node", "orca_node", namespace="r1", parameters={"radius": 0.3})
    single = process_command(robot, str(tmp_path))
    assert single[single.index("--ros-args") + 1:single.index("--params-file")] == \
        ["-r", "__node:=orca_node", "-r", "__ns:=/r1"]
    assert yaml.safe_load(open(single[-1])) == {"/r1/orca_node": {"ros__parameters":
                                                                  {"radius": 0.3}}}
    other = NodeSpec("orca_node", "orca_node", namespace="r2", parameters={"radius": 0.4})
    host = NodeSpec("orca_robots", "orca_robots_0", hosted=(robot, other))
    hosted = process_command(host, str(tmp_path))
    assert hosted[3:7] == ["--robots", "r1", "r2", "--ros-args"]  # no node name or namespace
    assert sorted(yaml.safe_load(open(hosted[-1]))) == ["/r1/orca_node", "/r2/orca_node"]


def test_nodes_of_another_run_on_the_domain_are_told_from_the_plans():
    from orca_ros.tools.fleet_bench import foreign_nodes

    robot = NodeSpec("orca_node", "orca_node", namespace="r1")
    host = NodeSpec("orca_robots", "orca_robots_0", hosted=(robot,))
    sim = NodeSpec("fleet_sim", "fleet_sim")
    seen = ["/r1/orca_node", "/fleet_sim", "/orca_observer", "/left0/orca_node", "/fleet_sim_2"]
    assert foreign_nodes(seen, [host, sim]) == ["/fleet_sim_2", "/left0/orca_node"]


def test_a_process_that_dies_leaves_the_end_of_its_log_in_the_row(tmp_path, monkeypatch):
    """A robot process that dies (a segmentation fault, seen once at a fleet's start) is
    named with its exit status and the end of its log, where its stack is."""
    import sys
    import time

    from orca_ros.tools import fleet_bench

    scripts = {
        "orca_robots_0": "import os, signal\nprint('hello')\nprint('the stack')\n"
                         "os.kill(os.getpid(), signal.SIGSEGV)\n",
        "orca_robots_1": "import time\ntry:\n    print('fine', flush=True)\n"
                         "    time.sleep(60)\nexcept KeyboardInterrupt:\n    pass\n",
    }
    monkeypatch.setattr(fleet_bench, "process_command",
                        lambda spec, folder: [sys.executable, "-c", scripts[spec.name]])
    specs = [NodeSpec("orca_robots", name) for name in scripts]
    processes = fleet_bench.PlanProcesses(specs, str(tmp_path))
    processes.start()
    deadline = time.monotonic() + 30.0
    while processes.procs[0].poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    # the other one sleeps once it has said so (half a second's pause was too short on a
    # busy machine: it was still there at SIGTERM, -15)
    log = tmp_path / "orca_robots_1_.log"
    while (not log.exists() or "fine" not in log.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    processes.stop()
    assert processes.exit_codes == {"orca_robots_0": -11, "orca_robots_1": 0}
    logs = processes.failed_logs()
    assert list(logs) == ["orca_robots_0"]
    assert logs["orca_robots_0"].startswith("hello\nthe stack")  # (a fault handler's after)
    last = (tmp_path / "orca_robots_0_.log").read_text().splitlines()[-1]
    assert processes.failed_logs(lines=1) == {"orca_robots_0": last}


def test_the_processes_run_in_the_plan_folder(tmp_path, monkeypatch):
    """``python -c`` imports first from its working directory: started in a checkout, a
    robot process would run that checkout's code whatever ``PYTHONPATH`` says."""
    import sys

    from orca_ros.tools import fleet_bench

    monkeypatch.chdir(tmp_path)
    (tmp_path / "plan").mkdir()
    monkeypatch.setattr(fleet_bench, "process_command", lambda spec, folder: [
        sys.executable, "-c", "import os; print(os.getcwd())"])
    processes = fleet_bench.PlanProcesses([NodeSpec("orca_robots", "r0")], "plan")
    processes.start()
    processes.procs[0].wait(timeout=30)
    assert (tmp_path / "plan" / "r0_.log").read_text().strip() == \
        str(tmp_path / "plan")
