"""bench-step's timings (orca_ros.tools.timing; core.robot.timing's tests hold the name
test_timing): what is timed is the work named, not a robot that holds or sees nobody (no
time is asserted)."""

from orca_ros.tools.timing import node_period_benchmark


def test_the_node_period_times_a_robot_driving_through_the_crowd():
    # 30 robots on 1.5 m a side each: within neighbor_dist of most of them. A period
    # that held (waiting to hear robots, no goal) would perceive none.
    median_us, perceived = node_period_benchmark(30, "diff_drive", periods=5)
    assert median_us > 0.0
    assert perceived >= 10  # more than ORCA's max_neighbors: the safety filter's share too
