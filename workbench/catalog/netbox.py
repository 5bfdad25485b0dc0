"""What the workbench reads out of NetBox device-type conventions.

NetBox names interface types by speed and cage (``400gbase-x-osfp``,
``25gbase-x-sfp28``, ``infiniband-ndr``) and has no notion of our ``kind``.  These
helpers turn those names into numbers the calculators can use.

NetBox's power figures have a meaning of their own, kept here too (:func:`netbox_power`):
``allocated_draw`` is what a port is expected to draw, so its sum over the ports is the
device's draw -- except on redundant supplies that each list the same figure, which the
library writes for N+N devices (each supply ready to carry the whole load): that figure
is the device's draw once, never N times it; ``maximum_draw`` is the rating of one supply, so summing it over
redundant supplies says nothing about the device (a 4U server with six 4.4 kW supplies
is not a 26.4 kW load).  A rating is used only with the redundancy stated
(``props.psu_redundancy``: ``N+N``, ``N+1``, ``4+2``), as the capacity of the supplies
in service; without it the power is unknown, never 0 W.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.catalog.item import CatalogItem, PowerPort

#: Line rate of a 4x InfiniBand port per generation, Gb/s (the "x4" link NetBox means).
INFINIBAND_GBPS: dict[str, float] = {
    "sdr": 10.0,
    "ddr": 20.0,
    "qdr": 40.0,
    "fdr10": 40.0,
    "fdr": 56.0,
    "edr": 100.0,
    "hdr": 200.0,
    "ndr": 400.0,
    "xdr": 800.0,
}

#: ``<number><unit>base-...``: 100base-tx, 1000base-t, 2.5gbase-t, 400gbase-x-osfp, 1.6tbase-...
#: Digits are capped: a type name from a stranger's file such as ``9999...9gbase-x``
#: would otherwise give an infinite line rate that poisons every bandwidth sum.
_ETHERNET = re.compile(r"^(\d{1,6}(?:\.\d{1,6})?)([gt]?)base-")
_UNIT_GBPS = {"": 0.001, "g": 1.0, "t": 1000.0}


def interface_speed_gbps(type_name: str) -> float | None:
    """Line rate in Gb/s of a NetBox interface type, or None when it has none.

    >>> interface_speed_gbps("400gbase-x-osfp"), interface_speed_gbps("1000base-t")
    (400.0, 1.0)
    """
    name = (type_name or "").strip().lower()
    if name.startswith("infiniband-"):
        # NetBox 4.4 adds "-4x" names (infiniband-ndr-4x) for the 4-lane port the plain
        # names have always meant in the library: the same line rate
        return INFINIBAND_GBPS.get(name.removeprefix("infiniband-").removesuffix("-4x"))
    match = _ETHERNET.match(name)
    if match is None:
        return None  # virtual, lag, other, wireless types ...
    return round(float(match.group(1)) * _UNIT_GBPS[match.group(2)], 6)


def data_interfaces(interfaces: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Interfaces that carry traffic: not ``mgmt_only``, and with a known speed."""
    return [
        entry
        for entry in interfaces
        if isinstance(entry, Mapping)
        and not entry.get("mgmt_only")
        and interface_speed_gbps(str(entry.get("type", ""))) is not None
    ]


def infer_kind(mapping: Mapping[str, Any]) -> str:
    """Our ``kind`` for a NetBox device type that does not state one.

    The decision and its evidence come from :func:`workbench.catalog.classify.classify`;
    this is its kind alone, for callers that only need the word.
    """
    from workbench.catalog.classify import classify  # classify reads speeds from here

    return str(classify(mapping).kind.value)


#: ``4+2``, ``N+N``, ``N+1``, ``N`` (no redundancy): supplies in service "+" spares.
_REDUNDANCY = re.compile(r"^\s*(\d{1,2}|n)\s*(?:\+\s*(\d{1,2}|n))?\s*$", re.IGNORECASE)

#: A power figure in a file's comments (``6.5 kW``, ``6,500 W``), compared with the
#: sum of allocated_draw: the library's DGX A100 says 6.5 kW while its ports sum to 1.2.
_COMMENT_POWER = re.compile(r"(\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)\s*(kw|w)\b", re.I)

#: How far the sum of allocated_draw may be from a figure in the comments before the
#: user is told (the comment may quote a typical, the ports a maximum).
COMMENT_TOLERANCE = 0.25


@dataclass(frozen=True)
class PowerFigure:
    """A device's power from its NetBox ports: watts (None when unknown), where the
    figure came from (what ``sources["max_power_w"]`` records) and what to tell the user."""

    watts: float | None
    source: str
    note: str = ""


