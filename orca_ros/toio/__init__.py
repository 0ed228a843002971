"""Sony toio Core Cube support without ROS: the BLE protocol, mats, and wheel-speed conversion."""
