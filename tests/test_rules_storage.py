"""The storage rules fire with their numbers and stay quiet on a near miss; the
incremental checker re-runs them on the edits that move them.

Worked figures (items in ``storage_designs``): a generic all-flash node reads 50 GB/s
and writes 30 GB/s; a 400G port on a 200G switch port carries 200 Gb/s = 25 GB/s; an
uncabled DGX H100 has 4 × 400G storage ports; a checkpoint of a 175B model with
mixed-precision Adam is 175e9 × 14 B = 2.45 TB (ZeRO §3.1: 2 + 12 bytes per parameter).
"""

from __future__ import annotations

import pytest
from storage_designs import HDD, SLOW_NODE, storage_design

from workbench.catalog import load_catalog
from workbench.model import Link, StorageTier, Workload, ops
from workbench.model.net_ops import SetTierFields
from workbench.rules import REGISTRY, Checker, Severity, check_design
from workbench.rules.storage import (
    DEFAULT_CHECKPOINT_INTERVAL_MIN,
    MIN_NODE_STORAGE_GBPS_PER_GPU,
    STORAGE_RULES,
    hot_read,
    storage_figures,
    workload_tier,
)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def run(design, rule_id: str):
    return check_design(design, rules=[REGISTRY[rule_id]])


def only(design, rule_id: str):
    (finding,) = run(design, rule_id)
    return finding


def test_the_storage_rules_are_registered_with_sources() -> None:
    for rule_id in STORAGE_RULES:
        registered = REGISTRY[rule_id]
        assert registered.source and "tier" in registered.looks_at
    assert {"device", "link"} <= REGISTRY["STORAGE-HOT-TIER"].looks_at
    assert REGISTRY["STORAGE-POOLS"].scope == REGISTRY["STORAGE-CHECKPOINT"].scope == "workload"


# -- STORAGE-HOT-TIER ----------------------------------------------------------------------


def test_hot_tier_uses_the_links_once_cabled(catalog) -> None:
    """48 GPUs, one all-flash node reading 50 GB/s on one 200G link: 25 GB/s."""
    design = storage_design(catalog, nodes=6, appliances=1, appliance_links=1)
    finding = only(design, "STORAGE-HOT-TIER")
    assert finding.severity is Severity.ERROR and finding.objects == ("tier-hot",)
    assert "48 GPUs need at least 50 GB/s" in finding.message
    assert "tier Hot, which the training jobs read, gives 25.0 GB/s from 1 devices" in (
        finding.message
    )
    assert "storage-plane links: they read 50.0 GB/s, their links carry 25.0 GB/s" in (
        finding.message
    )


def test_hot_tier_quiet_when_two_links_carry_the_50_gbs(catalog) -> None:
    design = storage_design(catalog, nodes=6, appliances=1, appliance_links=2)
    assert run(design, "STORAGE-HOT-TIER") == []
    assert hot_read(storage_figures(design)).read_gbs == pytest.approx(50.0)


def test_hot_tier_uncabled_serves_nothing(catalog) -> None:
    """Before issue 24: an uncabled appliance counted its own 50 GB/s and the rule
    stayed quiet; it serves nothing until it is cabled ("0 of 1 cabled")."""
    design = storage_design(catalog, nodes=6, appliances=1)
    finding = only(design, "STORAGE-HOT-TIER")
    assert "gives 0.0 GB/s from 1 devices, 0 of 1 cabled" in finding.message
    hot = hot_read(storage_figures(design))
    assert (hot.read_gbs, hot.limit, hot.cabled) == (0.0, "cabling", 0)
    (uncabled,) = run(design, "STORAGE-UNCABLED")
    assert uncabled.severity is Severity.WARNING and uncabled.objects == ("tier-hot",)
    assert "0 of 1 cabled" in uncabled.message and "50.0 GB/s of read" in uncabled.message


