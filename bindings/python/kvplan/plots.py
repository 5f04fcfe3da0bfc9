"""matplotlib figures of kvplan results. matplotlib is imported inside the functions only; every
plotted number comes from the C++ library (size, weight_bytes, plan, sweep)."""
from . import _core

KIND_COLORS = {
    "full_attention": "#1f77b4", "sliding_attention": "#ff7f0e", "chunked_attention": "#bcbd22",
    "mla": "#9467bd", "mamba": "#2ca02c", "linear_attention": "#17becf", "short_conv": "#8c564b",
    "shared_kv": "#7f7f7f", "none": "#d9d9d9",
}


def _model(m):
    return m if isinstance(m, _core.Model) else _core.load(m)


def _axes(ax, figsize=(7, 4)):
    import matplotlib.pyplot as plt
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def memory_vs_context(models, contexts, batch=1, kv_dtype=None, weight_dtype=None, gpu=None,
                      axes=None):
    """Memory vs context for several models: weights and cache stacked (GB, 10^9 bytes).

    One panel per model; `gpu` (a catalog name) draws the memory an engine may use on one device
    (the plan's per-GPU usable memory: capacity x utilization 0.9) as a line. Returns the figure.
    """
    import matplotlib.pyplot as plt
    from ._planner import plan, weight_bytes
    models = [_model(m) for m in ([models] if isinstance(models, (str, _core.Model)) else models)]
    if axes is None:
        fig, axes = plt.subplots(1, len(models), figsize=(4.2 * len(models), 3.6), squeeze=False,
                                 sharey=True)
        axes = axes[0]
    else:
        fig = axes[0].figure
    cap = plan(models[0], gpu)["per_gpu"]["usable_bytes"] if gpu else None
    ctx = [int(_core.parse_tokens(c) if isinstance(c, str) else c) for c in contexts]
    for ax, m in zip(axes, models):
        w = weight_bytes(m, weight_dtype)["total"]
        kv = [m.kv_bytes(tokens=c, batch=batch, kv_dtype=kv_dtype) for c in ctx]
        ax.stackplot(ctx, [[w / 1e9] * len(ctx), [b / 1e9 for b in kv]],
                     labels=["weights", f"cache (batch {batch})"], colors=["#c7c7c7", "#1f77b4"])
        if cap:
            ax.axhline(cap / 1e9, color="red", ls="--", lw=1, label=f"one {gpu}, usable")
        ax.set_xscale("log", base=2)
        ax.set_title(m.name, fontsize=9)
        ax.set_xlabel("context (tokens)")
    axes[0].set_ylabel("memory (GB)")
    axes[0].legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return fig


def gpus_heatmap(model, contexts, concurrency, gpu="H100", counts=(1, 2, 4, 8), ax=None, **kw):
    """"How many GPUs": smallest tensor-parallel GPU count (of `counts`) on which each
    context x concurrency cell fits (blank: none does). Keyword args go to kvplan.plan."""
    import numpy as np
    from ._planner import gpus_needed
    m = _model(model)
    need = gpus_needed(m, contexts, concurrency, gpu=gpu, counts=counts, **kw)
    ax = _axes(ax, (6, 4.5))
    shown = np.ma.masked_equal(need, 0)
    im = ax.imshow(shown, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(concurrency)), [str(c) for c in concurrency])
    ax.set_yticks(range(len(contexts)), [str(c) for c in contexts])
    for i in range(need.shape[0]):
        for j in range(need.shape[1]):
            ax.text(j, i, str(need[i, j]) if need[i, j] else "-", ha="center", va="center",
                    color="white" if need[i, j] else "black", fontsize=8)
    ax.set_xlabel("concurrent sequences")
    ax.set_ylabel("context (tokens)")
    ax.set_title(f"{m.name}: {gpu} GPUs needed", fontsize=10)
    ax.figure.colorbar(im, ax=ax, label="GPUs")
    ax.figure.tight_layout()  # the title and labels inside the figure, colorbar included
    return ax.figure


def decode_roofline(model, batches, context=4096, gpu="H100", ax=None, **kw):
    """Decode step time vs batch (roofline: bytes read / bandwidth), split into weight reads and
    cache reads, with the batch where cache reads overtake weight reads (seed S11) marked.
    Keyword args go to kvplan.plan (kv_dtype, weight_dtype, gpus, ...). Returns the figure."""
    from ._planner import plan
    m = _model(model)
    plans = [plan(m, gpu, context=context, concurrency=b, **kw) for b in batches]
    ax = _axes(ax)
    # The library's terms of the step (every PP stage's weight reads, cache reads, overheads,
    # offload), which add up to it while memory-bound; the plot does no arithmetic of its own.
    ax.plot(batches, [p["decode_step_seconds"] * 1e3 for p in plans], "k-", lw=2, label="decode step")
    ax.plot(batches, [p["decode_weight_seconds"] * 1e3 for p in plans], "--", label="weight reads")
    ax.plot(batches, [p["decode_kv_seconds"] * 1e3 for p in plans], "--", label="cache reads")
    # The calibrated step's fixed costs (per step, layer and token, TP all-reduces; kvplan/step_time.h).
    ax.plot(batches, [p["decode_overhead_seconds"] * 1e3 for p in plans], ":", label="overheads")
    if any(p["decode_offload_seconds"] for p in plans):
        ax.plot(batches, [p["decode_offload_seconds"] * 1e3 for p in plans], "--", label="offloaded cache")
    cross = plans[0]["crossover_concurrency"]
    if cross:
        ax.axvline(cross, color="red", lw=1)
        ax.annotate(f"cache > weights\nfrom {cross} sequences", (cross, ax.get_ylim()[1] * 0.8),
                    xytext=(6, 0), textcoords="offset points", color="red", fontsize=8)
    ax.set_xlabel(f"batch (sequences of {context} tokens)")
    ax.set_ylabel("ms per decode step")
    ax.set_title(f"{m.name} on {gpu}", fontsize=10)
    ax.legend(fontsize=8)
    return ax.figure


def layer_bytes(model, tokens=4096, batch=1, kv_dtype=None, ax=None):
    """Per-layer bytes (MB, 10^6) for `batch` sequences of `tokens` tokens, coloured by layer kind
    (full / sliding / chunked / MLA / state layers)."""
    m = _model(model)
    s = _core.size(m, tokens=tokens, batch=batch, kv_dtype=kv_dtype)
    ax = _axes(ax, (8, 3.2))
    kinds = [l["kind"] for l in s["layers"]]
    ax.bar([l["index"] for l in s["layers"]], [l["bytes"] / 1e6 for l in s["layers"]],
           color=[KIND_COLORS.get(k, "#000000") for k in kinds])
    import matplotlib.patches as mpatches
    ax.legend(handles=[mpatches.Patch(color=KIND_COLORS.get(k, "#000000"), label=k)
                       for k in dict.fromkeys(kinds)], fontsize=8)
    ax.set_xlabel("layer")
    ax.set_ylabel("MB")
    ax.set_title(f"{m.name}: {tokens} tokens x {batch}, {s['k_dtype']} cache", fontsize=10)
    return ax.figure
