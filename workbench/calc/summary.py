"""The live summary of a design and its per-rack loads.

``summarize(design)`` runs after every edit in the window, on designs of up to ~12,500
devices in ~3,000 racks, so it makes one linear pass that only counts device types, then
multiplies the per-type figures (computed once per type) by the counts.  ``rack_loads``
is the per-rack pass behind the power-per-rack chart.

Figures come from the design's snapshot of catalog items (``design.device_types``), never
from the installed catalog:

* IT kW = Σ ``max_power_w`` of every device / 1000 (the nameplate maximum a planner
  budgets breakers and cooling for; DGX H100 = 10.2 kW, DGX H100/H200 User Guide).
  Typical kW uses ``typical_power_w`` and falls back to the maximum when it is missing.
* Peak PFLOPS per precision = Σ over GPU servers of ``gpu_count × GPU dense TFLOPS / 1000``
  with the TFLOPS of the server's GPU item (its ``gpu`` slug); when that item is not in
  the snapshot the server's own ``tflops`` are taken as per-GPU figures.
* Facility kW, heat and cooling tons: :mod:`workbench.calc.power`.

Unknown power is unknown, not 0 W: a device whose type has no power figure adds
nothing to the kW sums (there is no number to add), and is *counted* instead
(``unknown_power_devices`` of the design and of each rack), so every budget that shows
a sum can say it is incomplete.  The RACK-POWER-UNKNOWN rule flags each such rack.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from workbench.calc.power import BTU_H_PER_TON, BTU_H_PER_W, DEFAULT_PUE, facility_kw
from workbench.catalog.item import (
    PASSIVE_KINDS,
    CatalogItem,
    is_gpu_server,
    power_figure_w,
    power_unknown,
)
from workbench.catalog.vocabulary import COOLING_TYPES
from workbench.model.design import Design, Rack
from workbench.model.index import SignedTotals, exact
from workbench.model.placement import rack_height


@dataclass(frozen=True)
class _TypeFigures:
    """What one device of a catalog type contributes; computed once per type per call."""

    max_w: float
    typical_w: float
    has_power: bool
    gpus: int
    gpu_slug: str | None
    tflops: dict[str, float]
    hbm_gb: float
    u: float
    weight_kg: float


#: Kinds that draw no IT power of their own (one list, in the catalog's item module).
_PASSIVE_KINDS = PASSIVE_KINDS

_EMPTY = _TypeFigures(0.0, 0.0, False, 0, None, {}, 0.0, 0.0, 0.0)


def _gpu_item(design: Design, server: CatalogItem) -> CatalogItem | None:
    """The GPU catalog item a server names, from the design's snapshot."""
    if not server.gpu:
        return None
    item = design.device_types.get(server.gpu)
    if item is not None:
        return item
    for candidate in design.device_types.values():  # a model name instead of a slug
        if candidate.kind == "gpu" and server.gpu in (candidate.model, candidate.label):
            return candidate
    return None


def _figures(design: Design, item: CatalogItem | None) -> _TypeFigures:
    if item is None:
        return _EMPTY
    max_w = power_figure_w(item)
    typ_w = item.typical_power_w if item.typical_power_w is not None else max_w
    gpus = int(item.gpu_count) if is_gpu_server(item) else 0  # GPUs count in GPU nodes
    gpu = _gpu_item(design, item) if gpus else None
    source = gpu if gpu is not None else item
    slug = gpu.slug if gpu is not None else (item.gpu or None)
    return _TypeFigures(
        max_w=float(max_w or 0.0),
        typical_w=float(typ_w or 0.0),
        # PDUs (and cables or racks, should one be placed) pass power on rather than
        # draw it, and patch panels or CDUs are no IT load: no figure is expected, so
        # they are not flagged as missing one.
        has_power=not power_unknown(item),
        gpus=gpus,
        gpu_slug=slug if gpus else None,
        tflops={k: float(v) for k, v in source.tflops.items() if v} if gpus else {},
        hbm_gb=float(source.hbm_gb or 0.0) if gpus else 0.0,
        u=float(item.u_height or 0.0),
        weight_kg=float(item.weight_kg or 0.0),
    )


