"""Fat-tree sizing against published reference architectures and hand derivations.

References (restated in our own words):

* NVIDIA DGX SuperPOD with DGX H100 reference architecture (RA-11333-001), table 4,
  "Compute fabric component count": QM9700 switches (64 × 400G NDR), eight 400G
  ports per DGX H100, scalable units (SU) of 32 nodes, non-blocking.  1 SU: 8 leaves,
  4 spines, 256 leaf-to-spine cables; 2 SU: 16, 8, 512; 3 SU: 24, 16, 768; 4 SU: 32,
  16, 1,024.
* NVIDIA DGX SuperPOD B200 reference architecture
  (docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200,
  "DGX SuperPOD Architecture", the table of component counts per number of SUs): 2 SU
  → 16 leaves, 8 spines, no core, 512 node-to-leaf and 512 leaf-to-spine cables; 4 SU
  → 32, 16, 0; 8 SU → 64, 32, 0; 16 SU → 128 leaves, 128 spines, 64 cores, 4,096 cables
  in each of the three layers; 32 SU → 256, 256, 128; 64 SU → 512, 512, 256 (16,384
  GPUs).
"""

from __future__ import annotations

import pytest

from workbench.model.errors import EditError
from workbench.planning.fabric.sizing import (
    FabricError,
    Radix,
    SwitchOption,
    cores_per_group,
    leaf_split,
    size_leaf_spine,
    size_rail,
    size_tor,
    spines_for,
)

QM9700 = Radix(64, 400.0, name="nvidia-qm9700")


def rail(sus: int, oversubscription: float = 1.0):
    return size_rail(sus * 32, 8, 32, QM9700, 64, oversubscription)


@pytest.mark.parametrize(
    ("sus", "leaves", "spines", "leaf_spine"),
    [(1, 8, 4, 256), (2, 16, 8, 512), (3, 24, 16, 768), (4, 32, 16, 1024)],
)
def test_dgx_h100_superpod_table_4(sus, leaves, spines, leaf_spine) -> None:
    shape = rail(sus)
    assert (shape.tiers, shape.leaves, shape.spines, shape.cores) == (2, leaves, spines, 0)
    assert shape.leaf_spine_links == leaf_spine
    assert shape.host_ports == sus * 32 * 8
    # 3 SUs: 24 leaves × 32 uplinks need 12 spines' worth of ports, but each leaf must
    # split its 32 uplinks evenly, so the spine count divides 32: 16.
    assert shape.leaf_up % shape.spines == 0


@pytest.mark.parametrize(
    ("sus", "leaves", "spines", "cores"),
    [
        (2, 16, 8, 0),
        (4, 32, 16, 0),
        (8, 64, 32, 0),
        (16, 128, 128, 64),
        (32, 256, 256, 128),
        (64, 512, 512, 256),
    ],
)
def test_dgx_b200_superpod_table(sus, leaves, spines, cores) -> None:
    shape = rail(sus)
    assert (shape.leaves, shape.spines, shape.cores) == (leaves, spines, cores)
    assert shape.tiers == (3 if cores else 2)
    # Every layer carries every host port at 1:1: 2 SU → 512 node–leaf and 512
    # leaf–spine cables; 16 SU → 4,096 in each of the three layers.
    assert shape.host_ports == shape.leaf_spine_links == sus * 256
    assert shape.spine_core_links == (sus * 256 if cores else 0)
    if sus == 64:
        assert shape.host_ports == 16_384  # GPUs, one port each


def test_rail_at_two_to_one_by_hand() -> None:
    # 2:1 on 64-port leaves: 32 nodes down, ceil(32 / 2) = 16 up.
    #   1 SU: 8 leaves × 16 = 128 uplinks → ceil(128 / 64) = 2 spines, divides 16: 2.
    #   2 SU: 16 × 16 = 256 → 4;  4 SU: 512 → 8;  8 SU: 1,024 → 16 (= u, 64 leaves, the
    #   most one 64-port spine reaches).
    #   16 SU: 128 leaves > 64 → 3 tiers.  A pod holds (64/2)/8 = 4 SUs = 32 leaves, so 4
    #   pods of 16 spines (64); a spine has 32 up, cores per group = smallest C ≥
    #   ceil(4 × 32 / 64) = 2 dividing 32 → 2, in 16 groups: 32 cores.
    expected = {1: (2, 0), 2: (4, 0), 4: (8, 0), 8: (16, 0), 16: (64, 32)}
    for sus, (spines, cores) in expected.items():
        shape = rail(sus, 2.0)
        assert (shape.leaf_down, shape.leaf_up) == (32, 16)
        assert (shape.spines, shape.cores) == (spines, cores), sus
        assert shape.oversubscription["leaf"] == 2.0


