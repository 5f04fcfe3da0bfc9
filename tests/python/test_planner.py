"""Planner, sweep and catalog through Python: values derived by hand from the seeds / planner rules,
and the vectorised sweep checked cell by cell against the scalar plan()."""
import json
import os
import numpy as np
import pytest

import kvplan


LLAMA8B = "meta-llama/Llama-3.1-8B"
BPT = 32 * 2 * 8 * 128 * 2  # Llama-3.1-8B bytes per token in bf16 (seed S11: 128 KiB)


def test_gpu_catalog():
    h100 = kvplan.gpu("h100")
    assert h100["name"] == "H100-SXM-80GB"
    assert h100["memory_marketing_bytes"] == 80 * 10**9
    assert h100["bandwidth_bytes_per_s"] == 3.35e12
    assert any(g["name"] == "MI300X-192GB" for g in kvplan.gpus())
    with pytest.raises(kvplan.KvplanError, match="H1000"):
        kvplan.gpu("H1000")


def test_gpus_to_hold_seed_s12():
    # S12: ceil(cache / 80 GB). Llama-3.1-70B, 128k tokens, 10 sequences, fp16:
    cache = 2 * 80 * 8 * 128 * 2 * 131072 * 10
    assert kvplan.gpus_to_hold(cache, "H100") == -(-cache // (80 * 10**9)) == 6


def test_plan_has_cli_fields_and_consistent_numbers():
    p = kvplan.plan(LLAMA8B, "H100", gpus=1, context=8192, concurrency=16, kv_dtype="bf16")
    for key in ("fits", "gpus", "tp", "pp", "context", "concurrency", "per_gpu", "max_concurrency",
                "max_context", "kv_capacity_tokens", "min_gpus", "decode_step_seconds",
                "decode_tokens_per_second", "reason"):
        assert key in p
    assert p.fits is True and p.reason is None
    assert p.per_gpu.kv_bytes == BPT * 8192 * 16
    assert p.cache_bytes_per_token == BPT
    g = p.per_gpu
    assert g.free_bytes == g.usable_bytes - g.weights_bytes - g.kv_bytes - g.state_bytes - g.reserved_bytes
    # max_concurrency: how many 8192-token sequences the free + used cache budget holds
    budget = g.usable_bytes - g.weights_bytes - g.reserved_bytes
    assert p.max_concurrency == budget // (BPT * 8192)


def test_plan_that_does_not_fit_explains():
    p = kvplan.plan(LLAMA8B, "H100", gpus=1, context="128k", concurrency=64)
    assert p.fits is False
    assert isinstance(p.reason, str) and p.reason
    assert p.min_gpus is None or p.min_gpus > 1


def test_plan_tp_splits_kv_heads_seed_s14():
    one = kvplan.plan("meta-llama/Llama-3.1-70B", "H100", gpus=8, tp=8, context=4096, concurrency=1)
    assert one.per_gpu.kv_bytes == 80 * 2 * (8 // 8) * 128 * 2 * 4096


def test_decode_roofline_seed_s11():
    # S11: step time = (weights + cache of all sequences) / bandwidth; the crossover is where the
    # cache read per step reaches the weights read.
    p = kvplan.plan(LLAMA8B, "H100", context=4096, concurrency=1, kv_dtype="fp16")
    assert p.kv_bytes_read_per_step == BPT * 4096
    # the calibrated step (data/step_time.json): overheads + bytes / (fraction x bandwidth)
    cal = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "step_time.json")))
    overhead = cal["step_overhead_s"] + 32 * cal["layer_overhead_s"] + cal["token_overhead_s"] + cal["seq_overhead_s"]
    assert p.decode_step_seconds == pytest.approx(
        overhead + (p.weight_bytes_read_per_step + p.kv_bytes_read_per_step) / (cal["bandwidth_fraction"] * 3.35e12))
    c = p.crossover_concurrency
    assert c >= 1
    assert BPT * 4096 * c >= p.weight_bytes_read_per_step > BPT * 4096 * (c - 1)


def test_plan_bad_inputs():
    with pytest.raises(kvplan.KvplanError, match="utilisation|utilization"):
        kvplan.plan(LLAMA8B, "H100", utilization=1.5)
    with pytest.raises(kvplan.KvplanError, match="gpu"):
        kvplan.plan(LLAMA8B, "NoSuchGPU")
    with pytest.raises(kvplan.KvplanError, match="weight_dtype"):
        kvplan.plan(LLAMA8B, "H100", weight_dtype="fp9")
    with pytest.raises(kvplan.KvplanError, match="context"):
        kvplan.plan(LLAMA8B, "H100", context=-1)


