"""Tools around the nodes: the orca-ros command and what its runs carry (faults, the
observer, a bag recorder: harness), benchmarks, timing, plots, bags, RViz configurations."""