def test_hot_tier_judges_the_dataset_tier_not_the_checkpoint_tier(catalog) -> None:
    """Before issue 24: 64 GPUs whose dataset tier gives 25 GB/s passed, because the
    checkpoint tier's 50 GB/s was added to it."""
    tiers = [
        StorageTier("tier-data", "Datasets", "hot", "Lustre", ["st-0"]),
        StorageTier("tier-ckpt", "Checkpoints", "hot", "Lustre", ["st-1"]),
    ]
    work = job(dataset_tier="tier-data", checkpoint_tier="tier-ckpt")
    design = storage_design(
        catalog, nodes=8, appliances=2, appliance_links=2, tiers=tiers, workloads=[work]
    )
    design.links = [x for x in design.links if x.id != "l-st-0-1"]  # st-0: one 200G link
    design.reindex()
    assert hot_read(storage_figures(design)).read_gbs == pytest.approx(75.0)  # the old sum
    finding = only(design, "STORAGE-HOT-TIER")
    assert finding.objects == ("tier-data",)
    assert "tier Datasets, which the training jobs read, gives 25.0 GB/s" in finding.message


def test_hot_tier_on_spinning_disks_is_a_warning(catalog) -> None:
    """Before issue 24: nothing checked that a hot tier is all-flash."""
    tiers = [StorageTier("tier-hot", "Hot", "hot", "", ["st-0"])]
    design = storage_design(catalog, nodes=1, appliances=1, appliance_slug=HDD, tiers=tiers)
    (finding,) = run(design, "STORAGE-HOT-FLASH")
    assert finding.severity is Severity.WARNING and finding.objects == ("tier-hot",)
    assert "hdd media" in finding.message
    flash = storage_design(catalog, nodes=1, appliances=1)
    assert run(flash, "STORAGE-HOT-FLASH") == []


def test_hot_tier_names_the_clients_when_they_bind(catalog) -> None:
    """Six 8-GPU nodes with one 25G storage NIC each: 6 × 25 / 8 = 18.75 GB/s."""
    design = storage_design(
        catalog, nodes=6, node_slug=SLOW_NODE.slug, appliances=2, appliance_links=2
    )
    finding = only(design, "STORAGE-HOT-TIER")
    assert "gives 18.8 GB/s from 2 devices" in finding.message
    assert "limited by the storage NICs of the 6 GPU nodes, 18.8 GB/s in all" in finding.message


def test_hot_tier_quiet_at_40_gpus_whatever_the_tier(catalog) -> None:
    design = storage_design(catalog, nodes=5, appliances=0)
    assert run(design, "STORAGE-HOT-TIER") == []


# -- STORAGE-CLIENT ------------------------------------------------------------------------


def test_client_names_the_starved_nodes_with_numbers(catalog) -> None:
    design = storage_design(catalog, nodes=5, node_slug=SLOW_NODE.slug, appliances=0)
    (finding,) = run(design, "STORAGE-CLIENT")
    assert finding.severity is Severity.WARNING
    assert MIN_NODE_STORAGE_GBPS_PER_GPU == 12.5  # 100 Gb/s per 8-GPU node (brief §3)
    assert finding.message.startswith(
        "5 GPU nodes have 25 Gb/s of storage ports for 8 GPUs each, below the 100 Gb/s "
        "they need (12.5 Gb/s per GPU): gpu-00, gpu-01, gpu-02 and 2 more."
    )
    assert finding.objects == tuple(f"gpu-{n}" for n in range(5))