def test_leaf_spine_by_hand() -> None:
    # k²/2 = 2,048 host ports on 64 ports at 1:1: 64 leaves, 64 × 32 / 64 = 32 spines.
    shape = size_leaf_spine(2048, QM9700, 64)
    assert (shape.tiers, shape.leaves, shape.spines, shape.cores) == (2, 64, 32, 0)
    # 2:1: the most downlinks with d + ceil(d/2) ≤ 64 is 42 (42 + 21 = 63; 43 + 22 = 65).
    # 840 ports → 20 leaves of 42 down, 21 up; 20 × 21 = 420 uplinks need ceil(420/64)
    # = 7 spines, and 7 divides 21: each leaf has 3 links to each spine (60 ports used).
    shape = size_leaf_spine(840, QM9700, 64, 2.0)
    assert (shape.leaves, shape.leaf_down, shape.leaf_up, shape.spines) == (20, 42, 21, 7)
    assert shape.spine_down == 60
    # Fewer host ports spread evenly: 100 ports → 4 leaves of 25 down.  25 uplinks would
    # need 5 spines (the smallest divisor of 25 from ceil(100 / 64) = 2) using 20 of
    # their 64 ports; one more uplink on a spare port (26 = 2 × 13) needs 2 spines.
    shape = size_leaf_spine(100, QM9700, 64)
    assert (shape.leaves, shape.leaf_down, shape.leaf_up, shape.spines) == (4, 25, 26, 2)
    assert shape.spine_down == 52


def test_storage_plane_spines_follow_the_ports_not_a_prime_uplink_count() -> None:
    """Before issue 24: the sample's storage plane (554 host ports at 200G on 64-port
    SN4600 leaves) came out 18 leaves and 31 spines, each spine using 18 of its 64
    ports, because 31 uplinks per leaf is prime.  Sized like the compute plane (the
    SuperPOD's 32 leaves and 16 spines for 1,024 ports, NVIDIA RA-11333-001 Table 4,
    below), the spines are about the ports to carry over a spine's ports."""
    sn4600 = Radix(64, 200.0, name="nvidia-sn4600")
    shape = size_leaf_spine(554, sn4600, 64)
    assert (shape.leaves, shape.leaf_down, shape.leaf_up) == (18, 31, 33)
    assert shape.spines == 11 and shape.spine_down == 54  # ceil(18 × 33 / 64) = 10 → 11
    assert shape.leaf_down + shape.leaf_up <= 64
    # SN5600 spines at 200G (64 × 800G cages, four 200G lanes each: 256 ports).
    assert size_leaf_spine(554, sn4600, 256).spines == 3
    # The compute plane's reference is unchanged: 1,024 ports, 32 leaves, 16 spines.
    compute = size_leaf_spine(1024, QM9700, 64)
    assert (compute.leaves, compute.spines) == (32, 16)


def test_three_tiers_by_hand() -> None:
    # 2,049 ports need 65 leaves of 32: more than a 64-port spine reaches.  Pods of 32
    # leaves → 3 pods × 32 spines = 96; cores per group: the smallest C ≥ ceil(3 × 32 /
    # 64) = 2 dividing 32 → 2, 32 groups → 64 cores.  The third pod has one leaf, so its
    # spines get ceil(1 / 2) × 2 = 2 uplinks each (they still reach both cores).
    shape = size_leaf_spine(2049, QM9700, 64)
    assert (shape.tiers, shape.leaves, shape.spines, shape.cores) == (3, 65, 96, 64)
    assert shape.spine_core_links == 32 * (32 + 32 + 2)
    # Forcing three tiers on a small fabric: one pod.
    small = size_leaf_spine(256, QM9700, 64, tiers=3)
    assert (small.tiers, small.pods, small.spines) == (3, 1, 32)


def test_divisor_rules() -> None:
    assert leaf_split(64, 1.0) == (32, 32)
    assert leaf_split(64, 2.0) == (42, 21)
    assert leaf_split(64, 49 / 15) == (49, 15)
    assert spines_for(24, 32, 64) == 16
    assert spines_for(65, 32, 64) is None  # more leaves than a spine has ports
    assert cores_per_group(64, 32, 64) == 32 and cores_per_group(65, 32, 64) is None


