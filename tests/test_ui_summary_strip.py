"""Formatting of the live summary."""

from __future__ import annotations

from workbench.units import format_count, format_flops, format_power


def test_units_switch_at_a_thousand():
    assert format_power(950.04) == "950.0 kW"
    assert format_power(1421.1) == "1.42 MW"
    assert format_flops(15.83) == "15.8 PF"
    assert format_flops(989.4) == "989 PF"
    assert format_flops(1013.2) == "1.01 EF"


def test_counts_have_separators_and_plurals():
    assert format_count(1024, "GPU") == "1,024 GPUs"
    assert format_count(1, "rack") == "1 rack"
