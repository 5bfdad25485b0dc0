"""The one rule for names and labels: what a project file, a label printer, an Excel
cell and a slurm.conf line can all hold.

Every name a user types (device, rack, row, site, workload, network, storage tier,
design) and every label (serial, asset tag) passes here, and the file reader applies
the same test to what a file claims, so a name the model accepts can always be saved
and exported, and a file cannot slip in one the window would refuse.

Why each limit:
- **Printable only.** NUL ends strings in C consumers (Slurm, label printers); a line
  break splits a slurm.conf line or a CSV row; tabs and other control characters
  print as garbage on labels.
- **No bidirectional overrides or isolates** (U+202A–U+202E, U+2066–U+2069): they make
  a name display in a different order than it is stored ("Trojan Source"), so what an
  installer reads on a label would not be what the file says.
- **No lone surrogates**: they cannot be encoded as UTF-8, so SQLite and every export
  would refuse the design until the name is changed.
- **A length cap**: a name is printed on elevations, labels and sheet tabs; a pasted
  paragraph is a mistake, and a 1 MB name would slow every view that draws it.
"""

from __future__ import annotations

from workbench.model.errors import EditError
from workbench.text_rules import MAX_LABEL_CHARS, MAX_NAME_CHARS, text_problem

__all__ = ["MAX_LABEL_CHARS", "MAX_NAME_CHARS", "clean_label", "clean_name", "text_problem"]


def clean_name(value: object, what: str, *, limit: int = MAX_NAME_CHARS) -> str:
    """``value`` stripped, or EditError saying why it cannot be a ``what`` name.

    ``what`` is the thing named ("device", "rack", "row"...), used as "A rack name ...".
    """
    text = value.strip() if isinstance(value, str) else value
    problem = text_problem(text, limit=limit)
    if problem is not None:
        raise EditError(f"{_article(what)} {what} name {problem}.")
    assert isinstance(text, str)
    return text


def clean_label(value: object, what: str, *, limit: int = MAX_LABEL_CHARS) -> str:
    """Like :func:`clean_name` for optional labels (serials, asset tags): empty is
    allowed and clears the field."""
    text = value.strip() if isinstance(value, str) else value
    problem = text_problem(text, limit=limit, blank_ok=True)
    if problem is not None:
        raise EditError(f"{what[:1].upper()}{what[1:]} {problem}.")
    assert isinstance(text, str)
    return text


def _article(word: str) -> str:
    return "An" if word[:1].lower() in "aeiou" else "A"
