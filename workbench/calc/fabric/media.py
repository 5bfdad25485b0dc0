"""Which cable media and catalog parts a run needs, by speed and length.

From the catalog's cables and optics (``props.speed_gbps``, ``reach_m``, ``fiber``
copper|mmf|smf, ``form_factor``; see ``catalogs/README.md``): a copper DAC where one
reaches; else an active optical cable; else multimode optics; else single-mode optics —
the cheapest medium that reaches first.  A run with an RJ45 end gets a twisted-pair
patch cord.  A part whose form factor matches an end's cage is preferred.  When no part
reaches, the longest-reaching one is named with the reason; with no part at all at that
speed the medium follows :data:`TYPICAL_REACH_M`.  A run that could not be measured
(ends in two halls) gets the farthest-reaching part.  A cable with
``props.breakout_lanes`` is a splitter harness (one port into that many): never a plain
run's, only a split port's (:meth:`PartChooser.harness`).

The parts to choose from are explicit (:class:`PartChooser` takes them); the default is
the shipped catalog's cables and optics, loaded once, with the design's own snapshot
items of those kinds winning (:func:`design_parts`).  :mod:`workbench.calc.cabling`
measures the runs and counts what to buy.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeGuard

from workbench.catalog.item import CatalogItem
from workbench.model.design import Design
from workbench.model.ports import MEDIA

if TYPE_CHECKING:
    from workbench.catalog import Catalog

#: Typical reach by media, used only when the catalog holds no part at a link's speed
#: (domain brief §3: copper ≈ 2–3 m at 400G; AOCs are sold to a few tens of metres;
#: SR optics ≈ 100 m on OM4 multimode; LR optics 10 km on single-mode).
TYPICAL_REACH_M: dict[str, float] = {"dac": 3.0, "aoc": 30.0, "mmf": 100.0, "smf": 10_000.0}
#: The order media are tried in: the cheapest that reaches first.
MEDIA_ORDER: tuple[str, ...] = ("dac", "aoc", "mmf", "smf")
#: Why a run has no length.
UNMEASURED = "the ends are in different sites or not in a rack: give the link a length"


@dataclass(frozen=True)
class Part:
    """A cable or optic the choice can pick, from its catalog item."""

    slug: str
    kind: str  # "cable" | "optic"
    media: str  # a ports.MEDIA key
    speed_gbps: float
    reach_m: float
    form_factor: str
    #: A cable's own length (``props.length_m``; its reach when not given); for an
    #: optic its reach (a module has no length: the fibre between two is counted apart).
    length_m: float = 0.0


def as_part(item: CatalogItem) -> Part | None:
    """The :class:`Part` of a catalog cable or optic; None for other items or one
    without a speed and reach."""
    props = item.props
    if props.get("breakout_lanes"):
        return None  # a splitter harness: only ever a split port's (see PartChooser.harness)
    speed, reach = props.get("speed_gbps"), props.get("reach_m")
    fiber = str(props.get("fiber", "")).lower()
    form = str(props.get("form_factor", "")).lower()
    if isinstance(speed, bool) or not isinstance(speed, (int, float)):
        return None
    if isinstance(reach, bool) or not isinstance(reach, (int, float)):
        return None
    if item.kind == "cable":
        media = "utp" if form == "rj45" else "dac" if fiber == "copper" else "aoc"
    elif item.kind == "optic" and fiber in ("mmf", "smf"):
        media = fiber
    else:
        return None
    length = props.get("length_m")
    if item.kind != "cable" or isinstance(length, bool) or not isinstance(length, (int, float)):
        length = reach
    return Part(item.slug, item.kind, media, float(speed), float(reach), form, float(length))


@dataclass(frozen=True)
class Harness:
    """A splitter (breakout) cable: one port of ``speed_gbps`` into ``lanes`` ports."""

    slug: str
    speed_gbps: float
    lanes: int
    length_m: float
    form_factor: str


def as_harness(item: CatalogItem) -> Harness | None:
    """The :class:`Harness` of a catalog cable with ``props.breakout_lanes``, else None."""
    props = item.props
    lanes, speed, length = (
        props.get("breakout_lanes"),
        props.get("speed_gbps"),
        props.get("length_m"),
    )
    if item.kind != "cable" or not isinstance(lanes, int) or isinstance(lanes, bool) or lanes < 2:
        return None
    if not (_number(speed) and _number(length)):
        return None
    form = str(props.get("form_factor", "")).lower()
    return Harness(item.slug, float(speed), lanes, float(length), form)


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


#: The shipped catalog's cables and optics, once read (a list: set at most once).
_SHIPPED: list[tuple[CatalogItem, ...]] = []


def shipped_parts() -> tuple[CatalogItem, ...]:
    """The shipped catalog's cables and optics (loaded once, or handed over by
    :func:`remember_shipped`)."""
    if not _SHIPPED:
        from workbench.catalog import load_catalog

        _SHIPPED.append(_parts(load_catalog(include_user=False)))
    return _SHIPPED[0]


def remember_shipped(catalog: Catalog) -> None:
    """Keep ``catalog``'s cables and optics as :func:`shipped_parts` when it was read
    from the shipped folder alone, just now (no user folder).

    Why: a command that has loaded the catalog would otherwise load it a second time
    for the cable counts (~60 ms of ``workbench fabric`` at 100,000 GPUs)."""
    from workbench.catalog.loader import shipped_catalog_dir

    if not _SHIPPED and catalog.dirs == [shipped_catalog_dir()]:
        _SHIPPED.append(_parts(catalog))


def _parts(catalog: Iterable[CatalogItem]) -> tuple[CatalogItem, ...]:
    return tuple(i for i in catalog if i.kind in ("cable", "optic"))


def design_parts(design: Design) -> list[CatalogItem]:
    """The shipped cables and optics, any of the design's snapshot replacing the shipped
    item of the same slug (the design's own figures win)."""
    chosen = {i.slug: i for i in shipped_parts()}
    for item in design.device_types.values():
        if item.kind in ("cable", "optic"):
            chosen[item.slug] = item
    return list(chosen.values())


@dataclass(frozen=True)
class Choice:
    """The media and parts for one (speed, length, ends) combination."""

    media: str
    cable_slug: str | None
    optic_slug: str | None
    reason: str | None = None
    #: The medium reaches but no stocked length covers the run: a cable of the run's
    #: stocked length is ordered "to be quoted" (never a shorter one from the catalog).
    quote: bool = False


def _choice(media: str, part: Part, reason: str | None = None) -> Choice:
    """A choice of ``part``: a cable, or an optic module at each end."""
    if part.kind == "cable":
        return Choice(media, part.slug, None, reason)
    return Choice(media, None, part.slug, reason)


class PartChooser:
    """Picks media and parts from catalog cables and optics (see the module docstring)."""

    def __init__(self, items: Iterable[CatalogItem]):
        parts = [p for p in (as_part(i) for i in items) if p is not None]
        #: media → parts, shortest first (the first that covers the run fits best): a
        #: cable by its length, an optic by its reach.
        self.by_media: dict[str, list[Part]] = {}
        self.by_slug: dict[str, Part] = {p.slug: p for p in parts}
        for part in sorted(parts, key=lambda p: (p.length_m, p.reach_m, p.slug)):
            self.by_media.setdefault(part.media, []).append(part)
        #: Splitter harnesses (``props.breakout_lanes``), shortest first.
        self.harnesses: list[Harness] = sorted(
            (h for h in (as_harness(i) for i in items) if h is not None),
            key=lambda h: (h.length_m, h.slug),
        )

    def harness(
        self, port_speed: float, lane_speed: float, length: float | None, cages: Sequence[str]
    ) -> str | None:
        """The shortest splitter harness from a ``port_speed`` port into lanes of
        ``lane_speed`` at least ``length`` long, its form factor every one of ``cages``;
        None when none is (the lanes then take a cable each)."""
        if length is None or lane_speed <= 0:
            return None
        for h in self.harnesses:
            if (
                abs(h.speed_gbps - port_speed) < 1e-6
                and abs(h.speed_gbps / h.lanes - lane_speed) < 1e-6
                and h.length_m >= length - 1e-9
                and all(c == h.form_factor for c in cages)
            ):
                return h.slug
        return None

    def fitting(
        self, media: str, speed: float, length: float, cages: Sequence[str] = ()
    ) -> tuple[Part | None, Part | None]:
        """(the best part of ``media`` at ``speed`` that reaches ``length``, or None; the
        longest-reaching part of it at that speed, or None).  A part whose form factor is
        one of ``cages`` is preferred; twisted pair may be rated faster than the link.
        A cable fits only when it is at least ``length`` long (a 3 m patch cable never
        serves a 7 m run, however far its medium reaches)."""
        fits: list[Part] = []
        longest: Part | None = None
        for part in self.by_media.get(media, ()):
            if media == "utp":
                same = part.speed_gbps >= speed - 1e-6
            else:
                same = abs(part.speed_gbps - speed) < 1e-6
            if not same:
                continue
            if longest is None or part.reach_m >= longest.reach_m:
                longest = part
            if part.reach_m >= length - 1e-9 and part.length_m >= length - 1e-9:
                fits.append(part)
        if not fits:
            return None, longest
        matching = [p for p in fits if p.form_factor in cages]
        return (matching or fits)[0], longest

    def choose(
        self,
        speed: float | None,
        length: float | None,
        cages: Sequence[str] = (),
        forced: str | None = None,
    ) -> Choice:
        """The media and parts for a run of ``length`` m (None: not measured) at
        ``speed`` between ports with ``cages`` (``rj45`` for twisted pair)."""
        twisted = "rj45" in cages
        if speed is None:
            media = forced or ("utp" if twisted else "smf")
            return Choice(media, None, None, "the link's speed is unknown")
        order: Sequence[str] = (forced,) if forced else ("utp",) if twisted else MEDIA_ORDER
        if length is None:
            # Not measured (ends in two halls): the farthest-reaching part is the safe buy.
            for media in reversed(order):
                _part, far = self.fitting(media, speed, 0.0, cages)
                if far is not None:
                    return _choice(media, far, UNMEASURED)
            return Choice(order[-1], None, None, UNMEASURED)
        reach = length
        longest: Part | None = None
        for media in order:
            part, far = self.fitting(media, speed, reach, cages)
            if part is not None:
                return _choice(media, part)
            if far is not None and far.kind == "cable" and far.reach_m >= reach - 1e-9:
                # The medium reaches; only the stocked lengths stop short.
                return Choice(
                    media,
                    None,
                    None,
                    f"no stocked {MEDIA.get(media, media)} of {length:g} m: to be quoted",
                    quote=True,
                )
            if far is not None and (longest is None or far.reach_m > longest.reach_m):
                longest = far
        where = f"{length:g} m"
        if longest is not None:
            return _choice(
                forced or longest.media,
                longest,
                f"no {speed:g}G part reaches {where}; the longest is {longest.slug} "
                f"({longest.reach_m:g} m)",
            )
        if forced or twisted:
            media = forced or "utp"
        else:
            media = next(m for m in MEDIA_ORDER if TYPICAL_REACH_M[m] >= reach or m == "smf")
        return Choice(
            media, None, None, f"the catalog has no {speed:g}G {MEDIA.get(media, media)} part"
        )

    def reach(self, slug: str) -> float:
        """How far part ``slug`` reaches, m (0 for an unknown slug)."""
        part = self.by_slug.get(slug)
        return part.reach_m if part is not None else 0.0

    def module(
        self, media: str, speed: float, length: float | None, *, exact: bool = False
    ) -> str | None:
        """The optic of ``media`` at ``speed`` that reaches ``length`` (the longest-reaching
        when none does; with ``exact``, None then): a split port's or a twin-port
        cage's shared module."""
        part, longest = self.fitting(media, speed, length or 0.0)
        chosen = part if exact else part or longest
        if chosen is not None and chosen.kind != "optic":
            return None
        return chosen.slug if chosen is not None else None
