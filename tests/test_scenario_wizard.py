"""The scenario wizard's planning: variants of the sample by node type, cooling, switch
and topology, each rebuilt with the racks re-packed and checked with the rules, and
``workbench scenario`` writing one beside the design."""

from __future__ import annotations

import pytest
from cli_helpers import digest, run

from workbench.calc.summary import rack_loads, summarize
from workbench.catalog import load_catalog
from workbench.model.rack_fields import built_cooling, built_limit_kw
from workbench.store import open_design
from workbench.templates.builder import TemplateError
from workbench.templates.bundled import bundled_sample
from workbench.templates.variants import VariantRequest, broken_rules, make_variant


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture(scope="module")
def sample():
    return bundled_sample()


REQUESTS = [
    VariantRequest(node_type="nvidia-dgx-b200"),
    VariantRequest(cooling="air"),
    VariantRequest(cooling="liquid"),
    VariantRequest(compute_switch="nvidia-q3400-ra"),
    VariantRequest(topology="two-tier"),
]


@pytest.mark.parametrize("request_", REQUESTS, ids=lambda r: r.label())
def test_a_variant_keeps_the_gpus_and_jobs_and_lists_what_breaks(sample, catalog, request_):
    variant = make_variant(sample, request_, catalog)
    assert summarize(variant.design).gpus == summarize(sample).gpus
    assert [w.name for w in variant.design.workloads] == [w.name for w in sample.workloads]
    assert variant.broken == broken_rules(variant.design)
    assert variant.passes == (not any(b.startswith("error") for b in variant.broken))


def test_another_node_type_puts_those_nodes_in(sample, catalog):
    variant = make_variant(sample, VariantRequest(node_type="nvidia-dgx-b200"), catalog)
    servers = summarize(variant.design).gpu_servers
    assert set(servers) == {"nvidia-dgx-b200"}


@pytest.mark.parametrize("cooling", ["air", "rear-door", "liquid"])
def test_cooling_repacks_racks_within_the_new_limit(sample, catalog, cooling):
    variant = make_variant(sample, VariantRequest(cooling=cooling), catalog).design
    for rack_id, load in rack_loads(variant).items():
        rack = variant.find_rack(rack_id)
        item = variant.device_types.get(rack.rack_type)
        if any(d.device_type == "nvidia-dgx-h100" for d in rack.devices):
            assert built_cooling(item) == cooling
            assert load.kw_max <= built_limit_kw(item)


def test_air_needs_more_racks_than_rear_door(sample, catalog):
    air = make_variant(sample, VariantRequest(cooling="air"), catalog).design
    assert summarize(air).racks > summarize(sample).racks


def test_unknown_choices_are_refused_by_name(sample, catalog):
    with pytest.raises(TemplateError, match="nvidia-qm9700"):
        make_variant(sample, VariantRequest(node_type="nvidia-qm9700"), catalog)
    with pytest.raises(TemplateError, match="immersion"):
        make_variant(sample, VariantRequest(cooling="immersion"), catalog)
    with pytest.raises(TemplateError, match="torus"):
        make_variant(sample, VariantRequest(topology="torus"), catalog)


def test_cli_scenario_writes_a_sibling_and_leaves_the_design(tmp_path):
    from workbench.store import save_design

    base = tmp_path / "hall.dcwb"
    save_design(bundled_sample(), base)
    before = digest(base)
    proc = run("scenario", str(base), "--node-type", "nvidia-dgx-b200", "--cooling", "liquid")
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "hall.scenario-dgx-b200-liquid.dcwb"
    assert f"wrote {out}" in proc.stdout
    assert digest(base) == before
    assert set(summarize(open_design(out)).gpu_servers) == {"nvidia-dgx-b200"}
    again = run("scenario", str(base), "--node-type", "nvidia-dgx-b200", "--cooling", "liquid")
    assert again.returncode == 2 and "--force" in again.stderr
    assert run("scenario", str(base)).returncode == 2
    bad = run("scenario", str(base), "--node-type", "nope", "-o", str(tmp_path / "x.dcwb"))
    assert bad.returncode == 2 and "nope" in bad.stderr
    assert not (tmp_path / "x.dcwb").exists()
