"""Tools around the nodes: the orca-ros command, benchmarks, timing, plots, bags, RViz
configurations."""
