"""The compatibility knowledge base: which driver a CUDA release needs, which CUDA builds
a framework release ships, which architecture a GPU is and what that architecture needs.

The facts live in YAML files (``catalogs/compat/*.yaml``, shipped with the catalog), not in code, so a
planner can read each row's source and confidence and correct a figure without a new
release.  The files are read with the catalog's bounded, alias-free YAML reader
(:func:`workbench.catalog.yaml_source.read_yaml`), every row is validated, and a bad row
is one :class:`CompatError` naming ``file:line`` and the field.  The version checks
(:mod:`workbench.rules.versions`) read :func:`shipped_kb`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.catalog.errors import CatalogError, display_path, format_location
from workbench.catalog.loader import shipped_catalog_dir
from workbench.catalog.yaml_source import LineMap, read_yaml
from workbench.model.versions import LAYER_KEYS
from workbench.versions.compare import NotAVersionError, Version, cuda_version, parse_version

#: Where the shipped knowledge base lives (see the report: it moves to
#: ``catalogs/compat/`` once the catalog loader skips that folder).
KB_DIR = shipped_catalog_dir() / "compat"
#: How a row's figure was checked (the files' headers explain each word).
CONFIDENCE = ("primary", "secondary", "unverified")
VENDORS = ("nvidia", "amd")


class CompatError(ValueError):
    """A knowledge-base row that cannot be used: ``file:line: field 'x': problem``."""

    def __init__(self, message: str, file: str, line: int | None = None, field: str = ""):
        self.message, self.file, self.line, self.field = message, file, line, field
        super().__init__(format_location(file, line, field or None, message))


@dataclass(frozen=True)
class Source:
    """Where a row's figure comes from; ``url`` is empty for the planning documents."""

    title: str
    section: str
    url: str = ""

    def cite(self) -> str:
        """One line for a finding: title, section and address."""
        where = f"{self.title}: {self.section}"
        return f"{where}, {self.url}" if self.url else where


@dataclass(frozen=True)
class Row:
    """What every row carries besides its figures."""

    source: Source
    confidence: str
    note: str
    file: str
    line: int | None


@dataclass(frozen=True)
class ToolkitDriver(Row):
    cuda: Version
    release: str
    driver: Version


@dataclass(frozen=True)
class MinorCompat(Row):
    cuda_major: int
    driver: Version
    below_driver: Version | None


@dataclass(frozen=True)
class FrameworkBuilds(Row):
    framework: str
    release: Version
    cuda_builds: tuple[Version, ...]

    def builds_text(self) -> str:
        return ", ".join(str(v) for v in self.cuda_builds)


@dataclass(frozen=True)
class Architecture(Row):
    arch: str
    name: str
    vendor: str
    compute_capability: str
    min_cuda: Version | None
    min_driver: Version | None
    last_cuda_major: int | None


@dataclass(frozen=True)
class GpuModel(Row):
    arch: str
    names: tuple[tuple[str, ...], ...]
    slugs: tuple[str, ...]


@dataclass(frozen=True)
class Note(Row):
    id: str
    layers: tuple[str, ...]
    title: str
    text: str


def name_words(text: str) -> tuple[str, ...]:
    """The words a GPU name is matched on: ``NVIDIA A100-SXM4-80GB`` → A100, SXM4, 80GB."""
    return tuple(re.findall(r"[A-Z0-9]+", text.upper()))


