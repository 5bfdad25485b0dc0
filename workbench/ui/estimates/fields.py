"""How the workload form's text boxes read and write model values.

The form shows numbers the way a planner types them ("15T" tokens, "40" for an MFU of
40 %) while the model keeps plain SI values (15e12, 0.4).  These helpers only convert
text; whether a value makes sense (MFU above 100 %, TP that does not divide the GPUs) is
the calculators' call, so the window shows their messages rather than inventing its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Suffixes a planner uses for big counts: 70B parameters, 15T tokens.
_SUFFIXES: dict[str, float] = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12, "p": 1e15}


class ParseError(ValueError):
    """Text that is not a number at all (the calculators never see it)."""


@dataclass(frozen=True)
class FieldSpec:
    """One row of the workload form.

    ``kind`` is how the text is read: ``text``, ``choice`` (a combo box), ``bool`` (a
    check box), ``quantity`` (a float that may carry a K/M/B/T suffix), ``percent``
    (shown ×100), ``int``, or ``optional_int``, ``optional_quantity`` and
    ``optional_percent`` (blank means None: the calculators' default, which the box
    shows as its placeholder).  ``applies`` lists the workload kinds the row is shown
    for; ``section`` the heading it stands under (the form draws one per section, so
    some twenty rows read as four short groups).
    """

    name: str
    label: str
    kind: str
    applies: tuple[str, ...] = ("training", "inference")
    choices: tuple[tuple[str, object], ...] = ()
    tooltip: str = ""
    section: str = ""


PRECISION_CHOICES = (("FP8", "fp8"), ("BF16", "bf16"), ("FP16", "fp16"), ("TF32", "tf32"))
KV_PRECISION_CHOICES = (("FP8", "fp8"), ("BF16", "bf16"), ("FP16", "fp16"))
TRAINING = ("training",)
#: The software stacks the form offers (calc/stack_profiles.py maps each to a profile;
#: one without a fitted profile falls back to the generic one and says so).
STACK_CHOICES: tuple[tuple[str, object], ...] = (
    ("Generic / from the design", ""),
    ("Megatron-LM (2021-2022)", "megatron-lm"),
    ("Megatron-DeepSpeed / DeepSpeed", "deepspeed"),
    ("Megatron Core / NeMo", "megatron-core"),
    ("PyTorch FSDP", "pytorch-fsdp"),
    ("TorchTitan", "torchtitan"),
)
GRAD_CHOICES: tuple[tuple[str, object], ...] = (
    ("FP32 main (Megatron)", "fp32"),
    ("BF16 (DeepSpeed ZeRO)", "bf16"),
)
#: The section whose heading carries the "Auto layout…" button.
LAYOUT_SECTION = "Parallel layout"

FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("name", "Name", "text", section="Model and data"),
    FieldSpec(
        "model",
        "Model",
        "choice",
        tooltip="A published model preset, or Custom to give N yourself.",
        section="Model and data",
    ),
    FieldSpec(
        "params",
        "Parameters (N)",
        "quantity",
        tooltip="Parameter count; suffixes K, M, B, T allowed (70B = 70e9).",
        section="Model and data",
    ),
    FieldSpec(
        "tokens",
        "Tokens (D)",
        "quantity",
        TRAINING,
        tooltip="Training tokens; suffixes allowed (15T = 15e12).",
        section="Model and data",
    ),
    FieldSpec(
        "precision",
        "Precision",
        "choice",
        choices=PRECISION_CHOICES,
        tooltip="Precision whose dense peak TFLOPS the estimate uses.",
        section="Model and data",
    ),
    FieldSpec(
        "gpu_type",
        "GPU model",
        "choice",
        tooltip="The GPU the estimate runs on; by default the design's most common GPU.",
        section="Hardware and run",
    ),
    FieldSpec("gpus", "GPUs", "optional_int", section="Hardware and run"),
    FieldSpec(
        "mfu",
        "MFU (%)",
        "optional_percent",
        TRAINING,
        tooltip="Model FLOPs utilisation in percent.  Blank: predicted from the design "
        "(GPUs, NVLink, NICs, fabric) and the layout; type a measured figure to "
        "override it, clear the box to go back to the prediction.",
        section="Hardware and run",
    ),
    FieldSpec(
        "plan_at_30",
        "Plan at 30 % MFU",
        "bool",
        TRAINING,
        tooltip="Plan at a pessimistic 30 % MFU until the cluster is benchmarked (the "
        "seeds' advice); an MFU typed above still wins.",
        section="Hardware and run",
    ),
    FieldSpec(
        "framework",
        "Software stack",
        "choice",
        TRAINING,
        choices=STACK_CHOICES,
        tooltip="The framework the job runs on: its profile sets the kernel efficiency "
        "and which communication is overlapped (each fitted on named published runs). "
        "Generic: no stack named, or one of the design's software stacks that names none.",
        section="Hardware and run",
    ),
    FieldSpec(
        "measured_step_s",
        "Measured step (s)",
        "optional_quantity",
        TRAINING,
        tooltip="A step time measured for this job on your cluster: the stack's kernel "
        "efficiency is fitted to it and every other layout and size predicted from it "
        "(±5 %).  Blank: the profile's figure.",
        section="Hardware and run",
    ),
    FieldSpec(
        "nic_gbps",
        "NIC per GPU (Gb/s)",
        "optional_quantity",
        TRAINING,
        tooltip="Compute-fabric line rate per GPU; blank: the node's compute* ports "
        "divided by its GPUs.",
        section="Hardware and run",
    ),
    FieldSpec(
        "goodput",
        "Goodput (%)",
        "optional_percent",
        TRAINING,
        tooltip="Share of the run's wall-clock time that trains (restarts, evaluation "
        "and checkpoints take the rest); blank: the documented default (Llama 3 paper: "
        "above 90 % on 16K H100).",
        section="Hardware and run",
    ),
    FieldSpec(
        "target_days",
        "Target (days)",
        "optional_quantity",
        TRAINING,
        tooltip="The business window for the job: the design checks warn when the "
        "estimated training time runs past it.  Blank: no target.",
        section="Hardware and run",
    ),
    FieldSpec(
        "tp",
        "Tensor parallel (TP)",
        "int",
        tooltip="GPUs one layer is split across (within a node).",
        section=LAYOUT_SECTION,
    ),
    FieldSpec(
        "pp",
        "Pipeline parallel (PP)",
        "int",
        TRAINING,
        tooltip="Pipeline stages (training; serving here shards by TP only).  Stages "
        "may differ by one layer.",
        section=LAYOUT_SECTION,
    ),
    FieldSpec(
        "virtual_stages",
        "Virtual stages",
        "int",
        TRAINING,
        tooltip="Model chunks per GPU of the interleaved 1F1B schedule (1: plain "
        "1F1B); more chunks shrink the pipeline bubble and add sends.",
        section=LAYOUT_SECTION,
    ),
    FieldSpec(
        "zero",
        "ZeRO stage",
        "choice",
        TRAINING,
        choices=(
            ("0 (none)", 0),
            ("1 (optimizer)", 1),
            ("2 (+ gradients)", 2),
            ("3 (+ weights)", 3),
        ),
        section=LAYOUT_SECTION,
    ),
    FieldSpec(
        "grad_precision",
        "Gradients",
        "choice",
        TRAINING,
        choices=GRAD_CHOICES,
        tooltip="Gradient precision: fp32 main gradients as Megatron (18 bytes per "
        "parameter before ZeRO) or bf16 as DeepSpeed ZeRO (16), the same at every stage.",
        section=LAYOUT_SECTION,
    ),
    FieldSpec(
        "recompute",
        "Activation recompute",
        "choice",
        TRAINING,
        choices=(("None", "none"), ("Selective", "selective"), ("Full", "full")),
        section=LAYOUT_SECTION,
    ),
    FieldSpec(
        "cp",
        "Context parallel (CP)",
        "int",
        TRAINING,
        tooltip="GPUs that share each sequence (ring attention) for long contexts; "
        "1: none.  It must divide the sequence length.",
        section=LAYOUT_SECTION,
    ),
    FieldSpec("micro_batch", "Micro-batch (sequences)", "int", TRAINING, section=LAYOUT_SECTION),
    FieldSpec(
        "global_batch",
        "Global batch (sequences)",
        "optional_int",
        TRAINING,
        tooltip="Sequences per optimizer step; blank: the model family's published "
        "batch (4M tokens for Llama), the job's whatever the design's size.",
        section=LAYOUT_SECTION,
    ),
    FieldSpec("seq_len", "Sequence length (tokens)", "int", TRAINING, section=LAYOUT_SECTION),
    FieldSpec(
        "sequence_parallel",
        "Sequence parallel",
        "bool",
        TRAINING,
        tooltip="Megatron sequence parallelism alongside TP (Korthikanti et al. 2022): "
        "norms and dropout split across the TP GPUs; applies when TP > 1.",
        section=LAYOUT_SECTION,
    ),
    FieldSpec(
        "flash_attention",
        "FlashAttention",
        "bool",
        TRAINING,
        tooltip="Attention scores are never stored (Dao et al. 2022), so activation "
        "memory and the recompute cost drop.",
        section=LAYOUT_SECTION,
    ),
    FieldSpec("context", "Context (tokens)", "int", ("inference",), section="Serving"),
    FieldSpec("concurrency", "Concurrent sequences", "int", ("inference",), section="Serving"),
    FieldSpec(
        "kv_precision",
        "KV cache precision",
        "choice",
        ("inference",),
        choices=KV_PRECISION_CHOICES,
        section="Serving",
    ),
)

FIELD_BY_NAME: dict[str, FieldSpec] = {spec.name: spec for spec in FIELDS}


def parse_quantity(text: str) -> float:
    """``"70B"`` → 70e9, ``"1.5e13"`` → 1.5e13, ``"15,000"`` → 15000."""
    cleaned = text.strip().replace(",", "").replace("_", "").replace(" ", "")
    if not cleaned:
        raise ParseError("is required")
    factor = 1.0
    if cleaned[-1].lower() in _SUFFIXES and not cleaned[-1].isdigit():
        factor = _SUFFIXES[cleaned[-1].lower()]
        cleaned = cleaned[:-1]
    try:
        value = float(cleaned) * factor
    except ValueError:
        raise ParseError(f"{text.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise ParseError(f"{text.strip()!r} is not a finite number")
    return value


def parse_int(text: str) -> int | float:
    """A whole number; a fractional one is passed on as float for the calculator to refuse."""
    value = parse_quantity(text)
    return int(value) if value.is_integer() else value


def format_quantity(value: float | None) -> str:
    """15e12 → ``15T``, 70e9 → ``70B``, 6.7e9 → ``6.7B``; small numbers stay plain."""
    if value is None:
        return ""
    for suffix, factor in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if abs(value) >= factor:
            scaled = value / factor
            text = f"{scaled:.6g}"
            if "e" not in text:
                return f"{text}{suffix}"
    return f"{value:.6g}"


def format_percent(value: float) -> str:
    """0.4 → ``40``, 0.355 → ``35.5``."""
    return f"{value * 100:.6g}"


def to_text(spec: FieldSpec, value: object) -> str:
    """The text a box shows for a model value.

    A value that is no number where one belongs ("many" tokens, from a script) is shown
    as it is, so the box says what the design holds; typing over it makes the usual
    check.  Infinity and NaN read "inf" and "nan" the same way."""
    if value is None:
        return ""
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    if spec.kind in ("quantity", "optional_quantity", "percent", "optional_percent") and not (
        numeric and math.isfinite(value)  # type: ignore[arg-type]
    ):
        return str(value)
    if spec.kind in ("quantity", "optional_quantity"):
        return format_quantity(float(value))  # type: ignore[arg-type]
    if spec.kind in ("percent", "optional_percent"):
        return format_percent(float(value))  # type: ignore[arg-type]
    if spec.kind in ("int", "optional_int"):
        return f"{value:g}" if isinstance(value, float) else str(value)
    return str(value)


def from_text(spec: FieldSpec, text: str) -> object:
    """The model value for typed text; ParseError when it is not a number at all."""
    if spec.kind == "text":
        return text.strip()
    if spec.kind == "quantity":
        return parse_quantity(text)
    if spec.kind == "percent":
        return parse_quantity(text.replace("%", "")) / 100.0
    if spec.kind == "int":
        return parse_int(text)
    if spec.kind == "optional_int":
        return None if not text.strip() else parse_int(text)
    if spec.kind == "optional_quantity":
        return None if not text.strip() else parse_quantity(text)
    if spec.kind == "optional_percent":
        cleaned = text.replace("%", "")
        return None if not cleaned.strip() else parse_quantity(cleaned) / 100.0
    raise ValueError(f"no text form for field kind {spec.kind!r}")
