"""The one exception subcommands raise for a user-facing failure.

It lives in its own module (not in ``main``) so that running ``python -m
workbench.cli.main`` — where ``main`` becomes ``__main__`` — still catches the same class
the subcommands raise.
"""

from __future__ import annotations


class CliError(Exception):
    """A failure to report as one line on stderr with exit status ``code``."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code