def supplies_in_service(redundancy: str, ports: int) -> int:
    """How many of ``ports`` supplies carry the load under ``redundancy``.

    ``N+N`` → half of them, ``N+1`` → all but one, ``4+2`` → 4 (and the device must
    have 6), ``N`` → all.  Raises ValueError with a one-line reason otherwise.
    """
    match = _REDUNDANCY.match(redundancy or "")
    if match is None:
        raise ValueError(
            f"psu_redundancy {redundancy!r} is not a redundancy: write N+N, N+1, N or 4+2"
        )
    first, spare = match.group(1).lower(), (match.group(2) or "0").lower()
    if first == "n" and spare == "n":
        if ports % 2:
            raise ValueError(f"psu_redundancy N+N needs an even number of supplies, not {ports}")
        return ports // 2
    if first == "n":
        active = ports - int(spare)
    elif spare == "n":
        raise ValueError(f"psu_redundancy {redundancy!r}: write N+N, N+1 or counts like 4+2")
    else:
        active = int(first)
        if active + int(spare) != ports:
            raise ValueError(
                f"psu_redundancy {redundancy} means {active + int(spare)} supplies; the file "
                f"lists {ports} power ports"
            )
    if active < 1:
        raise ValueError(f"psu_redundancy {redundancy} leaves no supply in service of {ports}")
    return active


def netbox_power(
    ports: Sequence[PowerPort], redundancy: str | None, comments: str = ""
) -> PowerFigure:
    """The device's power as NetBox's port figures give it (see the module docstring).

    Raises ValueError for a redundancy that does not fit the ports.
    """
    allocated = [p.allocated_draw for p in ports if p.allocated_draw]
    if len(allocated) > 1 and len(set(allocated)) == 1:
        # Redundant supplies (N+N) each list the device's whole draw: the library's
        # S5248F-ON says 360 W on both of its two supplies for a 360 W switch.
        once = float(allocated[0])
        source = (
            f"allocated_draw: {once:,.0f} W on each of {len(allocated)} power ports, taken "
            f"once: identical figures on redundant supplies are the device's draw, not "
            f"{len(allocated)} × it ({once * len(allocated):,.0f} W)"
        )
        return PowerFigure(once, source, _comment_mismatch(once, len(allocated), comments))
    if allocated:
        total = float(sum(allocated))
        source = (
            f"allocated_draw: sum over {len(allocated)} power port"
            f"{'s' if len(allocated) != 1 else ''} ({total:,.0f} W)"
            + (", the ports list different figures" if len(allocated) > 1 else "")
        )
        return PowerFigure(total, source, _comment_mismatch(total, len(allocated), comments))
    ratings = sorted(p.maximum_draw for p in ports if p.maximum_draw)
    if not ratings:
        return PowerFigure(
            None,
            "unknown",
            "power unknown: no allocated_draw or maximum_draw on any power port; set "
            "max_power_w (the budgets count this device as unknown, not 0 W)",
        )
    if not redundancy:
        return PowerFigure(
            None,
            "unknown",
            f"power unknown: maximum_draw is a supply rating ({_ratings(ratings)}), not a "
            "draw; state props.psu_redundancy (N+N, N+1, 4+2), import with "
            "--psu-redundancy, or set max_power_w",
        )
    active = supplies_in_service(redundancy, len(ports))
    if active > len(ratings):
        raise ValueError(
            f"psu_redundancy {redundancy} puts {active} supplies in service; only "
            f"{len(ratings)} power ports have a maximum_draw"
        )
    watts = float(sum(ratings[:active]))  # the weakest supplies left in service
    source = (
        f"maximum_draw {redundancy.upper()}: {active} of {len(ports)} supplies in service "
        f"({_ratings(ratings[:active])}), the supplies' capacity, an upper bound on the draw"
    )
    return PowerFigure(watts, source)


def _ratings(ratings: Sequence[float]) -> str:
    if len(set(ratings)) == 1:
        return f"{len(ratings)} × {ratings[0]:,.0f} W"
    return " + ".join(f"{r:,.0f} W" for r in ratings)


def _comment_mismatch(total: float, ports: int, comments: str) -> str:
    figures = []
    for number, unit in _COMMENT_POWER.findall(comments or ""):
        value = float(number.replace(",", ""))
        figures.append(value * 1000.0 if unit.lower() == "kw" else value)
    figures = [f for f in figures if f >= 50]  # "5 W" of a fan is not the device
    if not figures:
        return ""
    stated = max(figures)
    if abs(stated - total) <= COMMENT_TOLERANCE * stated:
        return ""
    return (
        f"allocated_draw sums to {total:,.0f} W over {ports} power ports, but the comments "
        f"say {stated:,.0f} W: check which is right and set max_power_w"
    )


#: ``power_source`` values for figures the file states itself.
_STATED_SOURCES = ("catalog", "user")


def power_source(item: CatalogItem) -> str:
    """Where an item's ``max_power_w`` came from, in one word or phrase: ``catalog``
    (stated in the file), ``user`` (entered by the user), ``allocated_draw``,
    ``maximum_draw N+1: ...`` (a supply rating with its redundancy) or ``unknown``."""
    if item.max_power_w is None:
        return "unknown"
    source = item.sources.get("max_power_w", "")
    if "max_power_w" in item.raw or not item.raw:
        return "user" if source.lower().startswith("user") else "catalog"
    if source.startswith("allocated_draw"):
        return "allocated_draw"
    if source.startswith("maximum_draw"):
        return source
    return "catalog"