@dataclass
class KnowledgeBase:
    """Every row, and the lookups the checks need (each cheap and cached)."""

    toolkit_drivers: list[ToolkitDriver] = field(default_factory=list)
    minor_compats: list[MinorCompat] = field(default_factory=list)
    framework_rows: list[FrameworkBuilds] = field(default_factory=list)
    architectures: list[Architecture] = field(default_factory=list)
    gpu_models: list[GpuModel] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    errors: list[CompatError] = field(default_factory=list)
    _arch_cache: dict[str, Architecture | None] = field(default_factory=dict, repr=False)
    _cache: dict[tuple[str, object], Any] = field(default_factory=dict, repr=False)

    def _cached(self, what: str, key: object, compute: Callable[[], Any]) -> Any:
        """Lookups are asked once per node with the same few versions: answer each once."""
        full = (what, key)
        if full not in self._cache:
            self._cache[full] = compute()
        return self._cache[full]

    def toolkit_driver(self, cuda: Version | str) -> ToolkitDriver | None:
        """The row of the CUDA release ``cuda`` names (``12.4`` is 12.4 GA, ``12.4.1``
        Update 1); None when the knowledge base has no row for its major.minor.

        A third number above 9 is a component build (cudart ``12.4.127``), which does not
        say which update it came with: the GA row, the smaller requirement, is used.
        """
        wanted = cuda_version(cuda) if isinstance(cuda, str) else cuda
        return self._cached("toolkit", wanted.release, lambda: self._toolkit_driver(wanted))

    def _toolkit_driver(self, wanted: Version) -> ToolkitDriver | None:
        same = [r for r in self.toolkit_drivers if r.cuda.major_minor == wanted.major_minor]
        if not same:
            return None
        same.sort(key=lambda r: r.cuda)
        update = wanted.release[2] if len(wanted.release) > 2 else 0
        if update > 9:
            return same[0]
        fitting = [r for r in same if r.cuda.release[2:3] <= (update,)]
        return fitting[-1] if fitting else same[0]

    def minor_compat(self, cuda: Version | str) -> MinorCompat | None:
        """The oldest driver that runs any release of ``cuda``'s major family."""
        wanted = cuda_version(cuda) if isinstance(cuda, str) else cuda
        return next((r for r in self.minor_compats if r.cuda_major == wanted.major), None)

    def framework_builds(self, framework: str, release: Version | str) -> FrameworkBuilds | None:
        """The CUDA builds of ``framework`` (``pytorch``) release ``release`` (2.4.0 → 2.4)."""
        version = parse_version(release) if isinstance(release, str) else release
        name = framework_key(framework)
        return self._cached(
            "framework",
            (name, version.major_minor),
            lambda: next(
                (
                    r
                    for r in self.framework_rows
                    if r.framework == name and r.release.major_minor == version.major_minor
                ),
                None,
            ),
        )

    def architecture(self, key: str) -> Architecture | None:
        return next((a for a in self.architectures if a.arch == key), None)

    def arch_of(self, gpu: str) -> Architecture | None:
        """The architecture of a GPU given as a catalog slug, a catalog model name or the
        name nvidia-smi prints (``NVIDIA H100 80GB HBM3``); None when unknown.

        The model whose words match most of the name wins, so ``RTX 6000 Ada`` beats a
        shorter match; names are matched on whole words (H200 is not GH200).
        """
        if gpu in self._arch_cache:
            return self._arch_cache[gpu]
        found: Architecture | None = None
        by_slug = next((m for m in self.gpu_models if gpu in m.slugs), None)
        if by_slug is not None:
            found = self.architecture(by_slug.arch)
        else:
            words = name_words(gpu)
            best = 0
            for model in self.gpu_models:
                for name in model.names:
                    if len(name) > best and _contains(words, name):
                        best, found = len(name), self.architecture(model.arch)
        self._arch_cache[gpu] = found
        return found

    def notes_for(self, layer: str) -> list[Note]:
        return [n for n in self.notes if layer in n.layers]


def _contains(words: tuple[str, ...], part: tuple[str, ...]) -> bool:
    n = len(part)
    return any(words[i : i + n] == part for i in range(len(words) - n + 1))


def framework_key(name: str) -> str:
    """``torch``, ``PyTorch`` and an empty name (the default framework) → ``pytorch``."""
    cleaned = name.strip().lower()
    return "pytorch" if cleaned in ("", "torch", "pytorch") else cleaned


# -- reading -----------------------------------------------------------------------------


