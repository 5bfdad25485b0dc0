"""Journey tests: the real application in a real X session (see xsession.py).

They skip, saying which program is missing, where Xvfb, openbox, xdotool or
ImageMagick's ``import`` is not installed (``bash .ci/setup --test`` installs them).
Screenshots go to ``JOURNEY_SHOTS`` when set (how the README's are retaken), else
into the test's temporary directory.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from xsession import XSession, missing_programs


@pytest.fixture
def xsession(tmp_path):
    missing = missing_programs()
    if missing:
        pytest.skip(f"journey tests need {', '.join(missing)} (bash .ci/setup --test)")
    session = XSession(tmp_path)
    try:
        yield session
    finally:
        session.close()


@pytest.fixture
def shots(tmp_path) -> Path:
    """Where screenshots go."""
    wanted = os.environ.get("JOURNEY_SHOTS")
    folder = Path(wanted) if wanted else tmp_path / "shots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
