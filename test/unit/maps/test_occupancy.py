"""Maps to walls (orca_ros/core/maps/occupancy.py): map_server's files read as map_server
reads them, bad files refused naming the file and the field, and segments that follow the
occupied cells' boundary within the tolerance, both ways."""

import math

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from scipy.spatial import cKDTree

from orca_ros.core.maps import MapError, OccupancyMap, load_map, map_from_grid, map_segments


def write_map(directory, pixels, name="map", image_format="pgm", **fields):
    """A map_server YAML beside its image; ``pixels`` rows top to bottom."""
    image = directory / f"{name}.{image_format}"
    Image.fromarray(np.asarray(pixels, dtype=np.uint8)).save(image)
    data = {"image": image.name, "resolution": 0.05, "origin": [-1.0, 2.0, 0.0],
            "negate": 0, "occupied_thresh": 0.65, "free_thresh": 0.25, **fields}
    path = directory / f"{name}.yaml"
    path.write_text("\n".join(f"{k}: {v}" for k, v in data.items()) + "\n")
    return path


# --- reading map_server's files ------------------------------------------------------------

def test_a_map_reads_as_map_server_reads_it(tmp_path):
    """Black is occupied, white free, grey (205, map_server's unknown) not a wall; the
    image's top row is the grid's last; the origin is the lower-left cell's corner."""
    pixels = np.full((4, 6), 254)
    pixels[0, 5] = 0  # top right: occupied
    pixels[3, 0] = 0  # bottom left: occupied
    pixels[1, 1] = 205  # unknown
    occupancy = load_map(write_map(tmp_path, pixels))
    assert occupancy.occupied.shape == (4, 6) and occupancy.resolution == 0.05
    assert occupancy.occupied[3, 5] and occupancy.occupied[0, 0]
    assert occupancy.occupied.sum() == 2
    assert occupancy.to_world([0.5], [0.5])[0] == pytest.approx((-1.0 + 0.025, 2.0 + 0.025))
    negated = load_map(write_map(tmp_path, pixels, name="neg", negate=1))
    assert negated.occupied.sum() == 24 - 2  # white occupied now, and 205 (0.80 > 0.65)
    raw = load_map(write_map(tmp_path, [[100, 0, 255, 70]], name="raw", mode="raw"))
    assert raw.occupied.tolist() == [[True, False, False, True]]


def test_colour_and_16_bit_images_and_a_turned_origin(tmp_path):
    rgb = np.full((2, 2, 3), 255)
    rgb[0, 0] = (0, 0, 0)
    assert load_map(write_map(tmp_path, rgb, name="rgb", image_format="png")).occupied[1, 0]
    image = tmp_path / "deep.png"
    Image.fromarray(np.array([[0, 65535]], dtype=np.uint16)).save(image)
    (tmp_path / "deep.yaml").write_text("image: deep.png\nresolution: 1.0\norigin: [0, 0, 0]\n")
    assert load_map(tmp_path / "deep.yaml").occupied.tolist() == [[True, False]]
    turned = OccupancyMap(np.ones((1, 1), bool), 1.0, (1.0, 0.0, math.pi / 2))
    assert turned.to_world([1.0], [0.0])[0] == pytest.approx((1.0, 1.0))


@pytest.mark.parametrize("fields, message", [
    ({"resolution": -0.05}, "field 'resolution' must be > 0"),
    ({"resolution": "fine"}, "field 'resolution' must be a number"),
    ({"mode": "fancy"}, "field 'mode' must be one of trinary, scale, raw"),
    ({"origin": "[1, 2]"}, "field 'origin' must be [x, y, yaw]"),
    ({"occupied_thresh": 1.5}, "field 'occupied_thresh' must be in [0.0, 1.0]"),
    ({"negate": 2}, "field 'negate' must be 0 or 1"),
    ({"image": "nowhere.pgm"}, "field 'image'"),
])
def test_a_bad_map_file_is_refused_naming_the_file_and_the_field(tmp_path, fields, message):
    path = write_map(tmp_path, [[0, 255]], **fields)
    with pytest.raises(MapError) as refused:
        load_map(path)
    assert str(path) in str(refused.value) and message in str(refused.value)


