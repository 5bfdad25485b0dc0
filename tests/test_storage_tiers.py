"""Storage-tier figures against worked examples (see ``storage_designs`` for the items).

Hand figures used below:

* all-flash node: 24 × 15.36 TB = 368.64 TB raw (the catalog's source line); usable at
  8 data + 2 parity: 368.64 × 8/10 = 294.912 TB;
* a 400G host port on a 200G SN4600 port runs at 200 Gb/s = 25 GB/s;
* a DGX H100 has four 400G storage ports: 1,600 Gb/s = 200 GB/s while uncabled;
* a 25G storage NIC: 25 / 8 = 3.125 GB/s.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from storage_designs import HDD, OBJ, PFS, SLOW_NODE, storage_design

from workbench.calc.storage import checkpoint_overhead
from workbench.calc.storage_tiers import (
    USABLE_FRACTIONS,
    storage_figures,
    storage_report,
    tier_figures,
    usable_fraction,
)
from workbench.catalog import load_catalog
from workbench.model import Link, StorageTier


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def test_one_allflash_node_raw_and_usable(catalog) -> None:
    (tier,) = tier_figures(storage_design(catalog, appliances=1))
    assert tier.devices == 1
    assert tier.raw_tb == pytest.approx(24 * 15.36) == pytest.approx(368.64)
    assert tier.usable_fraction == 0.8
    assert tier.usable_tb == pytest.approx(294.912)
    assert "8 data + 2 parity" in tier.usable_source
    assert (tier.read_gbs, tier.write_gbs) == (50.0, 30.0)


def test_uncabled_tier_serves_nothing_and_says_so(catalog) -> None:
    """Before issue 24: a tier with no appliance cabled showed its full read (100 GB/s
    here) as effective.  An uncabled appliance serves nothing: "0 of 2 cabled"."""
    (tier,) = tier_figures(storage_design(catalog, appliances=2, nodes=2))
    assert tier.cabled_devices == 0 and tier.link_gbs == 0
    # Four 400G ports per appliance: 2 × 4 × 400 / 8 = 400 GB/s if fully cabled.
    assert tier.port_gbs == pytest.approx(400.0)
    # Two uncabled DGX H100: 2 × 1,600 Gb/s / 8 = 400 GB/s of clients.
    assert tier.client_gbs == pytest.approx(400.0) and tier.client_nodes == 2
    assert tier.effective_read_gbs == tier.served_read_gbs == 0.0
    assert tier.uncabled_read_gbs == 100.0 and tier.uncabled_devices == 2
    assert tier.read_limit == "cabling" and tier.cabled_text == "0 of 2 cabled"
    assert any("0 of 2 appliances cabled" in note for note in tier.notes)
    assert any("2 of 2 GPU nodes have no storage-plane link" in note for note in tier.notes)


def test_one_200g_link_per_appliance_limits_each_to_25_gbs(catalog) -> None:
    design = storage_design(catalog, appliances=2, appliance_links=1, nodes=2, node_links=2)
    (tier,) = tier_figures(design)
    assert tier.cabled_devices == 2
    assert tier.link_gbs == pytest.approx(2 * 200 / 8)  # 50 GB/s of links
    # Each appliance reads 50 GB/s but its link carries 25: 2 × min(50, 25) = 50.
    assert tier.served_read_gbs == pytest.approx(50.0)
    # Writes: 2 × min(30, 25) = 50.
    assert tier.served_write_gbs == pytest.approx(50.0)
    # Clients: 2 nodes × 2 × 200G = 800 Gb/s = 100 GB/s, not binding.
    assert tier.client_gbs == pytest.approx(100.0)
    assert tier.effective_read_gbs == pytest.approx(50.0)
    assert tier.read_limit == "storage links"
    assert tier.notes == ()


def test_each_appliance_is_limited_by_its_own_links(catalog) -> None:
    """Two links on one appliance do not help the other: 2 links → min(50, 50) = 50,
    0 links → uncabled, serving nothing: 50 GB/s in all."""
    design = storage_design(catalog, appliances=2, appliance_links=0)
    design.links = []
    for k in range(2):
        design.links.append(
            Link(f"l{k}", "st-0", f"storage{k}", "sw-1", f"swp{k + 1}", "net-storage")
        )
    design.reindex()
    (tier,) = tier_figures(design)
    assert tier.cabled_devices == 1 and tier.cabled_text == "1 of 2 cabled"
    assert tier.served_read_gbs == pytest.approx(50.0)


def test_a_25g_storage_nic_makes_the_clients_the_limit(catalog) -> None:
    design = storage_design(
        catalog, nodes=1, node_slug=SLOW_NODE.slug, appliances=2, appliance_links=2
    )
    (tier,) = tier_figures(design)
    assert tier.client_gbs == pytest.approx(25 / 8) == pytest.approx(3.125)
    assert tier.effective_read_gbs == pytest.approx(3.125)
    assert tier.effective_write_gbs == pytest.approx(3.125)
    assert tier.read_limit == tier.write_limit == "clients"


def test_storage_to_compute_ratio_per_gpu(catalog) -> None:
    (tier,) = tier_figures(storage_design(catalog, nodes=2, appliances=2, appliance_links=2))
    assert tier.gpus == 16
    # 2 × 294.912 TB usable / 16 GPUs = 36.864 TB per GPU; 100 GB/s / 16 = 6.25 GB/s.
    assert tier.usable_tb_per_gpu == pytest.approx(36.864)
    assert tier.read_gbs_per_gpu == pytest.approx(6.25)


def test_no_gpus_gives_no_ratio(catalog) -> None:
    (tier,) = tier_figures(storage_design(catalog, nodes=0))
    assert tier.gpus == 0 and tier.usable_tb_per_gpu is None and tier.read_gbs_per_gpu is None
    assert tier.effective_read_gbs == 0.0
    assert "the design has no GPU nodes to serve" in tier.notes


def test_warm_and_cold_defaults(catalog) -> None:
    tiers = [
        StorageTier("tier-warm", "Warm", "warm", "S3", ["st-0"]),
        StorageTier("tier-cold", "Cold", "cold", "", ["st-1"]),
    ]
    design = storage_design(catalog, appliances=2, appliance_slug=OBJ, tiers=tiers)
    warm, cold = tier_figures(design)
    # 60 × 20 TB = 1,200 TB raw; 12 of 16 = 900 TB usable; 8 of 10 = 960 TB.
    assert warm.raw_tb == cold.raw_tb == 1200.0
    assert warm.usable_tb == pytest.approx(900.0) and cold.usable_tb == pytest.approx(960.0)
    assert warm.usable_source == USABLE_FRACTIONS["warm"].source


def test_hdd_enclosure_has_no_storage_ports(catalog) -> None:
    """An 84-bay JBOD hangs off a server over SAS: no storage-plane port, nothing to
    limit, 84 × 22 TB = 1,848 TB raw."""
    tiers = [StorageTier("tier-cold", "Cold", "cold", "", ["st-0"])]
    (tier,) = tier_figures(storage_design(catalog, appliances=1, appliance_slug=HDD, tiers=tiers))
    assert tier.raw_tb == 1848.0 and tier.port_gbs == 0.0
    assert tier.effective_read_gbs == 8.0


def test_catalog_usable_fraction_wins(catalog) -> None:
    item = dataclasses.replace(
        catalog[PFS],
        slug="pfs-mirrored",
        props={**catalog[PFS].props, "usable_fraction": 0.5},
        sources={"usable_fraction": "vendor sizing: two-way mirror"},
    )
    share = usable_fraction(item, "hot")
    assert (share.fraction, share.source) == (0.5, "vendor sizing: two-way mirror")
    assert (
        usable_fraction(dataclasses.replace(item, props={"usable_fraction": 1.5}), "hot")
        == (USABLE_FRACTIONS["hot"])
    )
    design = storage_design(catalog, appliances=1, appliance_slug="pfs-mirrored", extra=[item])
    (tier,) = tier_figures(design)
    assert tier.usable_tb == pytest.approx(368.64 / 2)


def test_missing_device_ids_are_noted_not_counted(catalog) -> None:
    tiers = [StorageTier("tier-hot", "Hot", "hot", "", ["st-0", "gone"])]
    (tier,) = tier_figures(storage_design(catalog, appliances=1, tiers=tiers))
    assert tier.devices == 1 and tier.device_ids == ("st-0",)
    assert any("1 device id(s) of the tier name nothing" in note for note in tier.notes)


def test_clients_are_shared_by_every_tier(catalog) -> None:
    tiers = [
        StorageTier("a", "A", "hot", "", ["st-0"]),
        StorageTier("b", "B", "hot", "", ["st-1"]),
    ]
    found = storage_figures(storage_design(catalog, nodes=3, node_links=1, tiers=tiers))
    assert found.clients.gpus == 24 and found.clients.cabled == 3
    assert found.clients.gbs == pytest.approx(3 * 200 / 8)
    assert [t.client_gbs for t in found.tiers] == [pytest.approx(75.0)] * 2


def test_report_is_plain_json(catalog) -> None:
    report = storage_report(storage_design(catalog, appliances=1))
    assert json.loads(json.dumps(report)) == report
    (entry,) = report
    assert entry["raw_tb"] == 368.64 and entry["usable_tb"] == 294.912
    assert {"tier_id", "kind", "devices", "effective_read_gbs", "read_gbs_per_gpu"} <= set(entry)


def test_checkpoint_overhead_is_write_time_over_interval() -> None:
    """36 s of saving every hour is 1 % of training time (36 / 3,600)."""
    assert checkpoint_overhead(36, 3600) == pytest.approx(0.01)
