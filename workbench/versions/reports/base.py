"""What every node-report parser shares: the error, the reading, and the text checks.

The files come from hundreds of machines through scripts nobody in the room wrote, so
each one is treated as untrusted text: it must be UTF-8 without NUL bytes, no larger
than a tool's output can be, and end the way the tool ends its output (with a line
break), because a copy cut off by a full disk or a killed ``ssh`` otherwise looks like
a shorter, valid report and would record a wrong version without a word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from workbench.model.names import text_problem

#: The largest report read.  ``nvidia-smi -q -x`` of a 16-GPU node is about 0.5 MB; a
#: file several times that is not one of these tools' outputs.
MAX_REPORT_BYTES = 4 * 1024 * 1024

#: The longest value recorded: 16 GPU serials with separators fit; a page of text
#: does not belong in one cell of the version matrix.
MAX_VALUE_CHARS = 512

#: How tools print "no value here"; such fields are left out rather than recorded, so a
#: board without a readable serial does not look like one whose serial changed.
MISSING = frozenset(
    {
        "",
        "n/a",
        "[n/a]",
        "not supported",
        "[not supported]",
        "not specified",
        "unknown",
        "[unknown error]",
    }
)

#: Joins the distinct values of one layer within one node (a node mixing two GPU models
#: or two NIC firmware releases): sorted, so the same mix always reads the same.
MIXED_JOIN = " + "


class ReportError(Exception):
    """A report that cannot be read: which file, which line (1-based; None for the
    whole file) and what is wrong, in one line."""

    def __init__(self, file: str, line: int | None, message: str):
        self.file = file
        self.line = line
        self.message = message
        where = f"{file}, line {line}" if line is not None else file
        super().__init__(f"{where}: {message}")


class Reading(NamedTuple):
    """One value a report gives: layer key, value text, the line it was read on."""

    layer: str
    value: str
    line: int | None


def report_lines(text: str, file: str) -> list[str]:
    """The lines of a line-oriented report, without their line breaks.

    Only ``\n`` (and ``\r\n``) end a line, as in the tools' output and the user's
    editor, so line numbers match what they see.  Refuses a file whose last line has no
    line break: every tool read here ends its output with one, so a missing one means
    the copy stopped mid-line.
    """
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if lines[-1]:
        raise ReportError(
            file,
            len(lines),
            "ends in the middle of a line (no line break after the last line): the file "
            "looks cut off; collect it again",
        )
    del lines[-1]
    return lines


def first_content_line(lines: list[str]) -> tuple[int, str] | None:
    """(1-based number, text) of the first line that is not blank."""
    for number, line in enumerate(lines, start=1):
        if line.strip():
            return number, line
    return None


def check_value(file: str, line: int | None, what: str, value: str) -> str:
    """``value`` when it can be stored and shown, else ReportError naming ``what``."""
    problem = text_problem(value, limit=MAX_VALUE_CHARS)
    if problem is not None:
        raise ReportError(file, line, f"the {what} {problem}")
    return value


def is_missing(value: str) -> bool:
    """True for the placeholders tools print instead of a value (``[N/A]`` ...)."""
    return value.strip().lower() in MISSING


_NATURAL = re.compile(r"(\d+)")


def natural_key(value: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders ``9`` before ``10`` inside otherwise equal text."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part) for part in _NATURAL.split(value) if part
    )


def join_distinct(values: Iterable[str]) -> str:
    """The distinct values, sorted naturally, joined with :data:`MIXED_JOIN`."""
    distinct = set(values)
    if len(distinct) == 1:  # the usual node: all its GPUs alike
        return distinct.pop()
    return MIXED_JOIN.join(sorted(distinct, key=natural_key))


def _check_all(file: str, what: str, joined: str, found: Sequence[tuple[str, int | None]]) -> None:
    """Check ``joined`` (made of ``found``'s values); when it fails, name the value and
    line at fault.  One check in the usual case instead of one per GPU."""
    if text_problem(joined, limit=MAX_VALUE_CHARS) is None:
        return
    for value, line in found:
        check_value(file, line, what, value)
    check_value(file, found[0][1], what, joined)  # each is fine: the whole is too long


def combine(file: str, layer: str, found: Sequence[tuple[str, int | None]]) -> Reading:
    """One reading from the values several GPUs or adapters of a node gave, in report
    order: the distinct values joined (see :func:`join_distinct`), on the line of the
    first; a bad value is reported on its own line."""
    value = join_distinct(v for v, _ in found)
    _check_all(file, layer, value, found)
    return Reading(layer, value, found[0][1])


def serial_list(file: str, found: Sequence[tuple[str, int | None]]) -> Reading:
    """The GPU serials of a node, sorted (a set of boards: GPU numbering may change
    with a driver, the boards do not), joined with ``", "``."""
    value = ", ".join(sorted(v for v, _ in found))
    _check_all(file, "gpu_serials", value, found)
    return Reading("gpu_serials", value, found[0][1])


_NUMBER = re.compile(r"^\d+(\.\d+)?$")


def quantity(file: str, line: int | None, what: str, raw: str, unit: str) -> str:
    """The number in ``raw`` (``"81559 MiB"``, ``"700.00 W"`` or the bare number that
    ``nounits`` prints), trailing decimal zeros dropped so ``700.00`` reads ``700``."""
    text = raw.strip()
    if text.endswith(unit):
        text = text[: -len(unit)].strip()
    if not _NUMBER.match(text):
        raise ReportError(file, line, f"the {what} {raw.strip()!r} is not a number of {unit}")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def snippet(line: str, limit: int = 60) -> str:
    """``line`` shortened for an error message, quoted."""
    text = line.strip()
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
