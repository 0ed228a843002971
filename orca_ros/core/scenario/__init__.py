"""Scenario files: the loader (format, validation, built-in scenarios) and builders of
scenarios in code (circle fleets, block crowds, linked pairs)."""
