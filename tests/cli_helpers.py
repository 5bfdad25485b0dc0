"""Helpers shared by the command-line tests (imported as a plain module, like
``store_designs``)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path


def run(*args: str) -> subprocess.CompletedProcess:
    """The real console entry point in a child process (no display, no Qt needed)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def digest(path: Path) -> str:
    """The file's SHA-256, to prove a command left it untouched."""
    return hashlib.sha256(path.read_bytes()).hexdigest()
