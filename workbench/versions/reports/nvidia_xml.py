"""``nvidia-smi -q -x``: the full XML report, the richest of the node reports.

Safety first: XML can declare entities that expand a kilobyte into gigabytes (the
"billion laughs") or pull in other files, and nothing in the standard library refuses
that by itself.  nvidia-smi's own output has exactly one declaration, ``<!DOCTYPE
nvidia_smi_log SYSTEM "nvsmi_device_vNN.dtd">``, with no internal subset; that line is
allowed and every other ``<!DOCTYPE``/``<!ENTITY``/``<!ELEMENT``/``<!ATTLIST``/
``<!NOTATION`` is refused *before* the parser sees the text (and the parser refuses an
internal subset or an entity declaration again, should one slip past).  The external
DTD it names is never fetched: expat loads no external entity without a handler.

Speed next: a 12,500-node import reads 12,500 of these files (50 kB to 150 kB each).
Building an ElementTree of ~2,000 elements per file costs twice what checking the XML
does, so the file is checked for well-formedness by expat with no per-element Python
callbacks, and the few values needed are then read from the text itself, inside the
span of each ``<gpu>`` element.  That also gives the line of every value for the
tooltips, which a tree would not.  It relies on the layout nvidia-smi writes (the
node-wide fields before the first ``<gpu>``, each GPU's fields inside it), which has
held across driver releases.

Element names do differ across releases: the power limit is
``<power_readings><power_limit>`` in older ones and
``<gpu_power_readings><current_power_limit>`` in newer ones (which also have a
``<module_power_readings>`` block that is *not* the GPU's limit); both are read.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from xml.parsers import expat

from workbench.versions.reports.base import (
    Reading,
    ReportError,
    combine,
    is_missing,
    quantity,
    serial_list,
)

NAME = "nvidia-smi-xml"
LABEL = "nvidia-smi -q -x"
COMMAND = "nvidia-smi -q -x"

ROOT = "nvidia_smi_log"

_DECLARATION = re.compile(r"<!\s*(DOCTYPE|ENTITY|ELEMENT|ATTLIST|NOTATION)", re.IGNORECASE)
_NVIDIA_DOCTYPE = re.compile(
    r"""<!DOCTYPE\s+nvidia_smi_log\s+SYSTEM\s+(["'])nvsmi_device_v\d+\.dtd\1\s*>"""
)
_GPU_OPEN = re.compile(r"<gpu[\s>]")
#: Per-GPU fields: (layer, path of elements inside <gpu>, unit).
_GPU_FIELDS: tuple[tuple[str, tuple[str, ...], str | None], ...] = (
    ("gpu_model", ("product_name",), None),
    ("vbios", ("vbios_version",), None),
    ("gpu_serials", ("serial",), None),
    ("gpu_memory_mib", ("fb_memory_usage", "total"), "MiB"),
)
#: The power-limit element, by preference: (block, element inside it).
_POWER_LIMITS = (
    ("gpu_power_readings", "current_power_limit"),
    ("power_readings", "current_power_limit"),
    ("power_readings", "power_limit"),
    ("gpu_power_readings", "power_limit"),
)


class _Lines:
    """Line numbers of text offsets, counted from the last one asked (the values are
    asked for in nearly text order, so each count covers a short stretch)."""

    def __init__(self, text: str):
        self.text = text
        self.offset = 0
        self.line = 1

    def at(self, offset: int) -> int:
        if offset >= self.offset:
            self.line += self.text.count("\n", self.offset, offset)
        else:
            self.line -= self.text.count("\n", offset, self.offset)
        self.offset = offset
        return self.line


def looks_like(text: str) -> bool:
    """Anything that starts like markup; foreign XML is then refused with a reason."""
    return text.lstrip("\ufeff \t\r\n").startswith("<")


def _refuse_declarations(text: str, file: str, lines: _Lines) -> None:
    """ReportError for any DTD declaration other than nvidia-smi's own DOCTYPE line."""
    seen_doctype = False
    for match in _DECLARATION.finditer(text):
        allowed = (
            match.group(1) == "DOCTYPE"
            and not seen_doctype
            and _NVIDIA_DOCTYPE.match(text, match.start()) is not None
        )
        if not allowed:
            kind = match.group(1).upper()
            what = (
                "a DOCTYPE other than nvidia-smi's own (<!DOCTYPE nvidia_smi_log SYSTEM "
                '"nvsmi_device_vNN.dtd">)'
                if kind == "DOCTYPE"
                else f"an <!{kind} declaration, which nvidia-smi never writes"
            )
            raise ReportError(
                file,
                lines.at(match.start()),
                f"holds {what}; XML declarations can expand without end or read other "
                "files, so the file is not read",
            )
        seen_doctype = True


def _check_xml(text: str, file: str) -> tuple[str, int]:
    """Check ``text`` is well-formed XML; return its root element's name and line."""
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    root: list[tuple[str, int]] = []

    def on_root(name: str, _attributes: object) -> None:
        root.append((name, parser.CurrentLineNumber))
        parser.StartElementHandler = None  # the rest is checked at C speed

    def on_doctype(_name: str, _system: object, _public: object, subset: bool) -> None:
        if subset:
            raise ReportError(file, parser.CurrentLineNumber, "holds a DTD internal subset")

    def on_entity(*_args: object) -> None:
        raise ReportError(file, parser.CurrentLineNumber, "holds an entity declaration")

    parser.StartElementHandler = on_root
    parser.StartDoctypeDeclHandler = on_doctype
    parser.EntityDeclHandler = on_entity
    try:
        parser.Parse(text, True)
    except expat.ExpatError as error:
        raise ReportError(
            file,
            error.lineno,
            f"is not well-formed XML ({expat.ErrorString(error.code)}): the file looks cut "
            "off or damaged",
        ) from None
    return root[0]


def _unescape(raw: str) -> str:
    """Element text as XML means it (``&amp;`` → ``&``); the text is well-formed."""
    if "&" not in raw:
        return raw
    return ET.fromstring(f"<v>{raw}</v>").text or ""


def parse(text: str, file: str) -> list[Reading]:
    """Driver, CUDA, GPU model(s), count, VBIOS, memory, power limit and serials."""
    lines = _Lines(text)
    _refuse_declarations(text, file, lines)
    tag, root_line = _check_xml(text, file)
    if tag != ROOT:
        name = tag.rpartition(" ")[2].rpartition(":")[2]
        raise ReportError(
            file, root_line, f"is XML with root <{name}>, not nvidia-smi -q -x output (<{ROOT}>)"
        )

    def raw_of(path: tuple[str, ...], start: int, end: int) -> tuple[str, int] | None:
        """(stripped text, offset) of the element at the end of ``path``, each tag
        searched after the one before inside ``text[start:end]``; None when absent."""
        at = start
        last = len(path) - 1
        for i, element in enumerate(path):
            found = text.find(f"<{element}>", at, end)
            if found < 0:
                return None
            if i < last:  # stay inside the enclosing element
                close = text.find(f"</{element}>", found, end)
                end = close if close >= 0 else end
            at = found + len(element) + 2
        close = text.find("</", at, end)
        if close < 0:
            return None
        raw = text[at:close].strip()
        if "<" in raw:
            raise ReportError(
                file,
                lines.at(at),
                f"<{path[-1]}> holds elements, not a value: not nvidia-smi's layout",
            )
        return raw, at

    def value_of(path: tuple[str, ...], start: int, end: int) -> tuple[str, int] | None:
        """Like :func:`raw_of`, as (value, line); None when absent or N/A."""
        found = raw_of(path, start, end)
        if found is None or is_missing(found[0]):
            return None
        return _unescape(found[0]), lines.at(found[1])

    starts = [m.start() for m in _GPU_OPEN.finditer(text)]
    spans = list(zip(starts, [*starts[1:], len(text)], strict=True)) if starts else []
    head = starts[0] if starts else len(text)

    readings: list[Reading] = []
    for element, layer in (("driver_version", "driver"), ("cuda_version", "driver_cuda")):
        found = value_of((element,), 0, head)
        if found is not None:
            readings.append(combine(file, layer, [found]))
    if not readings or readings[0].layer != "driver":
        raise ReportError(
            file, root_line, f"has no <driver_version> in <{ROOT}>: not nvidia-smi -q -x output"
        )
    attached = value_of(("attached_gpus",), 0, head)
    if attached is not None and not attached[0].isdigit():
        raise ReportError(file, attached[1], f"attached_gpus {attached[0]!r} is not a number")
    count = int(attached[0]) if attached is not None else len(spans)
    readings.append(Reading("gpu_count", str(count), attached[1] if attached else root_line))

    # Per layer, the raw texts in GPU order with the offset of each one's first
    # appearance: the GPUs of a node mostly agree, so each distinct text is converted,
    # and its line counted, once.
    raws: dict[str, dict[str, int]] = {layer: {} for layer, _, _ in _GPU_FIELDS}
    raws["gpu_power_limit_w"] = {}
    serials: list[tuple[str, int]] = []
    serials_complete = len(spans) == count
    for start, end in spans:
        for layer, path, _unit in _GPU_FIELDS:
            found = raw_of(path, start, end)
            if found is None or is_missing(found[0]):
                serials_complete = serials_complete and layer != "gpu_serials"
            elif layer == "gpu_serials":  # every board, so two alike still show as two
                serials.append(found)
            else:
                raws[layer].setdefault(found[0], found[1])
        for path in _POWER_LIMITS:
            found = raw_of(path, start, end)
            if found is not None and not is_missing(found[0]):
                raws["gpu_power_limit_w"].setdefault(found[0], found[1])
                break
    units = {layer: (path[-1], unit) for layer, path, unit in _GPU_FIELDS}
    units["gpu_power_limit_w"] = ("power limit", "W")
    for layer, texts in raws.items():
        if layer == "gpu_serials":
            if serials and serials_complete:  # else some GPUs are left out (-i, or N/A)
                listed = [(_unescape(raw), lines.at(offset)) for raw, offset in serials]
                readings.append(serial_list(file, listed))
            continue
        if not texts:
            continue
        what, unit = units[layer]
        values: list[tuple[str, int | None]] = []
        for raw, offset in sorted(texts.items(), key=lambda item: item[1]):
            line = lines.at(offset)
            value = _unescape(raw)
            values.append((quantity(file, line, what, value, unit) if unit else value, line))
        readings.append(combine(file, layer, values))
    return readings
