"""The design's PUE: a typed figure wins, else the racks' cooling types weighted by draw."""

from __future__ import annotations

import pytest
from calc_designs import dgx_design

from workbench.calc import DEFAULT_PUE, rack_loads, summarize
from workbench.calc.summary import design_pue, design_pue_source
from workbench.catalog.loader import load_catalog
from workbench.catalog.vocabulary import COOLING_TYPES
from workbench.model.rack_fields import set_rack_fields
from workbench.rules import REGISTRY, check_design
from workbench.rules.costs import LIQUID_PUE_TARGET
from workbench.templates import sample_design

AIR = COOLING_TYPES["air"].pue
REAR = COOLING_TYPES["rear-door"].pue
LIQUID = COOLING_TYPES["liquid"].pue


def _cooled(nodes: int, *coolings: str):
    """A DGX design whose racks take ``coolings`` in turn."""
    design = dgx_design(nodes)
    for i, rack in enumerate(design.iter_racks()):
        rack.cooling = coolings[i % len(coolings)]
    return design


def test_planning_figures_order_and_liquid_target():
    # Air is the figure the workbench always planned with; liquid meets the < 1.2 target.
    assert AIR == DEFAULT_PUE
    assert LIQUID < REAR < AIR
    assert LIQUID < LIQUID_PUE_TARGET


def test_air_design_keeps_the_default():
    design = _cooled(16, "air")
    assert design_pue(design) == DEFAULT_PUE
    assert design_pue_source(design) == "from cooling"
    # The sample's GPU racks are rear-door cooled: air-cooled, it plans at 1.3 as before.
    sample = sample_design(load_catalog(include_user=False, strict=True))
    assert AIR > summarize(sample).pue > LIQUID
    for rack in sample.iter_racks():  # an edit of a rack's field (the index hears it)
        set_rack_fields(sample, rack.id, {"cooling": "air"})
    assert summarize(sample).pue == DEFAULT_PUE


def test_direct_liquid_design_gets_the_liquid_figure():
    design = _cooled(16, "liquid")
    s = summarize(design)
    assert s.pue == LIQUID and s.pue_source == "from cooling"
    assert s.facility_kw == pytest.approx(s.it_kw * LIQUID)
    assert s.to_dict()["pue_source"] == "from cooling"


def test_mixed_design_weights_by_rack_it_draw():
    # 10 nodes, 4 to a rack: racks of 4, 4 and 2 nodes, so the weights are unequal.
    design = _cooled(10, "liquid", "air", "rear-door")
    loads = rack_loads(design)
    kw = {r.cooling: loads[r.id].kw_max for r in design.iter_racks()}
    assert len(set(kw.values())) > 1
    expected = sum(COOLING_TYPES[c].pue * w for c, w in kw.items()) / sum(kw.values())
    assert design_pue(design) == pytest.approx(expected)
    assert design_pue(design) != pytest.approx((AIR + REAR + LIQUID) / 3)


def test_racks_without_draw_weigh_by_count():
    design = _cooled(8, "liquid", "air")
    for rack in design.iter_racks():
        rack.devices.clear()
    assert design_pue(design) == pytest.approx((LIQUID + AIR) / 2)


def test_a_typed_pue_wins_and_a_bad_one_falls_back():
    design = _cooled(8, "liquid")
    design.properties["pue"] = "1.4"
    assert design_pue(design) == 1.4 and design_pue_source(design) == "set"
    assert summarize(design).pue_source == "set"
    design.properties["pue"] = "0.5"  # below 1: not a PUE, the cooling figure stands
    assert design_pue(design) == LIQUID and design_pue_source(design) == "from cooling"
    # An explicit figure (report --pue) is "set" too.
    assert summarize(design, pue=1.6).pue_source == "set"


def test_cost_pue_liquid_judges_only_a_typed_pue():
    # Mostly air with one liquid rack: the derived PUE is 1.2 or more, but nobody typed
    # it, so the rule stays quiet; typed, the same figure is flagged.
    design = _cooled(16, "liquid", "air", "air", "air")
    derived = design_pue(design)
    assert derived >= 1.2
    rule = REGISTRY["COST-PUE-LIQUID"]
    assert list(check_design(design, rules=[rule])) == []
    design.properties["pue"] = str(round(derived, 3))
    assert len(list(check_design(design, rules=[rule]))) == 1
