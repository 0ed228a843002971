"""A fleet of nodes: the node plan (:mod:`~orca_ros.fleet.plan`: which nodes run, with which
parameters, in which processes), the launch actions ``ros2 launch`` starts it with
(:mod:`~orca_ros.fleet.launch`), and the in-process runner behind ``orca-ros sim``
(:mod:`~orca_ros.fleet.runner`)."""
