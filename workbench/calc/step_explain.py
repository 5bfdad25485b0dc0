"""The Explain view's text for a predicted step: each term with its numbers and source.

Kept apart from :mod:`workbench.calc.step_time` so the model reads as arithmetic; this
module only substitutes that arithmetic's numbers into its formulas.
"""

from __future__ import annotations

from workbench.calc import flops as fl
from workbench.calc import step_time as st
from workbench.calc.explain import Explained, num
from workbench.calc.presets import ModelConfig


def explain_step(
    model: ModelConfig,
    lay: st.Layout,
    hw: st.Hardware,
    precision: str,
    parts: st.StepParts,
    bd: dict[str, float],
    k: float,
    c: float,
) -> dict[str, Explained]:
    """One :class:`Explained` per term and per FLOP figure, numbers substituted."""
    shape = fl.shape_of(model)
    m, v, s = lay.micro_batches, lay.virtual_stages, lay.seq_len
    peak = hw.peak_tflops * 1e12
    step = sum(bd.values())
    tokens_per_s = lay.global_batch * s / step
    mb = parts.flops_s / k + parts.memory_s
    per_mb = mb + (parts.tp_s + parts.p2p_s) / c
    over = f" × {st._uplink_share(hw, lay):.3g} uplink share" if hw.oversubscription > 1 else ""
    fits = (
        "kernel efficiency and collective efficiency fitted on published runs (published_runs.py)"
    )
    return {
        "model_flops_per_token": fl.explain_model_flops(shape, s),
        "hardware_flops_per_token": fl.explain_hardware_flops(
            shape, s, lay.recompute, lay.flash_attention
        ),
        "compute": Explained(
            bd["compute"],
            "s",
            "m · (stage FLOP/token · b·s / tp / (peak · k) + HBM traffic / HBM bw) + optimizer",
            f"{m} · ({num(parts.stage_flops_per_token)} · {num(parts.tokens_per_micro_batch)} / "
            f"{lay.tp} / ({num(peak)} · {k:.3g}) + {num(parts.memory_s)} s) + "
            f"{num(parts.optimizer_s)} s",
            f"{st._NARAYANAN}; heaviest stage ceil(L/pp) = {parts.heaviest_layers} layers (+ logits "
            f"on the last); {hw.peak_source or 'catalog'} {precision} peak; Korthikanti et al. "
            f"2022 Table 2 activation bytes × passes at the catalog HBM bandwidth; {fits}",
        ),
        "tp_comm": Explained(
            bd["tp_comm"],
            "s",
            "m · layers · collectives · 2(t−1)/t · s·b·h·2 B / (line rate · c)",
            f"{m} · {parts.heaviest_layers} · {parts.collectives_per_layer} · ring("
            f"{num(parts.activation_bytes)} B, t = {lay.tp}) over {parts.tp_link}"
            if lay.tp > 1
            else "tp = 1: no tensor-parallel collectives",
            f"{st._MEGATRON}; Korthikanti et al. 2022 §4.2.2 (SP: same bytes); nccl-tests "
            f"PERFORMANCE.md; {hw.nvlink_source or 'catalog NVLink'}",
        ),
        "cp_comm": Explained(
            bd["cp_comm"],
            "s",
            "m · layers · 3 · (cp − 1) · 2 · (s/cp)·b·kv_heads·head_dim/tp · 2 B / (link · c)",
            f"{m} · {parts.heaviest_layers} · 3 · ({lay.cp} − 1) · K/V blocks of "
            f"{num(parts.tokens_per_micro_batch)} tokens"
            if lay.cp > 1
            else "cp = 1: no context-parallel exchange",
            "Liu et al. 2023 (Ring Attention); Megatron Core context parallelism; the "
            "stack profile's hidden share",
        ),
        "pipeline_bubble": Explained(
            bd["pipeline_bubble"],
            "s",
            "(pp − 1)/v · time per micro-batch",
            f"({lay.pp} − 1)/{v} · {num(per_mb)} s",
            f"{st._NARAYANAN}: bubble (p − 1)/m of ideal for 1F1B, (p − 1)/(m·v) interleaved",
        ),
        "p2p": Explained(
            bd["p2p"],
            "s",
            "m · 2 · v · s·b·h·2 B / tp / (link · c)",
            f"{m} · 2 · {v} · {num(parts.activation_bytes / lay.tp)} B over {parts.p2p_link}"
            if lay.pp > 1
            else "pp = 1: no pipeline sends",
            f"{st._NARAYANAN} (scatter/gather optimisation); {hw.nic_source or 'NIC per GPU'}",
        ),
        "dp_exposed": Explained(
            bd["dp_exposed"],
            "s",
            "max(0, 2(n−1)/n · gradient bytes / busbw − backward of the last micro-batch)",
            f"max(0, {num(parts.dp_comm_s / c)} − {num(parts.backward_share * mb)}) s, "
            f"{num(parts.dp_gradient_bytes)} B over dp = {lay.dp} at "
            f"{num(parts.dp_busbw_gbs * c)} GB/s{over}"
            if lay.dp > 1
            else "dp = 1: no gradient reduction",
            "comm.allreduce_step (nccl-tests ring bytes; Li et al. VLDB 2020 bucketed overlap); "
            "ZeRO (Rajbhandari et al. 2020): reduce-scatter + all-gather, same bytes; "
            f"{hw.fabric_source or 'compute fabric oversubscription'}",
        ),
        "step_time": Explained(
            step,
            "s",
            " + ".join(st.TERMS),
            " + ".join(num(bd[t]) for t in st.TERMS),
            st._NARAYANAN,
        ),
        "mfu": Explained(
            parts.model_flops_per_token * tokens_per_s / (lay.gpus * peak),
            "",
            "model FLOP/token · tokens/s / (gpus · peak)",
            f"{num(parts.model_flops_per_token)} · {num(tokens_per_s)} / ({lay.gpus} · {num(peak)})",
            "Chowdhery et al. 2022 (PaLM) Appendix B (recomputation excluded)",
        ),
        "hfu": Explained(
            parts.hardware_flops_per_token * tokens_per_s / (lay.gpus * peak),
            "",
            "hardware FLOP/token · tokens/s / (gpus · peak)",
            f"{num(parts.hardware_flops_per_token)} · {num(tokens_per_s)} / "
            f"({lay.gpus} · {num(peak)})",
            "Chowdhery et al. 2022 (PaLM) Appendix B (HFU counts recomputation)",
        ),
    }