#: Where a design's PUE comes from: a figure somebody typed, or the racks' cooling.
PUE_SET = "set"
PUE_FROM_COOLING = "from cooling"


def stated_design_pue(design: Design) -> float | None:
    """The PUE typed on the design (``properties["pue"]``) when valid (1 ≤ PUE ≤ 5)."""
    if "pue" not in design.properties:
        return None
    try:
        pue = float(design.properties["pue"])
    except (TypeError, ValueError):
        return None
    return pue if 1.0 <= pue <= 5.0 else None


def cooling_pue(design: Design) -> float:
    """The PUE the racks' cooling types plan for, weighted by each rack's IT draw.

    Each cooling type's planning PUE lives beside its rack limit in the one table
    (:data:`workbench.catalog.vocabulary.COOLING_TYPES`: air 1.3, rear-door 1.25, direct
    liquid 1.15, planning assumptions around the domain brief's < 1.2 liquid target).
    A hall's overhead follows the heat it removes, so racks weigh by their maximum IT
    draw; when no rack draws anything known (an empty layout), by rack count.  An
    unknown cooling word counts as air, and a design without racks gets the air figure
    (:data:`DEFAULT_PUE`), so air-cooled designs plan at 1.3 exactly as before.

    Each rack's cooling word and draw are kept between edits, with their totals
    (:meth:`~workbench.model.index.DesignIndex.per_rack`): an edit re-reads only the
    racks it touched, and no edit walks every rack.  The draw is summed exactly
    (integer watts, fractions otherwise) and rounded once, so the kept figure equals
    a fresh one whatever the order of the edits.  An all-air design (the common case)
    is answered from the cooling words alone.
    """
    index = design.index
    unique = index.racks_unique(design.sites)
    if unique:
        if _all_air(design):
            return DEFAULT_PUE
        index.per_rack(*_draw_table(design))
        totals = index.rack_totals("rack-it-watts")
        if isinstance(totals, _DrawTotals) and not totals.odd:
            return totals.pue()
    return walked_pue(design)  # two racks of a damaged file share an id: sum here


def design_pue_in_steps(design: Design, chunk: int) -> Iterator[None]:
    """The rack tables :func:`design_pue` reads (:func:`cooling_pue`'s), built ``chunk``
    racks per step and kept for it.  Why: the racks' draws, read in one go by the first
    reader of the summary, were a step of ~15-30 ms in the window's first check at
    100,000 GPUs."""
    index = design.index
    if stated_design_pue(design) is not None or not index.racks_unique(design.sites):
        return
    yield from index.per_rack_in_steps(*_COOLING_TABLE, chunk)
    if not _all_air(design):
        yield from index.per_rack_in_steps(*_draw_table(design), chunk)


def walked_pue(design: Design) -> float:
    """:func:`cooling_pue` from a walk of every rack, nothing kept (what the kept figure
    must equal; also the answer for a damaged file or a draw that is not a number)."""
    racks = list(design.iter_racks())
    coolings = {rack.cooling for rack in racks}
    if not coolings or coolings == {"air"}:
        return DEFAULT_PUE
    fresh = _DrawTotals()
    seen: dict[str, float] = {}
    for rack in racks:
        fresh.add(_rack_draw(design, rack, seen))
    return fresh.pue() if not fresh.odd else _count_pue(fresh)


class _RackDraw(NamedTuple):
    """One rack's cooling (an unknown word as air) and its devices' power figures summed
    exactly (integer watts, or a fraction; ``odd`` counts figures that are not finite)."""

    cooling: str
    watts: int | Fraction
    odd: int


