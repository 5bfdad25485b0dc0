"""The bundled sample design, shipped as a project file beside this module.

Building the sample from its template on every start took a third of the window's cold
start (placing every port of four fabrics); opening the saved file takes ~15 ms.  The
file is what the template builds from the shipped catalog, and a test
(``tests/test_bundled_sample.py``) compares the two, so it cannot drift: after a change
to the template or the shipped catalog, write it again with

    .venv/bin/python -m workbench.templates.bundled
"""

from __future__ import annotations

import sys
from pathlib import Path

from workbench.model import Design

#: The sample, as the template builds it from the shipped catalog.
SAMPLE_FILE = Path(__file__).with_name("sample.dcwb")


def bundled_sample() -> Design:
    """The sample design read from :data:`SAMPLE_FILE`, or built from its template when
    the file is missing or cannot be read (a damaged install still starts)."""
    from workbench.store import ProjectFileError, open_design

    try:
        return open_design(SAMPLE_FILE)
    except (ProjectFileError, OSError):
        from workbench.templates.builder import sample_design

        return sample_design()


def write_sample(path: Path = SAMPLE_FILE) -> Path:
    """Build the sample from its template and the shipped catalog and save it."""
    from workbench.store import save_design
    from workbench.templates.builder import sample_design

    save_design(sample_design(), path)
    return path


if __name__ == "__main__":
    print(write_sample(Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE_FILE))
