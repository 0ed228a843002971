"""One robot's control cycle, shared by orca_node and the simulated world: perception
of neighbours and obstacles, the preferred velocity (path, guidance, stall escape,
detours), the avoidance method, the safety filter and tracking."""
