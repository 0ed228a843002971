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
