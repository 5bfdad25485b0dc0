"""The comparison table as aligned text, for ``workbench compare`` and the PDF page.

Best values carry ``*`` and worst ``!`` after the number, so the marks survive a
terminal without colour and a pasted e-mail; cells with no figure read "n/a".
"""

from __future__ import annotations

from workbench.planning.scenarios.table import CompareRow, CompareTable

BEST, WORST = "*", "!"


def cell(row: CompareRow, index: int) -> str:
    """One value of ``row`` as text, without its mark."""
    value = row.values[index]
    if value is None:
        return "n/a"
    if isinstance(value, int) or float(value).is_integer() and abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:,.2f}" if abs(value) < 10 else f"{value:,.1f}"


def mark(row: CompareRow, index: int) -> str:
    """``*`` for a best column of ``row``, ``!`` for a worst, else a blank."""
    if index in row.best:
        return BEST
    if index in row.worst:
        return WORST
    return " "


def text_lines(table: CompareTable) -> list[str]:
    """The table as aligned lines: a header, one line per row, then the notes."""
    labels = [f"{r.label} ({r.unit})" if r.unit else r.label for r in table.rows]
    first = max(len(x) for x in [*labels, "Scenario"])
    cells = [[cell(r, i) + mark(r, i) for i in range(len(table.names))] for r in table.rows]
    widths = [max(len(name), *(len(c[i]) for c in cells)) for i, name in enumerate(table.names)]
    lines = [
        "  ".join(
            [
                f"{'Scenario':<{first}}",
                *(f"{n:>{w}}" for n, w in zip(table.names, widths, strict=True)),
            ]
        )
    ]
    lines.append("-" * len(lines[0]))
    for label, row in zip(labels, cells, strict=True):
        lines.append(
            "  ".join(
                [f"{label:<{first}}", *(f"{c:>{w}}" for c, w in zip(row, widths, strict=True))]
            )
        )
    lines.append("")
    lines.append(f"{BEST} best, {WORST} worst where a lower or higher value is better")
    lines.extend(table.notes)
    return lines


def page_rows(
    table: CompareTable,
) -> list[tuple[str, tuple[str, ...], tuple[int, ...], tuple[int, ...], bool]]:
    """Each row as printed on the PDF page: (label with unit, cell texts, best, worst,
    differs); the caller wraps them in :class:`workbench.render.compare_page.CompareRowText`
    (render and planning share a layer, so neither imports the other)."""
    return [
        (
            f"{r.label} ({r.unit})" if r.unit else r.label,
            tuple(cell(r, i) for i in range(len(table.names))),
            r.best,
            r.worst,
            r.differs,
        )
        for r in table.rows
    ]
