"""Robot bodies as they move: holonomic, unicycle (differential drive), aerial, and the
toio Core Cube (wheels, lag, mat)."""
