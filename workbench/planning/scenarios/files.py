"""Where a design's scenarios live: sibling files ``NAME.scenario-LABEL.dcwb``.

Sibling files rather than variants inside one project file, so each scenario opens,
checks, exports and diffs like any design, and ``workbench compare`` takes them as
they are.  The label goes through :func:`workbench.filenames.portable_stem`, the one
rule for names the workbench proposes.
"""

from __future__ import annotations

from pathlib import Path

from workbench.filenames import portable_stem

#: What separates a design's stem from a scenario's label in a sibling's name.
MARK = ".scenario-"
SUFFIX = ".dcwb"


def base_stem(path: Path) -> str:
    """The stem of the design a file is a scenario of (its own stem when it is none)."""
    stem = Path(path).name.removesuffix(SUFFIX)
    return stem.split(MARK, 1)[0]


def scenario_label(path: Path) -> str:
    """The label a file shows in a comparison: the scenario label, else the stem."""
    stem = Path(path).name.removesuffix(SUFFIX)
    return stem.split(MARK, 1)[1] if MARK in stem else stem


def scenario_path(design_path: Path, label: str) -> Path:
    """The sibling file the scenario ``label`` of ``design_path`` is saved as."""
    design_path = Path(design_path)
    label = portable_stem(label.strip(), fallback="variant").replace(" ", "-")
    return design_path.with_name(f"{base_stem(design_path)}{MARK}{label}{SUFFIX}")


def sibling_scenarios(design_path: Path) -> list[Path]:
    """The design file and every scenario sibling of it, the design first, then by name."""
    design_path = Path(design_path)
    stem = base_stem(design_path)
    base = design_path.with_name(stem + SUFFIX)
    siblings = sorted(design_path.parent.glob(f"{_glob_safe(stem)}{MARK}*{SUFFIX}"))
    return ([base] if base.exists() else []) + siblings


def _glob_safe(text: str) -> str:
    """``text`` with glob's special characters taken literally."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)
