"""How the cost figures read in a terminal: one home for ``workbench report`` and
``workbench costs`` (the figures are :meth:`workbench.calc.costs.CostSummary.to_dict`)."""

from __future__ import annotations

from typing import Any

#: How each capex category and opex item reads.
LABELS: dict[str, str] = {
    "compute": "compute",
    "network": "network",
    "optics_cables": "optics and cables",
    "storage": "storage",
    "racks_power": "racks and power",
    "spares": "spares",
    "installation": "installation",
    "energy": "energy",
    "maintenance": "maintenance and support",
    "space": "space",
    "staffing": "staffing",
}


def cost_lines(cost: dict[str, Any]) -> list[str]:
    """The cost section of a report, one string per line, two spaces in."""
    cur = cost["currency"]
    out = [f"  capex {cost['capex_total']:,.0f} {cur}"]
    out += [f"    {LABELS.get(k, k)} {v:,.0f}" for k, v in cost["capex_by_category"].items()]
    if cost["unpriced_lines"]:
        named = "; ".join(cost["unpriced"][:5])
        more = f" and {cost['unpriced_lines'] - 5} more" if cost["unpriced_lines"] > 5 else ""
        out.append(
            f"    {cost['unpriced_lines']} line(s) without a price, not counted "
            f"(capex is a lower bound): {named}{more}"
        )
    out.append(f"  opex {cost['opex_per_year']:,.0f} {cur} per year (PUE {cost['pue']:g})")
    out += [f"    {LABELS.get(k, k)} {v:,.0f}" for k, v in cost["opex_by_item"].items()]
    cph = cost["cost_per_gpu_hour"]
    years, util = cost["inputs"]["amortisation_years"], cost["inputs"]["utilisation"]
    rate = "n/a (no GPUs)" if cph is None else f"{cph:,.2f} {cur}"
    out.append(f"  cost per GPU-hour {rate} (over {years:g} years at {util:.0%} utilisation)")
    for run in cost["runs"]:
        if run["cost"] is None:
            out.append(f"  run {run['name']!r}: n/a (its days are unknown)")
            continue
        out.append(
            f"  run {run['name']!r}: {run['cost']:,.0f} {cur} for {run['days']:,.1f} days on "
            f"{run['gpus']:,} GPUs, of which energy {run['energy_cost']:,.0f}"
        )
    return out
