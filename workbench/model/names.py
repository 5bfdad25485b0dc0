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

#: The longest name accepted.  Rack elevations and labels show far less; 128 leaves
#: room for generated names ("gpu-su12-r04-u38-b") and long descriptive row names.
MAX_NAME_CHARS = 128

#: The longest serial or asset tag: real ones are far shorter, and the limit stops a
#: pasted paragraph from landing in a field printed on labels.
MAX_LABEL_CHARS = 64

#: Characters that reorder how text displays without being visible themselves.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")


def text_problem(
    value: object, *, limit: int = MAX_NAME_CHARS, blank_ok: bool = False
) -> str | None:
    """Why ``value`` cannot be a name (or label), or None when it can.

    The value is judged as given: callers strip surrounding whitespace first when the
    user typed it, while the file reader judges what is stored.
    """
    if not isinstance(value, str):
        return f"must be text, not {type(value).__name__}"
    if not value.strip():
        return None if blank_ok else "cannot be empty"
    if len(value) > limit:
        return f"is {len(value):,} characters long; at most {limit} are allowed"
    for char in value:
        if "\ud800" <= char <= "\udfff":
            return "contains a broken character (a lone UTF-16 surrogate) that cannot be saved"
        if char in _BIDI_CONTROLS:
            return (
                f"contains the invisible direction control U+{ord(char):04X}, which makes the "
                "name display differently from how it is stored"
            )
    if not value.isprintable():
        return "may not contain tabs, line breaks or other control characters"
    return None


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
