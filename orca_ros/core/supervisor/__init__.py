"""The centralized conflict resolver: the "virtual cocoon" (Baranauskas et al. 2022)."""