def test_a_missing_field_a_text_image_and_a_yaml_that_is_no_map_are_refused(tmp_path):
    (tmp_path / "a.yaml").write_text("image: a.pgm\norigin: [0, 0, 0]\n")
    with pytest.raises(MapError, match="field 'resolution' is missing"):
        load_map(tmp_path / "a.yaml")
    (tmp_path / "b.pgm").write_text("not an image")
    (tmp_path / "b.yaml").write_text("image: b.pgm\nresolution: 0.1\norigin: [0, 0, 0]\n")
    with pytest.raises(MapError, match="b.pgm is not an image"):
        load_map(tmp_path / "b.yaml")
    (tmp_path / "c.yaml").write_text("- just\n- a list\n")
    with pytest.raises(MapError, match="holds a mapping"):
        load_map(tmp_path / "c.yaml")
    with pytest.raises(MapError, match="nothing.yaml"):
        load_map(tmp_path / "nothing.yaml")


def test_an_occupancy_grid_message_reads_as_percent_with_unknown_free():
    grid = map_from_grid(3, 2, 0.1, (1.0, 1.0, 0.0), [0, 100, -1, 65, 64, 0])
    assert grid.occupied.tolist() == [[False, True, False], [True, False, False]]
    with pytest.raises(MapError, match="5 cells for 3 x 2"):
        map_from_grid(3, 2, 0.1, (0.0, 0.0, 0.0), [0] * 5)
    with pytest.raises(MapError, match="resolution"):
        map_from_grid(1, 1, 0.0, (0.0, 0.0, 0.0), [0])


# --- segments ------------------------------------------------------------------------------

def boundary_points(occupancy):
    """The midpoint of every cell edge between an occupied cell and a free one (the grid's
    outside counts as free), in the map frame."""
    occupied = np.pad(occupancy.occupied, 1)
    rows, cols = [], []
    for axis in (0, 1):
        change = occupied[1:, :] != occupied[:-1, :] if axis == 0 else \
            occupied[:, 1:] != occupied[:, :-1]
        r, c = np.nonzero(change)
        # between padded cells (r, c) and the next along the axis: unpadded coordinates
        rows.append(r + (1.0 if axis == 0 else 0.5) - 1.0)
        cols.append(c + (0.5 if axis == 0 else 1.0) - 1.0)
    return occupancy.to_world(np.concatenate(cols), np.concatenate(rows))


def distance_to_occupied(occupancy, points):
    """Each point's distance (m) to the nearest occupied cell's square."""
    rows, cols = np.nonzero(occupancy.occupied)
    centres = occupancy.to_world(cols + 0.5, rows + 0.5)
    tree = cKDTree(centres)
    _, nearest = tree.query(points, k=min(9, len(centres)))
    nearest = nearest.reshape(len(points), -1)
    half = 0.5 * occupancy.resolution
    offsets = np.abs(points[:, None, :] - centres[nearest])  # (P, k, 2), origin yaw 0
    outside = np.maximum(offsets - half, 0.0)
    return np.linalg.norm(outside, axis=2).min(axis=1)


def check_segments(occupancy, tolerance):
    segments = map_segments(occupancy, tolerance)
    lines = shapely.MultiLineString([[s.a, s.b] for s in segments])
    boundary = boundary_points(occupancy)
    off_boundary = shapely.distance(shapely.points(boundary), lines)
    assert off_boundary.max() <= tolerance + 1e-9, off_boundary.max()
    samples = np.concatenate([np.linspace(s.a, s.b, 11) for s in segments])
    off_walls = distance_to_occupied(occupancy, samples)
    assert off_walls.max() <= tolerance + 1e-9, off_walls.max()
    return segments


def random_rooms(rng) -> np.ndarray:
    """A 60 x 80 cell grid with up to a dozen random rectangles occupied."""
    occupied = np.zeros((60, 80), bool)
    for _ in range(rng.integers(1, 12)):
        r, c = rng.integers(0, 55), rng.integers(0, 75)
        shape = rng.integers(1, 25, 2)
        occupied[r:r + shape[0], c:c + shape[1]] = True
    return occupied


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), tolerance_cells=st.sampled_from([0.75, 1.0, 2.0]))
def test_segments_follow_the_occupied_boundary_within_the_tolerance_both_ways(
        seed, tolerance_cells):
    """Every edge between an occupied and a free cell lies within the tolerance of a
    segment, and no segment runs farther than the tolerance from an occupied cell."""
    rng = np.random.default_rng(seed)
    occupied = random_rooms(rng)
    yy, xx = np.mgrid[:60, :80]
    cy, cx, radius = rng.integers(10, 50), rng.integers(10, 70), rng.integers(3, 12)
    occupied |= (yy - cy) ** 2 + (xx - cx) ** 2 <= radius ** 2  # a round pillar
    occupied &= rng.random(occupied.shape) > 0.02  # and noise, as a scanned map has
    occupancy = OccupancyMap(occupied, 0.05, (-2.0, 1.0, 0.0))
    check_segments(occupancy, tolerance_cells * 0.05)


