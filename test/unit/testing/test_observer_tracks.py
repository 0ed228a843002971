"""The observer's tracks file (orca_ros.testing.observer.write_tracks): every pose heard,
by robot and stamp, to look at a contact afterwards."""

import csv

from orca_ros.testing.observer import write_tracks


def test_every_pose_heard_is_written_by_robot_in_stamp_order(tmp_path):
    path = tmp_path / "tracks.csv"
    # Heard out of order (two processes' odometry interleaved, one late).
    write_tracks(str(path), {"r0": [(0.2, 1.0, 2.0, 0.5), (0.1, 0.9, 2.0, 0.4)],
                             "r1": [(0.1, -1.0, 0.0, 3.0)], "r2": []})
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["robot", "stamp_s", "x", "y", "yaw"]
    assert [(r[0], float(r[1]), float(r[2])) for r in rows[1:]] == [
        ("r0", 0.1, 0.9), ("r0", 0.2, 1.0), ("r1", 0.1, -1.0)]


def test_aerial_tracks_carry_their_height(tmp_path):
    path = tmp_path / "tracks.csv"
    write_tracks(str(path), {"drone": [(1.0, 0.0, 0.0, 2.5, 0.0)]}, aerial=True)
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["robot", "stamp_s", "x", "y", "z", "yaw"]
    assert float(rows[1][4]) == 2.5
