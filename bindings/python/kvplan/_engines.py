"""Engine profiles: what vLLM, llama.cpp, SGLang, TensorRT-LLM and Ollama allocate and log.

kvplan.vllm(), kvplan.llamacpp(), kvplan.sglang(), kvplan.trtllm() and kvplan.ollama() take the engine's options as
typed keyword-only arguments: exactly the fields of the engine's option table (the library's
kvplan/engine_fields.h, listed by kvplan.fields("engine.vllm"), the table `kvplan engine` takes its
flags from). Every keyword defaults to None, "not given": the engine's own default applies (the
table's "default"; a context of None is the config's maximum length, as the engine does).
tests/python/test_engine_signatures.py checks the signatures against the tables.
"""
from __future__ import annotations

from typing import Optional, Sequence, Union

from . import _core
from ._core import engine_options  # noqa: F401

# The value types of the option tables' field types (kvplan/fields.h FieldType), as annotations:
Count = int                            # count: a positive integer
Tokens = Union[int, str]               # tokens: 4096, "32k", "128k"
Bytes = Union[int, str]                # bytes: 123456, "80GB", "1.5GiB"
Fraction = float                       # fraction: a number in (0, 1]
Text = str                             # text: a name in the engine's own vocabulary ("fp8", "q8_0")
TokenList = Union[Sequence[Tokens], str]  # token_list: [4096, 4096, 32768] or "4096,4096,32768"
BytesList = Union[Sequence[Bytes], str]   # bytes_list: ["23.2GiB", "23.2GiB"] or "23.2GiB,23.2GiB"


def _model(model):
    return model if isinstance(model, _core.Model) else _core.load(model)


def engine(engine, model, **options):
    """Reproduce what `engine` ("vllm", "llama.cpp", "sglang", "trtllm", "ollama") allocates and logs.

    The typed functions kvplan.vllm(), kvplan.llamacpp(), kvplan.sglang(), kvplan.trtllm() and
    kvplan.ollama() take
    the same options with real signatures; this form takes the engine's name as data.
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


def _given(arguments):
    """A typed function's arguments (its locals() on entry) as engine options: the model left out,
    None ("not given") dropped so that the library applies the table's default."""
    return {k: v for k, v in arguments.items() if k != "model" and v is not None}


def vllm(model, *, max_model_len: Optional[Tokens] = None, block_size: Optional[Count] = None,
         kv_cache_dtype: Optional[Text] = None, tensor_parallel_size: Optional[Count] = None,
         pipeline_parallel_size: Optional[Count] = None, max_num_batched_tokens: Optional[Tokens] = None,
         attention_backend: Optional[Text] = None, blackwell: Optional[bool] = None,
         enable_prefix_caching: Optional[bool] = None, mamba_cache_mode: Optional[Text] = None,
         mamba_chunk_size: Optional[Tokens] = None, mamba_cache_dtype: Optional[Text] = None,
         mamba_ssm_cache_dtype: Optional[Text] = None, num_speculative_tokens: Optional[Tokens] = None,
         disable_hybrid_kv_cache_manager: Optional[bool] = None, num_gpu_blocks_override: Optional[Count] = None,
         available_kv_bytes: Optional[Bytes] = None, kv_cache_memory_bytes: Optional[Bytes] = None,
         gpu_memory_utilization: Optional[Fraction] = None, gpu_memory_bytes: Optional[Bytes] = None,
         weights_bytes: Optional[Bytes] = None, activation_peak_bytes: Optional[Bytes] = None,
         non_torch_bytes: Optional[Bytes] = None, cudagraph_bytes: Optional[Bytes] = None):
    """vLLM's KV cache for `model`: the figures of ``kvplan engine vllm MODEL ... --json``.

    Same as kvplan.engine("vllm", model, ...). Keywords are vLLM's engine arguments
    (`--max-model-len` is max_model_len); None = not given, vLLM's default:
    max_model_len None = the config's max_position_embeddings. The memory budget comes from
    available_kv_bytes or kv_cache_memory_bytes ("20GiB"), else from gpu_memory_bytes x
    gpu_memory_utilization less weights_bytes, activation_peak_bytes, non_torch_bytes and
    cudagraph_bytes. Returns a Record: num_blocks, block_size, kv_cache_tokens, max_concurrency,
    max_model_len, groups, log_lines, notes, ...
    """
    return _core._engine("vllm", _model(model), _given(locals()))