def test_client_quiet_at_exactly_100_gbps_per_8_gpus(catalog) -> None:
    """A DGX H100 storage port run at 100G (a quarter of 400G) on a 200G switch port
    (half of it): exactly the 100 Gb/s an 8-GPU node needs."""
    design = storage_design(catalog, nodes=1, appliances=0)
    design.links.append(
        Link("l1", "gpu-0", "storage0", "sw-1", "swp1", "net-storage", speed_gbps=100)
    )
    design.reindex()
    assert run(design, "STORAGE-CLIENT") == []
    ops.apply(design, ops.RemoveLink("l1"))
    ops.apply(
        design,
        ops.AddLink(Link("l2", "gpu-0", "storage0", "sw-1", "swp1", "net-storage", speed_gbps=50)),
    )
    (finding,) = run(design, "STORAGE-CLIENT")
    assert "1 GPU node has 50 Gb/s of storage-plane links for 8 GPUs each" in finding.message


def test_client_total_below_the_tier_is_a_bottleneck(catalog) -> None:
    """Six DGX H100 (48 GPUs) on one 200G link each (6 × 25 = 150 GB/s) against four
    all-flash nodes on two 200G links each serving 4 × 50 = 200 GB/s."""
    design = storage_design(catalog, nodes=6, node_links=1, appliances=4, appliance_links=2)
    (finding,) = run(design, "STORAGE-CLIENT")
    assert finding.objects == ("tier-hot",)
    assert finding.message == (
        "Tier Hot: its 4 appliances serve 200.0 GB/s, but the storage NICs of the 6 GPU "
        "nodes carry 150.0 GB/s in all (6 × 200 Gb/s / 8): the clients are the bottleneck."
    )
    # Two links each (6 × 2 × 200 / 8 = 300 GB/s) reach the tier: quiet.
    both = storage_design(catalog, nodes=6, node_links=2, appliances=4, appliance_links=2)
    assert run(both, "STORAGE-CLIENT") == []


def test_client_total_is_not_compared_on_small_clusters(catalog) -> None:
    """One DGX H100 (8 GPUs, 25 GB/s on one link) and two all-flash nodes (100 GB/s):
    the hot-tier rule does not apply at 8 GPUs, and the node has what its GPUs need."""
    design = storage_design(catalog, nodes=1, node_links=1, appliances=2, appliance_links=2)
    assert run(design, "STORAGE-CLIENT") == []


# -- STORAGE-CHECKPOINT --------------------------------------------------------------------


def job(**kw) -> Workload:
    kw.setdefault("model", "custom")
    kw.setdefault("params", 175e9)
    return Workload("w1", kw.pop("name", "GPT-3"), **kw)


def test_checkpoint_fires_with_write_time_interval_and_shortest_interval(catalog) -> None:
    """2.45 TB at one all-flash node's 30 GB/s: 81.7 s, 6.8 % of 20 minutes; passing
    needs 81.7 / 0.05 = 1,633 s = 27.2 minutes."""
    design = storage_design(
        catalog,
        nodes=6,
        appliances=1,
        appliance_links=2,
        workloads=[job(checkpoint_interval_min=20)],
    )
    finding = only(design, "STORAGE-CHECKPOINT")
    assert finding.severity is Severity.WARNING and finding.objects == ("w1", "tier-hot")
    assert finding.message == (
        "GPT-3 saves a 2.45 TB checkpoint to tier Hot in 81.7 s at 30.0 GB/s (the "
        "appliances' write bandwidth): 6.8% of its 20 min interval, above 5%. Save every "
        "27.2 min or less often, or add write bandwidth."
    )


def test_checkpoint_quiet_at_the_default_hour(catalog) -> None:
    assert DEFAULT_CHECKPOINT_INTERVAL_MIN == 60
    design = storage_design(catalog, nodes=6, appliances=1, appliance_links=2, workloads=[job()])
    assert run(design, "STORAGE-CHECKPOINT") == []  # 81.7 s of 3,600 s = 2.3 %
    # At 27 minutes (1,620 s) 81.7 s is 5.04 %: fires; at 28 minutes (4.9 %) quiet.
    design.workloads[0].checkpoint_interval_min = 27
    assert len(run(design, "STORAGE-CHECKPOINT")) == 1
    design.workloads[0].checkpoint_interval_min = 28
    assert run(design, "STORAGE-CHECKPOINT") == []


