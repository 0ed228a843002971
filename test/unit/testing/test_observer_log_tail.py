"""The end of a process's log, as the harness shows a process that did not start or
died (``orca_ros.testing.observer.log_tail``)."""

from orca_ros.testing.observer import log_tail


def test_the_last_lines_of_a_log_and_nothing_for_one_that_cannot_be_read(tmp_path):
    log = tmp_path / "robot.log"
    log.write_bytes(b"".join(b"line %d\n" % k for k in range(100)) + b"\xff the end\n")
    assert log_tail(log, 3) == "line 98\nline 99\n\ufffd the end"
    assert log_tail(str(log)).splitlines()[0] == "line 61"  # 40 by default
    assert log_tail(tmp_path / "missing.log") == ""
