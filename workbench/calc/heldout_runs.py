"""Published H100 runs of a current stack (NeMo / Megatron Core), kept apart from the
runs the generic profile was fitted on (:mod:`workbench.calc.published_runs`).

Why: issue 25 asks for the error on runs nobody fitted.  These are NVIDIA's published
NeMo performance tables (Megatron-Bridge ``docs/performance-summary.md`` and
``docs/performance-summary-archive.md``: "Pre-Training Performance, System: DGX-H100"),
each a layout as published (GPUs, GBS, MBS, sequence, FSDP, TP, PP, CP, VP) and a
measured tokens/s/GPU.  The step time is ``GBS · seq / (tokens/s/GPU · GPUs)``.
Activation recomputation is not in the tables: none is assumed, and each run says so.
FSDP runs are ZeRO-3 over the data-parallel group; the others use the distributed
optimizer (ZeRO-1).  FP8 runs are timed against the H100's dense FP8 peak.
"""

from __future__ import annotations

from workbench.calc import step_time as st
from workbench.calc.presets import get_preset
from workbench.calc.published_runs import PublishedRun

#: DGX H100 as NVIDIA's tables ran it: 8 × H100 SXM, NVLink 900 GB/s, one 400 Gb/s
#: ConnectX-7 per GPU, non-blocking rail-optimised fabric (DGX SuperPOD reference).
H100_DGX_FP8 = st.Hardware(
    peak_tflops=1979.0,
    gpus_per_node=8,
    nvlink_gbs=900.0,
    nic_gbps_per_gpu=400.0,
    oversubscription=1.0,
    hbm_tbs=3.35,
    peak_source="H100 SXM datasheet 1,979 TFLOPS dense FP8",
    nic_source="DGX H100: 8 × 400 Gb/s ConnectX-7 compute ports",
)

_BRIDGE = (
    "NVIDIA Megatron-Bridge docs/performance-summary{page}.md, NeMo {version} container, DGX-H100"
)
#: (container, page, model preset, gpus, gbs, mbs, seq, fsdp, tp, pp, cp, vp, tokens/s/GPU)
_NEMO_H100 = (
    ("25.09", "-archive", "llama3-8b", 8, 128, 1, 8192, True, 1, 1, 1, 1, 14079.0),
    ("25.09", "-archive", "llama3-70b", 64, 128, 1, 8192, False, 4, 8, 1, 5, 1619.0),
    ("25.09", "-archive", "llama3-405b", 1024, 512, 1, 8192, False, 8, 8, 2, 8, 302.0),
    ("25.11", "", "llama3-8b", 8, 128, 1, 8192, True, 1, 1, 1, 1, 14451.0),
    ("25.11", "", "llama3-70b", 64, 128, 1, 8192, False, 4, 8, 1, 5, 1602.0),
    ("25.11", "", "llama3-405b", 1024, 512, 1, 8192, False, 8, 8, 2, 8, 292.0),
    ("26.02", "-archive", "llama3-70b", 64, 256, 1, 8192, False, 4, 8, 1, 5, 1621.0),
    ("26.02", "-archive", "llama3-405b", 1024, 1536, 1, 8192, False, 8, 8, 2, 8, 311.0),
)


def nemo_h100_fp8() -> list[PublishedRun]:
    """The NeMo DGX-H100 FP8 pre-training rows for the dense Llama models."""
    runs = []
    for version, page, preset, gpus, gbs, mbs, seq, fsdp, tp, pp, cp, vp, per_gpu in _NEMO_H100:
        dp = gpus // (tp * pp * cp)
        layout = st.Layout(
            tp=tp, pp=pp, cp=cp, dp=dp, virtual_stages=vp, micro_batch=mbs,
            global_batch=gbs, seq_len=seq, recompute="none", zero=3 if fsdp else 1,
            sequence_parallel=tp > 1, flash_attention=True,
        )  # fmt: skip
        runs.append(
            PublishedRun(
                key=f"nemo-{version}-{preset}-{gpus}",
                model=get_preset(preset),
                hardware=H100_DGX_FP8,
                layout=layout,
                precision="fp8",
                target_step_s=gbs * seq / (per_gpu * gpus),
                citation=f"{_BRIDGE.format(page=page, version=version)}: {preset}, {gpus} GPUs, "
                f"GBS {gbs}, MBS {mbs}, TP {tp} PP {pp} CP {cp} VP {vp}"
                f"{', FSDP' if fsdp else ''}: {per_gpu:g} tokens/s/GPU",
                target_note="measured tokens/s/GPU: step = GBS·seq / (tokens/s/GPU · GPUs)",
                assumed="no activation recomputation (not in the table)",
            )
        )
    return runs


_TORCHTITAN = (
    "pytorch/torchtitan docs/performance.md: FSDP2 (1D) on 64 A100 80GB, local batch "
    "{lb}, {ac} activation checkpointing, {wps:g} WPS (tokens/s per GPU)"
)
#: (family, preset, seq, local batch, torchtitan AC, our recompute, tokens/s per GPU).
#: "selective op" (op-level selective checkpointing) is taken as selective recompute;
#: the "selective layer" rows (every other layer recomputed whole) have no counterpart
#: in the model and are left out.
_TORCHTITAN_A100 = (
    ("llama3", "llama3-8b", 8192, 1, "selective op", "selective", 2973.0),
    ("llama3", "llama3-70b", 8192, 1, "full", "full", 331.0),
    ("llama2", "llama2-13b", 4096, 2, "no", "none", 2162.0),
    ("llama2", "llama2-13b", 4096, 2, "selective op", "selective", 1904.0),
    ("llama2", "llama2-70b", 4096, 1, "selective op", "selective", 355.0),
    ("llama2", "llama2-70b", 4096, 2, "full", "full", 353.0),
)


def torchtitan_a100() -> list[PublishedRun]:
    """TorchTitan's FSDP2 runs on 64 A100 80GB.  The layout is published (FSDP over all
    64 GPUs, no TP or PP, the local batch) but the interconnect is not: DGX A100's
    8 × 200 Gb/s HDR is assumed, and the runs are reported apart as assumed."""
    from workbench.calc.published_runs import A100_DGX

    runs = []
    for family, preset, seq, local, ac, recompute, wps in _TORCHTITAN_A100:
        layout = st.Layout(
            tp=1, pp=1, dp=64, micro_batch=local, global_batch=64 * local, seq_len=seq,
            recompute=recompute, zero=3, flash_attention=True,
        )  # fmt: skip
        runs.append(
            PublishedRun(
                key=f"torchtitan-{family}-{preset}-{recompute}-{local}",
                model=get_preset(preset),
                hardware=A100_DGX,
                layout=layout,
                precision="bf16",
                target_step_s=local * seq / wps,
                citation=_TORCHTITAN.format(lb=local, ac=ac, wps=wps),
                target_note="measured tokens/s per GPU: step = local batch · seq / WPS",
                assumed="interconnect (DGX A100, 200 Gb/s per GPU); selective op as "
                "selective recompute",
            )
        )
    return runs
