"""Kind, role and GPUs of a NetBox device type, from the evidence in its file.

The community library never says "server" or "switch", and guessing from one number
went wrong on real files: every GPU server became a CPU server, storage arrays became
servers, 16-port 400G switches became servers and 25G leaves management switches.  So
each decision here is taken from named evidence (the model and system names a buyer
would recognise, the interface counts and speeds, bays, and manufacturers whose whole
line is storage or PDUs) and carries that evidence and a confidence.  A decision below
:data:`CONFIDENT` is a *question*: the command line refuses to import the file until
``--kind/--role/--gpu/--gpu-count`` answers it, and the window asks (see
:meth:`Classification.questions`).  Nothing is guessed silently.

Only the mapping is read, so the parser can call this for an entry without ``kind``
and get the same answer from a design's snapshot years later.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from workbench.catalog.netbox import interface_speed_gbps

#: A decision at or above this confidence is taken without asking.
CONFIDENT = 0.7

STATED, STRONG, GOOD, WEAK, GUESS = 1.0, 0.9, 0.75, 0.5, 0.3

#: The kind of passive and facility items that occupy rack units but are no IT device
#: (patch panels, coolant distribution units, cable managers): takes U, no IT power
#: expected, never a fabric or compute node.
INFRASTRUCTURE = "infrastructure"

#: GPU slugs of the shipped catalog a name can be mapped to with certainty.
KNOWN_GPUS: dict[str, str] = {
    "a100-40": "nvidia-a100-sxm4-40gb",
    "a100-80": "nvidia-a100-sxm4-80gb",
    "h100": "nvidia-h100-sxm5-80gb",
    "h100-pcie": "nvidia-h100-pcie-80gb",
    "h200": "nvidia-h200-sxm-141gb",
    "h800": "nvidia-h800-sxm5-80gb",
    "b200": "nvidia-b200-sxm-180gb",
    "l40s": "nvidia-l40s",
    "l20": "nvidia-l20",
    "mi300x": "amd-instinct-mi300x",
}


@dataclass(frozen=True)
class System:
    """A GPU system line: the words that name it, its GPUs per unit, which GPUs."""

    pattern: str
    label: str
    gpu_count: int
    #: GPU slugs it ships with; one means certain, several mean "ask which".
    gpus: tuple[str, ...]
    #: What the GPU is called when the catalog has no item for it (GB300's B300).
    missing_gpu: str = ""


#: Known GPU systems, most specific first (matched on model, slug and part number).
SYSTEMS: tuple[System, ...] = (
    System(r"dg[xc][-_ ]?a100.*(640|80)", "DGX A100 640GB", 8, (KNOWN_GPUS["a100-80"],)),
    System(r"dg[xc][-_ ]?a100", "DGX A100", 8, (KNOWN_GPUS["a100-40"], KNOWN_GPUS["a100-80"])),
    System(r"dgx[-_ ]?h100", "DGX H100", 8, (KNOWN_GPUS["h100"],)),
    System(r"dgx[-_ ]?h200", "DGX H200", 8, (KNOWN_GPUS["h200"],)),
    System(r"dgx[-_ ]?b200", "DGX B200", 8, (KNOWN_GPUS["b200"],)),
    System(r"hgx[-_ ]?h100", "HGX H100", 8, (KNOWN_GPUS["h100"],)),
    System(r"hgx[-_ ]?h200", "HGX H200", 8, (KNOWN_GPUS["h200"],)),
    System(r"hgx[-_ ]?b200", "HGX B200", 8, (KNOWN_GPUS["b200"],)),
    System(r"gb300", "GB300 NVL72 compute tray", 4, (), "B300 (Blackwell Ultra)"),
    System(r"gb200", "GB200 NVL72 compute tray", 4, (), "B200 of a GB200 superchip"),
    System(r"xe8545", "Dell PowerEdge XE8545", 4, (KNOWN_GPUS["a100-40"], KNOWN_GPUS["a100-80"])),
    System(
        r"xe9680",
        "Dell PowerEdge XE9680",
        8,
        (KNOWN_GPUS["h100"], KNOWN_GPUS["h200"], KNOWN_GPUS["b200"], KNOWN_GPUS["mi300x"]),
    ),
    System(r"mi300x", "AMD Instinct MI300X platform", 8, (KNOWN_GPUS["mi300x"],)),
)

#: GPU names in a model, when no system line matched: GPU slug it means.
GPU_NAMES: tuple[tuple[str, str], ...] = (
    (r"h100[-_ ]?pcie", KNOWN_GPUS["h100-pcie"]),
    (r"\bh100\b", KNOWN_GPUS["h100"]),
    (r"\bh200\b", KNOWN_GPUS["h200"]),
    (r"\bh800\b", KNOWN_GPUS["h800"]),
    (r"\bb200\b", KNOWN_GPUS["b200"]),
    (r"\ba100\b", KNOWN_GPUS["a100-80"]),
    (r"\bl40s\b", KNOWN_GPUS["l40s"]),
    (r"\bmi300x\b", KNOWN_GPUS["mi300x"]),
)

#: Manufacturers (or product lines) whose rack devices are all storage.
STORAGE_LINES: tuple[str, ...] = (
    "pure storage",
    "purestorage",
    "netapp",
    "ddn",
    "datadirect",
    "vast data",
    "vastdata",
    "powerscale",
    "isilon",
    "powerstore",
    "flashblade",
    "flasharray",
    "weka",
    "hitachi vantara",
)
_VAST = re.compile(r"^vast\b")

#: Manufacturers whose rack devices (with outlets) are PDUs.
PDU_LINES: tuple[str, ...] = (
    "apc",
    "schneider",
    "eaton",
    "raritan",
    "vertiv",
    "geist",
    "servertech",
    "server technology",
    "legrand",
)

#: Words that mark passive or facility items.
_CDU = re.compile(r"\bcdu\b|coolant distribution|liquid[- ]cooling distribution")
_PATCH = re.compile(r"patch[- ]?panel|fiber enclosure|fibre enclosure|\bcassette\b")
_SWITCH_WORD = re.compile(r"\bswitch\b|\bspectrum\b|\bquantum\b|\bnexus\b|\bleaf\b|\bspine\b")
_SERVER_WORD = re.compile(
    r"\bserver\b|superserver|poweredge|proliant|thinksystem|\bucs[- ]?c|\bsys-|\bdgx|\bhgx"
)
_COUNT = re.compile(r"\b(\d{1,2})\s*[x×-]?\s*gpus?\b|\b(\d{1,2})x\s*(?:h100|h200|b200|a100|l40s)")


@dataclass(frozen=True)
class Decision:
    """One decision (``field`` is kind, role, gpu or gpu_count) and why it was taken."""

    field: str
    value: Any
    confidence: float
    evidence: tuple[str, ...]
    #: Other plausible values (for a question, what the user chooses from).
    candidates: tuple[Any, ...] = ()

    @property
    def certain(self) -> bool:
        return self.confidence >= CONFIDENT

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
        """This classification with the user's answers taken as stated facts."""
        result = self
        for name, value in (("kind", kind), ("role", role), ("gpu", gpu), ("gpu_count", gpu_count)):
            if value is not None:
                chosen = Decision(name, value, STATED, ("stated by the user",))
                result = replace(result, **{name: chosen})
        if gpu is not None and gpu_count is None and not result.gpu_count.certain:
            result = replace(result, gpu_count=replace(result.gpu_count, confidence=WEAK))
        return result

    def refusal(self) -> str:
        """The one-line message the command line gives for an ambiguous file."""
        parts = []
        for question in self.questions():
            options = ", ".join(str(c) for c in question.candidates) or "no candidate"
            parts.append(
                f"{question.field}? best guess {question.value!r} because "
                f"{'; '.join(question.evidence)} (candidates: {options})"
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


def _text(mapping: Mapping[str, Any], *keys: str) -> str:
    return " ".join(str(mapping.get(k) or "") for k in keys).lower()


def _speeds(mapping: Mapping[str, Any]) -> list[float]:
    """Line rates of the data (not management-only) interfaces."""
    entries = mapping.get("interfaces")
    if not isinstance(entries, list):
        return []
    found = []
    for entry in entries:
        if isinstance(entry, Mapping) and not entry.get("mgmt_only"):
            speed = interface_speed_gbps(str(entry.get("type", "")))
            if speed is not None:
                found.append(speed)
    return found


def _count(mapping: Mapping[str, Any], key: str) -> int:
    value = mapping.get(key)
    return len(value) if isinstance(value, list) else 0


def classify(mapping: Mapping[str, Any]) -> Classification:
    """Kind, role, GPU and GPU count of one device type, stated fields first."""
    names = _text(mapping, "model", "slug", "part_number")
    maker = _text(mapping, "manufacturer").strip()
    comments = _text(mapping, "comments", "description")
    speeds = _speeds(mapping)
    system = next((s for s in SYSTEMS if re.search(s.pattern, names)), None)
    kind = _kind(mapping, names, maker, comments, speeds, system)
    gpu, count = _gpus(mapping, names, comments, kind.value, system)
    role = _role(mapping, kind, gpu, count, speeds, names)
    return Classification(kind, role, gpu, count)


def _kind(
    mapping: Mapping[str, Any],
    names: str,
    maker: str,
    comments: str,
    speeds: Sequence[float],
    system: System | None,
) -> Decision:
    stated = mapping.get("kind")
    if isinstance(stated, str) and stated:
        return Decision("kind", stated, STATED, ("stated in the file",))
    if "form_factor" in mapping and "power-ports" not in mapping:
        return Decision("kind", "rack", STRONG, ("a NetBox rack type (form_factor)",))
    passive = _passive(mapping, names, comments)
    if passive is not None:
        return passive
    if system is not None:
        return Decision("kind", "server", STRONG, (f"{system.label}: a GPU system",))
    if any(re.search(p, names) for p, _ in GPU_NAMES):
        return Decision("kind", "server", GOOD, ("a GPU model name in the model",))
    if any(line in maker or line in names for line in STORAGE_LINES) or _VAST.match(maker):
        return Decision(
            "kind", "storage", STRONG, (f"manufacturer line {maker or names!r} makes storage",)
        )
    outlets = _count(mapping, "power-outlets")
    if outlets:
        why = f"{outlets} power outlets"
        if any(maker.startswith(line) for line in PDU_LINES):
            why += f" from {maker!r}, a PDU maker"
        return Decision("kind", "pdu", STRONG, (why,))
    fast = [s for s in speeds if s >= 100]
    if len(speeds) >= 16 and len(fast) >= 16 and not _SERVER_WORD.search(names):
        return Decision(
            "kind", "switch", STRONG, (f"{len(fast)} data ports at {max(fast):g} Gb/s or so",)
        )
    if len(speeds) >= 24 and not _SERVER_WORD.search(names):
        return Decision("kind", "switch", STRONG, (f"{len(speeds)} data ports",))
    if _SWITCH_WORD.search(names):
        return Decision("kind", "switch", GOOD, ("'switch' (or a switch line) in the model",))
    bays = _drive_bays(mapping)
    if bays >= 12:
        return Decision(
            "kind", "storage", WEAK, (f"{bays} drive bays",), candidates=("storage", "server")
        )
    if _SERVER_WORD.search(names):
        return Decision("kind", "server", GOOD, ("a server line in the model",))
    if speeds and len(speeds) <= 8:
        return Decision(
            "kind",
            "server",
            WEAK,
            (f"only {len(speeds)} data ports and no name it is known by",),
            candidates=("server", "storage", "switch"),
        )
    return Decision(
        "kind",
        "server",
        GUESS,
        ("nothing in the file says what it is",),
        candidates=("server", "storage", "switch", "pdu", INFRASTRUCTURE),
    )


def _passive(mapping: Mapping[str, Any], names: str, comments: str) -> Decision | None:
    """Patch panels and coolant distribution units: rack items that are no IT device."""
    kind = INFRASTRUCTURE
    if _CDU.search(names) or _CDU.search(comments):
        return Decision("kind", kind, STRONG, ("a coolant distribution unit (CDU)",))
    ports = _count(mapping, "front-ports") + _count(mapping, "rear-ports")
    if _PATCH.search(names) or (ports and not _count(mapping, "interfaces")):
        why = "a patch panel" if _PATCH.search(names) else f"{ports} front/rear ports only"
        return Decision("kind", kind, STRONG, (why,))
    return None


def _drive_bays(mapping: Mapping[str, Any]) -> int:
    bays = mapping.get("module-bays")
    if not isinstance(bays, list):
        return 0
    words = ("drive", "disk", "nvme", "ssd", "hdd", "bay")
    return sum(
        1
        for bay in bays
        if isinstance(bay, Mapping) and any(w in str(bay.get("name", "")).lower() for w in words)
    )


def _gpus(
    mapping: Mapping[str, Any], names: str, comments: str, kind: str, system: System | None
) -> tuple[Decision, Decision]:
    gpu, count = mapping.get("gpu"), mapping.get("gpu_count")
    if gpu is not None or count is not None:
        return (
            Decision("gpu", gpu, STATED, ("stated in the file",)),
            Decision("gpu_count", count or 0, STATED, ("stated in the file",)),
        )
    if kind != "server":
        return (
            Decision("gpu", None, STRONG, (f"a {kind} carries no GPUs",)),
            Decision("gpu_count", 0, STRONG, (f"a {kind} carries no GPUs",)),
        )
    if system is not None:
        count_decision = Decision(
            "gpu_count", system.gpu_count, STRONG, (f"{system.label}: {system.gpu_count} GPUs",)
        )
        if len(system.gpus) == 1:
            return Decision("gpu", system.gpus[0], STRONG, (system.label,)), count_decision
        named = _named_gpu(names)
        if named in system.gpus:
            return Decision("gpu", named, GOOD, (f"{system.label} with {named}",)), count_decision
        why = (
            f"{system.label} carries {system.missing_gpu}, which the catalog lacks"
            if system.missing_gpu
            else f"{system.label} ships with several GPUs"
        )
        return Decision("gpu", None, WEAK, (why,), candidates=system.gpus), count_decision
    named = _named_gpu(names)
    if named is not None:
        match = _COUNT.search(names) or _COUNT.search(comments)
        number = int(next(g for g in match.groups() if g)) if match else 0
        if match is not None and number:
            return (
                Decision("gpu", named, GOOD, ("GPU named in the model",)),
                Decision("gpu_count", number, GOOD, (f"'{match.group(0)}' in the file",)),
            )
        return (
            Decision("gpu", named, GOOD, ("GPU named in the model",)),
            Decision("gpu_count", 0, WEAK, ("no GPU count in the file",), candidates=(1, 2, 4, 8)),
        )
    return (
        Decision("gpu", None, GOOD, ("no GPU or GPU system named",)),
        Decision("gpu_count", 0, GOOD, ("no GPU or GPU system named",)),
    )


def _named_gpu(names: str) -> str | None:
    return next((slug for pattern, slug in GPU_NAMES if re.search(pattern, names)), None)


def _role(
    mapping: Mapping[str, Any],
    kind: Decision,
    gpu: Decision,
    count: Decision,
    speeds: Sequence[float],
    names: str,
) -> Decision:
    stated = mapping.get("role")
    if isinstance(stated, str) and stated:
        return Decision("role", stated, STATED, ("stated in the file",))
    low = min(kind.confidence, STRONG)
    if kind.value == "server":
        if gpu.value or count.value or (gpu.candidates and not gpu.value):
            return Decision("role", "gpu-server", low, gpu.evidence or count.evidence)
        return Decision("role", "cpu-server", min(low, GOOD), ("no GPU or GPU system named",))
    if kind.value == "switch":
        return _switch_role(speeds, names, low)
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


def _switch_role(speeds: Sequence[float], names: str, confidence: float) -> Decision:
    """Management for 1G-only (or 10G) switches, else a fabric (compute) switch.

    A 48x25G switch with 100G uplinks is a leaf of a data plane, not a management
    switch: management runs at 1 Gb/s (BMC) or 10 Gb/s, while 25G leaves carry storage
    or front-end traffic."""
    for hint, role in (("mgmt", "management-switch"), ("management", "management-switch")):
        if hint in names:
            return Decision("role", role, confidence, (f"{hint!r} in the model",))
    if not speeds:
        return Decision(
            "role",
            "compute-switch",
            WEAK,
            ("no data ports with a known speed",),
            candidates=("compute-switch", "storage-switch", "management-switch"),
        )
    top = max(speeds)
    if top <= 10:
        return Decision(
            "role", "management-switch", confidence, (f"fastest data port {top:g} Gb/s",)
        )
    if top < 100 or min(speeds) <= 25:
        slow = sum(1 for s in speeds if s <= 25)
        return Decision(
            "role",
            "compute-switch",
            min(confidence, GOOD),
            (f"a leaf: {slow} ports at 25 Gb/s or less, uplinks at {top:g} Gb/s",),
            candidates=("compute-switch", "storage-switch"),
        )
    return Decision(
        "role", "compute-switch", confidence, (f"{len(speeds)} ports at up to {top:g} Gb/s",)
    )