class _CoolingWords(SignedTotals):
    """How many racks carry each cooling word (kept totals of ``rack.cooling``)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def step(self, value: object, sign: int) -> None:
        word = str(value)
        self.counts[word] += sign
        if self.counts[word] <= 0:
            del self.counts[word]


class _DrawTotals(SignedTotals):
    """Σ draw and rack count per cooling type (kept totals of :class:`_RackDraw`)."""

    def __init__(self) -> None:
        self.by_type: dict[str, int | Fraction] = {}
        self.counted: Counter[str] = Counter()
        self.odd = 0

    def step(self, value: object, sign: int) -> None:
        if not isinstance(value, _RackDraw):
            return
        cooling = value.cooling
        self.by_type[cooling] = self.by_type.get(cooling, 0) + sign * value.watts
        self.counted[cooling] += sign
        if not self.counted[cooling]:
            del self.counted[cooling]
            del self.by_type[cooling]
        self.odd += sign * value.odd

    def pue(self) -> float:
        """The draw-weighted planning PUE (by rack count when nothing draws)."""
        if not self.counted:
            return DEFAULT_PUE
        draws = {k: float(v) for k, v in self.by_type.items()}
        weights = draws if sum(self.by_type.values()) > 0 else dict(self.counted)
        total = sum(weights.values())
        return sum(COOLING_TYPES[k].pue * v for k, v in sorted(weights.items())) / total


def _count_pue(totals: _DrawTotals) -> float:
    """A draw that is not a finite number weighs nothing known: weigh by rack count."""
    total = sum(totals.counted.values())
    return sum(COOLING_TYPES[k].pue * v for k, v in sorted(totals.counted.items())) / total


def _rack_draw(design: Design, rack: Rack, watts: dict[str, float]) -> _RackDraw:
    """The rack's :class:`_RackDraw` (``watts``: per slug, filled as met); kept per rack
    by :meth:`~workbench.model.index.DesignIndex.per_rack`, so an edit re-sums the racks
    it touched (a catalog item replaced bumps the types' version: all; a link edit,
    which changes no draw, none)."""
    w: int | Fraction = 0
    odd = 0
    for device in rack.devices:
        slug = device.device_type
        figure = watts.get(slug)
        if figure is None:
            item = design.device_types.get(slug)
            figure = watts[slug] = float(power_figure_w(item) or 0.0) if item else 0.0
        part = exact(figure)
        if part is None:
            odd += 1
        else:
            w += part
    cooling = rack.cooling if rack.cooling in COOLING_TYPES else "air"
    return _RackDraw(cooling, w, odd)


def _rack_cooling(rack: Rack) -> str:
    return rack.cooling


#: :meth:`~workbench.model.index.DesignIndex.per_rack`'s table of the racks' cooling words.
_COOLING_TABLE = ("rack-cooling", None, _rack_cooling, _CoolingWords)


def _all_air(design: Design) -> bool:
    """Whether every rack is air-cooled (the kept cooling words; racks indexed uniquely)."""
    index = design.index
    index.per_rack(*_COOLING_TABLE)
    words = index.rack_totals("rack-cooling")
    return isinstance(words, _CoolingWords) and not (words.counts.keys() - {"air"})


def _draw_table(
    design: Design,
) -> tuple[str, object, Callable[[Rack], _RackDraw], Callable[[], SignedTotals]]:
    """:meth:`~workbench.model.index.DesignIndex.per_rack`'s table of the racks' draws:
    (name, key, compute, totals).  The watts per slug are filled as met."""
    index = design.index
    watts: dict[str, float] = {}
    return (
        "rack-it-watts",
        (index.types_version, id(design.device_types)),
        lambda rack: _rack_draw(design, rack, watts),
        _DrawTotals,
    )


def design_pue(design: Design) -> float:
    """The design's PUE: the one typed on it (``properties["pue"]``) when valid, else the
    racks' cooling figure (:func:`cooling_pue`; 1.3, :data:`DEFAULT_PUE`, when air)."""
    stated = stated_design_pue(design)
    return stated if stated is not None else cooling_pue(design)


def design_pue_source(design: Design) -> str:
    """:data:`PUE_SET` when the design states a valid PUE, else :data:`PUE_FROM_COOLING`."""
    return PUE_SET if stated_design_pue(design) is not None else PUE_FROM_COOLING


