"""Pure calculators (no Qt): compute, memory, inference, communication, storage, power,
the design summary and workload evaluation.  Every formula cites its source in its
docstring; bad input raises :class:`InputError` naming the field.

The names below are loaded on first use (PEP 562): importing one calculator
(``workbench.calc.errors`` for the store's reader, ``workbench.calc.summary``) runs this
file first, and importing the workload evaluation here (and with it numpy, the training
estimate and the fabric analysis: a third of a second of CPU) made every such import,
the window's start before its first frame included, pay for all of them."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.calc.errors import InputError
    from workbench.calc.explain import Explained
    from workbench.calc.power import DEFAULT_PUE, facility_kw
    from workbench.calc.presets import PRESETS, ModelConfig, get_preset
    from workbench.calc.summary import DesignSummary, RackLoad, rack_loads, summarize
    from workbench.calc.workload import WorkloadResult, evaluate_workload, training_days_curve

#: Each exported name → the module that defines it.
_HOMES: dict[str, str] = {
    "InputError": "errors",
    "Explained": "explain",
    "DEFAULT_PUE": "power",
    "facility_kw": "power",
    "PRESETS": "presets",
    "ModelConfig": "presets",
    "get_preset": "presets",
    "DesignSummary": "summary",
    "RackLoad": "summary",
    "rack_loads": "summary",
    "summarize": "summary",
    "WorkloadResult": "workload",
    "evaluate_workload": "workload",
    "training_days_curve": "workload",
}

__all__ = [
    "DEFAULT_PUE",
    "PRESETS",
    "DesignSummary",
    "Explained",
    "InputError",
    "ModelConfig",
    "RackLoad",
    "WorkloadResult",
    "evaluate_workload",
    "facility_kw",
    "get_preset",
    "rack_loads",
    "summarize",
    "training_days_curve",
]


def __getattr__(name: str) -> Any:
    """An exported name, from its module (imported now if it was not yet)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
