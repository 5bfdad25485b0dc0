"""The snapshot a removal of cabled devices keeps (its links with their places, not a
copy of the 443,000-link list) puts the design back exactly when the edit fails at any
point, alone or in a batch, and so does the snapshot of the undo that puts them back."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.catalog import load_catalog
from workbench.catalog.item import is_gpu_server
from workbench.model import ops
from workbench.model.design import Design
from workbench.model.index import DesignIndex
from workbench.templates import build_template


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def _state(design: Design) -> tuple:
    """Every list a removal touches, by object identity."""
    return (
        [id(link) for link in design.links],
        [[id(d) for d in rack.devices] for rack in design.iter_racks()],
        [list(tier.device_ids) for tier in design.storage_tiers],
    )


class Boom(Exception):
    pass


def _failing_after(monkeypatch, calls: int) -> None:
    """Index updates raise after ``calls`` link drops or adds: the edit is half done."""
    left = [calls]
    for name in ("drop_link", "add_link"):
        real = getattr(DesignIndex, name)

        def failing(self, *args, _real=real, **kwargs):
            if left[0] <= 0:
                raise Boom
            left[0] -= 1
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(DesignIndex, name, failing)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=3),
    fail_at=st.integers(0, 40),
    undoing=st.booleans(),
)
def test_a_failed_removal_or_its_undo_is_put_back(catalog, monkeypatch, picks, fail_at, undoing):
    design = build_template("dgx-h100-superpod", gpus=128, catalog=catalog)
    types = design.device_types
    nodes = [d.id for _r, d in design.iter_devices() if is_gpu_server(types[d.device_type])]
    chosen = list(dict.fromkeys(nodes[n % len(nodes)] for n in picks))
    op: ops.Op = ops.Batch(tuple(ops.RemoveDevice(node) for node in chosen))
    if undoing:
        op = ops.apply(design, op).inverse
    before = _state(design)
    snap = ops.snapshot(design, op)
    assert snap.size < len(design.links) // 4  # not a copy of the list of links
    with monkeypatch.context() as patched:
        _failing_after(patched, fail_at)
        with contextlib.suppress(Boom):  # half done, or done when it never fails
            ops.apply(design, op)
    snap.restore()
    design.reindex()
    assert _state(design) == before
