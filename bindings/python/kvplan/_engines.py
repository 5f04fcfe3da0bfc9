"""Engine profiles: what vLLM, llama.cpp, SGLang and TensorRT-LLM allocate and log."""
from . import _core
from ._core import engine_options  # noqa: F401


def _model(model):
    return model if isinstance(model, _core.Model) else _core.load(model)


def engine(engine, model, **options):
    """Reproduce what `engine` ("vllm", "llama.cpp", "sglang", "trtllm") allocates and logs.

    Options are the engine's own settings with underscores: the engine's option table
    (kvplan.fields("engine.vllm") gives name, cli_flag, type, unit, default and help;
    kvplan.engine_options(engine) the names), the same table `kvplan engine` takes its flags from, e.g. vllm: max_model_len, block_size, kv_cache_dtype, tensor_parallel_size,
    gpu_memory_utilization, available_kv_bytes / kv_cache_memory_bytes ("20GiB");
    llama.cpp: ctx_size, parallel, cache_type_k, cache_type_v, ubatch_size, kv_unified, swa_full,
    flash_attn. Returns a Record with the same fields as ``kvplan engine ... --json``
    (vLLM: num_blocks, block_size, kv_cache_tokens, max_concurrency, log_lines; llama.cpp: cells,
    kv_bytes, k_bytes, v_bytes, state_bytes, log_lines ...).
    """
    return _core._engine(engine, _model(model), options)


def engine_text(engine, model, **options):
    """The text report (with the engine's log lines) for the same arguments as engine()."""
    return _core._engine(engine, _model(model), options, True)


def check(command=None, *, file=None, deployment=None, gpu=None, gpus=None, model=None,
          require_concurrency=None, require_context=None, format=None, gpu_memory=None, strict=None,
          engine_log=None, engine_version=None, weights=None):
    """Check a deployment the way ``kvplan check`` does: does the engine start on these GPUs, and
    does it meet the requirements?

    Give exactly one source: `command` (an engine launch command line as a string or an argv list:
    "vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768", llama-server, sglang, trtllm-serve),
    `file` (a YAML-subset or JSON deployment file) or `deployment` (that file's text).
    `gpu` / `gpus` override the deployment's; `model` overrides the model the command names.
    Returns a Record (``kvplan check --format json``: passed, starts, gpus_needed, kv_cache_tokens,
    max_concurrency, checks, reasons, log_lines ...), or the report as a string when `format` is
    "text", "json", "github" or "junit". A failed check is a result (passed=False), not an error.
    `verdict` is "PASS", "UNCERTAIN" or "FAIL" (docs/engines.md, "The memory budget"); `strict`
    makes UNCERTAIN exit 1; `gpu_memory` ("20GiB" or bytes) replaces the device total;
    `engine_log` (a path) reads the engine's measured memory; `engine_version` picks the vLLM budget;
    `weights` ("16GB" or bytes) replaces kvplan's count of the checkpoint, as ``--weights``.
    """
    return _core._check(command=command, file=file, deployment=deployment, gpu=gpu, gpus=gpus, model=model,
                        require_concurrency=require_concurrency, require_context=require_context,
                        format=format, gpu_memory=gpu_memory, strict=strict, engine_log=engine_log,
                        engine_version=engine_version, weights=weights)
