"""Every executable exits 0, without a traceback, on SIGINT or SIGTERM at any moment.

Each executable runs as its console script does (setup.py's entry points) in
its own process, busy: robots driving in fleet_sim or behind toio_bridge,
orca_nodes taking odometry and /clock, the supervisor judging, a whole
``orca-ros sim``. Each is interrupted once at a random moment (seeded): while
Python imports, while DDS discovers, while messages flow. Signals alternate
between SIGINT and SIGTERM, and every third process gets a second signal
shortly after the first (Ctrl-C pressed twice, or launch's SIGTERM after its
SIGINT).

Nothing of this package runs before the interpreter has started (site, .pth
files), which takes a second and more on a busy machine: on Linux a signal
waits, if need be (up to STARTUP_WAIT), until the process catches SIGTERM,
the first thing the executables do.
"""

import os
import pathlib
import random
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Tuple

import pytest

pytest.importorskip("rclpy", reason="rclpy not installed (pip install .[ros])")

from helpers.executables import command  # noqa: E402

pytestmark = pytest.mark.ros

EXIT_TIMEOUT = 60.0  # s after the last signal; a process still alive then is a failure
STARTUP_WAIT = 10.0  # s a signal waits at most for the process to catch SIGTERM
CROSSING = ["north", "south", "east", "west"]
CUBES = ["cube0", "cube1", "cube2"]  # three of toio_ring_swap_6's six, with orca_nodes


def ros_args(namespace: str = "", **parameters) -> List[str]:
    args = ["--ros-args"]
    if namespace:
        args += ["-r", f"__ns:=/{namespace}"]
    for key, value in parameters.items():
        if isinstance(value, bool):
            value = str(value).lower()
        elif isinstance(value, list):
            value = "[" + ",".join(value) + "]"
        args += ["-p", f"{key}:={value}"]
    return args


def orca_node(name: str, fleet: List[str]) -> Tuple[str, List[str]]:
    return f"orca_node /{name}", command("orca_node", *ros_args(
        name, use_sim_time=True, neighbors=[n for n in fleet if n != name]))


def catches_sigterm(pid: int) -> bool:
    """Whether the process has its own SIGTERM handler yet (True where /proc cannot tell)."""
    try:
        status = pathlib.Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    caught = re.search(r"^SigCgt:\s*([0-9a-fA-F]+)", status, re.M)
    return caught is None or bool(int(caught.group(1), 16) >> (signal.SIGTERM - 1) & 1)


@dataclass
class Interrupted:
    """One process, the moment it was interrupted, and how it ended."""

    name: str
    process: subprocess.Popen
    log: pathlib.Path
    delay: float = 0.0
    after: str = "start"  # the moment the delay counts from
    signals: List[str] = field(default_factory=list)

    def stderr(self) -> str:
        return self.log.with_suffix(".err").read_text(errors="replace")

    def problem(self) -> str:
        """'' if it exited 0 with no traceback, else what went wrong."""
        code, err = self.process.returncode, self.stderr()
        if code == 0 and "Traceback" not in err:
            return ""
        return (f"{self.name}: {'+'.join(self.signals)} {self.delay:.2f} s after {self.after} "
                f"-> exit {code}\n"
                + "\n".join("    " + line for line in err.strip().splitlines()[-12:]))