def outside_the_walls(occupancy, segments, points, fine=8):
    """Whether each point lies where a robot can be: not shut in with occupied cells by
    the segments. The segments are drawn on a grid ``fine`` times finer than the map's;
    the regions they part (4-connected) that hold no occupied cell's centre are outside."""
    from skimage.draw import line
    from skimage.measure import label

    rows, cols = occupancy.occupied.shape
    walls = np.zeros((rows * fine + 2, cols * fine + 2), bool)
    for s in segments:
        (c0, r0), (c1, r1) = occupancy.to_cells(np.array([s.a, s.b])) * fine + 1
        rr, cc = line(int(round(r0)), int(round(c0)), int(round(r1)), int(round(c1)))
        walls[np.clip(rr, 0, walls.shape[0] - 1), np.clip(cc, 0, walls.shape[1] - 1)] = True
    regions = label(~walls, connectivity=1)
    r, c = np.nonzero(occupancy.occupied)
    shut_in = np.unique(regions[r * fine + fine // 2 + 1, c * fine + fine // 2 + 1])
    at = np.floor(occupancy.to_cells(points) * fine).astype(int) + 1
    region = regions[at[:, 1], at[:, 0]]
    return (region > 0) & ~np.isin(region, shut_in)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), tolerance_cells=st.sampled_from([0.75, 1.0, 2.0]),
       radius_cells=st.sampled_from([1.0, 2.5, 5.0]))
def test_a_disc_clear_of_the_segments_is_clear_of_the_occupied_cells(
        seed, tolerance_cells, radius_cells):
    """Wherever a robot's disc keeps clear of the segments (its centre on a free cell), it
    keeps clear of every occupied cell: the walls never cut into the cells, so avoiding
    them is enough (a contact judged on the map image itself)."""
    rng = np.random.default_rng(seed)
    occupied = random_rooms(rng)
    occupied &= rng.random(occupied.shape) > 0.02
    occupied |= rng.random(occupied.shape) < 0.01
    occupancy = OccupancyMap(occupied, 0.05, (-2.0, 1.0, 0.0))
    segments = map_segments(occupancy, tolerance_cells * 0.05)
    lines = shapely.MultiLineString([[s.a, s.b] for s in segments])
    radius = radius_cells * 0.05
    centres = occupancy.to_world(rng.uniform(0, 80, 4000), rng.uniform(0, 60, 4000))
    outside = outside_the_walls(occupancy, segments, centres)
    clear = outside & (shapely.distance(shapely.points(centres), lines) >= radius)
    assert clear.sum() > 100
    gaps = distance_to_occupied(occupancy, centres[clear]) - radius
    assert gaps.min() >= -1e-9, gaps.min()
    np.testing.assert_allclose(occupancy.occupied_distance(centres[clear], 1.0),
                               np.minimum(distance_to_occupied(occupancy, centres[clear]), 1.0),
                               atol=1e-9)


def test_a_room_gives_its_walls_inside_and_out_and_a_straight_wall_one_segment_a_side():
    occupied = np.zeros((40, 50), bool)
    occupied[:2, :] = occupied[-2:, :] = occupied[:, :2] = occupied[:, -2:] = True
    segments = check_segments(OccupancyMap(occupied, 0.1), 0.1)
    # outer and inner rectangles, their corners cut: 4 long sides and 4 short cuts each
    long_sides = [s for s in segments if math.dist(s.a, s.b) > 3.0]
    assert len(long_sides) == 8 and len(segments) <= 16


def test_an_empty_map_has_no_walls_and_a_bad_tolerance_is_refused():
    assert map_segments(OccupancyMap(np.zeros((5, 5), bool), 0.1)) == []
    with pytest.raises(MapError, match="tolerance"):
        map_segments(OccupancyMap(np.ones((2, 2), bool), 0.1), -1.0)


def test_the_benchmarks_warehouse_map_loads_with_its_walls(tmp_path):
    from orca_ros.core.maps.synthetic import warehouse_map

    occupancy = load_map(warehouse_map(tmp_path / "w.yaml", cells=400))
    assert occupancy.occupied.shape == (400, 400) and occupancy.resolution == 0.05
    assert occupancy.occupied[0, :].all() and occupancy.occupied[:, -1].all()  # outer walls
    assert 0.1 < occupancy.occupied.mean() < 0.5
    check_segments(occupancy, 0.05)