class _Fields:
    """One row's mapping, read field by field with errors naming file, line and field."""

    def __init__(self, entry: Mapping[str, Any], file: str, lines: LineMap, where: str):
        self.entry, self.file, self.lines, self.where = entry, file, lines, where

    def error(self, name: str, problem: str) -> CompatError:
        return CompatError(problem, self.file, self.lines.line(name), f"{self.where}.{name}")

    def text(self, name: str, *, required: bool = True, limit: int = 2000) -> str:
        value = self.entry.get(name)
        if value is None:
            if required:
                raise self.error(name, "is missing")
            return ""
        if not isinstance(value, str) or not value.strip():
            raise self.error(name, f"expected text, got {value!r}")
        if len(value) > limit:
            raise self.error(name, f"is {len(value):,} characters; at most {limit:,}")
        return " ".join(value.split())

    def version(self, name: str, *, required: bool = True, cuda: bool = False) -> Version | None:
        raw = self.entry.get(name)
        if raw is None and not required:
            return None
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            raise self.error(name, f"write the version in quotes ({raw!r} is read as a number)")
        text = self.text(name, required=required)
        try:
            return cuda_version(text) if cuda else parse_version(text)
        except NotAVersionError as exc:
            raise self.error(name, str(exc)) from None

    def integer(self, name: str, *, required: bool = True) -> int | None:
        value = self.entry.get(name)
        if value is None and not required:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 1000:
            raise self.error(name, f"expected a whole number such as 12, got {value!r}")
        return value

    def words(self, name: str, *, required: bool = True) -> tuple[str, ...]:
        value = self.entry.get(name)
        if value is None and not required:
            return ()
        if not isinstance(value, list) or not value:
            raise self.error(name, "expected a list such as [a, b]")
        if not all(isinstance(v, str) and v.strip() for v in value):
            raise self.error(name, "every entry must be text")
        return tuple(v.strip() for v in value)

    def common(self) -> dict[str, Any]:
        """Source, confidence and note, which every row carries."""
        raw = self.entry.get("source")
        if not isinstance(raw, dict):
            raise self.error(
                "source", "is missing (title, url, section of where the figure is from)"
            )
        inner = _Fields(raw, self.file, self.lines.sub("source"), f"{self.where}.source")
        _known(inner, ("title", "url", "section"))
        url = inner.text("url", required=False)
        if url and not url.startswith("https://"):
            raise inner.error("url", f"expected an https:// address, got {url!r}")
        source = Source(inner.text("title", limit=300), inner.text("section", limit=300), url)
        confidence = self.text("confidence")
        if confidence not in CONFIDENCE:
            raise self.error("confidence", f"{confidence!r}; use one of {', '.join(CONFIDENCE)}")
        return {
            "source": source,
            "confidence": confidence,
            "note": self.text("note", required=False),
            "file": self.file,
            "line": self.lines.line(),
        }


def _known(row: _Fields, allowed: Iterable[str]) -> None:
    """A misspelt field is an error, not a silently missing figure."""
    allowed = tuple(allowed)
    for key in row.entry:
        if key not in allowed:
            raise row.error(str(key), f"unknown field; expected one of {', '.join(allowed)}")


_COMMON = ("source", "confidence", "note")


def _toolkit(row: _Fields) -> ToolkitDriver:
    _known(row, ("cuda", "release", "driver", *_COMMON))
    cuda, driver = row.version("cuda", cuda=True), row.version("driver")
    assert cuda is not None and driver is not None
    return ToolkitDriver(**row.common(), cuda=cuda, release=row.text("release"), driver=driver)


def _minor(row: _Fields) -> MinorCompat:
    _known(row, ("cuda_major", "driver", "below_driver", *_COMMON))
    major, driver = row.integer("cuda_major"), row.version("driver")
    assert major is not None and driver is not None
    below = row.version("below_driver", required=False)
    return MinorCompat(**row.common(), cuda_major=major, driver=driver, below_driver=below)


def _framework(row: _Fields) -> FrameworkBuilds:
    _known(row, ("framework", "release", "cuda_builds", *_COMMON))
    release = row.version("release")
    assert release is not None
    builds = []
    for text in row.words("cuda_builds"):
        try:
            builds.append(cuda_version(text))
        except NotAVersionError as exc:
            raise row.error("cuda_builds", str(exc)) from None
    return FrameworkBuilds(
        **row.common(),
        framework=framework_key(row.text("framework")),
        release=release,
        cuda_builds=tuple(builds),
    )


def _architecture(row: _Fields) -> Architecture:
    fields = ("arch", "name", "vendor", "compute_capability", "min_cuda", "min_driver")
    _known(row, (*fields, "last_cuda_major", *_COMMON))
    vendor = row.text("vendor")
    if vendor not in VENDORS:
        raise row.error("vendor", f"{vendor!r}; use one of {', '.join(VENDORS)}")
    needs = vendor == "nvidia"  # CUDA figures only mean something for NVIDIA GPUs
    return Architecture(
        **row.common(),
        arch=row.text("arch"),
        name=row.text("name"),
        vendor=vendor,
        compute_capability=row.text("compute_capability", required=needs),
        min_cuda=row.version("min_cuda", required=needs, cuda=True),
        min_driver=row.version("min_driver", required=needs),
        last_cuda_major=row.integer("last_cuda_major", required=False),
    )


def _gpu_model(row: _Fields) -> GpuModel:
    _known(row, ("arch", "names", "slugs", *_COMMON))
    names = tuple(name_words(n) for n in row.words("names"))
    if not all(names):
        raise row.error("names", "every name needs letters or digits")
    return GpuModel(
        **row.common(), arch=row.text("arch"), names=names, slugs=row.words("slugs", required=False)
    )


