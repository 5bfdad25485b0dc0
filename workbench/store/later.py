"""Opening a project file in two parts: everything but its links, then the links.

Why: at 100,000 GPUs a file holds 443,216 links, and reading them is well over half of
opening it (1.4-1.5 s of a 2.5 s start here), while the window's first frame draws
nothing a link decides: racks, devices, the status strip's counts and loads.  So the
window can open the design without them, draw, and read them between its events
(:meth:`LinksToRead.step`, one chunk of rows each), holding back meanwhile everything
that reads links (the rules, edits, saving: ``workbench.ui.shell.link_reading``).

Nothing is accepted unchecked.  The first part is checked as a design without links
(every value of every other table), which is what the first frame draws.  When the
links are in, :meth:`LinksToRead.finish` confirms the integrity check and checks the
whole design again, exactly as :func:`~workbench.store.reader.open_design` does, so a
file refused there is refused here too, with the same kind of message naming the file.
What differs is only when: a bad link is found after the first frame, and the window
then drops the design it showed (it was never edited: nothing is lost).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any, NoReturn

from workbench.model.design import Design
from workbench.store import binding, header
from workbench.store.reader import (
    SlugLookup,
    _Later,
    _read_leaving,
    _refusal,
    _resolve_slugs,
    _rows,
    streaming,
)
from workbench.store.values import Order, check_values, proven_ids

#: The tables read after the first part (the links alone: the bulk of a large file).
LATER = ("links",)


def open_design_in_parts(
    path: str | os.PathLike[str], catalog: SlugLookup | None = None
) -> tuple[Design, LinksToRead]:
    """The design saved at ``path`` without its links, and what reads them.

    Raises :class:`~workbench.store.errors.ProjectFileError` as ``open_design`` does for
    a file whose other tables are bad.  The design must not be shown as the file's
    until :meth:`LinksToRead.finish` has returned (its links are missing till then)."""
    file = Path(path)
    conn, integrity = header.load_checking(file, proven_ids)
    try:
        header.check(file, conn, integrity)
        with binding.collector_paused():
            design, order, rest = _read_leaving(file, conn, LATER)
        _resolve_slugs(design, catalog)
        with binding.collector_paused():
            check_values(file, design, order, {})
        # Inside: counting the links reads the copy's pages, which may be damaged.
        return design, LinksToRead(file, conn, integrity, design, order, rest)
    except BaseException as exc:
        _refuse(file, conn, integrity, exc)


def _refuse(
    file: Path, conn: sqlite3.Connection, integrity: header.Integrity, exc: BaseException
) -> NoReturn:
    """Raise the refusal of ``file`` that ``exc`` (raised while reading it) calls for,
    as :func:`~workbench.store.reader.design_from` words it: the integrity check's
    message when the file is damaged (why its rows failed), else ``exc``'s own, a
    SQLite error as the damage it is; the copy closed and the check stopped first."""
    try:
        if isinstance(exc, Exception):  # an interrupt is not turned into a refusal
            integrity.confirm()
        if isinstance(exc, sqlite3.DatabaseError | UnicodeDecodeError):
            raise _refusal(file, exc) from exc
        raise exc
    finally:
        conn.close()
        integrity.cancel()


class LinksToRead:
    """The links of a design opened by :func:`open_design_in_parts`, still in the file's
    in-memory copy: read a chunk at a time (:meth:`step`), then checked with the whole
    design (:meth:`finish`).  Either may raise ``ProjectFileError``; after that, or
    after :meth:`cancel`, the design is not the file's and must be dropped."""

    def __init__(
        self,
        file: Path,
        conn: sqlite3.Connection,
        integrity: header.Integrity,
        design: Design,
        order: Order,
        rest: _Later,
    ) -> None:
        self.file = file
        self._conn: sqlite3.Connection | None = conn
        self._integrity = integrity
        self._design = design
        self._order = order
        self._binding = binding.BINDINGS["links"]
        #: Rows to read (for a progress figure), counted by SQLite on its B-tree.
        self.total: int = conn.execute('SELECT count(*) FROM "links"').fetchone()[0]
        #: Links read so far.
        self.read = 0
        self._pools = rest.pools
        self._steps = streaming(file, conn, self._binding, rest.loads, rest.pools)
        self._result: tuple[Any, list[Any], list[Any] | None] | None = None

    @property
    def done(self) -> bool:
        """True once every row has been read (:meth:`finish` still checks them)."""
        return self._result is not None

    def step(self) -> bool:
        """Read the next chunk of rows; True when there are none left."""
        if self._result is not None:
            return True
        try:
            self.read = next(self._steps)
        except StopIteration as end:
            self._result = end.value
        except BaseException as exc:
            self._fail(exc)
        return self._result is not None

    def finish(self) -> Design:
        """Read what is left, put the links into the design, confirm the file's
        integrity check and check every value as ``open_design`` does; the design,
        now the file's."""
        self.assemble()
        return self.check()

    def assemble(self) -> None:
        """Read what is left, confirm the file's integrity check, close the file's copy
        and put the links into the design: the part of :meth:`finish` that must run on
        the thread that read the rows (the copy's connection belongs to it)."""
        while not self.step():
            pass
        assert self._result is not None
        if self._conn is None:  # assembled already
            return
        seqs, objects, ids = self._result
        try:
            self._integrity.confirm()
            self._conn.close()
            self._conn = None
            self._design.links = objects  # its index is replaced by check()
            self._order["links"] = _rows(self._binding, objects, seqs, ids, self._pools)
        except BaseException as exc:
            self._fail(exc)

    def check(self) -> Design:
        """Check every value of the assembled design as ``open_design`` does, then give
        it an index built with its links; the design, now the file's.

        It only reads the design and the rows, so it may run on another thread while
        nothing edits them (the window's edits wait for it); the index built without
        links serves until the new one replaces it, whole (built again on the main
        thread it was a block of ~45 ms at 100,000 GPUs)."""
        assert self._result is not None and self._conn is None, "assemble() first"
        try:
            with binding.collector_paused():
                check_values(self.file, self._design, self._order, self._integrity.proven)
                index = self._design.new_index()
        except BaseException as exc:
            self._fail(exc)
        self._integrity.cancel()
        self._design.reindex(index)
        return self._design

    def cancel(self) -> None:
        """Stop: the design is dropped (the window closed, or another was opened)."""
        self._steps.close()
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self._integrity.cancel()

    def _fail(self, exc: BaseException) -> NoReturn:
        """Stop reading and raise the refusal ``exc`` calls for (see :func:`_refuse`)."""
        self._steps.close()
        conn, self._conn = self._conn, None
        if conn is None:  # the copy was closed already: the refusal alone is wanted
            conn = sqlite3.connect(":memory:")
        _refuse(self.file, conn, self._integrity, exc)
