"""What a NetBox device-type file says about itself, read as an engineer reads it.

The community library never states "GPU server" or "management switch"; the evidence is
spread over the file: the model name a buyer knows (XE9680, SR680a, AS-8125GS), the
comments and description ("8x AMD Instinct MI300X OAM GPUs"), module and device bays
named ``GPU 01`` or ``SXM5``, PCIe slots described "for GPU", the manufacturer lines
that only make storage (NetApp, Pure, VAST) and the storage lines of server makers
(PowerVault, 3PAR, Alletra, ThinkSystem DE/DG, SuperStorage), and the interfaces
grouped by speed (48 access ports at 1 Gb/s with 100 Gb/s uplinks are a management
switch; 48 at 25 Gb/s are a leaf).  This module only *reads*: each finding carries the
words that justify it, and :mod:`workbench.catalog.classify` decides.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from workbench.catalog.netbox import interface_speed_gbps

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
_A100 = (KNOWN_GPUS["a100-40"], KNOWN_GPUS["a100-80"])
_HOPPER_BLACKWELL = (KNOWN_GPUS["h100"], KNOWN_GPUS["h200"], KNOWN_GPUS["b200"])


@dataclass(frozen=True)
class GpuName:
    """A GPU as files name it: the catalog slugs it can mean (empty when the catalog
    has no item for it) and, for those, what it is called."""

    pattern: str
    slugs: tuple[str, ...]
    label: str


#: GPU names, most specific first.  A name with several slugs (A100: 40 or 80 GB) is a
#: question unless the text settles the memory.
GPU_NAMES: tuple[GpuName, ...] = (
    GpuName(r"\bgb300\b|\bb300\b", (), "B300 (Blackwell Ultra)"),
    GpuName(r"\bgb200\b", (), "B200 of a GB200 superchip"),
    GpuName(r"\bgb10\b", (), "GB10 Grace Blackwell superchip"),
    GpuName(r"\bb200\b", (KNOWN_GPUS["b200"],), "B200"),
    GpuName(r"\bh200\b", (KNOWN_GPUS["h200"],), "H200"),
    GpuName(r"\bh100[- ]?(?:pcie|nvl)\b", (KNOWN_GPUS["h100-pcie"],), "H100 PCIe"),
    GpuName(r"\bh100\b", (KNOWN_GPUS["h100"],), "H100"),
    GpuName(r"\bh800\b", (KNOWN_GPUS["h800"],), "H800"),
    GpuName(r"\ba100\b", _A100, "A100"),
    GpuName(r"\bl40s\b", (KNOWN_GPUS["l40s"],), "L40S"),
    GpuName(r"\bl20\b", (KNOWN_GPUS["l20"],), "L20"),
    GpuName(r"\bmi3[25]5x\b|\bmi350x\b", (), "AMD Instinct MI325X/MI350-series"),
    GpuName(r"\bmi300x\b", (KNOWN_GPUS["mi300x"],), "AMD Instinct MI300X"),
)


@dataclass(frozen=True)
class System:
    """A GPU system line a buyer knows by name: GPUs per unit (None when the buyer
    chooses, with the usual counts as ``counts``) and the GPUs it ships with (one slug
    is certain; several, or none, are a question unless the file names the GPU)."""

    pattern: str
    label: str
    count: int | None
    gpus: tuple[str, ...] = ()
    counts: tuple[int, ...] = ()
    missing: str = ""


#: Known GPU systems, most specific first, matched on model, slug and part number.
SYSTEMS: tuple[System, ...] = (
    System(r"dg[xc][-_ ]?a100.*(640|80)", "DGX A100 640GB", 8, (KNOWN_GPUS["a100-80"],)),
    System(r"dg[xc][-_ ]?a100.*320", "DGX A100 320GB", 8, (KNOWN_GPUS["a100-40"],)),
    System(r"dg[xc][-_ ]?a100", "DGX A100", 8, _A100),
    System(r"dgx[-_ ]?h100", "DGX H100", 8, (KNOWN_GPUS["h100"],)),
    System(r"dgx[-_ ]?h200", "DGX H200", 8, (KNOWN_GPUS["h200"],)),
    System(r"dgx[-_ ]?b200", "DGX B200", 8, (KNOWN_GPUS["b200"],)),
    System(r"hgx[-_ ]?h100", "HGX H100", 8, (KNOWN_GPUS["h100"],)),
    System(r"hgx[-_ ]?h200", "HGX H200", 8, (KNOWN_GPUS["h200"],)),
    System(r"hgx[-_ ]?b200", "HGX B200", 8, (KNOWN_GPUS["b200"],)),
    System(r"dgx[-_ ]?spark|\bgb10\b", "DGX Spark (GB10)", 1, (), missing="GB10 superchip"),
    System(r"gb300", "GB300 NVL72 compute tray", 4, (), missing="B300 (Blackwell Ultra)"),
    System(r"gb200", "GB200 NVL72 compute tray", 4, (), missing="B200 of a GB200 superchip"),
    System(r"xe9680", "Dell PowerEdge XE9680", 8, (*_HOPPER_BLACKWELL, KNOWN_GPUS["mi300x"])),
    System(r"xe9640", "Dell PowerEdge XE9640", 4, (KNOWN_GPUS["h100"], KNOWN_GPUS["h200"])),
    System(r"xe8640", "Dell PowerEdge XE8640", 4, (KNOWN_GPUS["h100"],)),
    System(r"xe8545", "Dell PowerEdge XE8545", 4, _A100),
    System(
        r"\br[67]\d0xa\b|poweredge[-_ ]r[67]\d0xa",
        "Dell PowerEdge xa (GPU line)",
        None,
        counts=(4, 2),
    ),  # fmt: skip
    System(r"xd670", "HPE Cray XD670", 8, (KNOWN_GPUS["h100"], KNOWN_GPUS["h200"])),
    System(r"sr680a", "Lenovo ThinkSystem SR680a", 8, _HOPPER_BLACKWELL),
    System(r"sr685a", "Lenovo ThinkSystem SR685a", 8, (*_HOPPER_BLACKWELL, KNOWN_GPUS["mi300x"])),
    System(r"sd650-n[-_ ]?v2", "Lenovo ThinkSystem SD650-N V2 (Neptune)", 4, _A100),
    System(r"sd650-n", "Lenovo ThinkSystem SD650-N (Neptune)", 4, _HOPPER_BLACKWELL[:2]),
    System(r"sr675", "Lenovo ThinkSystem SR675", None, counts=(8, 4)),
    System(r"sr670", "Lenovo ThinkSystem SR670", None, counts=(4, 8)),
    System(r"\bsys-82[12]ge", "Supermicro SYS-821GE (HGX)", 8, _HOPPER_BLACKWELL),
    System(
        r"\bas-8125gs",
        "Supermicro AS-8125GS (8-GPU)",
        8,
        (KNOWN_GPUS["mi300x"], KNOWN_GPUS["h100"], KNOWN_GPUS["h200"]),
    ),  # fmt: skip
    System(r"\bsys-4029gp-trt2\b", "Supermicro SYS-4029GP-TRT2", None, counts=(10, 8)),
    System(r"\bsys-4029gp-trt\b", "Supermicro SYS-4029GP-TRT", None, counts=(8, 4)),
    System(
        r"\bg593\b|g593-", "Gigabyte G593 (8-GPU)", 8, (*_HOPPER_BLACKWELL, KNOWN_GPUS["mi300x"])
    ),
    System(r"\bg292\b|g292-", "Gigabyte G292", None, counts=(8, 4)),
    # Supermicro's GPU families carry a G after the generation digits (SYS-421GE,
    # AS-4125GS, ARS-121GL): GPU servers whose GPUs and count the buyer chooses.
    System(r"\b(?:sys|as|ars)-\d{3,4}g[a-z]", "Supermicro GPU family (…G…)", None, counts=(8, 4)),
)


def _text(mapping: Mapping[str, Any], *keys: str) -> str:
    return " ".join(str(mapping.get(k) or "") for k in keys).lower()


def entries(mapping: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    value = mapping.get(key)
    return [e for e in value if isinstance(e, Mapping)] if isinstance(value, list) else []


@dataclass(frozen=True)
class Texts:
    """The words of a file: names (model, slug, part number), prose (comments and
    description) and the maker."""

    names: str
    prose: str
    maker: str

    @property
    def everything(self) -> str:
        return f"{self.names} {self.prose}"


def texts(mapping: Mapping[str, Any]) -> Texts:
    return Texts(
        names=_text(mapping, "model", "slug", "part_number"),
        prose=_text(mapping, "comments", "description"),
        maker=_text(mapping, "manufacturer").strip(),
    )


# -- interfaces --------------------------------------------------------------------


@dataclass(frozen=True)
class PortGroup:
    """Data interfaces of one line rate."""

    speed: float
    count: int


def port_groups(mapping: Mapping[str, Any]) -> list[PortGroup]:
    """Data (not ``mgmt_only``) interfaces grouped by line rate, most numerous first
    (the slower group first on a tie: 4 uplinks never outnumber 48 access ports)."""
    speeds = Counter[float]()
    for entry in entries(mapping, "interfaces"):
        if entry.get("mgmt_only"):
            continue
        speed = interface_speed_gbps(str(entry.get("type", "")))
        if speed is not None:
            speeds[speed] += 1
    groups = [PortGroup(s, n) for s, n in speeds.items()]
    return sorted(groups, key=lambda g: (-g.count, g.speed))


#: "48 x 1G RJ45", "6 x1G/10G SFP+", "6 x 40G/100G QSFP28": ports a file's prose
#: lists when its interfaces are not modelled (the fastest of a slash list counts).
_PROSE_PORTS = re.compile(
    r"(?<![\w.])(\d{1,3})\s*x\s*((?:\d+(?:\.\d+)?g(?:be)?/)*\d+(?:\.\d+)?)g(?:be)?\b"
)


def prose_groups(prose: str) -> list[PortGroup]:
    """Port groups the prose lists, most numerous first (as :func:`port_groups`)."""
    speeds = Counter[float]()
    for count, rates in _PROSE_PORTS.findall(prose):
        fastest = max(float(r.removesuffix("gbe").removesuffix("g")) for r in rates.split("/"))
        speeds[fastest] += int(count)
    groups = [PortGroup(s, n) for s, n in speeds.items()]
    return sorted(groups, key=lambda g: (-g.count, g.speed))


def describe_groups(groups: list[PortGroup]) -> str:
    """``48 × 1 Gb/s + 4 × 100 Gb/s``."""
    return " + ".join(f"{g.count} × {g.speed:g} Gb/s" for g in groups) or "no data ports"


# -- bays ----------------------------------------------------------------------------

_GPU_BAY = re.compile(r"\bgpu\b|^sxm\d?\b|\boam\b")
_GPU_SLOT = re.compile(r"\bfor gpu\b|\bgpu\)|, gpu\b|\bgpu slot\b")
_DRIVE_BAY = re.compile(r"drive|disk|nvme|ssd|hdd|sata|sas\b|storage slot")


def _bays(mapping: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(name, description and label) of every module and device bay."""
    for key in ("module-bays", "device-bays"):
        for bay in entries(mapping, key):
            name = str(bay.get("name", "")).lower()
            words = f"{bay.get('description') or ''} {bay.get('label') or ''}".lower()
            yield name, words


