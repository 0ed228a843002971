"""The package's console scripts (setup.py's entry points), run with this interpreter."""

import re
import sys
from typing import Dict, List, Tuple

from helpers.paths import REPO


def console_scripts() -> Dict[str, Tuple[str, str]]:
    """executable -> (module, function), as setup.py installs them."""
    text = (REPO / "setup.py").read_text()
    return {name: (module, function)
            for name, module, function in re.findall(r'"([\w-]+) = ([\w.]+):(\w+)"', text)}


SCRIPTS = console_scripts()


def command(executable: str, *arguments: str) -> List[str]:
    """What the installed console script runs, with this interpreter."""
    module, function = SCRIPTS[executable]
    code = f"import sys; from {module} import {function}; sys.exit({function}())"
    return [sys.executable, "-c", code, *arguments]
