"""Errors and warnings raised while reading catalogs.

A planner who mistypes one figure in a YAML file must be told exactly where, in one
line they can paste into an editor's "go to" box: ``file:line: field 'x': problem``.
Both classes therefore carry the file, the line and the field separately (so the window
can show them in a table) and format themselves the same way.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def display_path(path: str | os.PathLike[str]) -> str:
    """``path`` relative to the working directory when it lies below it.

    Messages are shorter and match what the user typed (``catalogs/servers/x.yaml``);
    paths elsewhere stay absolute so they remain unambiguous.
    """
    text = os.fspath(path)
    if not text:
        return text
    with contextlib.suppress(ValueError, OSError):  # elsewhere: keep it absolute
        text = str(Path(text).resolve().relative_to(Path.cwd().resolve()))
    return printable_text(text)


def printable_text(text: str) -> str:
    """``text`` safe to print on one line: a file name from a stranger's archive (or a
    tag in a stranger's file) may hold bytes that are not UTF-8, which would make
    ``print`` raise, or a line break, which would split a one-line message.  Such
    characters are shown as escapes."""
    if text.isprintable():
        return text
    return "".join(
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in text
    )


def format_location(file: str, line: int | None, field: str | None, message: str) -> str:
    """The one-line form shared by errors and warnings."""
    where = file or "<catalog entry>"
    if line is not None:
        where = f"{where}:{line}"
    if field:
        return f"{where}: field {field!r}: {message}"
    return f"{where}: {message}"


class CatalogError(Exception):
    """A catalog entry or file that cannot be used.

    ``line`` is 1-based (as editors count) or None when unknown, for instance for an
    entry re-parsed from a design snapshot, which has no file.
    """

    def __init__(
        self,
        message: str,
        file: str = "",
        line: int | None = None,
        field: str | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field

    def __str__(self) -> str:
        return format_location(self.file, self.line, self.field, self.message)


class CatalogEntryErrors(CatalogError):
    """Every problem found in one catalog entry, raised by ``parse_item``.

    A planner fixing a vendor's file wants all of an entry's bad fields in one run, so
    the parser checks every field and raises this once.  ``errors`` lists each problem
    as its own CatalogError (file, line, field), in file order; the exception itself
    carries the first one's message, file, line and field and prints exactly like it,
    so code that catches a CatalogError and shows ``str(exc)`` is unchanged.
    """

    def __init__(self, errors: Sequence[CatalogError]):
        if not errors:
            raise ValueError("CatalogEntryErrors needs at least one error")
        first = errors[0]
        super().__init__(first.message, first.file, first.line, first.field)
        self.errors: list[CatalogError] = list(errors)


def all_errors(error: CatalogError) -> list[CatalogError]:
    """The separate problems an error stands for: ``error.errors`` for an entry's
    :class:`CatalogEntryErrors`, else just ``[error]``."""
    return list(error.errors) if isinstance(error, CatalogEntryErrors) else [error]


class UnknownSlugError(CatalogError, KeyError):
    """A slug that is not in the catalog.

    It is both a KeyError (what ``catalog[slug]`` promises) and a CatalogError (what the
    loader and the command line report), so callers may catch either.
    """

    def __init__(self, slug: str, referenced_by: str = "", file: str = "", line: int | None = None):
        where = f" (referenced by {referenced_by!r})" if referenced_by else ""
        super().__init__(f"unknown catalog slug {slug!r}{where}", file=file, line=line)
        self.slug = slug

    def __str__(self) -> str:  # KeyError would otherwise print the repr of its argument
        return CatalogError.__str__(self)


@dataclass(frozen=True)
class CatalogWarning:
    """Something the user should fix, but which does not stop the item being used.

    Example: a NetBox device type without any power draw is loaded with 0 W so the
    design still opens, and this warning says why its power budget looks empty.
    """

    file: str
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        return format_location(self.file, self.line, self.field, self.message)


def shown_value(value: Any) -> str:
    """A value quoted for a message, cut short so a one-line error stays one line."""
    try:
        text = repr(value)
    except ValueError:  # an integer too long to print
        text = f"<{type(value).__name__} too long to show>"
    return text if len(text) <= 60 else text[:57] + "..."
