"""Slurm hostlist expressions: ``gpu[00001-00128]`` instead of 128 names.

A 12,500-node cluster written one name per line is unreadable and slow to parse, and
Slurm's own tools print ranges anyway, so every node list the Slurm exporter writes goes
through :func:`compress`.  The rules are Slurm's (``src/common/hostlist.c``):

- a name is a prefix plus a trailing run of digits; names sharing the prefix and the
  digit count are merged into ``prefix[lo-hi,...]``;
- the digit count is kept exactly (``gpu[00001-00128]``), because Slurm pads every
  number of a range to the width of its low bound; names with another width of the
  same prefix (``gpu9`` next to ``gpu10``) stay in their own group rather than risk a
  range that expands to different names;
- names without trailing digits are written as they are.

:func:`expand` is the inverse, for the tests and for anyone checking a file by hand.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_TRAILING_DIGITS = re.compile(r"^(.*?)(\d+)$")
_BRACKET = re.compile(r"^(.*?)\[([^\]]*)\](.*)$")


def _split(name: str) -> tuple[str, str] | None:
    found = _TRAILING_DIGITS.match(name)
    if found is None:
        return None
    return found.group(1), found.group(2)


def _ranges(numbers: list[int], width: int) -> str:
    """``1,2,3,5`` at width 2 → ``01-03,05``."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    parts = []
    for low, high in runs:
        first, last = str(low).zfill(width), str(high).zfill(width)
        parts.append(first if low == high else f"{first}-{last}")
    return ",".join(parts)


def compress(names: Iterable[str]) -> str:
    """The names as one Slurm hostlist expression, groups in first-seen order.

    Duplicates are dropped; within a group the numbers are sorted, so the result is the
    same whatever order the names came in (a hostlist is a set to Slurm).
    """
    groups: dict[tuple[str, int], set[int]] = {}
    plain: dict[str, None] = {}
    order: list[tuple[str, int] | str] = []
    for name in names:
        split = _split(name)
        if split is None:
            if name not in plain:
                plain[name] = None
                order.append(name)
            continue
        prefix, digits = split
        key = (prefix, len(digits))
        if key not in groups:
            groups[key] = set()
            order.append(key)
        groups[key].add(int(digits))
    parts: list[str] = []
    for entry in order:
        if isinstance(entry, str):
            parts.append(entry)
            continue
        prefix, width = entry
        numbers = sorted(groups[entry])
        if len(numbers) == 1:
            parts.append(f"{prefix}{str(numbers[0]).zfill(width)}")
        else:
            parts.append(f"{prefix}[{_ranges(numbers, width)}]")
    return ",".join(parts)


def _top_level_items(expression: str) -> list[str]:
    """Split on the commas that are outside brackets."""
    items: list[str] = []
    depth = 0
    current: list[str] = []
    for char in expression:
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        if char == "," and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(char)
    if current:
        items.append("".join(current))
    return [item for item in items if item]


def expand(expression: str) -> list[str]:
    """Every name of a hostlist expression, in order (one bracket per item)."""
    names: list[str] = []
    for item in _top_level_items(expression.strip()):
        found = _BRACKET.match(item)
        if found is None:
            names.append(item)
            continue
        prefix, body, suffix = found.groups()
        for part in body.split(","):
            low, _, high = part.partition("-")
            width = len(low)
            for number in range(int(low), int(high or low) + 1):
                names.append(f"{prefix}{str(number).zfill(width)}{suffix}")
    return names
