"""Callback CPU accounting (orca_ros.nodes.callback_cpu): what bench-ros --callback-cpu
reports of where a robot process's CPU went."""

import inspect
import json

import pytest

from orca_ros.nodes import callback_cpu
from orca_ros.nodes.callback_cpu import CallbackCpu, callback_rows, callback_table


def _burn(n: int = 20000) -> int:
    return sum(i * i for i in range(n))


def test_a_timed_callback_counts_its_calls_and_cpu_and_passes_on_what_it_raises(tmp_path):
    cpu = CallbackCpu(str(tmp_path))
    calls = []
    timed = cpu.timed(lambda x: calls.append(x) or _burn(), "work: its 0.1 s timer")

    def failing():
        raise RuntimeError("bug")
    broken = cpu.timed(failing, "broken")
    for k in range(3):
        timed(k)
    with pytest.raises(RuntimeError):
        broken()
    assert calls == [0, 1, 2]
    calls_made, cpu_ns = cpu.figures["work: its 0.1 s timer"]
    assert calls_made == 3 and cpu_ns > 0
    assert cpu.figures["broken"][0] == 1
    cpu.write()
    record = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert record["callbacks"]["work: its 0.1 s timer"]["calls"] == 3
    assert record["process_cpu_s"] >= record["main_thread_cpu_s"] > 0


def test_guarded_callbacks_are_timed_only_when_the_environment_names_a_folder(
        tmp_path, monkeypatch):
    from orca_ros.nodes.ros_common import GuardedCallbacks

    class Node(GuardedCallbacks):
        pass

    monkeypatch.setattr(callback_cpu, "_accounting", None)
    monkeypatch.delenv(callback_cpu.ENVIRONMENT, raising=False)

    def on_odom(msg):
        return msg
    Node()._guarded(on_odom, "a Odometry on 'odom'")("m")
    assert callback_cpu._accounting is None

    monkeypatch.setenv(callback_cpu.ENVIRONMENT, str(tmp_path))
    monkeypatch.setattr(callback_cpu.atexit, "register", lambda f: None)
    guarded = Node()._guarded(on_odom, "a Odometry on 'odom'")
    assert guarded("m") == "m" and guarded("n") == "n"
    assert callback_cpu._accounting.figures["on_odom: a Odometry on 'odom'"][0] == 2

    # rclpy passes a timer's callback its TimerInfo only if its signature takes one.
    def on_timer():
        return "tick"
    timed = Node()._guarded(on_timer, "its 0.1 s timer")
    assert inspect.signature(timed) == inspect.signature(on_timer)
    assert timed() == "tick"


def test_the_rows_sum_the_processes_and_split_the_rest_between_executor_and_threads():
    first = {"wall_s": 10.0, "process_cpu_s": 2.0, "main_thread_cpu_s": 1.5,
             "callbacks": {"odom": {"calls": 100, "cpu_s": 0.5},
                           "states": {"calls": 1000, "cpu_s": 0.5}}}
    second = {"wall_s": 8.0, "process_cpu_s": 2.0, "main_thread_cpu_s": 1.5,
              "callbacks": {"odom": {"calls": 100, "cpu_s": 0.5}}}
    rows = callback_rows([first, second], robots=4)
    by_part = {r["part"]: r for r in rows}
    assert [r["part"] for r in rows[:2]] == ["odom", "states"]  # most CPU first
    assert by_part["odom"]["calls_per_robot_s"] == pytest.approx(200 / 10 / 4)
    assert by_part["odom"]["us_per_call"] == pytest.approx(1.0 / 200 * 1e6)
    assert by_part["odom"]["share"] == pytest.approx(1.0 / 4.0)
    assert by_part["states"]["share"] == pytest.approx(0.5 / 4.0)
    assert by_part["main thread outside the callbacks"]["share"] == pytest.approx(1.5 / 4.0)
    assert by_part["other threads"]["share"] == pytest.approx(1.0 / 4.0)
    assert sum(r["share"] for r in rows) == pytest.approx(1.0)
    table = callback_table(rows)
    assert "| odom | 5.0 | 5000.0 | 25.0% |" in table
    assert "| other threads | - | - | 25.0% |" in table


def test_no_processes_give_no_rows():
    assert callback_rows([], robots=10) == []