def _note(row: _Fields) -> Note:
    _known(row, ("id", "layers", "title", "text", *_COMMON))
    layers = row.words("layers")
    unknown = [layer for layer in layers if layer not in LAYER_KEYS]
    if unknown:
        raise row.error("layers", f"unknown layers {', '.join(unknown)}")
    return Note(
        **row.common(),
        id=row.text("id"),
        layers=layers,
        title=row.text("title", limit=200),
        text=row.text("text", limit=4000),
    )


_SECTIONS: dict[str, tuple[str, Callable[[_Fields], Row]]] = {
    "toolkit_drivers": ("toolkit_drivers", _toolkit),
    "minor_version_compat": ("minor_compats", _minor),
    "framework_builds": ("framework_rows", _framework),
    "architectures": ("architectures", _architecture),
    "gpu_models": ("gpu_models", _gpu_model),
    "notes": ("notes", _note),
}


def load_file(path: Path, kb: KnowledgeBase) -> None:
    """Add the rows of one file to ``kb``; each bad row becomes one error in ``kb.errors``."""
    shown = display_path(path)
    try:
        data, lines = read_yaml(path)
    except CatalogError as exc:
        kb.errors.append(CompatError(exc.message, shown, exc.line))
        return
    if not isinstance(data, dict):
        expected = f"a mapping with one or more of: {', '.join(_SECTIONS)}"
        kb.errors.append(CompatError(f"expected {expected}", shown, lines.line()))
        return
    for section, rows in data.items():
        target = _SECTIONS.get(section)
        if target is None:
            known = ", ".join(_SECTIONS)
            kb.errors.append(
                CompatError(f"unknown section; use {known}", shown, lines.line(section))
            )
            continue
        if not isinstance(rows, list):
            kb.errors.append(CompatError("expected a list of rows", shown, lines.line(section)))
            continue
        attribute, build = target
        for index, entry in enumerate(rows):
            where = f"{section}[{index}]"
            row_lines = lines.sub(section, index)
            if not isinstance(entry, dict):
                kb.errors.append(CompatError("expected a mapping", shown, row_lines.line(), where))
                continue
            try:
                getattr(kb, attribute).append(build(_Fields(entry, shown, row_lines, where)))
            except CompatError as exc:
                kb.errors.append(exc)


def load_kb(folder: Path | None = None) -> KnowledgeBase:
    """Every ``*.yaml`` file of ``folder`` (the shipped one by default), checked."""
    kb = KnowledgeBase()
    folder = KB_DIR if folder is None else folder
    if not folder.is_dir():
        kb.errors.append(CompatError("knowledge base folder not found", display_path(folder)))
        return kb
    files = sorted(folder.glob("*.yaml"))
    if not files:  # an install that lost the files must not judge every stack "unknown"
        kb.errors.append(
            CompatError("knowledge base folder holds no .yaml file", display_path(folder))
        )
    for path in files:
        load_file(path, kb)
    _check_whole(kb)
    return kb


def _check_whole(kb: KnowledgeBase) -> None:
    """What no single row shows: duplicates and references to unknown architectures."""

    def duplicate(rows: Iterable[Row], key: Callable[[Any], object], what: str) -> None:
        seen: dict[object, Row] = {}
        for row in rows:
            k = key(row)
            if k in seen:
                first = seen[k]
                kb.errors.append(
                    CompatError(
                        f"{what} again (first on {first.file}:{first.line})", row.file, row.line
                    )
                )
            seen.setdefault(k, row)

    duplicate(kb.toolkit_drivers, lambda r: r.cuda, "the same CUDA release")
    duplicate(kb.minor_compats, lambda r: r.cuda_major, "the same CUDA major")
    duplicate(kb.framework_rows, lambda r: (r.framework, r.release.major_minor), "the same release")
    duplicate(kb.architectures, lambda r: r.arch, "the same architecture")
    known = {a.arch for a in kb.architectures}
    for model in kb.gpu_models:
        if model.arch not in known:
            kb.errors.append(
                CompatError(f"unknown architecture {model.arch!r}", model.file, model.line, "arch")
            )


@functools.lru_cache(maxsize=1)
def shipped_kb() -> KnowledgeBase:
    """The shipped knowledge base, read once; raises its first error (a shipped file
    with a bad row is a defect, caught by the tests)."""
    kb = load_kb()
    if kb.errors:
        raise kb.errors[0]
    return kb
