"""DataFrames and plots: the numbers in them are the library's."""
import json
import os
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


# Issue 15's plot examples, each with its corrected answer.
def test_memory_plot_draws_one_gpu_at_its_usable_memory():
    # H100 SXM: 85,520,809,984 B reported x utilization 0.9, floored = 76,968,728,985 B (plan's
    # per_gpu.usable_bytes), not the 85.5 GB total.
    fig = kvplan.plots.memory_vs_context(["Qwen/Qwen3-0.6B"], [1024, 2048], kv_dtype="bf16", gpu="H100")
    line = [l for l in fig.axes[0].lines if "H100" in l.get_label()][0]
    assert list(line.get_ydata()) == [76_968_728_985 / 1e9] * 2
    assert kvplan.plan("Qwen/Qwen3-0.6B", "H100").per_gpu.usable_bytes == 76_968_728_985 == int(85_520_809_984 * 0.9)


def test_heatmap_title_inside_the_figure():
    fig = kvplan.plots.gpus_heatmap("meta-llama/Llama-3.1-8B", [4096, 131072], [1, 64])
    fig.canvas.draw()
    title = fig.axes[0].title.get_window_extent()
    box = fig.bbox
    assert box.x0 <= title.x0 and title.x1 <= box.x1 and box.y0 <= title.y0 and title.y1 <= box.y1, (title, box)


def test_roofline_split_adds_up_with_pipeline_stages():
    # pp 2: each stage reads its half of the weights, one after the other, so the weight term of a
    # step is both halves (it used to draw one half and not add up to the step).
    fig = kvplan.plots.decode_roofline("meta-llama/Llama-3.1-8B", [1, 8, 32], kv_dtype="fp16", pp=2)
    step, weights, cache, overheads = (l.get_ydata() for l in fig.axes[0].lines[:4])
    for s, w, c, o in zip(step, weights, cache, overheads):  # memory-bound at these batches
        assert s == pytest.approx(w + c + o, rel=1e-12)
    p = kvplan.plan("meta-llama/Llama-3.1-8B", "H100", pp=2, concurrency=8, kv_dtype="fp16")
    # the calibrated bandwidth (data/step_time.json): the fraction of the datasheet figure reads reach
    cal = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "step_time.json")))
    bw = kvplan.gpu("H100")["bandwidth_bytes_per_s"] * cal["bandwidth_fraction"]
    assert p.decode_weight_seconds == pytest.approx(2 * p.weight_bytes_read_per_step / bw, rel=1e-9)
    assert p.decode_kv_seconds == pytest.approx(p.kv_bytes_read_per_step / bw, rel=1e-12)
    assert p.decode_compute_seconds < p.decode_weight_seconds + p.decode_kv_seconds
    assert p.decode_step_seconds == pytest.approx(
        p.decode_weight_seconds + p.decode_kv_seconds + p.decode_overhead_seconds, rel=1e-12)
