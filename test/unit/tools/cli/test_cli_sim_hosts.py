"""``orca-ros sim --hosts`` refuses, naming it, what it does not run with (nothing
starts: the refusals come before any host)."""

import pytest

from orca_ros.core.errors import REFUSED
from orca_ros.tools.cli import main


@pytest.mark.parametrize("arguments, named", [
    (["--clock-offsets", "1"], "go with --hosts"),
    (["--hosts", "--record", "run.mcap"], "--hosts does not run with --record"),
    (["--hosts", "--faults", "kill=north@3"], "the hosts inject only drop_odom"),
    (["--hosts", "--odom-frame", "per_robot"], "--odom-frame"),
    (["--hosts", "--clock-offsets", "nobody=1"], "'nobody=1' is not ROBOT=SECONDS"),
    (["--hosts", "--clock-offsets", "0.5:7"], "7 robots, the scenario has 4"),
])
def test_hosts_refuse_what_they_cannot_run(arguments, named, capsys, monkeypatch):
    from orca_ros.testing import hosts

    monkeypatch.setattr(hosts, "unavailable", lambda need_faketime=True: None)
    assert main(["sim", "crossing_4", "--no-progress", *arguments]) == REFUSED
    assert named in capsys.readouterr().err
