"""Test harness, not product: fault injection, the independent observer and its audit,
and runs of launch files through the real launch engine."""
