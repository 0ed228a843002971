"""A synthetic map_server map for benchmarks: a warehouse of racks, round pillars and the
speckle a scanned map has (``orca-ros map-segments``'s figure in doc/results.md)."""

from __future__ import annotations

import pathlib

import numpy as np

FREE, OCCUPIED = 254, 0  # map_server's grey values


def warehouse_map(path: str | pathlib.Path, cells: int = 4000, resolution: float = 0.05,
                  seed: int = 7) -> pathlib.Path:
    """Write ``path`` (a map_server YAML) and its PGM image beside it: ``cells`` x
    ``cells`` cells of ``resolution`` m; outer walls, rows of racks 2 m deep, 40 round
    pillars, and one cell in a thousand occupied at random. Returns the YAML's path."""
    from PIL import Image

    path = pathlib.Path(path)
    rng = np.random.default_rng(seed)
    n = int(cells)
    grid = np.full((n, n), FREE, np.uint8)
    wall = max(n // 400, 1)
    grid[:wall, :] = grid[-wall:, :] = grid[:, :wall] = grid[:, -wall:] = OCCUPIED
    margin, depth, aisle, length = n // 20, n // 100, n // 25, (n * 9) // 100
    for row in range(margin, n - margin - depth, depth + aisle):
        for col in range(margin, n - margin - length, length + n // 67):
            grid[row:row + depth, col:col + length] = OCCUPIED
    for _ in range(40):
        cy, cx = rng.integers(margin, n - margin, 2)
        radius = int(rng.integers(max(n // 800, 1), max(n // 130, 2)))
        yy, xx = np.ogrid[-radius:radius + 1, -radius:radius + 1]
        disc = yy ** 2 + xx ** 2 <= radius ** 2
        window = grid[cy - radius:cy + radius + 1, cx - radius:cx + radius + 1]
        window[disc[:window.shape[0], :window.shape[1]]] = OCCUPIED
    grid[rng.random((n, n)) < 0.001] = OCCUPIED
    image = path.with_suffix(".pgm")
    Image.fromarray(grid).save(image)
    path.write_text(f"image: {image.name}\nresolution: {resolution}\norigin: [0.0, 0.0, 0.0]\n"
                    "negate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.25\nmode: trinary\n",
                    encoding="utf-8")
    return path
