"""What one message costs through rclpy and Fast DDS on this machine, the floor under
every robot's CPU: the publisher's CPU per publish of a state (a 700-byte
nav_msgs/Odometry, as orca_node announces on /orca/states) to K reader processes, and
each reader's CPU per message taken in (rclpy's EventsExecutor, a raw subscription that
only counts), with the messages sent one at a time or in bursts of B.

    python scripts/dds_cost.py [--readers K] [--burst B] [--messages N]

Give it a ROS_DOMAIN_ID of its own. Whole-process CPU (getrusage): the publisher's with
the same loop's sleeping subtracted; a reader's between its 100th message and its
(N-100)th.
"""

import argparse
import os
import resource
import signal
import subprocess
import sys
import time

TOPIC = "/dds_cost/states"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _qos():
    from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST,
                      reliability=ReliabilityPolicy.BEST_EFFORT)  # as orca_node's readers


def reader(messages: int) -> None:
    import rclpy
    from nav_msgs.msg import Odometry
    from rclpy.executors import SingleThreadedExecutor

    try:
        from rclpy.experimental import EventsExecutor as Executor
    except ImportError:
        Executor = SingleThreadedExecutor
    rclpy.init()
    node = rclpy.create_node(f"dds_cost_reader_{os.getpid()}")
    count, marks = [0], {}
    first, last = 100, messages - 100

    def taken(_raw) -> None:
        count[0] += 1
        if count[0] in (first, last):
            marks[count[0]] = _cpu()
    node.create_subscription(Odometry, TOPIC, taken, _qos(), raw=True)

    def report(*_) -> None:
        per = (marks[last] - marks[first]) / (last - first) * 1e6 if last in marks else None
        print(f"reader: {count[0]} messages taken in, CPU per message "
              + (f"{per:.1f} us" if per is not None else "unknown (too few came)"), flush=True)
        os._exit(0)
    signal.signal(signal.SIGTERM, report)
    executor = Executor()
    executor.add_node(node)
    while True:
        executor.spin_once(timeout_sec=0.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readers", type=int, default=10)
    parser.add_argument("--burst", type=int, default=1,
                        help="messages sent back to back, then a pause as long as they took")
    parser.add_argument("--messages", type=int, default=3000)
    parser.add_argument("--reader", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.reader:
        reader(args.messages)
        return
    import rclpy
    from nav_msgs.msg import Odometry
    from rclpy.serialization import serialize_message

    readers = [subprocess.Popen([sys.executable, __file__, "--reader", "--messages",
                                 str(args.messages)]) for _ in range(args.readers)]
    rclpy.init()
    node = rclpy.create_node("dds_cost_publisher")
    publisher = node.create_publisher(Odometry, TOPIC, _qos())
    state = Odometry()
    state.header.frame_id, state.child_frame_id = "map", "robot_1"
    raw = serialize_message(state)
    deadline = time.time() + 30.0
    while publisher.get_subscription_count() < args.readers and time.time() < deadline:
        rclpy.spin_once(node, timeout_sec=0.1)
    time.sleep(2.0)

    def loop(send: bool) -> float:
        start = _cpu()
        for k in range(args.messages):
            if send:
                publisher.publish(raw)
            if k % args.burst == 0:
                time.sleep(0.001 * args.burst)
        return _cpu() - start
    sending = loop(True)
    idle = loop(False)
    print(f"publisher: {publisher.get_subscription_count()} readers, CPU per publish "
          f"{(sending - idle) / args.messages * 1e6:.1f} us", flush=True)
    for process in readers:
        process.terminate()
    for process in readers:
        process.wait()
    node.destroy_node()
    rclpy.try_shutdown()


if __name__ == "__main__":
    main()