@dataclass(frozen=True)
class DesignSummary:
    """Headline figures of a design; units in every name."""

    racks: int
    devices: int
    gpus: int
    it_kw: float
    typical_kw: float
    peak_pflops: dict[str, float]
    gpu_models: dict[str, int]
    hbm_tb: float
    pue: float
    facility_kw: float
    heat_btu_h: float
    cooling_tons: float
    #: Slugs used by devices but missing from ``design.device_types``.
    unknown_types: tuple[str, ...] = ()
    #: Devices whose type has no power figure: left out of the kW sums, which are
    #: therefore lower bounds while this is above 0.
    devices_without_power: int = 0
    gpu_servers: dict[str, int] = field(default_factory=dict)
    #: Slugs of the types without a power figure that devices use.
    unknown_power_types: tuple[str, ...] = ()
    #: Where :attr:`pue` comes from: :data:`PUE_SET` (typed) or :data:`PUE_FROM_COOLING`.
    pue_source: str = PUE_SET

    @property
    def unknown_power_devices(self) -> int:
        """Devices whose power is unknown (the same count as ``devices_without_power``)."""
        return self.devices_without_power

    @property
    def power_complete(self) -> bool:
        """True when every device's power is known, so the kW figures are whole sums."""
        return self.devices_without_power == 0

    @property
    def main_gpu(self) -> str | None:
        """The most common GPU slug, or None without GPUs."""
        return max(self.gpu_models, key=self.gpu_models.__getitem__) if self.gpu_models else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping for ``workbench report``."""
        return {
            "racks": self.racks,
            "devices": self.devices,
            "gpus": self.gpus,
            "it_kw": self.it_kw,
            "typical_kw": self.typical_kw,
            "pue": self.pue,
            "pue_source": self.pue_source,
            "facility_kw": self.facility_kw,
            "heat_btu_h": self.heat_btu_h,
            "cooling_tons": self.cooling_tons,
            "peak_pflops": dict(self.peak_pflops),
            "gpu_models": dict(self.gpu_models),
            "hbm_tb": self.hbm_tb,
            "unknown_types": list(self.unknown_types),
            "devices_without_power": self.devices_without_power,
            "unknown_power_devices": self.devices_without_power,
            "unknown_power_types": list(self.unknown_power_types),
            "power_complete": self.power_complete,
        }


def type_counts(design: Design) -> tuple[int, Counter[str]]:
    """(racks, devices per catalog slug): the one linear pass a summary needs."""
    racks = 0
    counts: Counter[str] = Counter()
    for rack in design.iter_racks():
        racks += 1
        counts.update(device.device_type for device in rack.devices)
    return racks, counts


def summarize(design: Design, pue: float | None = None) -> DesignSummary:
    """Racks, devices, GPUs, power, heat and peak PFLOPS of ``design`` in one pass."""
    racks, counts = type_counts(design)
    return summary_from_counts(design, racks, counts, pue)


def summary_from_counts(
    design: Design, racks: int, counts: Mapping[str, int], pue: float | None = None
) -> DesignSummary:
    """The summary of a design with ``racks`` racks holding ``counts`` devices per slug.

    Costs one step per catalog type, not per device, so a view that keeps the counts up
    to date edit by edit (the window's live figures) gets a new summary at once.
    """
    it_w = typical_w = hbm_gb = 0.0
    gpus = without_power = 0
    peak: dict[str, float] = {}
    gpu_models: Counter[str] = Counter()
    gpu_servers: Counter[str] = Counter()
    unknown: list[str] = []
    unpowered: list[str] = []
    for slug, count in counts.items():
        if count <= 0:
            continue
        item = design.device_types.get(slug)
        if item is None:
            # A type missing from the snapshot draws what nobody knows: unknown power,
            # exactly like an item with no figure (never 0 kW that passes for a sum).
            unknown.append(slug)
            without_power += count
            unpowered.append(slug)
            continue
        fig = _figures(design, item)
        it_w += fig.max_w * count
        typical_w += fig.typical_w * count
        if not fig.has_power:
            without_power += count
            unpowered.append(slug)
        if fig.gpus:
            n = fig.gpus * count
            gpus += n
            hbm_gb += fig.hbm_gb * n
            gpu_models[fig.gpu_slug or slug] += n
            gpu_servers[slug] += count
            for precision, tflops in fig.tflops.items():
                peak[precision] = peak.get(precision, 0.0) + n * tflops / 1000.0
    pue_value = design_pue(design) if pue is None else pue
    pue_source = design_pue_source(design) if pue is None else PUE_SET
    heat = it_w * BTU_H_PER_W
    return DesignSummary(
        racks=racks,
        devices=sum(n for n in counts.values() if n > 0),
        gpus=gpus,
        it_kw=it_w / 1000.0,
        typical_kw=typical_w / 1000.0,
        peak_pflops=peak,
        gpu_models=dict(gpu_models),
        hbm_tb=hbm_gb / 1000.0,
        pue=pue_value,
        facility_kw=facility_kw(it_w / 1000.0, pue_value),
        heat_btu_h=heat,
        cooling_tons=heat / BTU_H_PER_TON,
        unknown_types=tuple(sorted(unknown)),
        devices_without_power=without_power,
        gpu_servers=dict(gpu_servers),
        unknown_power_types=tuple(sorted(unpowered)),
        pue_source=pue_source,
    )


@dataclass(slots=True)
class RackLoad:
    """One rack's budget use: power (max and typical), U, weight, against its limits.

    Not frozen: frozen dataclasses are ~3× slower to build, and this is built per rack
    per edit; treat it as read-only."""

    rack_id: str
    name: str
    kw_max: float
    kw_typical: float
    u_used: float
    u_total: float
    weight_kg: float
    limit_kw: float
    max_weight_kg: float | None
    gpus: int
    #: Devices of the rack whose power is unknown: ``kw_max`` and ``kw_typical`` leave
    #: them out, so the rack's budget is "unknown" rather than met while this is above 0.
    unknown_power_devices: int = 0

    @property
    def power_known(self) -> bool:
        return self.unknown_power_devices == 0


class LoadCache:
    """Per-type figures (max W, typical W, U, kg, GPUs) and per-rack-type limits (U, max
    kg), shared by every rack load computed with it.

    Valid while the design's catalog snapshot stays the same: a caller that keeps one
    across edits (the window's live figures, the rules) drops it when the snapshot
    changes.
    """

    def __init__(self) -> None:
        self.per_type: dict[str, tuple[float, float, float, float, int, int]] = {}
        self.rack_types: dict[str, tuple[float, float | None]] = {}


def rack_load(design: Design, rack: Rack, cache: LoadCache | None = None) -> RackLoad:
    """The load of one rack: the same figures as its ``rack_loads`` entry.

    Lets a live view refresh only the racks an edit touched instead of every rack.
    """
    cache = cache if cache is not None else LoadCache()
    per_type = cache.per_type
    kw = kw_typ = u = weight = 0.0
    gpus = unknown = 0
    for device in rack.devices:
        fig = per_type.get(device.device_type)
        if fig is None:
            item = design.device_types.get(device.device_type)
            f = _figures(design, item)
            missing = int(power_unknown(item))  # a missing type included
            fig = per_type[device.device_type] = (
                f.max_w,
                f.typical_w,
                f.u,
                f.weight_kg,
                f.gpus,
                missing,
            )
        kw += fig[0]
        kw_typ += fig[1]
        u += fig[2]
        weight += fig[3]
        gpus += fig[4]
        unknown += fig[5]
    limits = cache.rack_types.get(rack.rack_type)
    if limits is None:
        item = design.device_types.get(rack.rack_type)
        u_total = float(rack_height(design, rack))
        max_weight = item.props.get("max_weight_kg") if item else None
        limits = cache.rack_types[rack.rack_type] = (
            u_total,
            float(max_weight) if max_weight is not None else None,
        )
    return RackLoad(
        rack.id,
        rack.name,
        kw / 1000.0,
        kw_typ / 1000.0,
        u,
        limits[0],
        weight,
        float(rack.power_limit_kw),
        limits[1],
        gpus,
        unknown,
    )


def rack_loads(design: Design) -> dict[str, RackLoad]:
    """Per-rack loads keyed by rack id, in site/row/rack order (weight: devices only).

    Per-type figures and rack limits are looked up once per type, so the pass over
    ~12,500 devices stays within a few milliseconds.
    """
    cache = LoadCache()
    return {rack.id: rack_load(design, rack, cache) for rack in design.iter_racks()}
