"""DataFrames and plots: the numbers in them are the library's."""
import pytest

import kvplan

pd = pytest.importorskip("pandas")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")



def test_layers_dataframe():
    df = kvplan.to_dataframe("google/gemma-3-1b-it", tokens=32768, kv_dtype="bf16")
    assert len(df) == 26
    assert (df.kind == "sliding_attention").sum() == 22 and (df.kind == "full_attention").sum() == 4
    # sliding layers hold their 512-token window; full layers all 32768 tokens (1 KV head x 256, bf16)
    assert set(df[df.kind == "sliding_attention"].bytes) == {2 * 1 * 256 * 2 * 512}
    assert set(df[df.kind == "full_attention"].bytes) == {2 * 1 * 256 * 2 * 32768}
    assert df.bytes.sum() == kvplan.load("google/gemma-3-1b-it").kv_bytes(tokens=32768, kv_dtype="bf16")
    assert "window" in df.columns


def test_size_record_dataframe():
    s = kvplan.size("Qwen/Qwen3-0.6B", tokens=512, kv_dtype="bf16")
    df = kvplan.to_dataframe(s)
    assert list(df.bytes.unique()) == [2 * 8 * 128 * 2 * 512]


def test_plan_and_sweep_dataframes():
    plans = [kvplan.plan("meta-llama/Llama-3.1-8B", "H100", context=c, concurrency=4) for c in (1024, 8192)]
    df = kvplan.to_dataframe(plans)
    assert list(df["per_gpu.kv_bytes"]) == [p.per_gpu.kv_bytes for p in plans]
    s = kvplan.sweep("meta-llama/Llama-3.1-8B", [1024, 8192], [1, 2, 4], kv_dtype="bf16")
    long = s.to_dataframe()
    assert len(long) == 6
    row = long[(long.context == 8192) & (long.concurrency == 4)].iloc[0]
    assert row.cache_bytes == 32 * 2 * 8 * 128 * 2 * 8192 * 4


def test_plots_draw_library_numbers():
    fig = kvplan.plots.layer_bytes("openai/gpt-oss-20b", tokens=4096, kv_dtype="bf16")
    heights = sorted({round(p.get_height() * 1e6) for p in fig.axes[0].patches})
    assert heights == [2 * 8 * 64 * 2 * 128, 2 * 8 * 64 * 2 * 4096]  # sliding (window 128), full
    fig = kvplan.plots.memory_vs_context(["Qwen/Qwen3-0.6B"], [1024, 2048], kv_dtype="bf16", gpu="H100")
    assert len(fig.axes) == 1
    fig = kvplan.plots.gpus_heatmap("meta-llama/Llama-3.1-8B", [4096, 131072], [1, 64])
    assert fig.axes
    fig = kvplan.plots.decode_roofline("meta-llama/Llama-3.1-8B", [1, 8, 32, 64], kv_dtype="fp16")
    step = fig.axes[0].lines[0].get_ydata()
    assert list(step) == sorted(step)  # more sequences, longer steps