def test_checkpoint_counts_only_the_jobs_share_of_the_clients(catalog) -> None:
    """Two DGX H100 on one 200G link each (2 × 25 GB/s) and two all-flash nodes writing
    60 GB/s.  A job on 8 of the 16 GPUs writes through one node: 25 GB/s, 2.45 TB in
    98 s, 5.4 % of 30 minutes.  On all 16 GPUs: 50 GB/s, 49 s, 2.7 %."""
    work = job(gpus=8, tp=8, checkpoint_interval_min=30)
    design = storage_design(
        catalog, nodes=2, node_links=1, appliances=2, appliance_links=2, workloads=[work]
    )
    finding = only(design, "STORAGE-CHECKPOINT")
    assert "in 98 s at 25.0 GB/s (limited by the job's GPU nodes' storage NICs): 5.4%" in (
        finding.message
    )
    design.workloads[0].gpus = 16
    assert run(design, "STORAGE-CHECKPOINT") == []


def test_checkpoint_bad_interval_and_inference(catalog) -> None:
    bad = job(checkpoint_interval_min=-5)
    serve = Workload("w2", "Serve", kind="inference", checkpoint_interval_min=1)
    design = storage_design(catalog, nodes=6, appliances=1, workloads=[bad, serve])
    (finding,) = run(design, "STORAGE-CHECKPOINT")
    assert (
        finding.objects == ("w1",) and "interval -5 is not a number of minutes" in finding.message
    )


# -- STORAGE-POOLS -------------------------------------------------------------------------


def two_pools(catalog, **kw):
    tiers = [
        StorageTier("tier-data", "Datasets", "hot", "Lustre", ["st-0"]),
        StorageTier("tier-ckpt", "Checkpoints", "hot", "Lustre", ["st-1"]),
    ]
    return storage_design(catalog, nodes=2, appliances=2, tiers=tiers, workloads=[job(**kw)])


def test_pools_same_tier_by_default_is_a_warning(catalog) -> None:
    design = two_pools(catalog)
    assert workload_tier(design, None).id == "tier-data"
    finding = only(design, "STORAGE-POOLS")
    assert finding.severity is Severity.WARNING and finding.objects == ("w1", "tier-data")
    assert "same pool, tier Datasets (both by default)" in finding.message


def test_pools_quiet_on_separate_tiers(catalog) -> None:
    design = two_pools(catalog, dataset_tier="tier-data", checkpoint_tier="tier-ckpt")
    assert run(design, "STORAGE-POOLS") == []
    # Only the checkpoint tier named: the dataset defaults to the first hot tier, apart.
    assert run(two_pools(catalog, checkpoint_tier="tier-ckpt"), "STORAGE-POOLS") == []
    assert len(run(two_pools(catalog, checkpoint_tier="tier-data"), "STORAGE-POOLS")) == 1


def test_pools_unknown_tier_is_an_error(catalog) -> None:
    design = two_pools(catalog, dataset_tier="tier-data", checkpoint_tier="tier-nvme")
    finding = only(design, "STORAGE-POOLS")
    assert finding.severity is Severity.ERROR
    assert finding.message == (
        "GPT-3: its checkpoint tier 'tier-nvme' is not a storage tier of the design "
        "(tiers: tier-ckpt, tier-data)."
    )


def test_pools_ignore_inference(catalog) -> None:
    design = two_pools(catalog)
    design.workloads = [Workload("w1", "Serve", kind="inference")]
    design.reindex()
    assert run(design, "STORAGE-POOLS") == []


# -- incremental re-checking ---------------------------------------------------------------