@pytest.mark.parametrize("model, kw", [
    (LLAMA8B, dict(gpus=1)),
    ("openai/gpt-oss-20b", dict(gpus=1, kv_dtype="bf16")),
    ("Qwen/Qwen3-Next-80B-A3B-Thinking", dict(gpus=4, engine="vllm")),
    ("deepseek-ai/DeepSeek-V3", dict(gpu="H200", gpus=8, kv_dtype="fp8")),
])
def test_sweep_cells_equal_scalar_plans(model, kw):
    contexts = [1, 1000, 4096, 32768, 131072]
    conc = np.array([1, 3, 16, 100])
    gpu = kw.pop("gpu", "H100")
    s = kvplan.sweep(model, contexts, conc, gpu=gpu, **kw)
    assert s.cache_bytes.shape == s.fits.shape == s.decode_step_seconds.shape == (5, 4)
    assert s.cache_bytes.dtype == np.uint64 and s.fits.dtype == np.bool_
    assert list(s.contexts) == contexts and list(s.concurrency) == list(conc)
    for i, ctx in enumerate(contexts):
        for j, c in enumerate(conc):
            p = kvplan.plan(model, gpu, context=ctx, concurrency=int(c), **kw)
            assert int(s.cache_bytes[i, j]) == p.per_gpu.kv_bytes + p.per_gpu.state_bytes, (ctx, c)
            assert bool(s.fits[i, j]) == p.fits, (ctx, c)
            assert s.decode_step_seconds[i, j] == pytest.approx(p.decode_step_seconds), (ctx, c)
    assert s.weights_bytes == p.per_gpu.weights_bytes
    assert s.reserved_bytes == p.per_gpu.reserved_bytes


def test_sweep_full_attention_is_linear():
    s = kvplan.sweep(LLAMA8B, np.arange(1, 65) * 1024, np.arange(1, 33), kv_dtype="bf16")
    ctx = s.contexts.astype(object)[:, None]
    conc = s.concurrency.astype(object)[None, :]
    assert (s.cache_bytes.astype(object) == ctx * conc * BPT).all()


def test_sweep_rejects_bad_axes():
    with pytest.raises(kvplan.KvplanError, match="contexts"):
        kvplan.sweep(LLAMA8B, np.array([1.5, 2.0]), [1])
    with pytest.raises(kvplan.KvplanError, match="contexts"):
        kvplan.sweep(LLAMA8B, np.array([-1, 2]), [1])
    with pytest.raises(kvplan.KvplanError, match="concurrency"):
        kvplan.sweep(LLAMA8B, [1], [])
    with pytest.raises(TypeError, match="kv_dtpye"):  # a real signature, like plan()'s
        kvplan.sweep(LLAMA8B, [1], [1], kv_dtpye="fp8")


def test_gpus_needed_matches_plans():
    ctx, conc = [4096, 131072], [1, 64]
    need = kvplan.gpus_needed(LLAMA8B, ctx, conc, counts=(1, 2, 4, 8))
    for i, c in enumerate(ctx):
        for j, n in enumerate(conc):
            fitting = [g for g in (1, 2, 4, 8) if kvplan.plan(LLAMA8B, "H100", gpus=g, context=c, concurrency=n).fits]
            assert need[i, j] == (min(fitting) if fitting else 0)


def test_compare_and_weights():
    rows = kvplan.compare(["Qwen/Qwen3-0.6B", LLAMA8B], tokens=4096, kv_dtype="bf16")
    assert [r.model for r in rows] == ["Qwen/Qwen3-0.6B", LLAMA8B]
    assert rows[1].bytes_per_token == BPT and rows[1].cache_bytes == BPT * 4096
    w = kvplan.weight_bytes(LLAMA8B)
    assert w["total"] == kvplan.load(LLAMA8B).parameters()["total"] * 2  # bf16 checkpoint
    assert kvplan.load(LLAMA8B).weight_bytes("fp8")["total"] < w["total"]
    # Presets price the model as that checkpoint format (same figures as tests/test_weights.cpp):
    # awq = 4 bits + (fp16 scale + 4-bit zero) per 128 of 6,979,321,856 matrix values + bf16 rest.
    awq = kvplan.weight_bytes(LLAMA8B, "awq")
    assert awq["total"] == 6979321856 // 2 + 6979321856 // 128 * 20 // 8 + 2101878784
    assert awq["scheme"].endswith("(preset --weight-dtype awq)")
    assert kvplan.weight_bytes(LLAMA8B, "Q4_K_M")["total"] == 4912898048
    assert kvplan.plan(LLAMA8B, "H100", weight_dtype="q4_k_m").per_gpu.weights_bytes == 4912898048
    with pytest.raises(kvplan.KvplanError, match="awq gptq nf4"):
        kvplan.weight_bytes(LLAMA8B, "awq3")


def test_sweep_frame_has_the_cli_csv_columns():
    # The CLI's `kvplan sweep --csv` header: context,concurrency,cache_bytes,memory_bytes,fits,decode_step_seconds.
    s = kvplan.sweep(LLAMA8B, [1024, 8192], [1, 4], kv_dtype="bf16")
    df = s.to_dataframe()
    assert list(df.columns) == ["context", "concurrency", "cache_bytes", "memory_bytes", "fits", "decode_step_seconds"]
    assert (df["memory_bytes"] == s.weights_bytes + s.reserved_bytes + df["cache_bytes"]).all()
    assert s.memory_bytes.shape == s.cache_bytes.shape


def test_sweep_has_plans_keywords():
    import inspect
    plan_kw = set(inspect.signature(kvplan.plan).parameters) - {"model", "context", "concurrency"}
    sweep_kw = set(inspect.signature(kvplan.sweep).parameters) - {"model", "contexts", "concurrency"}
    assert plan_kw == sweep_kw
