"""COST-PUE-LIQUID: a liquid-cooled design whose typed PUE is 1.2 or more is flagged."""

from __future__ import annotations

import pytest

from workbench.catalog.loader import load_catalog
from workbench.model.cost_ops import SetCostInputs
from workbench.model.ops import apply
from workbench.rules import REGISTRY, check_design
from workbench.templates import build_template, sample_design

RULE = REGISTRY["COST-PUE-LIQUID"]


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def _found(design):
    return [f for f in check_design(design, rules=[RULE])]


def test_liquid_design_at_pue_13_is_flagged_and_below_12_is_not(catalog):
    design = build_template("dgx-b200-liquid", gpus=64, catalog=catalog)
    assert any(r.cooling == "liquid" for r in design.iter_racks())
    assert _found(design) == []  # the default PUE is nobody's plan: not judged
    apply(design, SetCostInputs((("pue", 1.3),)))
    (finding,) = _found(design)
    assert "1.3" in finding.message and "Costs form" in finding.message
    apply(design, SetCostInputs((("pue", 1.15),)))
    assert _found(design) == []
    # Without a cost override, the design's own typed PUE is judged.
    apply(design, SetCostInputs((("pue", None),)))
    design.properties["pue"] = "1.25"
    (finding,) = _found(design)
    assert "design's PUE is 1.25" in finding.message


def test_air_cooled_design_is_not_judged(catalog):
    design = sample_design(catalog)
    assert not any(r.cooling == "liquid" for r in design.iter_racks())
    apply(design, SetCostInputs((("pue", 1.5),)))
    assert _found(design) == []