class Interrupter:
    """Starts batches of processes and interrupts each at its own random moment."""

    def __init__(self, tmp_path: pathlib.Path, seed: int) -> None:
        self.tmp_path, self.random = tmp_path, random.Random(seed)
        self.done: List[Interrupted] = []
        self.count = 0

    def batch(self, processes: List[Tuple[str, List[str]]], earliest: float = 0.3,
              latest: float = 3.0, ready: Optional[Callable[[], bool]] = None) -> None:
        """Start ``processes``; interrupt each ``earliest`` to ``latest`` s after they
        started, or after ``ready()`` became true (at most a minute)."""
        runs = []
        for name, argv in processes:
            log = self.tmp_path / f"{len(self.done) + len(runs):03d}"
            with open(log.with_suffix(".out"), "w") as out, \
                    open(log.with_suffix(".err"), "w") as err:
                runs.append(Interrupted(name, subprocess.Popen(
                    argv, stdout=out, stderr=err, cwd=self.tmp_path,
                    env={**os.environ, "PYTHONFAULTHANDLER": "1"}), log))  # stacks if it aborts
        if ready is not None:
            deadline = time.monotonic() + 60.0
            while not ready() and time.monotonic() < deadline and \
                    all(run.process.poll() is None for run in runs):
                pass
        started = time.monotonic()
        events = []  # (time, run, signal)
        for run in runs:
            run.delay = self.random.uniform(earliest, latest)
            run.after = "start" if ready is None else "the robots drove"
            first = (signal.SIGINT, signal.SIGTERM)[self.count % 2]
            self.count += 1
            events.append((run.delay, run, first))
            if self.count % 3 == 0:
                events.append((run.delay + self.random.uniform(0.02, 0.5), run,
                               self.random.choice((signal.SIGINT, signal.SIGTERM))))
        for at, run, sig in sorted(events, key=lambda e: e[0]):
            time.sleep(max(0.0, started + at - time.monotonic()))
            deadline = time.monotonic() + STARTUP_WAIT
            while run.process.poll() is None and not catches_sigterm(run.process.pid) and \
                    time.monotonic() < deadline:
                time.sleep(0.01)
            if run.process.poll() is None:
                run.process.send_signal(sig)
                run.signals.append(sig.name)
        for run in runs:
            try:
                run.process.wait(timeout=EXIT_TIMEOUT)
            except subprocess.TimeoutExpired:
                run.process.kill()
                run.process.wait()
        self.done += runs

    def check(self) -> None:
        problems = [p for p in (run.problem() for run in self.done) if p]
        unsignalled = [run.name for run in self.done if not run.signals]
        print(f"\n{len(self.done) - len(unsignalled)} interrupts, {len(problems)} not clean")
        if unsignalled:  # ended by itself before its signal: it must have ended cleanly too
            print(f"not interrupted, done before: {unsignalled}")
        assert not problems, f"{len(problems)} of {len(self.done)} interrupted processes did " \
                             "not exit cleanly:\n" + "\n".join(problems)


@pytest.mark.slow
def test_nodes_exit_0_on_sigint_or_sigterm_at_any_moment(tmp_path, ros):
    """orca_nodes taking odometry and /clock from fleet_sim or toio_bridge, the supervisor
    and obstacle_server: interrupted while starting, then while the robots drive."""
    from geometry_msgs.msg import Twist

    from orca_ros.nodes.ros_common import RELIABLE_10

    commanding = set()
    watcher = ros.node("shutdown_watcher")
    for name in CROSSING + CUBES:
        watcher.create_subscription(Twist, f"/{name}/cmd_vel",
                                    lambda msg, name=name: commanding.add(name), RELIABLE_10)

    def driving(robots):
        """ready(): every robot's orca_node of this batch commands its robot."""
        ros.spin_for(0.5)  # what the last batch sent before it ended: not this batch's
        commanding.clear()

        def ready() -> bool:
            ros.spin_for(0.05)
            return commanding >= set(robots)
        return ready

    crossing = [orca_node(name, CROSSING) for name in CROSSING] + [
        ("fleet_sim", command("fleet_sim", *ros_args(
            scenario="crossing_4", send_goals=True, speed_factor=2.0))),
        ("obstacle_server", command("obstacle_server", *ros_args(
            scenario="corridor_wall", use_sim_time=True))),
        ("supervisor_node", command("supervisor_node", *ros_args(
            scenario="crossing_4", use_sim_time=True, with_orca=True)))]
    toio = [orca_node(name, CUBES) for name in CUBES] + [
        ("toio_bridge", command("toio_bridge", *ros_args(
            scenario="toio_ring_swap_6", send_goals=True))),
        ("obstacle_server", command("obstacle_server", *ros_args(
            scenario="toio_ring_swap_6", use_sim_time=True)))]
    # The same crossing with its four orca_nodes in one process (robots_per_process).
    hosted_parameters = tmp_path / "crossing_robots.yaml"
    hosted_parameters.write_text("".join(
        f"/{name}/orca_node:\n  ros__parameters:\n    use_sim_time: true\n"
        f"    neighbors: [{', '.join(n for n in CROSSING if n != name)}]\n"
        for name in CROSSING))
    hosted = [("orca_robots", command("orca_robots", "--robots", *CROSSING, "--ros-args",
                                      "--params-file", str(hosted_parameters)))] + \
        crossing[len(CROSSING):]
    interrupter = Interrupter(tmp_path, seed=7)
    interrupter.batch(crossing)  # while importing, discovering, starting
    interrupter.batch(toio)
    interrupter.batch(hosted)
    for fleet, robots in ((crossing, CROSSING), (toio, CUBES), (crossing, CROSSING),
                          (hosted, CROSSING)):
        interrupter.batch(fleet, ready=driving(robots))  # while messages flow
    interrupter.check()