def gpu_bays(mapping: Mapping[str, Any]) -> tuple[int, int, str]:
    """(bays named for a GPU, PCIe slots described for one, what they say): ``GPU 01``
    and ``SXM5`` bays hold one GPU each; a slot "for GPU" may or may not get one."""
    named = slots = 0
    said = ""
    for name, words in _bays(mapping):
        if _GPU_BAY.search(name):
            named += 1
            said = said or words.strip()
        elif _GPU_SLOT.search(words):
            slots += 1
            said = said or words.strip()
    return named, slots, said


def drive_bays(mapping: Mapping[str, Any]) -> int:
    return sum(1 for name, words in _bays(mapping) if _DRIVE_BAY.search(f"{name} {words}"))


# -- GPUs in words -------------------------------------------------------------------

#: "8x AMD Instinct MI300X OAM GPUs", "4 x NVIDIA A100 GPUs", "4x B300 GPU", "8x SXM5
#: GPUs", "GPUs: 8 NVIDIA A100": a count, at most four words, then GPU(s).
_COUNT_BEFORE = re.compile(r"(?<![\w.])(\d{1,2})\s*[x×]?\s+(?:[\w\-/®]+\s+){0,4}?gpus?\b")
_COUNT_AFTER = re.compile(r"\bgpus?\s*:\s*(\d{1,2})\b")
_COUNT_OF_NAME = re.compile(
    r"(?<![\w.])(\d{1,2})\s*[x×]\s*(?:nvidia\s+|amd\s+)?(?:h100|h200|h800|b200|b300|a100|l40s|mi300x)\b"
)
#: Prose that says the device is built for GPUs without a count.
_GPU_LINE = re.compile(r"gpu[- ]server|gpu[- ]optimi[sz]ed|\bai server\b|generative ai|gpu system")
#: "40 GB or 80 GB", "80GB": how much memory an A100 has.
_A100_80 = re.compile(r"\b(80\s?gb|640\s?gb)\b")
_A100_40 = re.compile(r"\b(40\s?gb|320\s?gb)\b")


