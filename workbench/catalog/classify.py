"""Kind, role and GPUs of a NetBox device type, decided from the evidence in its file.

Measured on real files of the community library (``tests/data/netbox_library``), a
decision from one number went wrong: every GPU server came in as a CPU server with 0
GPUs, storage arrays of server makers became servers, 48-port 1G access switches with
100G uplinks became fabric switches.  The evidence an engineer reads is gathered by
:mod:`workbench.catalog.evidence`; this module decides, each decision with its
evidence and a confidence.  A decision below :data:`CONFIDENT` is a *question*: the
command line refuses the file until ``--kind/--role/--gpu/--gpu-count`` answers it, the
window asks, and a question offers the likely answer first (its value, then its
candidates).

Two rules are never bent: a server whose file shows GPU evidence is never taken with
0 GPUs (the GPU and the count are asked when the file does not settle them), and an
answer is a fact the other decisions are recomputed from (``--kind server`` recomputes
the role, ``--role gpu-server`` asks for the GPU) -- :meth:`Classification.answered`
re-runs :func:`classify` with the answers, it does not patch one field.

Only the mapping is read, so the parser can call this for an entry without ``kind``
and get the same answer from a design's snapshot years later.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from workbench.catalog import evidence as ev
from workbench.catalog.evidence import KNOWN_GPUS, SYSTEMS, GpuName, PortGroup, System, Texts

__all__ = [
    "CONFIDENT",
    "INFRASTRUCTURE",
    "KNOWN_GPUS",
    "SYSTEMS",
    "Classification",
    "Decision",
    "classify",
    "is_passive",
]

#: A decision at or above this confidence is taken without asking.
CONFIDENT = 0.7

STATED, STRONG, GOOD, WEAK, GUESS = 1.0, 0.9, 0.75, 0.5, 0.3

#: The kind of passive and facility items that occupy rack units but are no IT device
#: (patch panels, coolant distribution units, cable managers): takes U, no IT power
#: expected, never a fabric or compute node.
INFRASTRUCTURE = "infrastructure"

#: The fields a file (ours) may state and a user may answer.
FIELDS: tuple[str, ...] = ("kind", "role", "gpu", "gpu_count")

#: Access ports at or below this line rate make a switch a management switch: BMC and
#: out-of-band networks run at 1 Gb/s, in-band management at 10 Gb/s, whatever the
#: uplinks; leaves of a data plane serve 25 Gb/s or faster.
MANAGEMENT_ACCESS_GBPS = 10.0

#: A device with at least this many data interfaces and no server name is a switch.
SWITCH_PORTS = 16

_CDU = re.compile(r"\bcdu\b|coolant distribution|liquid[- ]cooling distribution")
_PATCH = re.compile(r"patch[- ]?panel|fiber enclosure|fibre enclosure|\bcassette\b")
_SWITCH_WORD = re.compile(
    r"\bswitch\b|\bspectrum\b|\bquantum\b|\bnexus\b|\bleaf\b|\bspine\b|\bnvlink\b"
)
_SERVER_WORD = re.compile(
    r"\bserver\b|superserver|poweredge|proliant|thinksystem|\bucs[- ]?c|\bsys-|\bdgx|\bhgx|"
    r"\bcray\b|\bapollo\b|\bas-\d{4}|\bars-\d{3}"  # Supermicro A+ (AS-) and ARS- servers
)
#: Switch lines that are always a GPU (compute) fabric: NVLink trays, InfiniBand.
_FABRIC_SWITCH = re.compile(r"nvlink|\bqm\d{4}|quantum|\bq\d{4}-|infiniband")


@dataclass(frozen=True)
class Decision:
    """One decision (``field`` is kind, role, gpu or gpu_count) and why it was taken."""

    field: str
    value: Any
    confidence: float
    evidence: tuple[str, ...]
    #: Other plausible values, likeliest first (for a question, what the user chooses
    #: from); the value itself is the likeliest of all.
    candidates: tuple[Any, ...] = ()

    @property
    def certain(self) -> bool:
        return self.confidence >= CONFIDENT

    def options(self) -> list[Any]:
        """What a question offers, likeliest first: the best guess, then the other
        candidates (what the command line lists and the window's choices show)."""
        first = [self.value] if self.value not in (None, "") else []
        return first + [c for c in self.candidates if c not in first]

    def describe(self) -> str:
        """``kind = switch (0.90): 32 data ports at 400 Gb/s``."""
        return f"{self.field} = {self.value} ({self.confidence:.2f}): {'; '.join(self.evidence)}"


@dataclass(frozen=True)
class Classification:
    """What a device type is, each part with its evidence (the window's question API)."""

    kind: Decision
    role: Decision
    gpu: Decision
    gpu_count: Decision
    #: The file's mapping and the answers given so far, to recompute from.
    source: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    answers: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def decisions(self) -> tuple[Decision, ...]:
        return (self.kind, self.role, self.gpu, self.gpu_count)

    def questions(self) -> list[Decision]:
        """The decisions a person must confirm or answer before an import."""
        return [d for d in self.decisions() if not d.certain]

    @property
    def ambiguous(self) -> bool:
        return bool(self.questions())

    def answered(
        self,
        kind: str | None = None,
        role: str | None = None,
        gpu: str | None = None,
        gpu_count: int | None = None,
    ) -> Classification:
        """The classification recomputed with the user's answers taken as facts: the
        role follows an answered kind, a GPU server asks for its GPU, and so on."""
        given = {"kind": kind, "role": role, "gpu": gpu, "gpu_count": gpu_count}
        answers = dict(self.answers) | {k: v for k, v in given.items() if v is not None}
        return classify(self.source, answers)

    def refusal(self) -> str:
        """The one-line message the command line gives for an ambiguous file."""
        parts = []
        for question in self.questions():
            shown = ", ".join(str(c) for c in question.options()) or (
                "no candidate the catalog holds"
            )
            parts.append(
                f"{question.field}? best guess {question.value!r} because "
                f"{'; '.join(question.evidence)} (likely: {shown})"
            )
        return (
            "not imported: cannot tell without guessing: "
            + " | ".join(parts)
            + "; say which with --kind KIND --role ROLE --gpu SLUG --gpu-count N"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            d.field: {
                "value": d.value,
                "confidence": d.confidence,
                "evidence": list(d.evidence),
                "candidates": list(d.candidates),
                "certain": d.certain,
            }
            for d in self.decisions()
        }


@dataclass(frozen=True)
class _Gpus:
    """The GPU evidence of one file."""

    system: System | None
    names: tuple[GpuName, ...]
    bays: int
    slots: int
    counts: tuple[int, ...]
    line: str | None
    text: str

    @property
    def any(self) -> bool:
        return bool(
            self.system or self.names or self.bays or self.slots or self.counts or self.line
        )

    def why(self) -> str:
        """The strongest GPU evidence, in words."""
        if self.bays:
            return f"{self.bays} bays named for a GPU"
        if self.system is not None:
            return f"{self.system.label}: a GPU system"
        if self.counts:
            return f"the file says {self.counts[0]} GPUs"
        if self.names:
            return f"the file names the {self.names[0].label}"
        if self.slots:
            return f"{self.slots} PCIe slots described for a GPU"
        return f"the file says {self.line!r}"


def _gpu_evidence(mapping: Mapping[str, Any], found: Texts) -> _Gpus:
    bays, slots, bay_words = ev.gpu_bays(mapping)
    text = f"{found.names} {found.prose} {bay_words}"
    return _Gpus(
        system=ev.system_of(found.names),
        names=tuple(ev.gpu_names_in(text)),
        bays=bays,
        slots=slots,
        counts=tuple(ev.gpu_counts_in(f"{found.names} {found.prose}")),
        line=ev.gpu_line_in(found.everything),
        text=text,
    )


def _stated(mapping: Mapping[str, Any], answers: Mapping[str, Any]) -> dict[str, tuple[Any, str]]:
    """Field → (value, who said it): the user's answers over the file's own fields."""
    facts: dict[str, tuple[Any, str]] = {}
    for name in FIELDS:
        if mapping.get(name) not in (None, ""):
            facts[name] = (mapping[name], "stated in the file")
        if answers.get(name) not in (None, ""):
            facts[name] = (answers[name], "stated by the user")
    return facts


def classify(
    mapping: Mapping[str, Any], answers: Mapping[str, Any] | None = None
) -> Classification:
    """Kind, role, GPU and GPU count of one device type; ``answers`` (a user's) and the
    file's own workbench fields are facts, the rest is decided from evidence."""
    answers = dict(answers or {})
    facts = _stated(mapping, answers)
    found = ev.texts(mapping)
    # the interfaces, or when the file models none the ports its prose lists
    groups = ev.port_groups(mapping) or ev.prose_groups(found.prose)
    gpus = _gpu_evidence(mapping, found)
    if "kind" in facts:
        kind = Decision("kind", facts["kind"][0], STATED, (facts["kind"][1],))
    else:
        kind = _kind(mapping, found, groups, gpus, facts)
    role_fact = facts.get("role")
    gpu, count = _gpus(kind, role_fact[0] if role_fact else None, gpus, facts)
    if role_fact is not None:
        role = Decision("role", role_fact[0], STATED, (role_fact[1],))
    else:
        role = _role(kind, gpu, count, gpus, groups, found)
    return Classification(kind, role, gpu, count, source=mapping, answers=answers)


# -- kind ----------------------------------------------------------------------------


def _kind(
    mapping: Mapping[str, Any],
    found: Texts,
    groups: list[PortGroup],
    gpus: _Gpus,
    facts: Mapping[str, tuple[Any, str]],
) -> Decision:
    if "form_factor" in mapping and "power-ports" not in mapping:
        return Decision("kind", "rack", STRONG, ("a NetBox rack type (form_factor)",))
    outlets = len(ev.entries(mapping, "power-outlets"))
    if outlets:
        why = f"{outlets} power outlets"
        if any(found.maker.startswith(m) for m in ev.PDU_MAKERS):
            why += f" from {found.maker!r}, a PDU maker"
        return Decision("kind", "pdu", STRONG, (why,))
    passive = _passive(mapping, found)
    if passive is not None:
        return passive
    line = ev.storage_line(found)
    if line is not None:
        return Decision("kind", "storage", STRONG, (line,))
    switch_name = _SWITCH_WORD.search(found.names)
    if switch_name and not (gpus.system or gpus.bays or gpus.slots):
        # an NVLink tray's comments name the GB200 it serves; the name says switch
        return Decision("kind", "switch", STRONG, (f"{switch_name.group(0)!r} in the model",))
    if gpus.any or facts.get("role", (None,))[0] == "gpu-server" or "gpu" in facts:
        why = gpus.why() if gpus.any else "a GPU server by the answers given"
        return Decision("kind", "server", STRONG, (why,))
    prose = ev.storage_prose(found)
    if prose is not None:
        return Decision("kind", "storage", GOOD, (prose,))
    ports = sum(g.count for g in groups)
    server_name = _SERVER_WORD.search(found.names)
    if ports >= SWITCH_PORTS and not server_name:
        return Decision(
            "kind", "switch", STRONG, (f"{ports} data ports ({ev.describe_groups(groups)})",)
        )
    if server_name:
        return Decision("kind", "server", GOOD, (f"{server_name.group(0)!r}: a server line",))
    maker = next((m for m in ev.SWITCH_MAKERS if found.maker.startswith(m)), None)
    if maker is not None and ports >= 4:
        why = f"{ports} data ports from {found.maker!r}, a switch maker"
        return Decision("kind", "switch", GOOD, (why,))
    drives = ev.drive_bays(mapping)
    if drives >= 12:
        return Decision(
            "kind", "storage", WEAK, (f"{drives} drive bays and no server name",),
            candidates=("server", "switch"),
        )  # fmt: skip
    if "server" in found.prose:
        return Decision("kind", "server", GOOD, ("the file calls it a server",))
    return Decision(
        "kind",
        "server",
        GUESS,
        (f"nothing in the file says what it is ({ev.describe_groups(groups)})",),
        candidates=("storage", "switch", "pdu", INFRASTRUCTURE),
    )


def _passive(mapping: Mapping[str, Any], found: Texts) -> Decision | None:
    """Patch panels and coolant distribution units: rack items that are no IT device."""
    if _CDU.search(found.names) or _CDU.search(found.prose):
        return Decision("kind", INFRASTRUCTURE, STRONG, ("a coolant distribution unit (CDU)",))
    ports = len(ev.entries(mapping, "front-ports")) + len(ev.entries(mapping, "rear-ports"))
    if _PATCH.search(found.names) or (ports and not ev.entries(mapping, "interfaces")):
        why = "a patch panel" if _PATCH.search(found.names) else f"{ports} front/rear ports only"
        return Decision("kind", INFRASTRUCTURE, STRONG, (why,))
    return None


# -- GPUs ----------------------------------------------------------------------------


def _whole(value: Any) -> int | None:
    """``int(value)`` (a stated ``8``, ``8.0`` or ``"8"``), or None where it is none."""
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


def _gpus(
    kind: Decision, role: str | None, gpus: _Gpus, facts: Mapping[str, tuple[Any, str]]
) -> tuple[Decision, Decision]:
    """The GPU and the GPU count: stated ones as given, else from the evidence; a GPU
    server's open GPU or count is a question, never a silent 0."""
    stated_count = None
    if "gpu_count" in facts:
        value, who = facts["gpu_count"]
        count = _whole(value)
        # A count that is no whole number is not a fact to classify by: the parser names
        # it as the bad value it is (a list, a word, infinity), here it must not crash.
        if count is not None:
            stated_count = Decision("gpu_count", count, STATED, (who,))
    gpu_server = (
        kind.value == "server"
        and role in (None, "gpu-server")
        and (
            gpus.any
            or role == "gpu-server"
            or "gpu" in facts
            or bool(stated_count and stated_count.value)
        )
    )
    if not gpu_server:
        if kind.value != "server":
            why = f"a {kind.value} carries no GPUs"
        elif role not in (None, "gpu-server"):
            why = f"a {role} carries no GPUs"
        else:
            why = "no GPU evidence in the file"
        certainty = STRONG if kind.certain else WEAK
        gpu = (
            Decision("gpu", facts["gpu"][0], STATED, (facts["gpu"][1],))
            if "gpu" in facts
            else Decision("gpu", None, certainty, (why,))
        )
        return gpu, stated_count or Decision("gpu_count", 0, certainty, (why,))
    if "gpu" in facts:
        gpu = Decision("gpu", facts["gpu"][0], STATED, (facts["gpu"][1],))
    else:
        gpu = _which_gpu(gpus)
    return gpu, stated_count or _how_many(gpus)


def _which_gpu(gpus: _Gpus) -> Decision:
    system = gpus.system
    slugs = [s for name in gpus.names for s in name.slugs]
    if gpus.names and len(set(slugs)) == 1 and all(n.slugs for n in gpus.names):
        return Decision("gpu", slugs[0], STRONG, (f"the file names the {gpus.names[0].label}",))
    if any(n.label == "A100" for n in gpus.names):
        settled = ev.a100_memory(gpus.text)
        if settled is not None:
            return Decision("gpu", settled, GOOD, (f"A100 with {settled.split('-')[-1]}",))
    missing = [n.label for n in gpus.names if not n.slugs]
    if missing:
        why = f"the file names the {missing[0]}, which the catalog lacks: add it, then answer"
        return Decision("gpu", None, WEAK, (why,), candidates=tuple(dict.fromkeys(slugs)))
    if gpus.names:
        why = f"the file names {' and '.join(n.label for n in gpus.names)}: which one is fitted?"
        return Decision("gpu", None, WEAK, (why,), candidates=tuple(dict.fromkeys(slugs)))
    if system is not None and len(system.gpus) == 1:
        return Decision("gpu", system.gpus[0], STRONG, (system.label,))
    if system is not None and system.missing:
        why = f"{system.label} carries the {system.missing}, which the catalog lacks"
        return Decision("gpu", None, WEAK, (why,))
    if system is not None and system.gpus:
        why = f"{system.label} ships with several GPUs; the file does not say which"
        return Decision("gpu", None, WEAK, (why,), candidates=system.gpus)
    why = f"{gpus.why()}, but no GPU model is named" if gpus.any else "a GPU server names no GPU"
    return Decision("gpu", None, WEAK, (why,), candidates=tuple(KNOWN_GPUS.values()))


def _how_many(gpus: _Gpus) -> Decision:
    system = gpus.system
    if gpus.bays:
        return Decision("gpu_count", gpus.bays, STRONG, (f"{gpus.bays} bays named for a GPU",))
    if system is not None and system.count is not None:
        return Decision(
            "gpu_count", system.count, STRONG, (f"{system.label}: {system.count} GPUs",)
        )
    counts = list(dict.fromkeys(gpus.counts))
    if len(counts) == 1:
        return Decision("gpu_count", counts[0], GOOD, (f"the file says {counts[0]} GPUs",))
    if counts:
        why = f"the file gives several counts ({', '.join(map(str, counts))})"
        return Decision("gpu_count", counts[0], WEAK, (why,), candidates=tuple(counts[1:]))
    if system is not None:
        first, *rest = system.counts or (8, 4)
        why = f"{system.label}: {' or '.join(map(str, system.counts))} GPUs, the buyer's choice"
        return Decision("gpu_count", first, WEAK, (why,), candidates=tuple(rest))
    if gpus.slots:
        why = f"{gpus.slots} PCIe slots described for a GPU; how many are fitted?"
        others = tuple(n for n in (8, 4, 2, 1) if n != gpus.slots)
        return Decision("gpu_count", gpus.slots, WEAK, (why,), candidates=others)
    why = f"{gpus.why()}, but no GPU count" if gpus.any else "a GPU server states no GPU count"
    return Decision("gpu_count", 8, WEAK, (why,), candidates=(4, 2, 1))


# -- role ----------------------------------------------------------------------------


def _role(
    kind: Decision,
    gpu: Decision,
    count: Decision,
    gpus: _Gpus,
    groups: list[PortGroup],
    found: Texts,
) -> Decision:
    low = min(kind.confidence, STRONG)
    if kind.value == "server":
        if gpu.value or count.value or gpus.any:
            why = gpus.why() if gpus.any else "; ".join(gpu.evidence)
            return Decision("role", "gpu-server", low, (why,), candidates=("cpu-server",))
        return Decision(
            "role", "cpu-server", min(low, GOOD), ("no GPU evidence in the file",),
            candidates=("gpu-server", "storage"),
        )  # fmt: skip
    if kind.value == "switch":
        return _switch_role(groups, found, low)
    if is_passive(kind):
        return Decision("role", "other", low, ("passive or facility item",))
    if kind.value in ("storage", "pdu"):
        return Decision("role", kind.value, low, (f"a {kind.value}",))
    return Decision("role", "other", low, (f"a {kind.value}",))


def is_passive(kind: Decision) -> bool:
    """True for a patch panel or CDU decision (kind ``infrastructure``, or a weaker
    decision whose evidence names one)."""
    if kind.value == INFRASTRUCTURE:
        return True
    text = " ".join(kind.evidence)
    return kind.confidence < STATED and any(
        word in text for word in ("patch panel", "(CDU)", "front/rear ports only")
    )


def _switch_role(groups: list[PortGroup], found: Texts, confidence: float) -> Decision:
    """The access ports (the most numerous group) decide: at most 10 Gb/s is a
    management switch whatever its uplinks; 25-50 Gb/s a leaf of a data plane (compute
    or storage); faster, InfiniBand and NVLink a compute fabric."""
    for hint in ("mgmt", "management", "oob"):
        if re.search(rf"\b{hint}\b", found.names):
            return Decision("role", "management-switch", confidence, (f"{hint!r} in the model",))
    fabric = _FABRIC_SWITCH.search(found.names)
    if fabric is not None:
        why = f"{fabric.group(0)!r}: a GPU fabric switch"
        return Decision("role", "compute-switch", confidence, (why,))
    if not groups:
        return Decision(
            "role", "compute-switch", WEAK, ("no data ports with a known speed",),
            candidates=("storage-switch", "management-switch"),
        )  # fmt: skip
    access = groups[0]
    ports = ev.describe_groups(groups)
    if access.speed <= MANAGEMENT_ACCESS_GBPS:
        why = f"{access.count} access ports at {access.speed:g} Gb/s ({ports}): management"
        return Decision("role", "management-switch", confidence, (why,))
    if access.speed <= 50:
        why = f"a leaf: {access.count} access ports at {access.speed:g} Gb/s ({ports})"
        return Decision(
            "role", "compute-switch", min(confidence, GOOD), (why,),
            candidates=("storage-switch",),
        )  # fmt: skip
    why = f"{access.count} ports at {access.speed:g} Gb/s ({ports}): a fabric switch"
    return Decision("role", "compute-switch", confidence, (why,), candidates=("storage-switch",))
