"""The observer's link accounting (``orca_ros.testing.observer``), without ROS: link
crossings and over-stretched links at shared stamps."""

import pytest
import yaml

from orca_ros.core.scenario.loader import parse_scenario

from helpers.scenarios import linked_scenario


def test_observer_counts_link_crossings_and_overstretches_at_shared_stamps(tmp_path):
    from orca_ros.testing.observer import audit_for, summary_line

    path = linked_scenario(tmp_path)
    audit = audit_for(parse_scenario(yaml.safe_load(path.read_text()), str(path)))
    far = {"a0": (-3.0, 0.4), "a1": (-3.0, -0.4), "b0": (0.4, -3.0), "b1": (-0.4, -3.0),
           "solo": (3.0, 3.0)}
    frames = [
        far,
        # solo (r 0.2) 0.1 m from the a-link's middle: a crossing; a0-a1 1.0 m <= 1.2.
        dict(far, a0=(0.0, 0.5), a1=(0.0, -0.5), solo=(0.1, 0.0)),
        # b0 rides through the a-link (b-group robot, another group): a crossing;
        # b0-b1 are 1.005 m apart (> 1.0 + 1 mm): over-stretched.
        dict(far, a0=(0.0, 0.5), a1=(0.0, -0.5), b0=(0.0, 0.0), b1=(-1.005, 0.0)),
        # a0 and a1 1.2005 m apart: within the 1 mm slack, not over-stretched.
        dict(far, a0=(0.0, 0.6), a1=(0.0, -0.6005)),
        # b1 missing at this stamp: the b-link is not judged, nor b1's crossings.
        {k: v for k, v in dict(far, b0=(5.0, 5.0)).items() if k != "b1"},
    ]
    for sec, frame in enumerate(frames, start=1):
        for name, (x, y) in frame.items():
            audit.add(name, sec * 1_000_000_000, x, y)
    audit.flush()
    report = audit.report()
    assert report["stamps_compared"] == 5
    assert report["link_crossings"] == 2
    assert [(e["robot"], e["a"], e["b"]) for e in report["link_crossing_events"]] == \
        [("b0", "a0", "a1"), ("solo", "a0", "a1")]
    solo = report["link_crossing_events"][1]
    assert solo["first_stamp"] == pytest.approx(2.0) and solo["worst_m"] == pytest.approx(0.1)
    assert report["link_overstretches"] == 1
    [stretch] = report["link_overstretch_events"]
    assert (stretch["a"], stretch["b"], stretch["stamps"]) == ("b0", "b1", 1)
    assert stretch["worst_m"] == pytest.approx(0.005)
    assert report["max_link_stretch"] == pytest.approx(1.005)  # b0-b1: 1.005 m of 1.0 m
    assert report["colliding_pairs"] == 0  # b0 is 0.5 m from each end of the a-link
    line = summary_line(dict(report, odom_rate_hz_mean=10.0))
    assert "link crossings 2" in line and "over-stretched links 1" in line
    # Without links the report still has the keys (zero), and the line is as it was.
    from orca_ros.core.scenario.loader import load_scenario, resolve_scenario

    plain = audit_for(load_scenario(resolve_scenario("crossing_4"))).report()
    assert (plain["link_crossings"], plain["link_overstretches"]) == (0, 0)
    assert "link" not in summary_line(dict(plain, odom_rate_hz_mean=10.0))
