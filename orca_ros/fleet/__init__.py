"""A fleet of nodes: the node plan (which nodes run, with which parameters), the process
plan (robots per process) and the launch actions both `ros2 launch` and the runner use."""
