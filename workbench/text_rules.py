"""What each stored text may hold: the one definition, with no imports, so every layer
can use it.

Every text a project file keeps is described once, in :data:`STORED_TEXT`, by its table
and column: how long it may be, whether it may be blank and whether it may span lines.
The model's edits (:mod:`workbench.model.names` turns a verdict into an EditError naming
the field), the window's forms (which call the edits), every import and the file reader
(:mod:`workbench.store.values`, :mod:`workbench.store.version_tables` ...) all ask
:func:`field_problem`, so whatever an edit accepts the file keeps and reopens, and
whatever the reader would refuse the edit refuses first, naming the field.

This module sits at the top of the package (like :mod:`workbench.units`) because the
catalog needs the same test for manufacturer and model names, and the catalog is
imported by the model, not the other way round.

Why each limit:

- **Printable only** (names and labels).  NUL ends strings in C consumers (Slurm,
  label printers); a line break splits a slurm.conf line or a CSV row; tabs and other
  control characters print as garbage on labels.
- **Notes may span lines** (tabs and line breaks), but hold no other control character:
  NUL and the C0 controls are refused by spreadsheets (openpyxl) and PDF text.
- **No bidirectional overrides or isolates** (U+202A–U+202E, U+2066–U+2069): they make
  text display in a different order than it is stored ("Trojan Source").
- **No lone surrogates**: they cannot be encoded as UTF-8, so SQLite and every export
  would refuse the design.
- **Invisible format characters** (zero-width space U+200B, soft hyphen, BOM ...) are
  refused in names: two names that look the same would be different names.  The
  zero-width joiner and non-joiner (U+200D, U+200C) are allowed: emoji sequences (a
  family emoji) and Indic and Persian scripts need them to be written at all.
- **Length caps**, NetBox's where a name goes to NetBox (a device name 64 characters, a
  rack or row name 100, a serial or asset tag 50), so an export is never refused.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

#: The longest name accepted where no narrower rule applies.  Rack elevations and labels
#: show far less; 128 leaves room for long descriptive names.
MAX_NAME_CHARS = 128

#: NetBox's limits (``dcim.Device.name`` 64, ``dcim.Rack.name`` and ``dcim.Location``
#: 100, ``serial`` and ``asset_tag`` 50): a name the model accepts is one NetBox takes.
MAX_DEVICE_NAME_CHARS = 64
MAX_RACK_NAME_CHARS = 100

#: The longest serial or asset tag (NetBox's 50).
MAX_LABEL_CHARS = 50

#: The longest free-text note (a device's notes, a waiver's or a revision's note): a
#: paragraph or two; a pasted megabyte is a mistake that slows every view showing it.
MAX_NOTE_CHARS = 4096

#: Characters that reorder how text displays without being visible themselves.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")

#: Invisible characters that are part of how some text is written (see the docstring).
_JOINERS = frozenset("\u200c\u200d")

#: What a multi-line note may hold besides printable characters.
_NOTE_CONTROLS = frozenset("\t\n\r")


def text_problem(
    value: object,
    *,
    limit: int = MAX_NAME_CHARS,
    blank_ok: bool = False,
    multiline: bool = False,
) -> str | None:
    """Why ``value`` cannot be stored as a name, label or (``multiline``) note, or None.

    The value is judged as given: callers strip surrounding whitespace first when the
    user typed it, while the file reader judges what is stored.
    """
    if not isinstance(value, str):
        return f"must be text, not {type(value).__name__}"
    if not value.strip():
        return None if blank_ok else "cannot be empty"
    if len(value) > limit:
        return f"is {len(value):,} characters long; at most {limit:,} are allowed"
    if value.isprintable():  # the common case, decided in C
        return None
    if all(char in _JOINERS or char.isspace() for char in value):
        return None if blank_ok else "cannot be empty"
    for char in value:
        problem = _char_problem(char, multiline)
        if problem is not None:
            return problem
    return None


def _char_problem(char: str, multiline: bool) -> str | None:
    """Why one character that Python does not call printable cannot be stored."""
    if char.isprintable() or char in _JOINERS or (multiline and char in _NOTE_CONTROLS):
        return None
    code = f"U+{ord(char):04X}"
    if "\ud800" <= char <= "\udfff":
        return "contains a broken character (a lone UTF-16 surrogate) that cannot be saved"
    if char in _BIDI_CONTROLS:
        return (
            f"contains the invisible direction control {code}, which makes "
            "the text display differently from how it is stored"
        )
    category = unicodedata.category(char)
    label = unicodedata.name(char, "").lower()
    if category == "Cf":
        return (
            f"contains the invisible character {code} ({label}), which makes two texts "
            "that look the same differ"
        )
    if category == "Zs":
        if multiline:
            return None
        return f"contains the unusual space {code} ({label}); use an ordinary space"
    if category in ("Co", "Cn"):
        return f"contains {code}, which is not an assigned character"
    if multiline:
        return f"may not contain the control character {code} (line breaks and tabs may)"
    return f"may not contain tabs, line breaks or other control characters (found {code})"


@dataclass(frozen=True)
class TextRule:
    """What one stored text field may hold, and the words a message names it by."""

    #: "device name", "waiver note": how messages name the field.
    what: str
    limit: int = MAX_NAME_CHARS
    blank_ok: bool = False
    multiline: bool = False

    def problem(self, value: object) -> str | None:
        """Why ``value`` (as stored: already stripped) cannot be kept, or None."""
        return text_problem(
            value, limit=self.limit, blank_ok=self.blank_ok, multiline=self.multiline
        )


_ID = TextRule("id")
_STAMP = TextRule("time", 64, blank_ok=True)
_WHO = TextRule("author", 128, blank_ok=True)
_IMPORT = TextRule("import id", 64)


def _note(what: str) -> TextRule:
    return TextRule(what, MAX_NOTE_CHARS, blank_ok=True, multiline=True)


#: Every free-text column of a project file, ``"table.column"`` -> its rule (``[]``: each
#: value of a JSON mapping stored in that column).  Columns
#: that hold a word of a vocabulary, a reference to an id, a number or JSON are checked
#: by their own homes; tests/test_stored_text.py proves every text column is one or the
#: other.
STORED_TEXT: dict[str, TextRule] = {
    "meta.name": TextRule("design name"),
    "sites.id": _ID,
    "sites.name": TextRule("site name", MAX_RACK_NAME_CHARS),
    "rows.id": _ID,
    "rows.name": TextRule("row name", MAX_RACK_NAME_CHARS),
    "racks.id": _ID,
    "racks.name": TextRule("rack name", MAX_RACK_NAME_CHARS),
    "devices.id": _ID,
    "devices.name": TextRule("device name", MAX_DEVICE_NAME_CHARS),
    "devices.serial": TextRule("serial", MAX_LABEL_CHARS, blank_ok=True),
    "devices.asset_tag": TextRule("asset tag", MAX_LABEL_CHARS, blank_ok=True),
    "devices.notes": _note("device note"),
    "networks.id": _ID,
    "networks.name": TextRule("network name"),
    "links.id": _ID,
    "links.a_port": TextRule("port name"),
    "links.b_port": TextRule("port name"),
    "storage_tiers.id": _ID,
    "storage_tiers.name": TextRule("storage tier name"),
    "storage_tiers.filesystem": TextRule("file system", blank_ok=True),
    "teams.id": _ID,
    "teams.name": TextRule("team name", 63),
    "workloads.id": _ID,
    "workloads.name": TextRule("workload name"),
    "workloads.framework": TextRule("software stack", 64, blank_ok=True),
    "software_stacks.id": _ID,
    "software_stacks.name": TextRule("software stack name"),
    "software_stacks.components[]": TextRule("component version", 64),
    "waivers.rule": TextRule("rule"),
    "waivers.object_id": TextRule("waived object"),
    "waivers.note": _note("waiver note"),  # the edit also wants one: AddWaiver
    "waivers.created_at": _STAMP,
    "baselines.id": TextRule("baseline id", 64),
    "baselines.name": TextRule("baseline name"),
    "baseline_revisions.versions[]": TextRule("version", 64),
    "baseline_revisions.note": _note("revision note"),
    "baseline_revisions.author": _WHO,
    "baseline_revisions.created": _STAMP,
    "version_assignments.id": TextRule("assignment id", 64),
    "version_assignments.baseline_id": TextRule("baseline id", 64),
    "version_assignments.pattern": TextRule("node pattern"),
    "observations.id": TextRule("observation id", 64),
    "observations.node": TextRule("node name"),
    "observations.value": TextRule("observed value", 1024),
    "observations.source": TextRule("source", 4096),
    "observations.observed_at": TextRule("time", 64),
    "observations.imported_by": _WHO,
    "observations.import_id": _IMPORT,
    "acceptance_results.node": TextRule("node name"),
    "acceptance_results.item": TextRule("checklist item", 64),
    "acceptance_results.measured": TextRule("measured value", 256, blank_ok=True),
    "acceptance_results.source": TextRule("source", 1024),
    "acceptance_results.measured_at": _STAMP,
    "acceptance_results.imported_at": TextRule("time", 64),
    "acceptance_results.imported_by": _WHO,
    "acceptance_results.import_id": _IMPORT,
    "captures.source": TextRule("source", 1024),
    "captures.local_device": TextRule("device name"),
    "captures.local_port": TextRule("port name", 64),
    "captures.remote_device": TextRule("device name"),
    "captures.remote_port": TextRule("port name", 64, blank_ok=True),
    "captures.captured_at": _STAMP,
    "captures.imported_at": TextRule("time", 64),
    "captures.imported_by": _WHO,
    "captures.import_id": _IMPORT,
}


def field_problem(key: str, value: object) -> str | None:
    """Why ``value`` cannot be stored in the column ``key`` (``"devices.name"``), or None."""
    return STORED_TEXT[key].problem(value)


# -- names a scheduler takes as host names ---------------------------------------------------
#
# A GPU server's name is the host name Slurm's slurm.conf and Kubernetes' Node objects
# carry.  The model keeps the names users type (``gpu-server-A01-u2``, the default naming
# pattern's capitals included: the window shows them), and the exports map each one to a
# host name with :func:`node_hostname`: lowercased, every other character no scheduler
# takes turned into '-'.  The mapping is the one home of the hostname rule: both exports
# use it (and say so in their files), and the rule NODE-HOSTNAME (``workbench check``)
# warns only where it fails: a name it cannot carry, or two servers that map to one
# host name (an export refuses both, naming the two devices).

#: A Slurm NodeName: letters, digits, '.', '_', '-' (no brackets, commas, spaces, '=').
SLURM_NODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")

#: A Kubernetes Node name: an RFC 1123 subdomain (lowercase, 253 characters at most).
K8S_NODE_NAME = re.compile(
    r"(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
)

#: Any character a host name both schedulers take may not hold (after lowercasing).
_NOT_IN_HOSTNAME = re.compile(r"[^a-z0-9.-]")

#: What the mapping does, in words, for the exports' notes and the rule's messages.
HOSTNAME_MAPPING_WORDS = (
    "host names are the design's device names lowercased, every character other than "
    "a-z, 0-9, '.' and '-' turned into '-'"
)


def node_hostname(name: str) -> str | None:
    """The host name the Slurm and Kubernetes exports give the GPU server the design
    calls ``name``, or None when even the mapping leaves no name both take (empty, a
    '-' or '.' at either end, '..', longer than 128 characters)."""
    mapped = _NOT_IN_HOSTNAME.sub("-", name.lower())
    ok = SLURM_NODE_NAME.fullmatch(mapped) and K8S_NODE_NAME.fullmatch(mapped)
    return mapped if ok else None
