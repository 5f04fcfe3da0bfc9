"""Workload simulation: an engine's scheduler and KV allocator (vLLM, SGLang, llama-server) over a
trace or synthetic workload.

The memory budget comes from kvplan.check on the equivalent launch command, exactly as
``kvplan simulate`` does, so the simulated pool is the one check and engine report.
"""
from . import _core
from ._records import Record

_STEP_COLUMNS = ["step", "start_s", "duration_s", "running", "waiting", "scheduled", "prefill_tokens",
                 "decode_tokens", "kv_tokens_read", "blocks_used", "cached_free_blocks", "preemptions", "finished"]


class SimulationResult(Record):
    """``kvplan simulate --json`` as a Record (num_blocks, peak_blocks, ttft_s.p99, ...) plus
    DataFrame views: timeline_frame() (the bounded time series), steps_frame() (every step, when
    simulate(..., steps=True)) and percentiles_frame()."""

    __slots__ = ()

    def __str__(self):
        return self.get("text", dict.__repr__(self))

    def timeline_frame(self):
        import pandas as pd
        rows = [{"t_s": p["t_s"], "running": p["running"], "waiting": p["waiting"], "blocks_used": p["blocks_used"],
                 **{f"group{i}_blocks": b for i, b in enumerate(p["group_blocks"])}} for p in self["timeline"]]
        return pd.DataFrame(rows)

    def steps_frame(self):
        import pandas as pd
        if "step_rows" not in self:
            raise ValueError("no per-step records: call kvplan.simulate(..., steps=True)")
        return pd.DataFrame(self["step_rows"], columns=_STEP_COLUMNS)

    def percentiles_frame(self):
        import pandas as pd
        keys = ["mean", "p50", "p90", "p99", "max"]
        return pd.DataFrame({m: [self[m][k] for k in keys] for m in ("ttft_s", "tpot_s", "e2e_s", "queue_s")},
                            index=keys)


def _model(model):
    return model if isinstance(model, _core.Model) else _core.load(model)


_LAUNCHERS = {"sglang": ["python3", "-m", "sglang.launch_server", "--model-path"], "llama.cpp": ["llama-server"],
              "trtllm": ["trtllm-serve"]}


def _engine_name(engine):
    e = str(engine).lower()
    if e in ("llamacpp", "llama-cpp", "llama-server"):
        e = "llama.cpp"
    if e in ("tensorrt-llm", "tensorrt_llm", "trt-llm"):
        e = "trtllm"
    return e


def _simulate_other(model, engine, gpu, engine_args, command, run):
    """SGLang / llama-server / TensorRT-LLM: the launch command (given, or MODEL plus engine_args in the engine's
    own flag names) is read by kvplan.check and the engine's option table (prepare_simulation)."""
    if command is None:
        name = model.name if isinstance(model, _core.Model) else str(model)
        if engine in ("sglang", "trtllm"):
            command = _LAUNCHERS[engine] + [name]
            config = None
        else:
            command = list(_LAUNCHERS["llama.cpp"])
            config = name  # kvplan's model (llama-server's own -m names a GGUF file)
        command = command + [str(a) for a in (engine_args or [])]
    else:
        command = [str(a) for a in command]
        config = None if model is None else (model.name if isinstance(model, _core.Model) else str(model))
    out = _core._simulate_launch(command, gpu, config, **run)
    return out if run["find"] else SimulationResult(out)


