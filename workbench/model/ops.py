"""Every edit of the design as data, gathered in one explicit table (:data:`_EDITS`).

Each edit is a small frozen dataclass; :func:`apply` carries it out on a design and
returns its exact inverse together with the :class:`~workbench.model.change.Change` it
made.  Applying the inverse puts back precisely what was there: the same objects, in the
same places in their lists, with the links and storage-tier memberships that went with
a removed device.  So the window's undo command only keeps an edit and its inverse, the
command line and scripts make the very same edits, and a property test can run random
edits forwards and backwards and compare the whole model with the start.

The edits live in modules named for what they change (:mod:`~workbench.model.structure_ops`
rows, racks and devices; :mod:`~workbench.model.link_ops`; :mod:`~workbench.model.type_ops`;
:mod:`~workbench.model.waiver_ops`; floor, network, version, team, field, cost, site,
acceptance and capture edits); each hands its ``EDITS`` table here, and this module
re-exports the classes so callers write ``ops.AddRack``.  A new edit is its dataclass,
its handler and one entry in its module's table.

The operations check structure (ids exist, new ids are free, positions are in range)
and keep :attr:`Design.index` correct.  Whether a device *may* go somewhere (free units,
the rack's budgets) is a placement question asked before an edit is made
(:func:`workbench.model.placement.can_place`); the rules report whatever a design holds.
"""

from __future__ import annotations

from typing import Union

from workbench.model import (
    acceptance,
    captures,
    cost_ops,
    field_ops,
    floor_ops,
    keep,
    link_ops,
    net_ops,
    site_ops,
    structure_ops,
    team_ops,
    type_ops,
    version_ops,
    waiver_ops,
)
from workbench.model.acceptance import AddAcceptanceResults, RemoveLastAcceptanceImport
from workbench.model.applied import Applied, Batch, Edit, apply_all
from workbench.model.captures import ReplaceCaptures
from workbench.model.cost_ops import PutCostText, SetCostInputs
from workbench.model.design import Design
from workbench.model.errors import EditError
from workbench.model.field_ops import (
    AddWorkload,
    RemoveWorkload,
    RenameDevice,
    RenameRack,
    ReplaceWorkload,
    SetDeviceField,
    SetRackFields,
    UpdateWorkload,
)
from workbench.model.floor_ops import MoveRackOnFloor, MoveRowOnFloor
from workbench.model.link_ops import AddLink, AddLinks, RemoveLink, RemoveLinks
from workbench.model.net_ops import (
    AddNetwork,
    AddStorageTier,
    RemoveNetwork,
    RemoveStorageTier,
    SetLinkFields,
    SetNetworkFields,
    SetTierFields,
)
from workbench.model.site_ops import AddSite, RemoveSite
from workbench.model.structure_ops import (
    AddDevice,
    AddDevices,
    AddRack,
    AddRow,
    MoveDevice,
    MoveRack,
    MoveRow,
    RemoveDevice,
    RemoveRack,
    RemoveRow,
)
from workbench.model.team_ops import AddTeam, RemoveTeam, SetTeamFields
from workbench.model.type_ops import AddDeviceType, RemoveDeviceType, ReplaceDeviceType
from workbench.model.version_ops import (
    AddAssignment,
    AddBaseline,
    AddObservations,
    AddRevision,
    RemoveAssignment,
    RemoveBaseline,
    RemoveLastImport,
    RemoveLastRevision,
    RenameBaseline,
)
from workbench.model.waiver_ops import AddWaiver, RemoveWaiver

Op = Union[  # noqa: UP007 - a runtime alias; "|" on these classes needs Python 3.10+ anyway
    AddRow,
    RemoveRow,
    MoveRow,
    AddRack,
    RemoveRack,
    MoveRack,
    AddDevice,
    AddDevices,
    RemoveDevice,
    MoveDevice,
    AddLink,
    RemoveLink,
    AddLinks,
    RemoveLinks,
    AddDeviceType,
    RemoveDeviceType,
    AddWaiver,
    RemoveWaiver,
    Batch,
    MoveRackOnFloor,
    MoveRowOnFloor,
    AddNetwork,
    RemoveNetwork,
    SetNetworkFields,
    SetLinkFields,
    AddStorageTier,
    RemoveStorageTier,
    SetTierFields,
    AddBaseline,
    RemoveBaseline,
    RenameBaseline,
    AddRevision,
    RemoveLastRevision,
    AddAssignment,
    RemoveAssignment,
    AddObservations,
    RemoveLastImport,
    AddAcceptanceResults,
    RemoveLastAcceptanceImport,
    ReplaceCaptures,
    ReplaceDeviceType,
    AddSite,
    RemoveSite,
    AddTeam,
    RemoveTeam,
    SetTeamFields,
    RenameDevice,
    SetDeviceField,
    RenameRack,
    SetRackFields,
    AddWorkload,
    RemoveWorkload,
    UpdateWorkload,
    ReplaceWorkload,
    SetCostInputs,
    PutCostText,
]


def apply(design: Design, op: Op) -> Applied:
    """Carry out ``op`` on ``design``; raise :class:`EditError` (changing nothing) when
    the structure does not allow it."""
    edit = _EDITS.get(type(op))
    if edit is None:
        raise EditError(f"Unknown edit {type(op).__name__}.")
    return edit.apply(design, op)


def snapshot(design: Design, op: Op) -> keep.Snapshot:
    """A shallow copy of what applying ``op`` to ``design`` can change, to put back if
    it fails half-way (see :mod:`workbench.model.keep`); the whole design when the scope
    cannot be read (an unknown edit, a design holding odd values)."""
    snap = keep.Snapshot()
    try:
        _keep(design, op, snap)
    except Exception:  # noqa: BLE001 - a scope that cannot be read: keep everything
        return keep.whole_design(design)
    return snap


def _keep(design: Design, op: object, snap: keep.Snapshot) -> None:
    edit = _EDITS.get(type(op))
    if edit is None:
        keep.keep_whole_design(design, snap)
    else:
        edit.keeps(design, op, snap)


def known_edits() -> frozenset[type]:
    """Every kind of edit :func:`apply` carries out (for tests and documentation)."""
    return frozenset(_EDITS)


def _batch(design: Design, op: Batch) -> Applied:
    return apply_all(design, op.ops, apply)


def _keep_batch(design: Design, op: Batch, snap: keep.Snapshot) -> None:
    for step in op.ops:
        _keep(design, step, snap)


#: Edit class → how it is carried out and what it can change: the one table of every
#: edit the model knows.  Only the batch is handled here; every other edit comes with
#: the ``EDITS`` table of the module that holds it.  A new edit is its dataclass, its
#: handler and ONE entry in a table; the window's undo command needs nothing more.
_EDITS: dict[type, Edit] = {
    Batch: Edit(_batch, _keep_batch),
    **structure_ops.EDITS,
    **link_ops.EDITS,
    **waiver_ops.EDITS,
    **floor_ops.EDITS,
    **net_ops.EDITS,
    **version_ops.EDITS,
    **acceptance.EDITS,
    **captures.EDITS,
    **type_ops.EDITS,
    **site_ops.EDITS,
    **team_ops.EDITS,
    **field_ops.EDITS,
    **cost_ops.EDITS,
}
