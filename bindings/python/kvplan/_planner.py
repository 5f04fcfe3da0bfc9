"""The planner: plan(), sweep(), compare(), the GPU catalog. Arguments are forwarded to C++."""
from . import _core
from ._core import fields, kv_dtype_ladder, gpu, gpus, gpus_to_hold  # noqa: F401


def _options(gpu, **kw):
    return {"gpu": gpu, **{k: v for k, v in kw.items() if v is not None}}


def _model(model):
    return model if isinstance(model, _core.Model) else _core.load(model)


def plan(model, gpu="H100", *, gpus=None, tp=None, pp=1, dp=1, pp_layers=None, context=None,
         concurrency=1, kv_dtype=None, k_dtype=None, v_dtype=None, state_dtype=None,
         weight_dtype=None, weights=None, engine="none", utilization=None, reserved=None,
         runtime_overhead=None, prefill_chunk=None, block_tokens=None, shared_prefix=0,
         offload=None, offload_bandwidth=None, prefill_efficiency=None, gpu_memory=None,
         gpu_bandwidth=None, gpu_flops=None):
    """Plan a deployment: does `model` fit on `gpus` x `gpu`, and how fast does it decode?

    Returns a Record (a dict with attribute access) with the same fields as ``kvplan plan --json``:
    fits, gpus, tp, pp, context, concurrency, per_gpu {memory_bytes, weights_bytes, kv_bytes,
    state_bytes, reserved_bytes, free_bytes}, max_concurrency, max_context, kv_capacity_tokens,
    min_gpus (and min_gpus_tp, min_gpus_pp, min_gpus_reason), decode_step_seconds,
    decode_tokens_per_second, reason, ..., and request: the request as the library resolved it
    (the same object as the CLI's "request" for the same options; kvplan.fields() lists them)

    model      kvplan.Model, bundled name, path, config dict or JSON text
    gpu        catalog name ("H100", "MI300X"; see kvplan.gpus()) or a dict with the catalog's keys
    gpus, tp, pp, dp   parallelism (gpus = tp x pp x dp; give gpus, tp or both)
    context, concurrency   tokens per sequence and sequences in flight (ints or "32k"); context
               None = not given: the default, 4,096 tokens (the result's context_default is True)
    kv_dtype / k_dtype / v_dtype / state_dtype / weight_dtype   dtype names; None = the model's
               (weight_dtype also takes a preset: "awq", "gptq", "nf4", "w8a8", "fp8", "mxfp4",
               "Q4_K_M", "Q8_0", ...; docs/formulas.md "--weight-dtype presets")
    weights, reserved, runtime_overhead, offload, gpu_memory   byte counts (ints or "80GB")
    engine     "none" or "vllm" (16-token paging blocks, utilization 0.9)
    utilization   fraction of device memory the engine may use (default 0.9)

    Raises KvplanError for a bad value (the message names the argument).
    """
    o = _options(gpu, gpus=gpus, tp=tp, pp=pp, dp=dp, pp_layers=pp_layers, context=context,
                 concurrency=concurrency, kv_dtype=kv_dtype, k_dtype=k_dtype, v_dtype=v_dtype,
                 state_dtype=state_dtype, weight_dtype=weight_dtype, weights=weights, engine=engine,
                 utilization=utilization, reserved=reserved, runtime_overhead=runtime_overhead,
                 prefill_chunk=prefill_chunk, block_tokens=block_tokens, shared_prefix=shared_prefix,
                 offload=offload, offload_bandwidth=offload_bandwidth,
                 prefill_efficiency=prefill_efficiency, gpu_memory=gpu_memory,
                 gpu_bandwidth=gpu_bandwidth, gpu_flops=gpu_flops)
    return _core._plan(_model(model), o)


def plan_text(model, gpu="H100", **kw):
    """The text report of ``kvplan plan`` for the same arguments as plan()."""
    return _core._plan_text(_model(model), _options(gpu, **kw))