def llamacpp(model, *, ctx_size: Optional[Tokens] = None, parallel: Optional[Count] = None,
             server: Optional[bool] = None, kv_unified: Optional[bool] = None,
             cache_type_k: Optional[Text] = None, cache_type_v: Optional[Text] = None,
             batch_size: Optional[Count] = None, ubatch_size: Optional[Count] = None,
             swa_full: Optional[bool] = None, flash_attn: Optional[Text] = None,
             mla_v_less: Optional[bool] = None):
    """llama.cpp's KV cache for `model`: the figures of ``kvplan engine llama.cpp MODEL ... --json``.

    Same as kvplan.engine("llama.cpp", model, ...). Keywords are llama-server's options
    (`--ctx-size` is ctx_size, `-np` parallel); None = not given, llama-server's default:
    ctx_size None = n_ctx_train (the config's maximum length), parallel None = 4 unified slots
    (server=False: libllama's single sequence). Returns a Record: cells, kv_bytes, k_bytes,
    v_bytes, state_bytes, log_lines, notes, ...
    """
    return _core._engine("llama.cpp", _model(model), _given(locals()))


def sglang(model, *, context_length: Optional[Tokens] = None, tp_size: Optional[Count] = None,
           pp_size: Optional[Count] = None, dp_size: Optional[Count] = None,
           enable_dp_attention: Optional[bool] = None, mem_fraction_static: Optional[Fraction] = None,
           page_size: Optional[Count] = None, attention_backend: Optional[Text] = None,
           blackwell: Optional[bool] = None, kv_cache_dtype: Optional[Text] = None,
           max_total_tokens: Optional[Tokens] = None, max_running_requests: Optional[Count] = None,
           chunked_prefill_size: Optional[Count] = None, cuda_graph_max_bs: Optional[Count] = None,
           rest_bytes: Optional[Bytes] = None, gpu_memory_bytes: Optional[Bytes] = None,
           free_before_bytes: Optional[Bytes] = None, weights_bytes: Optional[Bytes] = None,
           swa_full_tokens_ratio: Optional[Fraction] = None, disable_hybrid_swa_memory: Optional[bool] = None,
           mamba_full_memory_ratio: Optional[Fraction] = None, max_mamba_cache_size: Optional[Count] = None,
           mamba_ssm_dtype: Optional[Text] = None, disable_radix_cache: Optional[bool] = None):
    """SGLang's KV pool for `model`: the figures of ``kvplan engine sglang MODEL ... --json``.

    Same as kvplan.engine("sglang", model, ...). Keywords are SGLang's server arguments
    (`--context-length` is context_length); None = not given, SGLang's default:
    context_length None = the config's maximum length, mem_fraction_static None = SGLang's
    heuristic. The memory comes from rest_bytes, else gpu_memory_bytes (and free_before_bytes)
    less weights_bytes. Returns a Record: max_total_num_tokens, page_size, log_lines, notes, ...
    """
    return _core._engine("sglang", _model(model), _given(locals()))


def trtllm(model, *, tokens_per_block: Optional[Count] = None, free_gpu_memory_fraction: Optional[Fraction] = None,
           max_tokens: Optional[Tokens] = None, max_gpu_total_bytes: Optional[Bytes] = None,
           kv_cache_dtype: Optional[Text] = None, tp_size: Optional[Count] = None,
           pp_size: Optional[Count] = None, enable_attention_dp: Optional[bool] = None,
           max_attention_window: Optional[TokenList] = None, cpp_share_policy: Optional[bool] = None,
           cpp_rounding: Optional[bool] = None, max_seq_len: Optional[Tokens] = None,
           max_batch_size: Optional[Count] = None, mamba_ssm_cache_dtype: Optional[Text] = None,
           kv_memory_bytes: Optional[Bytes] = None, gpu_memory_bytes: Optional[Bytes] = None,
           peak_bytes: Optional[Bytes] = None, temp_kv_bytes: Optional[Bytes] = None):
    """TensorRT-LLM's KV cache for `model`: the figures of ``kvplan engine trtllm MODEL ... --json``.

    Same as kvplan.engine("trtllm", model, ...). Keywords are TensorRT-LLM's LLM API / kv_cache_config
    settings (max_seq_len, tokens_per_block, free_gpu_memory_fraction, max_tokens, ...); None = not
    given, TensorRT-LLM's default: max_seq_len None = the config's maximum length. The memory
    comes from kv_memory_bytes, else gpu_memory_bytes less peak_bytes (plus temp_kv_bytes) times
    free_gpu_memory_fraction. Returns a Record: max_tokens, blocks, log_lines, notes, ...
    """
    return _core._engine("trtllm", _model(model), _given(locals()))