def test_checker_follows_cabling_and_tier_edits(catalog) -> None:
    design = storage_design(
        catalog,
        nodes=6,
        appliances=1,
        appliance_links=2,
        workloads=[job(checkpoint_tier="tier-hot")],
    )
    checker = Checker(design)

    def rules() -> set[str]:
        found = {f.rule for f in checker.findings()} & set(STORAGE_RULES)
        assert found == {f.rule for f in check_design(design)} & set(STORAGE_RULES)
        return found

    assert "STORAGE-HOT-TIER" not in rules()
    # One 200G link left on the appliance: 25 GB/s < 50.
    applied = ops.apply(design, ops.RemoveLinks(("l-st-0-1",)))
    checker.update(applied.change)
    assert "STORAGE-HOT-TIER" in rules()
    checker.update(ops.apply(design, applied.inverse).change)
    assert "STORAGE-HOT-TIER" not in rules()
    # The tier turns warm: no hot tier (HOT-TIER), and the named checkpoint tier is
    # still there, so POOLS only warns when both resolve to it (dataset: no hot tier).
    checker.update(ops.apply(design, SetTierFields("tier-hot", (("tier", "warm"),))).change)
    assert rules() == {"STORAGE-HOT-TIER"}
    checker.update(ops.apply(design, ops.RemoveDevice("st-0")).change)
    assert "STORAGE-HOT-TIER" in rules()


# -- STORAGE-CAPACITY and STORAGE-METADATA (issue 24: the seeds' fields had no home) ------


def test_capacity_is_dataset_times_concurrent_jobs(catalog) -> None:
    """One all-flash node: 294.9 TB usable.  90 TB × 3 jobs fits; × 4 does not."""
    design = storage_design(catalog, nodes=1, appliances=1, appliance_links=2)
    tier = design.storage_tiers[0]
    tier.dataset_tb, tier.concurrent_jobs = 90.0, 3
    assert run(design, "STORAGE-CAPACITY") == []
    tier.concurrent_jobs = 4
    (finding,) = run(design, "STORAGE-CAPACITY")
    assert finding.objects == ("tier-hot",) and finding.severity is Severity.WARNING
    assert "4 concurrent jobs × 90.0 TB of dataset need 360.0 TB" in finding.message
    assert "294.9 TB usable" in finding.message


def test_dataset_tier_above_40_gpus_needs_metadata_servers(catalog) -> None:
    design = storage_design(catalog, nodes=6, appliances=2, appliance_links=2)
    (finding,) = run(design, "STORAGE-METADATA")
    assert "48 GPUs' datasets but states no dedicated metadata servers" in finding.message
    design.storage_tiers[0].metadata_servers = 2
    assert run(design, "STORAGE-METADATA") == []
    small = storage_design(catalog, nodes=5, appliances=2, appliance_links=2)  # 40 GPUs
    assert run(small, "STORAGE-METADATA") == []


def test_tier_figures_from_the_command_line(tmp_path) -> None:
    from cli_helpers import run as cli

    from workbench.store import open_design

    path = tmp_path / "p.dcwb"
    assert cli("new", "--template", "dgx-h100-superpod", "--gpus", "64", str(path)).returncode == 0
    tier = open_design(path).storage_tiers[0]
    done = cli("tiers", "set", str(path), tier.id, "--metadata-servers", "2",
               "--dataset-tb", "50", "--concurrent-jobs", "2", "--small-file-iops", "1e6")  # fmt: skip
    assert done.returncode == 0, done.stderr
    saved = open_design(path).storage_tiers[0]
    assert (saved.metadata_servers, saved.dataset_tb, saved.concurrent_jobs) == (2, 50.0, 2)
    assert saved.small_file_iops == 1e6
    bad = cli("tiers", "set", str(path), tier.id, "--concurrent-jobs", "-1")
    assert bad.returncode == 2 and "concurrent jobs" in bad.stderr
    assert open_design(path).storage_tiers[0].concurrent_jobs == 2


