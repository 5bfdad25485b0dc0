"""What a name or label may hold: the one test, with no imports, so every layer can use it.

The reasons for each limit are in :mod:`workbench.model.names`, which turns a verdict
into the model's EditError.  This module sits at the top of the package (like
:mod:`workbench.units`) because the catalog needs the same test for manufacturer and
model names, and the catalog is imported by the model, not the other way round.
"""

from __future__ import annotations

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
