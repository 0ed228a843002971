"""Sphinx configuration of the orca_ros documentation: pages in MyST Markdown.

Build: sphinx-build -W --keep-going -b html doc <out> (packages: sphinx, myst-parser).
"""

project = "orca_ros"
author = "orca_ros maintainers"
copyright = "orca_ros maintainers, Apache-2.0"

extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
myst_enable_extensions = ["dollarmath"]  # $...$ and $$...$$ equations
myst_heading_anchors = 3  # links to headings: page.md#heading-text

exclude_patterns = ["_build"]
html_theme = "alabaster"
