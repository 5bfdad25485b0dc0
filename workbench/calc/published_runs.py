"""Published training runs the step-time model is checked against, and the constant fit.

Why: a performance model is only as good as the runs it reproduces.  Each row gives
what the paper states: model shape, GPU count and type, parallel layout, batch,
sequence length and a measured step time or a throughput, with the citation.  Where a
figure is not stated in the source and had to be assumed, ``assumed`` says which.

Targets are step times in seconds.  Papers that report TFLOPS per GPU rather than a
time get the time their own FLOP formula implies (``target_note`` names the formula),
so the "told the MFU" check compares our FLOP accounting with theirs.

:func:`leave_one_out` fits the kernel efficiency (the one constant fitted here; the
collective efficiency stays comm.py's 0.8) on all runs but one and predicts that one,
for every run; the errors are the honest out-of-sample figures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from workbench.calc import step_time as st
from workbench.calc.presets import ModelConfig

_SELENE = (
    "DGX A100 (Selene): 8× A100 SXM4 80GB, 312 TFLOPS dense bf16/fp16, NVLink 600 GB/s, "
    "8× 200 Gb/s HDR InfiniBand per node, non-blocking fat tree"
)
A100_DGX = st.Hardware(
    peak_tflops=312.0,
    gpus_per_node=8,
    nvlink_gbs=600.0,
    nic_gbps_per_gpu=200.0,
    oversubscription=1.0,
    hbm_tbs=2.039,
    peak_source="A100 datasheet 312 TFLOPS dense fp16/bf16",
    nic_source=_SELENE,
)
#: Jean Zay A100 nodes (BLOOM model card "Hardware": 8 GPUs per node with NVLink,
#: 4 Omni-Path 100 Gb/s links per node → 50 Gb/s per GPU).  NVLink taken as the A100
#: SXM4 figure (assumed: the card says "NVLink 4 inter-gpu connects").
A100_JEAN_ZAY = st.Hardware(
    peak_tflops=312.0,
    gpus_per_node=8,
    nvlink_gbs=600.0,
    nic_gbps_per_gpu=50.0,
    oversubscription=1.0,
    hbm_tbs=2.039,
    peak_source="A100 datasheet 312 TFLOPS dense bf16",
    nic_source="BLOOM model card: 4× Omni-Path 100 Gb/s per 8-GPU node",
)
#: Meta's 24K-GPU RoCE clusters (Llama 3 paper §3.3.1): H100 SXM 989 TFLOPS bf16 dense,
#: NVLink 900 GB/s, one 400 Gb/s NIC per GPU, full bisection inside a 3,072-GPU pod and
#: 1:7 oversubscription between pods.
H100_META = st.Hardware(
    peak_tflops=989.0,
    gpus_per_node=8,
    nvlink_gbs=900.0,
    nic_gbps_per_gpu=400.0,
    oversubscription=7.0,
    gpus_per_leaf=3072,
    hbm_tbs=3.35,
    peak_source="H100 SXM datasheet 989 TFLOPS dense bf16",
    nic_source="Llama 3 paper §3.3.1: 400 Gbps RoCE per GPU",
    fabric_source="Llama 3 paper §3.3.1: 3,072-GPU pods, 1:7 oversubscription between pods",
)


def _gpt(name: str, layers: int, hidden: int, heads: int, vocab: int = 51200) -> ModelConfig:
    """A GPT-style model (FFN 4h, plain GeLU MLP, MHA) as in the Megatron papers."""
    params = 12.0 * layers * hidden**2 + vocab * hidden
    return ModelConfig(
        name, params, layers, hidden, heads, heads, hidden // heads, 4 * hidden, vocab,
        2048, "", False,
    )  # fmt: skip


def _megatron_flops(batch: int, seq: int, layers: int, hidden: int, vocab: int, f: int) -> float:
    """Megatron-LM's FLOPs per iteration, f = 72 (no recompute) or 96 (full recompute):
    ``f·B·s·l·h²·(1 + s/(6h) + V/(16·l·h))`` (Narayanan et al. 2021 appendix)."""
    return (
        f
        * batch
        * seq
        * layers
        * hidden**2
        * (1 + seq / (6 * hidden) + vocab / (16 * layers * hidden))
    )


@dataclass(frozen=True)
class PublishedRun:
    """One published run: what ran, on what, and what it reached."""

    key: str
    model: ModelConfig
    hardware: st.Hardware
    layout: st.Layout
    precision: str
    target_step_s: float
    citation: str
    target_note: str
    #: Published throughput per GPU in TFLOPS and which FLOPs it counts ("model":
    #: recompute excluded, i.e. MFU × peak; "hardware": with the recomputation).
    published_tflops: float | None = None
    tflops_kind: str = "model"
    assumed: str = ""


_K22 = "Korthikanti et al. 2022 (arXiv 2205.05198, MLSys 2023) Table 3 config, Table 5"
#: (key, model, pp, virtual stages, batch, micro, selective time, full time, MFU %).
#: The paper does not state the schedule: the virtual stages are those of
#: examples/sc21/run_table_1.sh for the same shape and pipeline (530B on 35 stages:
#: 1 layer per virtual stage → v = 3; 1T on 64 stages: v = 1), 1F1B where it has none.
_KOR = [
    ("22b", _gpt("gpt-22b", 48, 6144, 64), 1, 1, 4, 4, 1.10, 1.42, 41.5),
    ("175b", _gpt("gpt3-175b", 96, 12288, 96), 8, 1, 64, 1, 13.75, 18.13, 51.4),
    ("530b", _gpt("mt-nlg-530b", 105, 20480, 128), 35, 3, 280, 1, 37.83, 49.05, 56.0),
    ("1t", _gpt("gpt-1t", 128, 25600, 160), 64, 1, 512, 1, 71.49, 94.42, 56.3),
]


def _korthikanti() -> list[PublishedRun]:
    runs = []
    for key, model, pp, v, batch, micro, t_sel, t_full, mfu in _KOR:
        base = st.Layout(
            tp=8, pp=pp, dp=1, virtual_stages=v, micro_batch=micro, global_batch=batch,
            seq_len=2048, flash_attention=False,
        )  # fmt: skip
        runs.append(
            PublishedRun(
                key=f"korthikanti-{key}-selective",
                model=model,
                hardware=A100_DGX,
                layout=replace(base, recompute="selective", sequence_parallel=True),
                precision="fp16",
                target_step_s=t_sel,
                citation=f"{_K22}: sequence parallel + selective recompute, {t_sel} s/iteration",
                target_note="measured iteration time",
                published_tflops=mfu / 100 * 312.0,
                tflops_kind="model",
                assumed="schedule (see _KOR); 22B's 64 heads",
            )
        )
        runs.append(
            PublishedRun(
                key=f"korthikanti-{key}-full",
                model=model,
                hardware=A100_DGX,
                layout=replace(base, recompute="full"),
                precision="fp16",
                target_step_s=t_full,
                citation=f"{_K22}: full recompute baseline, {t_full} s/iteration",
                target_note="measured iteration time",
                assumed="schedule (see _KOR); 22B's 64 heads",
            )
        )
    return runs


_SC21 = (
    "Narayanan et al. 2021 (SC21, arXiv 2104.04473) Table 1; layouts, micro-batch and "
    "layers per virtual stage from NVIDIA/Megatron-LM examples/sc21/run_table_1.sh"
)
#: (size, layers, hidden, heads, tp, pp, gpus, batch, micro, virtual, TFLOPS/GPU)
_TABLE1 = [
    ("1.7b", 24, 2304, 24, 1, 1, 32, 512, 16, 1, 137.0),
    ("3.6b", 30, 3072, 32, 2, 1, 64, 512, 16, 1, 138.0),
    ("7.5b", 36, 4096, 32, 4, 1, 128, 512, 16, 1, 142.0),
    ("18b", 40, 6144, 48, 8, 1, 256, 1024, 8, 1, 135.0),
    ("39b", 48, 8192, 64, 8, 2, 512, 1536, 4, 1, 138.0),
    ("76b", 60, 10240, 80, 8, 4, 1024, 1792, 2, 3, 140.0),
    ("145b", 80, 12288, 96, 8, 8, 1536, 2304, 2, 2, 148.0),
    ("310b", 96, 16384, 128, 8, 16, 1920, 2160, 1, 2, 155.0),
    ("530b", 105, 20480, 128, 8, 35, 2520, 2520, 1, 3, 163.0),
    ("1t", 128, 25600, 160, 8, 64, 3072, 3072, 1, 1, 163.0),
]


def _megatron_2021() -> list[PublishedRun]:
    runs = []
    for size, layers, hidden, heads, tp, pp, gpus, batch, micro, v, tflops in _TABLE1:
        model = _gpt(f"gpt-{size}", layers, hidden, heads)
        flops = _megatron_flops(batch, 2048, layers, hidden, 51200, 96)
        runs.append(
            PublishedRun(
                key=f"megatron-2021-{size}",
                model=model,
                hardware=A100_DGX,
                layout=st.Layout(
                    tp=tp,
                    pp=pp,
                    dp=gpus // (tp * pp),
                    virtual_stages=v,
                    micro_batch=micro,
                    global_batch=batch,
                    seq_len=2048,
                    recompute="full",
                    flash_attention=False,
                ),  # fmt: skip
                precision="fp16",
                target_step_s=flops / (gpus * tflops * 1e12),
                citation=f"{_SC21}: GPT {size}, {gpus} A100, {tflops:g} TFLOPS/GPU",
                target_note="the paper's 96·B·s·l·h²(1 + s/6h + V/16lh) at its TFLOPS/GPU",
                published_tflops=tflops,
                tflops_kind="hardware",
                assumed="TFLOPS/GPU quoted from memory of Table 1 (to the unit)",
            )
        )
    return runs


_MTNLG = (
    "Smith et al. 2022, 'Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B' "
    "(arXiv 2201.11990) §3: TP 8, PP 35, batch 1920, seq 2048 on 280/350/420 DGX A100"
)


def _mt_nlg() -> list[PublishedRun]:
    model = _gpt("mt-nlg-530b", 105, 20480, 128)
    runs = []
    for nodes, seconds, tflops in ((280, 60.1, 126.0), (350, 50.2, 121.0), (420, 44.4, 113.0)):
        dp = nodes * 8 // (8 * 35)
        runs.append(
            PublishedRun(
                key=f"mt-nlg-530b-{nodes * 8}",
                model=model,
                hardware=A100_DGX,
                layout=st.Layout(
                    tp=8,
                    pp=35,
                    dp=dp,
                    micro_batch=1,
                    global_batch=1920,
                    seq_len=2048,
                    recompute="full",
                    zero=1,
                    flash_attention=False,
                ),  # fmt: skip
                precision="bf16",
                target_step_s=seconds,
                citation=f"{_MTNLG}: {nodes} nodes, {seconds} s/iteration, {tflops:g} TFLOPS/GPU",
                target_note="measured iteration time",
                published_tflops=tflops,
                tflops_kind="hardware",
                assumed="micro-batch 1; DeepSpeed 1F1B (v = 1); ZeRO-1",
            )
        )
    return runs


def _bloom() -> PublishedRun:
    model = ModelConfig(
        "bloom-176b", 176.2e9, 70, 14336, 112, 112, 128, 4 * 14336, 250880, 2048,
        "BigScience BLOOM model card / Le Scao et al. 2022 §3.5", False,
    )  # fmt: skip
    tflops = 150.0
    flops = _megatron_flops(2048, 2048, 70, 14336, 250880, 96)
    return PublishedRun(
        key="bloom-176b",
        model=model,
        hardware=A100_JEAN_ZAY,
        layout=st.Layout(
            tp=4,
            pp=12,
            dp=8,
            micro_batch=2,
            global_batch=2048,
            seq_len=2048,
            recompute="full",
            zero=1,
            flash_attention=False,
        ),  # fmt: skip
        precision="bf16",
        target_step_s=flops / (384 * tflops * 1e12),
        citation=(
            "BLOOM model card (bigscience/bloom, 'Training throughput: about 150 TFLOP per GPU "
            "per second'); Le Scao et al. 2022 (arXiv 2211.05100) §3.4-3.5: 384 A100 80GB, "
            "TP 4, PP 12, DP 8, ZeRO-1, batch 2048 × 2048 tokens"
        ),
        target_note="Megatron-DeepSpeed's 96·B·s·l·h²(1 + s/6h + V/16lh) at 150 TFLOPS/GPU",
        published_tflops=tflops,
        tflops_kind="hardware",
        assumed="micro-batch 2; full recompute (checkpoint-activations); 1F1B; NVLink 600 GB/s",
    )


def _llama3() -> list[PublishedRun]:
    model = ModelConfig(
        "llama3-405b", 405e9, 126, 16384, 128, 8, 128, 53248, 128256, 8192,
        "Llama 3 paper (Dubey et al. 2024) Table 3", True,
    )  # fmt: skip
    tokens = 2048 * 8192
    palm = 6 * 405e9 + 12 * 126 * 16384 * 8192  # PaLM App. B with N = 405e9
    runs = []
    for gpus, dp, tflops in ((8192, 64, 430.0), (16384, 128, 400.0)):
        runs.append(
            PublishedRun(
                key=f"llama3-405b-{gpus}",
                model=model,
                hardware=H100_META,
                layout=st.Layout(
                    tp=8,
                    pp=16,
                    dp=dp,
                    virtual_stages=4,
                    micro_batch=1,
                    global_batch=2048,
                    seq_len=8192,
                    recompute="none",
                    zero=1,
                    sequence_parallel=True,
                ),  # fmt: skip
                precision="bf16",
                target_step_s=tokens * palm / (gpus * tflops * 1e12),
                citation=(
                    f"Llama 3 paper (Dubey et al. 2024) Table 4: {gpus} H100, TP 8, CP 1, PP 16, "
                    f"DP {dp}, seq 8192, 16M tokens/batch, {tflops:g} TFLOPS/GPU (BF16 MFU)"
                ),
                target_note="PaLM 6N + 12·L·h·s per token at the published TFLOPS/GPU",
                published_tflops=tflops,
                tflops_kind="model",
                assumed="virtual stages 4 (interleaved, count not stated); micro-batch 1; "
                "no recompute; sharded optimizer (ZeRO-1)",
            )
        )
    return runs


def _llama1() -> PublishedRun:
    """LLaMA-1 65B: the one run of a different team, stack and data centre on A100."""
    model = ModelConfig(
        "llama1-65b", 65.2e9, 80, 8192, 64, 64, 128, 22016, 32000, 2048,
        "Touvron et al. 2023 (arXiv 2302.13971) Table 2", True,
    )  # fmt: skip
    tokens_per_s_per_gpu = 380.0
    return PublishedRun(
        key="llama1-65b",
        model=model,
        hardware=A100_DGX,
        layout=st.Layout(
            tp=8,
            pp=4,
            dp=64,
            micro_batch=1,
            global_batch=2048,
            seq_len=2048,
            recompute="selective",
            zero=1,
            sequence_parallel=True,
            flash_attention=True,
        ),  # fmt: skip
        precision="bf16",
        target_step_s=2048 * 2048 / (tokens_per_s_per_gpu * 2048),
        citation=(
            "Touvron et al. 2023 (LLaMA) §2.4: 'around 380 tokens/sec/GPU on 2048 A100 GPU "
            "with 80GB of RAM' for 65B; 4M-token batches of 2,048-token sequences (Table 2); "
            "model and sequence parallelism (Korthikanti et al.), activations saved "
            "selectively, xformers memory-efficient attention"
        ),
        target_note="measured throughput: step = 4M tokens / (380 tokens/s × 2048 GPUs)",
        assumed="TP 8 and PP 4 (not stated; PP 2-8 predict within 3 % of each other, PP 1 "
        "+13 %); interconnect as DGX A100 (Meta RSC: 8× 200 Gb/s HDR per node)",
    )


def runs() -> list[PublishedRun]:
    """All published runs, in a fixed order."""
    return [*_megatron_2021(), *_korthikanti(), _bloom(), _llama1(), *_llama3()]


def reference_runs() -> list[PublishedRun]:
    """Runs reported but not scored: MT-NLG 530B ran the same model on the same DGX A100
    nodes and layout as Korthikanti et al.'s 530B, 1.4× slower per micro-batch (its 2021
    DeepSpeed stack): a software difference no design-level model can see."""
    return _mt_nlg()


def predict(
    run: PublishedRun,
    kernel_efficiency: float | None = None,
    collective_efficiency: float | None = None,
) -> st.StepPrediction:
    """The model's prediction for ``run`` without being told its throughput."""
    return st.predict_step(
        run.model,
        run.layout,
        run.hardware,
        run.precision,
        kernel_efficiency=kernel_efficiency,
        collective_efficiency=collective_efficiency,
    )