def test_orca_ros_exits_0_on_sigint_or_sigterm_at_any_moment(tmp_path):
    """``orca-ros sim`` (every node of a scenario in one process), and a plain subcommand.

    The runs share the test's ROS domain (and /clock): that only makes them busier."""
    sim = ("orca-ros", "sim", "--no-progress", "--speed-factor", "1")
    runs = [
        ("orca-ros sim crossing_4", command(*sim, "crossing_4", "--json", "run.json")),
        ("orca-ros sim circle_swap_8 --supervisor",
         command(*sim, "circle_swap_8", "--supervisor")),
        ("orca-ros sim toio_ring_swap_6", command(*sim, "toio_ring_swap_6", "--backend",
                                                  "toio-sim")),
        ("orca-ros bench", command("orca-ros", "bench", "circle_swap_8", "corridor_wall",
                                   "--plot", "plots", "--no-progress"))]
    interrupter = Interrupter(tmp_path, seed=11)
    interrupter.batch(runs, earliest=0.3, latest=4.0)  # mostly while starting
    interrupter.batch(runs, earliest=4.0, latest=9.0)  # mostly while the robots drive
    interrupter.check()


def _run_python(script: str, stop_within: str) -> subprocess.CompletedProcess:
    """``python -c script`` with :mod:`orca_ros.nodes.stop`'s deadline at ``stop_within`` s."""
    env = dict(os.environ, ORCA_ROS_STOP_WITHIN=stop_within)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, env=env)


def test_a_process_stuck_after_the_signal_still_ends_with_status_0_in_time():
    """A wind-down that never returns (Fast DDS can deadlock in ``unregister_timer`` when
    dozens of participants leave together) must not wait for launch's SIGKILL."""
    stuck = ("import os, signal, threading\n"
             "from orca_ros.nodes import stop\n"
             "stop.install()\n"
             "os.kill(os.getpid(), signal.SIGINT)\n"
             "threading.Event().wait()  # a teardown that never returns\n")
    started = time.monotonic()
    run = _run_python(stuck, stop_within="0.5")
    assert run.returncode == 0, run.stderr
    assert "still stopping 0.5 s after the signal" in run.stderr
    assert time.monotonic() - started < 30
    quiet = ("import os, signal, time\n"
             "from orca_ros.nodes import stop\n"
             "stop.install()\n"
             "time.sleep(1.0)\n"
             "raise SystemExit(3)  # no signal: no deadline\n")
    run = _run_python(quiet, stop_within="0.5")
    assert run.returncode == 3 and "still stopping" not in run.stderr


