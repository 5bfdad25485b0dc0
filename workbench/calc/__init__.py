"""Pure calculators (no Qt): compute, memory, inference, communication, storage, power,
the design summary and workload evaluation.  Every formula cites its source in its
docstring; bad input raises :class:`InputError` naming the field."""

from workbench.calc.errors import InputError
from workbench.calc.explain import Explained
from workbench.calc.power import DEFAULT_PUE, facility_kw
from workbench.calc.presets import PRESETS, ModelConfig, get_preset
from workbench.calc.summary import DesignSummary, RackLoad, rack_loads, summarize
from workbench.calc.workload import WorkloadResult, evaluate_workload, training_days_curve

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
