"""The scenario wizard's planning: variants of the sample by node type, cooling, switch
and topology, each rebuilt with the racks re-packed and checked with the rules, and
``workbench scenario`` writing one beside the design."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from cli_helpers import digest, run

from workbench.calc.summary import rack_loads, summarize
from workbench.catalog import load_catalog
from workbench.model.rack_fields import built_cooling, built_limit_kw
from workbench.store import open_design
from workbench.templates.builder import TemplateError
from workbench.templates.bundled import bundled_sample
from workbench.templates.variants import (
    MAX_VARIANTS,
    TOPOLOGIES,
    TooManyVariants,
    VariantChoices,
    VariantRequest,
    broken_rules,
    make_variant,
    plan_variants,
    variant_paths,
)


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
    with pytest.raises(TemplateError, match="generic-mgmt-48p-10g"):
        make_variant(sample, VariantRequest(compute_switch="generic-mgmt-48p-10g"), catalog)
    with pytest.raises(TemplateError, match="torus"):
        make_variant(sample, VariantRequest(topology="torus"), catalog)


@pytest.fixture
def base(tmp_path):
    """The sample saved as ``hall.dcwb`` in a folder of its own."""
    from workbench.store import save_design

    path = tmp_path / "hall.dcwb"
    save_design(bundled_sample(), path)
    return path


def test_cli_scenario_writes_a_sibling_and_leaves_the_design(tmp_path, base):
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


# -- several variants in one step ---------------------------------------------------------


def test_several_choices_plan_one_variant_per_combination(sample, catalog, tmp_path):
    choices = VariantChoices(node_types=("nvidia-dgx-b200",), coolings=("air", "liquid"))
    requests = plan_variants(sample, choices, catalog)
    assert requests == [
        VariantRequest(node_type="nvidia-dgx-b200", cooling="air"),
        VariantRequest(node_type="nvidia-dgx-b200", cooling="liquid"),
    ]
    paths = variant_paths(tmp_path / "hall.dcwb", requests)
    assert [p.name for p in paths] == [
        "hall.scenario-dgx-b200-air.dcwb",
        "hall.scenario-dgx-b200-liquid.dcwb",
    ]
    # A scenario of the design names its siblings from the design's name, not its own.
    again = variant_paths(tmp_path / "hall.scenario-old.dcwb", requests)
    assert again == paths


def test_repeated_values_count_once_and_blank_choices_ask_for_nothing(sample, catalog):
    choices = VariantChoices(coolings=("air", "air", " ", "liquid"))
    assert choices.count() == 2
    assert [r.cooling for r in plan_variants(sample, choices, catalog)] == ["air", "liquid"]
    assert VariantChoices(coolings=("",)).count() == 0
    with pytest.raises(TemplateError, match="say what to change"):
        plan_variants(sample, VariantChoices(), catalog)


def test_more_than_the_cap_is_refused_with_how_the_count_comes_about(sample, catalog):
    coolings = ("air", "rear-door", "liquid")
    choices = VariantChoices(coolings=coolings, topologies=tuple(TOPOLOGIES))
    assert choices.count() == len(coolings) * len(TOPOLOGIES) <= MAX_VARIANTS
    assert len(plan_variants(sample, choices, catalog)) == choices.count()
    switches = [i.slug for i in catalog if i.kind == "switch"][:2]
    too_many = dataclasses.replace(choices, switches=tuple(switches))
    assert too_many.count() > MAX_VARIANTS
    with pytest.raises(TooManyVariants) as caught:
        plan_variants(sample, too_many, catalog)
    message = str(caught.value)
    assert f"{too_many.count()} variants" in message and f"at most {MAX_VARIANTS}" in message
    assert "3 coolings × 2 switches × 2 topologies" in message


def test_a_bad_value_anywhere_in_the_plan_is_named_before_anything_is_built(sample, catalog):
    choices = VariantChoices(coolings=("air", "immersion"))
    with pytest.raises(TemplateError, match="immersion"):
        plan_variants(sample, choices, catalog)


def test_two_variants_saved_under_one_name_are_refused(tmp_path):
    # The label drops the vendor prefix, so these two would share a file.
    twins = [VariantRequest(node_type="nvidia-dgx-b200"), VariantRequest(node_type="dgx-b200")]
    with pytest.raises(TemplateError, match="both be saved as"):
        variant_paths(tmp_path / "hall.dcwb", twins)


def test_each_planned_variant_lists_what_its_rules_find(sample, catalog):
    choices = VariantChoices(node_types=("nvidia-dgx-b200",), coolings=("air", "liquid"))
    variants = [make_variant(sample, r, catalog) for r in plan_variants(sample, choices, catalog)]
    for variant in variants:
        assert variant.broken == broken_rules(variant.design)
        brief = variant.brief()
        heads = [line.partition(":")[0] for line in variant.broken]
        # One line per rule, each saying how often a repeated rule was found.
        assert len(brief) == len(dict.fromkeys(heads))
        for head in dict.fromkeys(heads):
            n = heads.count(head)
            line = next(b for b in brief if b.startswith(head))
            assert (f"({n} times)" in line) == (n > 1)
    air, liquid = variants
    assert not air.passes  # a B200 node draws more than an air rack's limit
    assert any("RACK-COOLING" in line for line in air.brief())
    cooling = sum(1 for line in air.broken if line.startswith("error RACK-COOLING:"))
    assert air.verdict().startswith(f"breaks RACK-COOLING ×{cooling}")
    assert liquid.passes and liquid.verdict().startswith("passes the rules")
    warned = {line.split(":")[0].split()[1] for line in liquid.broken}
    assert all(rule in liquid.verdict() for rule in warned)


def test_cli_scenario_makes_one_file_per_combination(tmp_path, base):
    import json

    before = digest(base)
    proc = run("scenario", str(base), "--node-type", "nvidia-dgx-b200", "--cooling", "air,liquid")
    assert proc.returncode == 0, proc.stderr
    made = [
        tmp_path / "hall.scenario-dgx-b200-air.dcwb",
        tmp_path / "hall.scenario-dgx-b200-liquid.dcwb",
    ]
    for out in made:
        assert f"wrote {out}" in proc.stdout
        assert set(summarize(open_design(out)).gpu_servers) == {"nvidia-dgx-b200"}
    assert "RACK-COOLING" in proc.stdout and "passes the rules" in proc.stdout
    assert digest(base) == before
    sums = {out: digest(out) for out in made}
    # Repeated options mean the same as a comma list; one existing file refuses them all.
    refused = run(
        "scenario", str(base), "--node-type", "nvidia-dgx-b200",
        "--cooling", "liquid", "--cooling", "rear-door",
    )  # fmt: skip
    assert refused.returncode == 2 and "--force" in refused.stderr
    assert "hall.scenario-dgx-b200-liquid.dcwb" in refused.stderr
    assert not (tmp_path / "hall.scenario-dgx-b200-rear-door.dcwb").exists()
    assert {out: digest(out) for out in made} == sums
    forced = run(
        "scenario", str(base), "--node-type", "nvidia-dgx-b200",
        "--cooling", "liquid", "--cooling", "rear-door", "--force", "--json",
    )  # fmt: skip
    assert forced.returncode == 0, forced.stderr
    out = json.loads(forced.stdout)
    assert [v["cooling"] for v in out["variants"]] == ["liquid", "rear-door"]
    assert all(Path(v["file"]).exists() for v in out["variants"])
    assert all(isinstance(v["findings"], list) for v in out["variants"])
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp left


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--cooling", "air,water"], "water"),
        (["--topology", "torus"], "torus"),
        (["--node-type", "nvidia-dgx-b200,nope"], "nope"),
        (
            [
                "--cooling",
                "air,rear-door,liquid",
                "--topology",
                "two-tier,rail-optimized",
                "--switch",
                "nvidia-qm9700,nvidia-q3400-ra",
            ],
            "at most",
        ),  # fmt: skip
        (["--cooling", "air,liquid", "-o", "x.dcwb"], "single variant"),
        (["--cooling", ","], "say what to change"),
    ],
)
def test_cli_scenario_bad_values_exit_2_and_write_nothing(tmp_path, base, args, says):
    proc = run("scenario", str(base), *args)
    assert proc.returncode == 2
    assert says in proc.stderr and "Traceback" not in proc.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["hall.dcwb"]