def test_a_teardown_stuck_in_a_library_call_holding_the_gil_still_ends_with_status_0():
    """The Python deadline's thread cannot run while the main thread hangs in a C call
    that holds the GIL (CI: fleet_sim still there 15 s after SIGINT, killed, status -9).
    The stacks are written to stderr and the process ends with status 0 all the same."""
    stuck = ("import ctypes, os, signal\n"
             "from orca_ros.nodes import stop\n"
             "stop.install()\n"
             "os.kill(os.getpid(), signal.SIGINT)\n"
             "ctypes.PyDLL(None).sleep(40)  # libc's sleep, called with the GIL held\n")
    started = time.monotonic()
    run = _run_python(stuck, stop_within="0.5")
    elapsed = time.monotonic() - started
    assert run.returncode == 0, run.stderr
    assert elapsed < 20, elapsed  # not the 40 s of the hang
    assert "still stopping" not in run.stderr  # the Python deadline never ran...
    assert "Timeout (0:00:01)!" in run.stderr and "<string>" in run.stderr  # ...the dump did


def test_a_signal_during_a_weakref_callback_still_interrupts_plain_work_quietly():
    """A signal landing in a callback Python cannot raise from (an import's module-lock
    callback, a ``__del__``) must neither print "Exception ignored" nor be lost."""
    script = ("import os, signal, sys, time, weakref\n"
              "from orca_ros.nodes import stop\n"
              "stop.install(interrupt=True)\n"
              "class Thing: pass\n"
              "def callback(ref):\n"
              "    os.kill(os.getpid(), signal.SIGTERM)  # handled inside this callback\n"
              "    for _ in range(1000): pass\n"
              "thing = Thing(); ref = weakref.ref(thing, callback)\n"
              "try:\n"
              "    del thing\n"
              "    while True: time.sleep(0.01)  # plain work with no loop asking stop\n"
              "except KeyboardInterrupt:\n"
              "    print('interrupted')\n")
    run = _run_python(script, stop_within="20")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "interrupted"
    assert run.stderr == ""


def test_a_signal_that_an_import_turns_into_another_error_still_ends_orca_ros_with_0():
    """Python 3.11 wraps a KeyboardInterrupt raised in a class body's ``__set_name__`` (as
    matplotlib's import runs one) in a RuntimeError; ``orca-ros bench`` reports a RuntimeError
    as a bad input with status 2, which after a signal it must not."""
    script = ("import os, signal, sys\n"
              "from orca_ros.tools import cli, scenario_bench\n"
              "class Named:\n"
              "    def __set_name__(self, owner, name):\n"
              "        os.kill(os.getpid(), signal.SIGTERM)  # handled inside __set_name__\n"
              "        for _ in range(1000): pass\n"
              "def bench(*args, **kwargs):\n"
              "    class Formatter:  # an import defining a class, the signal lands meanwhile\n"
              "        offset_string = Named()\n"
              "    raise AssertionError('the signal was lost')\n"
              "scenario_bench.bench = bench\n"
              "sys.exit(cli.main(['bench', 'circle_swap_8', '--no-progress']))\n")
    run = _run_python(script, stop_within="20")
    assert run.returncode == 0, run.stderr
    assert run.stderr.strip() == "orca-ros: interrupted"


def test_after_a_signal_orca_ros_ends_with_its_output_and_without_python_teardown():
    """What the interrupted command printed reaches the pipe, and nothing of the interpreter's
    teardown runs (it once aborted ``orca-ros bench`` interrupted about when its imports ended:
    "Fatal Python error ... finalizing", status -6); an atexit handler stands in for it."""
    script = ("import atexit, os, signal, sys\n"
              "from orca_ros.tools import cli, scenario_bench\n"
              "atexit.register(os.abort)  # a teardown that crashes\n"
              "def bench(*args, **kwargs):\n"
              "    print('half of the table')\n"
              "    os.kill(os.getpid(), signal.SIGTERM)\n"
              "    for _ in range(10**8): pass\n"
              "    raise AssertionError('the signal was lost')\n"
              "scenario_bench.bench = bench\n"
              "sys.argv = ['orca-ros', 'bench', 'circle_swap_8', '--no-progress']\n"
              "sys.exit(cli.main())\n")
    run = _run_python(script, stop_within="20")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "half of the table\n"
    assert run.stderr.strip() == "orca-ros: interrupted"