def simulate(model, *, gpu, engine="vllm", engine_args=None, command=None, workload=None, trace=None, requests=None,
             max_model_len=None, max_num_seqs=None,
             max_num_batched_tokens=None, kv_cache_dtype=None, block_size=None, gpu_memory_utilization=None,
             kv_cache_memory=None, enable_prefix_caching=True, tensor_parallel_size=1, pipeline_parallel_size=1,
             long_prefill_token_threshold=None, enable_chunked_prefill=True, scheduler_reserve_full_isl=True,
             scheduling_policy="fcfs", slo_ttft=0.0, slo_tpot=0.0, slo_e2e=0.0, calibration=None, prefill_efficiency=0.0, steps=False, find=None,
             slo_percentile=0.9, price=0.0, target_rate=0.0):
    """Simulate vLLM V1 serving `model` on one replica of `gpu` (tensor_parallel_size GPUs).

    Give exactly one workload: `workload` (a spec string, e.g. "rate=10 requests=1000
    prompt=lognormal:1024:0.8 output=uniform:64:512 seed=1"), `trace` (a JSONL, Azure LLM trace or
    BurstGPT CSV path) or `requests` (a list of dicts with arrival_s, prompt_tokens,
    output_tokens, session?, prefix_id?, prefix_tokens?, priority?). scheduling_policy="priority"
    orders waiting requests by priority (lower first), then arrival, as vLLM's does. Engine options use vLLM's names; unset ones take
    ``vllm serve``'s defaults for the GPU. `model` must be a name or path kvplan.check can load.
    Returns a SimulationResult; with find="max-rate" the capacity search's Record instead.

    engine="sglang" or "llama.cpp" simulates that engine's scheduler instead: its options are the
    engine's own launch flags, engine_args=["--context-length", "8192", "--page-size", "16"] (SGLang)
    or ["--ctx-size", "16384", "--parallel", "4"] (llama-server), or a whole launch command in
    command=[...] (then `model`, if given, is the config of a GGUF the command names); the vLLM
    keywords above do not apply to them. engine="trtllm" takes trtllm-serve's flags
    (["--max_batch_size", "64", "--max_num_tokens", "8192", "--extra_llm_api_options", "x.yaml"]).
    """
    engine = _engine_name(engine)
    if engine != "vllm":
        if engine not in _LAUNCHERS:
            raise _core.KvplanError(f"engine: expected vllm, sglang, llama.cpp or trtllm (the engines whose scheduler is "
                                    f"simulated), got {engine!r}")
        vllm_given = {k: v for k, v in (("max_model_len", max_model_len), ("max_num_seqs", max_num_seqs),
                                          ("max_num_batched_tokens", max_num_batched_tokens),
                                          ("kv_cache_dtype", kv_cache_dtype), ("block_size", block_size),
                                          ("gpu_memory_utilization", gpu_memory_utilization),
                                          ("kv_cache_memory", kv_cache_memory),
                                          ("long_prefill_token_threshold", long_prefill_token_threshold),
                                          ("scheduling_policy", None if scheduling_policy == "fcfs" else scheduling_policy))
                     if v is not None}
        if vllm_given:
            raise _core.KvplanError(f"{next(iter(vllm_given))}: a vLLM option, given for engine={engine!r} "
                                    f"(pass the engine's own flags in engine_args)")
        run = dict(workload=workload, trace=trace, requests=requests, calibration=calibration,
                   prefill_efficiency=prefill_efficiency, slo_ttft=slo_ttft, slo_tpot=slo_tpot, slo_e2e=slo_e2e,
                   steps=steps, find=find, slo_percentile=slo_percentile, price=price, target_rate=target_rate)
        return _simulate_other(model, engine, gpu, engine_args, command, run)
    if engine_args is not None or command is not None:
        raise _core.KvplanError("engine_args / command: for engine='sglang', 'llama.cpp' or 'trtllm' (vLLM takes keywords)")
    # The keywords become the `vllm serve` command they stand for, and that command is read by the
    # library as every launch command is (prepare_simulation: check's reader and budget, vllm
    # serve's defaults for the GPU, the flags the simulator refuses): the CLI's MODEL form does the
    # same, so neither maps an option onto the engine a second time.
    m = _model(model)
    argv = ["vllm", "serve", m.name, "--tensor-parallel-size", str(tensor_parallel_size),
            "--pipeline-parallel-size", str(pipeline_parallel_size)]
    for flag, value in (("--max-model-len", max_model_len), ("--max-num-batched-tokens", max_num_batched_tokens)):
        if value is not None:  # "32k" is read here, as the CLI reads it
            argv += [flag, str(_core.parse_tokens(str(value)))]
    for flag, value in (("--max-num-seqs", max_num_seqs), ("--long-prefill-token-threshold", long_prefill_token_threshold),
                        ("--kv-cache-dtype", kv_cache_dtype), ("--block-size", block_size),
                        ("--gpu-memory-utilization", gpu_memory_utilization), ("--scheduling-policy", scheduling_policy)):
        if value is not None:
            argv += [flag, str(value)]
    if kv_cache_memory is not None:  # vLLM's flag takes whole bytes ("20GiB" is read here, as the CLI does)
        argv += ["--kv-cache-memory-bytes", str(_core.parse_bytes(str(kv_cache_memory)))]
    if not enable_prefix_caching:
        argv.append("--no-enable-prefix-caching")
    if not enable_chunked_prefill:
        argv.append("--no-enable-chunked-prefill")
    if not scheduler_reserve_full_isl:
        argv.append("--no-scheduler-reserve-full-isl")
    run = dict(workload=workload, trace=trace, requests=requests, calibration=calibration,
               prefill_efficiency=prefill_efficiency, slo_ttft=slo_ttft, slo_tpot=slo_tpot, slo_e2e=slo_e2e,
               steps=steps, find=find, slo_percentile=slo_percentile, price=price, target_rate=target_rate)
    out = _core._simulate_launch(argv, gpu, None, **run)
    return out if find else SimulationResult(out)