def gpu_counts_in(text: str) -> list[int]:
    """Every GPU count the text states (0 is not a count)."""
    found = [int(m.group(1)) for m in _COUNT_BEFORE.finditer(text)]
    found += [int(m.group(1)) for m in _COUNT_AFTER.finditer(text)]
    found += [int(m.group(1)) for m in _COUNT_OF_NAME.finditer(text)]
    return [n for n in found if n > 0]


def gpu_names_in(text: str) -> list[GpuName]:
    """GPU names in ``text``, each once; a GB300 is not also counted as a B300's H100."""
    found: list[GpuName] = []
    rest = text
    for gpu in GPU_NAMES:
        if re.search(gpu.pattern, rest):
            found.append(gpu)
            rest = re.sub(gpu.pattern, " ", rest)
    return found


def a100_memory(text: str) -> str | None:
    """The A100 slug the text settles on, or None when it names both or neither."""
    big, small = bool(_A100_80.search(text)), bool(_A100_40.search(text))
    if big == small:
        return None
    return KNOWN_GPUS["a100-80"] if big else KNOWN_GPUS["a100-40"]


def gpu_line_in(text: str) -> str | None:
    match = _GPU_LINE.search(text)
    return match.group(0) if match else None


def system_of(names: str) -> System | None:
    return next((s for s in SYSTEMS if re.search(s.pattern, names)), None)


