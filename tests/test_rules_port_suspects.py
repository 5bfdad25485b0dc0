"""A full check asks FABRIC-PORT only about the devices port_suspects names: the findings
must be those of asking every device, on clean, broken and odd designs."""

from __future__ import annotations

import dataclasses
import random

import pytest
from test_rules_fabric import TOR_25G, design_of, doubled_links, leaf_spine, link

from workbench.catalog import load_catalog
from workbench.model.design import Design, Link
from workbench.rules import REGISTRY, Checker, check_design
from workbench.rules import port_suspects as suspect_pass
from workbench.rules.port_suspects import port_suspects, port_suspects_in_steps

RULE = REGISTRY["FABRIC-PORT"]
#: The same rule without the shortcut: every device is asked, as before.
EVERY_DEVICE = dataclasses.replace(RULE, suspects=None)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def same_as_asking_every_device(design: Design) -> list:
    fast = check_design(design, rules=[RULE])
    slow = check_design(design, rules=[EVERY_DEVICE])
    assert fast == slow
    suspects = port_suspects(design)
    if suspects is not None:  # never fewer devices than have findings
        assert {f.object_id for f in slow} <= suspects
    return fast


def broken(catalog) -> Design:
    devices = {
        "H1": "nvidia-dgx-h100",
        "H2": "nvidia-dgx-h100",
        "L1": "nvidia-sn5600",
        "Q1": "nvidia-qm9700",
        "T1": TOR_25G,
        "C1": "nvidia-qm9700",
    }
    return design_of(
        catalog,
        devices,
        [
            *doubled_links(),
            link(9, "H1", "compute4", "Q1", "p99"),  # no such port on Q1 (b end)
            link(10, "H1", "nic9", "Q1", "p1"),  # no such port on H1 (a end)
            link(11, "H2", "compute4", "T1", "p1"),  # 400G OSFP to 25G SFP28
            link(12, "Q1", "p2", "L1", "swp5", speed_gbps=400),  # IB to Ethernet
            link(13, "Q1", "p3", "Q1", "p4"),  # a loop back to itself: fine
            link(14, "Q1", "p5", "Q1", "p5"),  # one port, both ends
            link(15, "H2", "compute5", "ghost", "p1"),  # a device the design lacks
            link(16, "Q1", "p6/0", "H2", "compute6", speed_gbps=200),  # lane 0
        ],
    )


def test_a_clean_fabric_has_no_suspects(catalog):
    design = leaf_spine(catalog)
    assert check_design(design, rules=[RULE]) == []
    assert not design.index.links_indexed  # no device asked: no link index built
    assert port_suspects(design) == set()
    assert same_as_asking_every_device(design) == []


def test_every_kind_of_port_problem_is_found_as_before(catalog):
    design = broken(catalog)
    found = same_as_asking_every_device(design)
    assert {f.object_id for f in found} == {"L1", "Q1", "H1", "H2"}
    # C1 has no links and T1's problem is filed under H2 (the a end): not asked.
    suspects = port_suspects(design)
    assert suspects is not None and not {"C1", "T1"} & suspects


def test_an_unknown_item_is_not_asked_and_changes_nothing(catalog):
    design = broken(catalog)
    design.device_types.pop("nvidia-qm9700")
    same_as_asking_every_device(design)


def test_two_links_with_one_id_change_nothing(catalog):
    design = broken(catalog)
    design.links.insert(0, link(12, "C1", "p77", "H1", "compute7"))  # l12 twice
    design.reindex()
    same_as_asking_every_device(design)


def test_a_speed_that_is_not_a_number_asks_every_device(catalog):
    design = broken(catalog)
    odd = Link("l99", "H1", "compute7", "L1", "swp9", "net-compute", speed_gbps="fast")  # type: ignore[arg-type]
    design.links.append(odd)
    design.reindex()
    assert port_suspects(design) is None
    same_as_asking_every_device(design)


@pytest.mark.parametrize("seed", range(12))
def test_randomly_rewired_fabrics_give_the_same_findings(catalog, seed):
    same_as_asking_every_device(rewired(catalog, seed))


def stepped(design: Design, chunk: int) -> tuple[set[str] | None, int]:
    """(the stepped answer, how many steps it took)."""
    steps = port_suspects_in_steps(design, chunk)
    taken = 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value, taken
        taken += 1


def rewired(catalog, seed: int) -> Design:
    design = leaf_spine(catalog, uplinks=3)
    rng = random.Random(seed)
    names = ["H1", "H2", "L1", "L2", "S1", "S2", "nowhere"]
    ports = ["p1", "p2", "p3", "p64", "p65", "p1/1", "p1/2", "p2/2", "compute0", "mgmt0"]
    for number, old in enumerate(list(design.links)):
        if rng.random() < 0.3:
            design.links[number] = dataclasses.replace(
                old,
                a_port=rng.choice(ports),
                b_device=rng.choice(names),
                speed_gbps=rng.choice([None, None, 400, 200, 100, 25]),
            )
    design.reindex()
    return design


@pytest.mark.parametrize("seed", [None, *range(6)])
@pytest.mark.parametrize("chunk", [1, 2, 3, 7])
@pytest.mark.parametrize("ends_per_step", [50_000, 1, 5])
def test_suspects_in_steps_are_the_one_pass_suspects(
    catalog, seed, chunk, ends_per_step, monkeypatch
):
    # A port taken twice is a fact of two links: with a chunk of 1 every such pair
    # falls in two chunks, and must still be found; with few ends per step the ends
    # are filed by device ranges (one device per range for 1) and their repeats found
    # a few ranges at a time.
    monkeypatch.setattr(suspect_pass, "ENDS_PER_STEP", ends_per_step)
    design = broken(catalog) if seed is None else rewired(catalog, seed)
    one_pass = port_suspects(design)
    assert one_pass  # the design has port faults
    found, taken = stepped(design, chunk)
    assert found == one_pass
    assert taken >= len(design.links) // chunk  # stepped, not one pass


def test_a_stepped_full_check_gives_the_findings_of_check_design(catalog, monkeypatch):
    monkeypatch.setattr(suspect_pass, "STEP_LINKS", 2)
    design = broken(catalog)
    checker = Checker(design, check_now=False)
    steps = list(checker.recheck_in_steps(chunk=1))
    assert len(steps) > len(design.links) // 2  # the suspects took steps of their own
    assert checker.findings() == check_design(design)
    assert {f.rule for f in checker.findings()} >= {"FABRIC-PORT"}
