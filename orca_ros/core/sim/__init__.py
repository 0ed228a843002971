"""The scenario world: bodies stepped together with every robot's control cycle, and the
run's accounting (collisions, arrivals, links)."""
