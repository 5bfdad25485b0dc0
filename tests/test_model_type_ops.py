"""ReplaceDeviceType: a type in the design's snapshot replaced in place, with an exact
inverse and a change naming every rack and device of it."""

from __future__ import annotations

import dataclasses

import pytest

from workbench.model import ops
from workbench.model.errors import EditError
from workbench.templates import build_template


def test_replace_keeps_the_slug_in_place_and_its_inverse_is_exact():
    design = build_template("hgx-h100-air")
    slug = next(s for s, i in design.device_types.items() if i.kind == "switch")
    old = design.device_types[slug]
    order = list(design.device_types)
    new = dataclasses.replace(old, max_power_w=1234.0)
    applied = ops.apply(design, ops.ReplaceDeviceType(new))
    assert design.device_types[slug] is new and list(design.device_types) == order
    users = {d.id for r in design.iter_racks() for d in r.devices if d.device_type == slug}
    assert users and applied.change.devices == users and applied.change.types == {slug}
    assert applied.change.racks  # their loads and drawing refresh
    back = ops.apply(design, applied.inverse)
    assert design.device_types[slug] is old and list(design.device_types) == order
    assert back.inverse == ops.ReplaceDeviceType(new)


def test_replace_refuses_a_type_the_design_lacks_and_changes_nothing():
    design = build_template("hgx-h100-air")
    item = next(iter(design.device_types.values()))
    before = dict(design.device_types)
    with pytest.raises(EditError, match="holds no catalog item 'nope'"):
        ops.apply(design, ops.ReplaceDeviceType(dataclasses.replace(item, slug="nope")))
    assert design.device_types == before
