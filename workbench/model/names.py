"""The model's side of the one rule for stored text (:mod:`workbench.text_rules`).

Every name a user types (device, rack, row, site, workload, network, storage tier,
baseline, design), every label (serial, asset tag) and every note passes here on its
way into the model, and the file reader applies the same rule (``STORED_TEXT``) to
what a file claims, so a value an edit accepts is always saved and reopened, and a file
cannot slip in one the window would refuse.  The reasons for each limit are in
:mod:`workbench.text_rules`.
"""

from __future__ import annotations

from workbench.model.errors import EditError
from workbench.text_rules import (
    MAX_DEVICE_NAME_CHARS,
    MAX_LABEL_CHARS,
    MAX_NAME_CHARS,
    MAX_NOTE_CHARS,
    MAX_RACK_NAME_CHARS,
    STORED_TEXT,
    TextRule,
    text_problem,
)

__all__ = [
    "MAX_DEVICE_NAME_CHARS",
    "MAX_LABEL_CHARS",
    "MAX_NAME_CHARS",
    "MAX_NOTE_CHARS",
    "MAX_RACK_NAME_CHARS",
    "check_name",
    "check_stored",
    "clean_field",
    "clean_label",
    "clean_name",
    "tidy",
    "text_problem",
]

#: The word a caller names a thing by -> the column its name is stored in.
_NAME_COLUMNS: dict[str, str] = {
    "device": "devices.name",
    "rack": "racks.name",
    "row": "rows.name",
    "site": "sites.name",
    "network": "networks.name",
    "storage tier": "storage_tiers.name",
    "workload": "workloads.name",
    "software stack": "software_stacks.name",
    "baseline": "baselines.name",
    "design": "meta.name",
}

#: The word a caller names a label by -> its column.
_LABEL_COLUMNS: dict[str, str] = {
    "serial": "devices.serial",
    "asset tag": "devices.asset_tag",
}


def tidy(value: object, rule: TextRule) -> object:
    """``value`` as it will be stored when a user typed it: surrounding whitespace
    dropped, and a note's Windows line ends made plain (``\\r\\n`` -> ``\\n``)."""
    if not isinstance(value, str):
        return value
    if rule.multiline:
        return value.replace("\r\n", "\n").replace("\r", "\n").strip()
    return value.strip()


def clean_field(key: str, value: object) -> str:
    """``value`` tidied as ``key`` (``"devices.name"``) stores it, or an EditError naming
    the field (``A device name may not contain ...``)."""
    rule = STORED_TEXT[key]
    text = tidy(value, rule)
    problem = rule.problem(text)
    if problem is not None:
        raise EditError(f"{_article(rule.what)} {rule.what} {problem}.")
    assert isinstance(text, str)
    return text


def check_stored(key: str, value: object) -> None:
    """EditError naming the field when ``value`` cannot be stored in ``key`` as it is
    (for values an edit keeps exactly as given: added objects, undo's inverses)."""
    rule = STORED_TEXT[key]
    problem = rule.problem(value)
    if problem is not None:
        raise EditError(f"{_article(rule.what)} {rule.what} {problem}.")


def check_name(value: object, what: str) -> None:
    """:func:`check_stored` for the name of a ``what`` ("device", "workload" ...)."""
    check_stored(_NAME_COLUMNS[what], value)


def clean_name(value: object, what: str) -> str:
    """``value`` stripped, or EditError saying why it cannot be a ``what`` name.

    ``what`` is the thing named ("device", "rack", "row"...); its column's rule decides.
    """
    return clean_field(_NAME_COLUMNS[what], value)


def clean_label(value: object, what: str) -> str:
    """Like :func:`clean_name` for optional labels (``"serial"``, ``"asset tag"``): empty
    is allowed and clears the field."""
    return clean_field(_LABEL_COLUMNS[what], value)


def _article(words: str) -> str:
    return "An" if words[:1].lower() in "aeiou" else "A"
