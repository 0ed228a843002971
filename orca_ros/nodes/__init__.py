"""rclpy nodes: parameters, QoS and message conversion around orca_ros.core."""