# -- storage and PDU lines -----------------------------------------------------------

#: Manufacturers whose rack devices are all storage.
STORAGE_MAKERS: tuple[str, ...] = (
    "pure storage",
    "purestorage",
    "netapp",
    "ddn",
    "datadirect",
    "vast data",
    "vastdata",
    "weka",
    "hitachi vantara",
    "infinidat",
    "qumulo",
)

#: Storage product lines of makers that also sell servers and switches.
STORAGE_LINES = re.compile(
    r"powervault|\bmd\s?1[24]\d0\b|\bme[45]\d{3}\b|powerscale|isilon|powerstore|unity\s?xt|"
    r"\b3par\b|storeserv|alletra|primera|nimble|\bmsa\s?\d{4}|"
    r"thinksystem[-_ ]d[egm]\d{4}|\bd[egm]\d{4}[a-z]?\b|"
    r"superstorage|\bssg-|\basg-|flashblade|flasharray|\bfa-x|\bfa-c|flashsystem|storagegrid|"
    r"\bds\d{3}[a-z\u0441]?\b|\bns224|\baff[-_ ]|\bfas\d{4}|\be-?series\b|"
    r"\bdbox\b|\bcbox\b|ceres"
)
#: Prose that calls the device storage.
STORAGE_PROSE = re.compile(
    r"storage (?:array|enclosure|system|appliance|chassis|shelf|server|node)|"
    r"expansion enclosure|disk shelf|\bjbod\b|\bjbof\b|block and file"
)

#: Manufacturers whose rack devices with data ports are switches.
SWITCH_MAKERS: tuple[str, ...] = ("edgecore", "arista", "mellanox", "cumulus", "extreme")

#: Manufacturers whose rack devices with outlets are PDUs.
PDU_MAKERS: tuple[str, ...] = (
    "apc",
    "schneider",
    "eaton",
    "raritan",
    "vertiv",
    "geist",
    "servertech",
    "server technology",
    "legrand",
    "tripp",
)


def storage_line(found: Texts) -> str | None:
    """Why the names say storage (a storage maker or line), or None."""
    maker = next((m for m in STORAGE_MAKERS if found.maker.startswith(m)), None)
    if maker is not None:
        return f"{found.maker!r} makes storage"
    match = STORAGE_LINES.search(found.names)
    if match is not None:
        return f"{match.group(0).strip()!r} is a storage line"
    return None


def storage_prose(found: Texts) -> str | None:
    match = STORAGE_PROSE.search(found.prose)
    return f"the file calls it a {match.group(0)!r}" if match else None