def test_too_big_for_three_tiers_says_what_would_work() -> None:
    # 3 tiers of 64-port switches at 1:1 end at k³/4 = 65,536.  A K-port switch gives
    # K × (K/2) × (K/2) ports: 73 → 73 × 36 × 36 = 94,608, 74 → 74 × 37 × 37 = 101,306 ≥
    # 100,000.  At 64 ports, 64 pods × 32 leaves = 2,048 leaves need ceil(100,000 /
    # 2,048) = 49 downlinks each, leaving 15 up: 49/15 = 3.27:1.
    options = [SwitchOption("nvidia-q3400-ra", 288, "at 400G from 144 × 800G broken out")]
    with pytest.raises(FabricError) as caught:
        size_leaf_spine(100_000, QM9700, 64, options=options)
    text = str(caught.value)
    assert "100,000 host ports at 1:1" in text
    assert "k³/4 = 65,536" in text
    assert "4 tiers" in text
    assert "at least 74 ports" in text and "nvidia-q3400-ra, 288 ports" in text
    assert "at least 3.27:1 (49 down, 15 up per leaf)" in text
    assert isinstance(caught.value, EditError)


def test_rail_too_big_says_what_would_work() -> None:
    # 12,500 DGX H100 in SUs of 32: 391 SUs; 64-port switches hold 64 pods × 4 SUs =
    # 256 SUs (8,192 nodes).  A K-port switch holds K × floor(K/16) SUs of 32 nodes:
    # 79 → 79 × 4 = 316 SUs too few, 80 → 80 × 5 = 400 ≥ 391.  Or SUs of ceil(12,500 /
    # 256) = 49 nodes with 15 uplinks: 3.27:1.
    with pytest.raises(FabricError) as caught:
        size_rail(12_500, 8, 32, QM9700, 64)
    text = str(caught.value)
    assert "256 SUs, 8,192 nodes, 65,536 host ports" in text
    assert "at least 80 ports at 400G" in text
    assert "SUs of at least 49 nodes" in text and "(49 down, 15 up per leaf)" in text


def test_a_leaf_without_room_for_its_uplinks() -> None:
    # SUs of 40 nodes on a 72-port leaf at 1:1: 40 down + 40 up > 72.
    with pytest.raises(FabricError, match="needs 40 downlinks and 40 uplinks") as caught:
        size_rail(80, 8, 40, Radix(72, 400.0, name="big-leaf"), 72)
    text = str(caught.value)
    assert "has 32 free ports" in text
    # 40 / 32 = 1.25:1 would fit, or 36 hosts per leaf, or an 80-port switch.
    assert "1.25:1" in text and "at most 36 hosts" in text and "at least 80 ports" in text


def test_two_tiers_forced_too_big() -> None:
    with pytest.raises(FabricError, match="Use 3 tiers"):
        size_leaf_spine(5000, QM9700, 64, tiers=2)
    with pytest.raises(FabricError, match="Use 3 tiers"):
        size_rail(9 * 32, 8, 32, QM9700, 64, tiers=2)


def test_bad_numbers() -> None:
    with pytest.raises(FabricError, match="Oversubscription"):
        size_leaf_spine(100, QM9700, 64, 0.5)
    with pytest.raises(FabricError, match="at least one host"):
        size_leaf_spine(0, QM9700, 64)


def test_top_of_rack_by_hand() -> None:
    # A 48 × 10G access switch with four 100G uplinks at 3:1: 48 × 10 / 3 = 160G → 2
    # uplinks (also the minimum, for two spines).  Spines of 128 × 100G (an SN4600's 64
    # × 200G broken out 2 × 100G).
    access = Radix(48, 10.0, uplinks=4, uplink_gbps=100.0, name="mgmt")
    shape = size_tor(40, 48, access, 128, 3.0)
    assert (shape.tiers, shape.leaf_up, shape.spines) == (2, 2, 2)
    assert shape.oversubscription["leaf"] == 2.4  # 480G down over 200G up
    # 3,500 racks: beyond 128 leaves per spine → pods of 64 leaves: 55 pods × 2 spines =
    # 110; cores per group: the smallest C ≥ ceil(55 × 64 / 128) = 28 dividing 64 → 32.
    big = size_tor(3500, 6, access, 128, 3.0)
    assert (big.tiers, big.pods, big.spines, big.cores) == (3, 55, 110, 64)
    with pytest.raises(FabricError, match="uplink ports"):
        size_tor(10, 48, access, 128, 1.0)  # 480G at 1:1 needs 5 uplinks, it has 4
