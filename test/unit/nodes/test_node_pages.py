"""The node pages (doc/nodes/) say what the code does: where a page states a fact the
code holds (a QoS, which parameters are read at start), it is checked against it."""

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[3] / "doc" / "nodes"


def test_orca_nodes_page_lists_exactly_the_parameters_read_at_start():
    from orca_ros.nodes.params.orca_node import PARAMETERS

    page = (DOC / "orca_node.md").read_text()
    section = page[page.index("## Parameters"):page.index("## Diagnostics")]
    listed = re.search(r"are read at start \(`ros2 param set` refuses\s+them\):(.*?)\.\s*$",
                       section, re.S).group(1)
    assert set(re.findall(r"`(\w+)`", listed)) == {p.name for p in PARAMETERS if p.read_only}


def test_orca_nodes_page_gives_cmd_vel_ins_qos_as_the_node_subscribes_it():
    from orca_ros.nodes import orca_node
    from orca_ros.nodes.ros_common import LATEST

    source = Path(orca_node.__file__).read_text()
    assert re.search(r'"cmd_vel_in",\s*self\._on_cmd_vel_in, LATEST\)', source)
    row = next(line for line in (DOC / "orca_node.md").read_text().splitlines()
               if line.startswith("| `cmd_vel_in` |"))
    reliability = "best effort" if LATEST.reliability.name == "BEST_EFFORT" else "reliable"
    assert f"{reliability}, volatile, keep last {LATEST.depth}" in row


def test_orca_robots_page_gives_the_batch_timing_and_qos_the_code_uses():
    import inspect

    from orca_ros.core.robot.batching import MAX_WAIT, QUIET_AFTER
    from orca_ros.nodes import state_batch
    from orca_ros.nodes.ros_common import RELIABLE_10

    page = " ".join((DOC / "orca_robots.md").read_text().split())
    assert f"at the latest {MAX_WAIT * 1000:g} ms after its first state" in page
    assert QUIET_AFTER == 1.0 and "heard from in the last second" in page
    assert "STATE_BATCHES_TOPIC, RELIABLE_10)" in inspect.getsource(state_batch.attach)
    assert (RELIABLE_10.reliability.name, RELIABLE_10.durability.name, RELIABLE_10.depth) == \
        ("RELIABLE", "VOLATILE", 10)
    assert "(reliable, volatile, keep last 10, from the first node)" in page


def test_every_code_block_of_the_node_pages_closes_on_a_line_of_its_own():
    for page in sorted(DOC.glob("*.md")):
        inside = False
        for number, line in enumerate(page.read_text().splitlines(), 1):
            if not line.lstrip().startswith("```"):
                continue
            if inside:
                assert line.strip() == "```", f"{page.name}:{number}: text after a closing fence"
            inside = not inside
        assert not inside, f"{page.name}: a code block never closed"


def test_orca_nodes_page_gives_the_odom_triggers_periods_the_code_uses():
    from orca_ros.core.robot.control import LOOK_PERIODS, WATCHDOG_PERIODS
    from orca_ros.nodes.params.orca_node import ODOM_TRIGGER_SPACING

    page = " ".join((DOC / "orca_node.md").read_text().split())
    assert f"at most one per {ODOM_TRIGGER_SPACING:g} control periods" in page
    assert f"it fires only when the odometry is {LOOK_PERIODS:g} periods old" in page
    assert f"stands in when no cycle has run for {WATCHDOG_PERIODS:g} periods" in page
