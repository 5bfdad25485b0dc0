"""The one rule for a file name the workbench proposes (Save As, Print, Export, one
SVG per page): a name every file system a planner's USB stick may carry accepts.

FAT and NTFS refuse ``< > : " / \\ | ? *`` and control characters, drop trailing dots and
spaces, and reserve the DOS device names (``CON``, ``NUL``, ``COM1`` ...) whatever the
extension; a design named "Hall 3: phase 1" must not propose ``Hall 3: phase 1.dcwb``.
"""

from __future__ import annotations

import re

#: Characters FAT and NTFS refuse in a name (control characters are refused too).
REFUSED = '<>:"/\\|?*'

_RESERVED = {"CON", "PRN", "AUX", "NUL"} | {f"{p}{n}" for p in ("COM", "LPT") for n in range(1, 10)}
_BAD = re.compile(r"[<>:\"/\\|?*\x00-\x1f\x7f]+")

#: Long enough for a design's name, short enough to leave room for a folder path.
MAX_STEM = 80


def portable_stem(text: str, fallback: str = "design") -> str:
    """``text`` as the stem of a file name that FAT, NTFS and ext4 all accept:
    refused characters become "-", runs of "-" and spaces collapse, no trailing dot or
    space, not a reserved device name; ``fallback`` when nothing is left."""
    stem = _BAD.sub("-", text)
    stem = re.sub(r"-{2,}", "-", re.sub(r"\s*-\s*", "-", stem)).strip(" -.")
    stem = stem[:MAX_STEM].rstrip(" .")
    if not stem:
        return fallback
    if stem.split(".")[0].upper() in _RESERVED:
        stem = f"{stem}-file"
    return stem


__all__ = ["MAX_STEM", "REFUSED", "portable_stem"]