def test_checkpoint_bursts_of_several_jobs_add_up(catalog) -> None:
    """Two GPT-3 jobs (2.45 TB checkpoints each) on one all-flash node writing 30 GB/s:
    each alone takes 81.7 s, 4.5 % of a 30-minute interval (STORAGE-CHECKPOINT quiet);
    saving at once, 4.9 TB take 163 s, 9.1 % (seed 000: several jobs' checkpoints at
    once make the cluster wait on IO)."""
    jobs = [
        Workload("w1", "GPT-3 a", model="custom", params=175e9, checkpoint_interval_min=30),
        Workload("w2", "GPT-3 b", model="custom", params=175e9, checkpoint_interval_min=30),
    ]
    design = storage_design(catalog, nodes=6, appliances=1, appliance_links=2, workloads=jobs)
    assert run(design, "STORAGE-CHECKPOINT") == []
    (finding,) = run(design, "STORAGE-CHECKPOINT-BURST")
    assert finding.objects == ("tier-hot", "w1", "w2")
    assert "2 jobs (GPT-3 a, GPT-3 b) saving 4.90 TB of checkpoints at once" in finding.message
    assert "9.1% of the shortest interval (30 min)" in finding.message
    design.workloads.pop()
    assert run(design, "STORAGE-CHECKPOINT-BURST") == []


def test_gpudirect_storage_from_the_command_line(tmp_path) -> None:
    """Before: no tier field said whether the nodes read it with GPUDirect Storage."""
    from cli_helpers import run as cli

    from workbench.store import open_design

    path = tmp_path / "p.dcwb"
    assert cli("new", "--template", "dgx-h100-superpod", "--gpus", "64", str(path)).returncode == 0
    tier = open_design(path).storage_tiers[0]
    done = cli("tiers", "set", str(path), tier.id, "--gpudirect-storage", "yes")
    assert done.returncode == 0, done.stderr
    assert open_design(path).storage_tiers[0].gpudirect_storage is True
    assert "GPUDirect Storage yes" in done.stdout
    cleared = cli("tiers", "set", str(path), tier.id, "--gpudirect-storage", "none")
    assert cleared.returncode == 0 and open_design(path).storage_tiers[0].gpudirect_storage is None
    bad = cli("tiers", "set", str(path), tier.id, "--gpudirect-storage", "maybe")
    assert bad.returncode == 2 and "gpudirect-storage" in bad.stderr


def test_model_edit_checks_and_undoes_gpudirect_storage(catalog) -> None:
    design = storage_design(catalog, nodes=1, appliances=1, appliance_links=2)
    applied = ops.apply(design, SetTierFields("tier-hot", (("gpudirect_storage", False),)))
    assert design.storage_tiers[0].gpudirect_storage is False
    ops.apply(design, applied.inverse)
    assert design.storage_tiers[0].gpudirect_storage is None
    from workbench.model.errors import EditError

    with pytest.raises(EditError, match="GPUDirect Storage"):
        ops.apply(design, SetTierFields("tier-hot", (("gpudirect_storage", "yes"),)))


def test_dataset_tier_above_40_gpus_is_noted_until_read_with_gds(catalog) -> None:
    """Seed 004: without GPUDirect Storage reads fall back to POSIX and can halve."""
    design = storage_design(catalog, nodes=6, appliances=2, appliance_links=2)
    (finding,) = run(design, "STORAGE-GDS")
    assert finding.severity is Severity.INFO and finding.objects == ("tier-hot",)
    assert "48 GPUs' datasets and does not say if it is read with GPUDirect" in finding.message
    design.storage_tiers[0].gpudirect_storage = False
    (finding,) = run(design, "STORAGE-GDS")
    assert "48 GPUs' datasets and is read without GPUDirect Storage:" in finding.message
    design.storage_tiers[0].gpudirect_storage = True
    assert run(design, "STORAGE-GDS") == []
    small = storage_design(catalog, nodes=5, appliances=2, appliance_links=2)  # 40 GPUs
    assert run(small, "STORAGE-GDS") == []
