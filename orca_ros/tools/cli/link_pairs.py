"""``orca-ros link-pairs``: a scenario written again with tethers between agents whose
starts and goals are within a tether's length."""

from __future__ import annotations

import argparse
import sys

from .common import POSITIVE, refused


def add_parser(sub) -> None:
    link_pairs = sub.add_parser(
        "link-pairs", help="write a scenario with tethers added between agents whose starts and "
                           "goals are both within the tether's length (closest pairs first)")
    link_pairs.add_argument("scenario", metavar="SCENARIO.yaml",
                            help="scenario file or built-in name")
    link_pairs.add_argument("--out", "-o", required=True, metavar="OUT.yaml",
                            help="the linked scenario")
    length = link_pairs.add_mutually_exclusive_group()
    length.add_argument("--length-factor", type=POSITIVE, default=3.0, metavar="F",
                        help="each tether's max_length: F times its pair's combined radius "
                             "(default 3)")
    length.add_argument("--max-length", type=POSITIVE, default=None, metavar="M",
                        help="one max_length for every tether (m)")
    link_pairs.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import yaml

    from ...core.scenario.loader import resolve_scenario
    from ...core.scenario.builders import with_link_pairs

    try:
        path = resolve_scenario(args.scenario)
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        linked, added = with_link_pairs(raw, str(path), args.length_factor, args.max_length)
    except (OSError, yaml.YAMLError, ValueError) as error:  # the file, or a length option
        return refused("link-pairs", error)
    if not added:
        print(f"{path}: no two agents start and end within a tether's length of each other; "
              f"nothing written", file=sys.stderr)
        return 1
    linked["name"] = f"{linked.get('name', path.stem)}_linked"
    with open(args.out, "w", encoding="utf-8") as out:
        yaml.safe_dump(linked, out, sort_keys=False)
    print(f"{args.out}: {path.name} with {added} linked pair{'s' if added != 1 else ''} added")
    return 0

