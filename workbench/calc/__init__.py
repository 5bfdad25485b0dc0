"""Pure calculators (no Qt): compute, memory, inference, communication, storage, power,
the design summary and workload evaluation.  Every formula cites its source in its
docstring; bad input raises :class:`InputError` naming the field.

The names below are loaded on first use (:mod:`workbench.lazy_exports`): importing the
workload evaluation here (and with it numpy, the training estimate and the fabric
analysis: a third of a second of CPU) made every import of one calculator, the store's
read of a design file before the window's first frame included, pay for all of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.lazy_exports import exports_on_first_use

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


__getattr__ = exports_on_first_use(__name__, _HOMES)
