"""The edit of a design's cost inputs, with its exact inverse (one undo step).

``SetCostInputs`` checks every value first (:func:`workbench.model.cost_inputs.
check_cost_value`: nothing changes when one is refused) and stores them as text in
``Design.properties``; ``None`` puts an input back to its default (the key goes).  Its
inverse, ``PutCostText``, puts the stored text back exactly as it was, unchecked, so
undoing never fails even on a hand-edited value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.model.applied import Applied, Edit
from workbench.model.change import Change
from workbench.model.cost_inputs import PREFIX, as_text, check_cost_value, stored_values
from workbench.model.design import Design
from workbench.model.keep import Snapshot


@dataclass(frozen=True)
class SetCostInputs:
    """Set cost inputs: ``values`` is ((field, value or None), ...)."""

    values: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class PutCostText:
    """Put the stored text of cost inputs back (None: no key); the undo of a set."""

    values: tuple[tuple[str, str | None], ...]


def _put(design: Design, values: tuple[tuple[str, str | None], ...]) -> Applied:
    old = stored_values(design, tuple(name for name, _v in values))
    for name, text in values:
        if text is None:
            design.properties.pop(PREFIX + name, None)
        else:
            design.properties[PREFIX + name] = text
    return Applied(PutCostText(old), Change(design=True))


def _set(design: Design, op: SetCostInputs) -> Applied:
    clean = tuple(
        (name, None if value is None else as_text(check_cost_value(name, value)))
        for name, value in op.values
    )
    return _put(design, clean)


def _put_text(design: Design, op: PutCostText) -> Applied:
    return _put(design, op.values)


def _keep(design: Design, op: Any, snap: Snapshot) -> None:
    snap.keep_dict(design.properties)


#: The cost edits, gathered by :mod:`workbench.model.ops`.
EDITS: dict[type, Edit] = {
    SetCostInputs: Edit(_set, _keep),
    PutCostText: Edit(_put_text, _keep),
}
