"""Robots on hosts of their own (network namespaces, UDP only), their clocks off by
libfaketime (orca_ros.testing.hosts): the fleet still arrives without contact, and each
orca_node's diagnostics show its neighbours' clock offsets. Runs where the machine
allows network namespaces (root, iproute2, faketime), as CI does; skips naming what is
missing elsewhere."""

import os
import re
import subprocess

import pytest

pytest.importorskip("rclpy", reason="rclpy not installed (pip install .[ros])")

from orca_ros.testing import hosts  # noqa: E402

pytestmark = pytest.mark.ros

REASON = hosts.unavailable()
needs_hosts = pytest.mark.skipif(REASON is not None, reason=f"no hosts here: {REASON}")


def _left_over():
    """Namespaces and links of this process's runs still there."""
    tag = f"{os.getpid()}_"
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    return [line for line in (names + links).splitlines()
            if f"orca{tag}" in line or f"oh{tag}" in line or f"obr{os.getpid()}" in line]


@needs_hosts
def test_robots_on_their_own_hosts_with_clocks_half_a_second_off_arrive_apart():
    summary = hosts.run_hosts("crossing_4", clock_offsets="0.5")
    offsets = summary["clock_offsets_s"]
    assert sorted(offsets.values()) == [-0.5, -0.5, 0.5, 0.5]
    assert summary["reached"] == summary["agents"] == 4, summary["stop_reason"]
    assert summary["collisions"] == 0  # fleet_sim's ground truth
    assert summary["observer"]["colliding_pairs"] == 0
    assert summary["observer"]["reached"] == 4
    for robot, values in summary["diagnostics"].items():
        seen = dict(re.findall(r"(\w+):([-+][\d.]+)s", values["clock_offsets"]))
        assert sorted(seen) == sorted(set(offsets) - {robot})
        for other, text in seen.items():  # this clock minus the neighbour's
            assert float(text) == pytest.approx(offsets[robot] - offsets[other], abs=0.1)
        assert values["level"] == "WARN"  # a neighbour 1 s off is named
    assert not _left_over()


@needs_hosts
def test_a_stopped_run_removes_its_namespaces_and_bridge():
    import time

    asked = time.monotonic() + 8.0
    summary = hosts.run_hosts("crossing_4", clock_offsets="north=1",
                              should_stop=lambda: time.monotonic() > asked)
    assert summary["interrupted"] and summary["stop_reason"] == "interrupted"
    assert all(code == 0 for code in summary["exit_codes"].values())
    assert not _left_over()


@needs_hosts
def test_the_namespaces_of_a_run_killed_before_its_cleanup_are_swept():
    gone = 2 ** 22 + 1  # above Linux's largest pid: no such process
    subprocess.run(["ip", "netns", "add", f"orca{gone}_0"], check=True)
    subprocess.run(["ip", "link", "add", f"obr{gone}", "type", "bridge"], check=True)
    subprocess.run(["ip", "link", "add", f"oh{gone}_1", "type", "veth", "peer", "name",
                    f"oh{gone}_2"], check=True)
    removed = hosts.sweep_stale()
    assert {f"obr{gone}", f"orca{gone}_0"} < set(removed)
    assert len({f"oh{gone}_1", f"oh{gone}_2"} & set(removed)) == 1  # one takes its peer
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    assert str(gone) not in names + links
    assert hosts.sweep_stale() == []


@needs_hosts
def test_the_host_processes_end_when_the_harness_is_killed(tmp_path):
    import signal
    import sys
    import time

    keep = tmp_path / "run"
    harness = subprocess.Popen([sys.executable, "-m", "orca_ros.testing.hosts", "crossing_4",
                                "--keep", str(keep)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 90.0
        while not (keep / "observer_status.json").exists() and time.monotonic() < end:
            assert harness.poll() is None, "the harness ended before its hosts were up"
            time.sleep(0.5)
        assert _started_from(keep), "no host process found"
        harness.send_signal(signal.SIGKILL)  # no cleanup can run in the harness
        harness.wait()
        end = time.monotonic() + 60.0  # a process busy starting hears it when it returns
        while _started_from(keep) and time.monotonic() < end:
            time.sleep(0.5)
        left = {pid: _command_line(pid) for pid in _started_from(keep)}
        assert not left, left
    finally:
        if harness.poll() is None:
            harness.kill()
        for pid in _started_from(keep):
            os.kill(pid, signal.SIGKILL)
        hosts.sweep_stale()


def _command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().decode(errors="replace").replace("\0", " ")
    except OSError:
        return ""


def _started_from(folder):
    """The processes whose command line names ``folder`` (the run's host processes)."""
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()
            and str(folder) in _command_line(entry)
            and "orca_ros.testing.hosts crossing_4" not in _command_line(entry)]