def told_step_s(run: PublishedRun) -> float | None:
    """Step time from our FLOP count at the run's published TFLOPS/GPU (None if none)."""
    if run.published_tflops is None:
        return None
    parts = st.step_parts(run.model, run.layout, run.hardware)
    per_token = (
        parts.model_flops_per_token
        if run.tflops_kind == "model"
        else parts.hardware_flops_per_token
    )
    tokens = run.layout.global_batch * run.layout.seq_len
    return per_token * tokens / (run.layout.gpus * run.published_tflops * 1e12)


def _golden(loss, lo: float, hi: float, rounds: int = 32) -> float:
    """Minimum of a unimodal ``loss`` on [lo, hi] by golden-section search."""
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = loss(a), loss(b)
    for _ in range(rounds):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = loss(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = loss(b)
    return (lo + hi) / 2


#: Exponent of the fit's loss, Σ |log(predicted / published)|^p.  8 rather than 2 because
#: the acceptance bound is on the worst run as well as the mean: p = 8 is close to a
#: minimax fit while still using every run (least squares, on the first 21 runs: LOO mean
#: 7.1 %, worst 15.6 %).
LOSS_POWER = 8


def fit_kernel_efficiency(
    fit_runs: Sequence[PublishedRun],
    collective_efficiency: float = st.DEFAULT_COLLECTIVE_EFFICIENCY,
) -> float:
    """The kernel efficiency minimising Σ |log error|^LOSS_POWER of the step time over
    ``fit_runs``, the collective efficiency held at comm.py's NCCL-derived 0.8 (a 2-D fit
    of both lands at 0.79 for it, so it is not refitted).  Golden-section search on
    [0.3, 1]: every step time falls monotonically with the efficiency."""
    pieces = [(st.step_parts(r.model, r.layout, r.hardware), r.target_step_s) for r in fit_runs]
    c = collective_efficiency

    def loss(k: float) -> float:
        return sum(abs(math.log(p.step_time(k, c) / t)) ** LOSS_POWER for p, t in pieces)

    return _golden(loss, 0.3, 1.0)


@dataclass(frozen=True)
class LooReport:
    """Leave-one-out errors (predicted/published − 1) per run, with mean and worst."""

    errors: dict[str, float]
    fitted: dict[str, float]  # the kernel efficiency fitted without each run
    all_runs_fit: float

    @property
    def mean_abs(self) -> float:
        return sum(abs(e) for e in self.errors.values()) / len(self.errors)

    @property
    def worst_abs(self) -> float:
        return max(abs(e) for e in self.errors.values())

    def table(self) -> str:
        """One line per run: key, LOO error, constants fitted without it; mean, worst."""
        lines = [
            f"{key:30s} {err * 100:+6.1f} %  (kernel efficiency fitted without it "
            f"{self.fitted[key]:.3f})"
            for key, err in self.errors.items()
        ]
        lines.append(
            f"mean |err| {self.mean_abs * 100:.1f} %, worst {self.worst_abs * 100:.1f} % "
            f"over {len(self.errors)} runs; all-runs fit {self.all_runs_fit:.3f}"
        )
        return "\n".join(lines)


def leave_one_out(all_runs: Sequence[PublishedRun] | None = None) -> LooReport:
    """Fit the kernel efficiency without each run, predict that run; every error."""
    chosen = list(all_runs if all_runs is not None else runs())
    c = st.DEFAULT_COLLECTIVE_EFFICIENCY
    errors, fitted = {}, {}
    for i, run in enumerate(chosen):
        k = fit_kernel_efficiency(chosen[:i] + chosen[i + 1 :])
        fitted[run.key] = k
        parts = st.step_parts(run.model, run.layout, run.hardware)
        errors[run.key] = parts.step_time(k, c) / run.target_step_s - 1.0
    return LooReport(errors, fitted, fit_kernel_efficiency(chosen))