def ollama(model, *, num_ctx: Optional[Tokens] = None, num_parallel: Optional[Count] = None,
           num_batch: Optional[Count] = None, num_gpu: Optional[Count] = None,
           flash_attention: Optional[bool] = None, gpu_flash_attention: Optional[bool] = None,
           kv_cache_type: Optional[Text] = None, gpu_overhead_bytes: Optional[Bytes] = None,
           metal: Optional[bool] = None, new_engine: Optional[bool] = None,
           gpu_free_bytes: Optional[BytesList] = None, gpu_minimum_bytes: Optional[Bytes] = None,
           layer_bytes: Optional[BytesList] = None, output_bytes: Optional[Bytes] = None,
           vocab: Optional[Count] = None):
    """Ollama's scheduler estimate for `model`: the figures of ``kvplan engine ollama MODEL ... --json``.

    Same as kvplan.engine("ollama", model, ...). Keywords are Ollama's Modelfile parameters and
    OLLAMA_* settings (num_ctx, num_parallel = OLLAMA_NUM_PARALLEL, kv_cache_type =
    OLLAMA_KV_CACHE_TYPE, ...); None = not given, Ollama's default. gpu_free_bytes is the free
    memory of each GPU as Ollama discovers it (None: the CPU runner); layer_bytes / output_bytes
    replace the GGUF tensor infos (a config.json model needs them). Returns a Record: kv_bytes,
    graph_full_bytes, layers_offload, required_full_bytes, runner_args, log_lines, notes, ...
    """
    return _core._engine("ollama", _model(model), _given(locals()))


def check(command=None, *, file=None, deployment=None, gpu=None, gpus=None, model=None,
          require_concurrency=None, require_context=None, format=None, gpu_memory=None, strict=None,
          engine_log=None, engine_version=None, weights=None, gpu_used=None):
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
    `weights` ("16GB" or bytes) replaces kvplan's count of the checkpoint, as ``--weights``;
    `gpu_used` is what other processes hold on each GPU, as ``--gpu-used``: bytes, a size
    ("14.99GiB"), or an ``nvidia-smi --query-gpu=memory.used,memory.total --format=csv`` file (a
    path, or "@FILE").
    """
    return _core._check(command=command, file=file, deployment=deployment, gpu=gpu, gpus=gpus, model=model,
                        require_concurrency=require_concurrency, require_context=require_context,
                        format=format, gpu_memory=gpu_memory, strict=strict, engine_log=engine_log,
                        engine_version=engine_version, weights=weights, gpu_used=gpu_used)


def _document(fn, engine):
    """Appends the engine table's fields (keyword, flag, type, default, help) to fn's docstring, so
    that help(kvplan.vllm) lists them from the one table (nothing when docstrings are stripped)."""
    if fn.__doc__ is None:
        return
    lines = ["", "    Keywords (kvplan.fields(\"engine.%s\"); the default applies when not given):" % engine]
    for f in _core.fields("engine." + engine):
        default = "" if f["default"] is None else ", default " + f["default"]
        unit = " in " + f["unit"] if f["unit"] and f["unit"] != f["type"] else ""
        lines.append(f"      {f['name']} ({f['cli_flag']}; {f['type']}{unit}{default}): {f['help']}")
    fn.__doc__ = fn.__doc__.rstrip() + "\n" + "\n".join(lines) + "\n"


for _fn, _name in ((vllm, "vllm"), (llamacpp, "llama.cpp"), (sglang, "sglang"), (trtllm, "trtllm"), (ollama, "ollama")):
    _document(_fn, _name)
del _fn, _name