class Sweep:
    """A context x concurrency grid computed in C++ (kvplan.sweep).

    Arrays are indexed [context, concurrency]:
      contexts (n,), concurrency (m,)       the axes (uint64)
      cache_bytes (n, m)                    cache per GPU, busiest stage (kv + state), uint64
      memory_bytes (n, m)                   weights + reserved + cache per GPU, uint64
      fits (n, m)                           bool
      decode_step_seconds (n, m)            float64 calibrated step-model estimate
    Scalars (per GPU): weights_bytes, reserved_bytes, usable_bytes; request: the request as the
    library resolved it (the same object as ``kvplan sweep --json``'s "request").
    """

    def __init__(self, data, model, gpu):
        self.model = model
        self.gpu = gpu
        for k, v in data.items():
            setattr(self, k, v)

    @property
    def shape(self):
        return self.cache_bytes.shape

    def to_dataframe(self):
        """Long format: one row per (context, concurrency) cell."""
        from .frames import sweep_frame
        return sweep_frame(self)

    def __repr__(self):
        n, m = self.shape
        return (f"<kvplan.Sweep {self.model} on {self.gpu}: {n} contexts x {m} concurrency, "
                f"{int(self.fits.sum())} cells fit>")


def sweep(model, contexts, concurrency, gpu="H100", *, gpus=None, tp=None, pp=1, dp=1, pp_layers=None,
          kv_dtype=None, k_dtype=None, v_dtype=None, state_dtype=None, weight_dtype=None, weights=None,
          engine="none", utilization=None, reserved=None, runtime_overhead=None, prefill_chunk=None,
          block_tokens=None, shared_prefix=0, offload=None, offload_bandwidth=None,
          prefill_efficiency=None, gpu_memory=None, gpu_bandwidth=None, gpu_flops=None):
    """Evaluate a context x concurrency grid in C++ and return numpy arrays (a Sweep).

    `contexts` and `concurrency` are lists or numpy integer arrays (strings such as "32k" are
    accepted in lists). The other keyword arguments are plan()'s, with the same meaning.
    Each cell is exact and checked like plan(); no Python code runs per cell.
    """
    m = _model(model)
    o = _options(gpu, gpus=gpus, tp=tp, pp=pp, dp=dp, pp_layers=pp_layers, kv_dtype=kv_dtype,
                 k_dtype=k_dtype, v_dtype=v_dtype, state_dtype=state_dtype, weight_dtype=weight_dtype,
                 weights=weights, engine=engine, utilization=utilization, reserved=reserved,
                 runtime_overhead=runtime_overhead, prefill_chunk=prefill_chunk,
                 block_tokens=block_tokens, shared_prefix=shared_prefix, offload=offload,
                 offload_bandwidth=offload_bandwidth, prefill_efficiency=prefill_efficiency,
                 gpu_memory=gpu_memory, gpu_bandwidth=gpu_bandwidth, gpu_flops=gpu_flops)
    data = _core._sweep(m, contexts, concurrency, o)
    return Sweep(data, m.name, gpu if isinstance(gpu, str) else gpu.get("name", "custom"))


def gpus_needed(model, contexts, concurrency, gpu="H100", counts=(1, 2, 4, 8), **kw):
    """Smallest GPU count (tensor parallel over `counts`) on which each grid cell fits; 0 = none.

    One C++ sweep per count; the result is an (n, m) integer array (numpy selection only).
    """
    import numpy as np
    out = None
    for n in sorted(counts, reverse=True):
        s = sweep(model, contexts, concurrency, gpu=gpu, gpus=n, **kw)
        if out is None:
            out = np.zeros(s.shape, dtype=np.int64)
        out[s.fits] = n
    return out


def compare(models, tokens=4096, kv_dtype=None, weight_dtype=None):
    """One row per model (the rows of ``kvplan compare``): layers, kinds, bytes_per_token,
    cache_bytes for one sequence of `tokens`, weights_bytes and the cache's share of weights."""
    if isinstance(models, (str, _core.Model, dict)):
        models = [models]
    return [_core._compare(_model(m), tokens, kv_dtype, weight_dtype) for m in models]


def weight_bytes(model, dtype=None):
    """Bytes of the model's weights as stored for serving: total, experts, non_experts, active
    (read per token at batch 1), mtp, scheme. `dtype` stores every quantisable matrix in it, or
    names a preset ("awq", "Q4_K_M", ...) priced as that checkpoint format."""
    return _core._weight_bytes(_model(model), dtype)
