"""``orca-ros results``: doc/results.md's marked tables run again and written in place,
each stamped with its command, commit, date and machine (orca_ros.tools.results)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import refused


def add_parser(sub) -> None:
    results = sub.add_parser(
        "results", help="run doc/results.md's commands again and write their tables "
                        "between the page's <!-- results:NAME --> markers")
    results.add_argument("--page", default="doc/results.md", help="the page (default "
                                                                   "doc/results.md)")
    results.add_argument("--only", action="append", metavar="NAME",
                         help="refresh this section (repeatable), long ones included")
    results.add_argument("--list", action="store_true",
                         help="list the sections, how each is refreshed and its commands")
    results.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import results

    page = Path(args.page)
    try:
        text = page.read_text() if page.exists() or not args.list else ""
        if args.list:
            print(results.listing(text))
            return 0
        names = args.only or results.default_names(text)
        for name in names:
            results.find_section(name)
    except (OSError, ValueError) as error:
        return refused("results", error)
    try:  # work has started: only an InputError (or a file) is a refusal now
        done = results.refresh(page, names, root=page.resolve().parent)
    except (OSError, results.InputError) as error:
        return refused("results", error)
    print(f"{page}: {len(done)} section(s) written: {', '.join(done) or 'none'}")
    return 0
