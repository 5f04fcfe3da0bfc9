"""kvplan.simulate from Python: the same block count as kvplan.check, the JSON contract, requests as
dicts, determinism and DataFrames (the C++ suite `simulate` holds the ported vLLM scenarios)."""
import pytest

import kvplan

MODEL = "meta-llama/Llama-3.1-8B"


def test_block_count_is_checks_and_contract():
    r = kvplan.simulate(MODEL, gpu="H100", max_model_len=4096,
                        workload="rate=5 requests=100 prompt=uniform:100:1000 output=fixed:50 seed=1")
    chk = kvplan.check("vllm serve " + MODEL + " --max-model-len 4096 --max-num-batched-tokens 8192", gpu="H100")
    assert r.num_blocks == chk.engine_result["num_blocks"]
    assert r.block_size == 16
    assert r.finished == 100
    assert r.peak_blocks <= r.num_blocks - 1
    assert r.ttft_s.p50 <= r.ttft_s.p90 <= r.ttft_s.p99
    assert r.step_time_model.startswith("step = ") and "data/step_time.json" in r.step_time_model, r.step_time_model


def test_requests_hit_the_prefix_cache():
    # 20 requests sharing a 1,024-token stream: after the first, whole 16-token blocks hit.
    reqs = [{"arrival_s": i * 1.0, "prompt_tokens": 1040, "output_tokens": 4, "prefix_id": 7} for i in range(20)]
    r = kvplan.simulate(MODEL, gpu="H100", max_model_len=4096, requests=reqs)
    # Each later request looks up 1040 tokens and hits 1039 // 16 * 16 = 1024 of them.
    assert r.prefix_cache["hit_tokens"] == 19 * 1024
    assert r.prefix_cache["query_tokens"] == 20 * 1040
    off = kvplan.simulate(MODEL, gpu="H100", max_model_len=4096, requests=reqs, enable_prefix_caching=False)
    assert off.prefix_cache["hit_tokens"] == 0


def test_deterministic_and_frames():
    pd = pytest.importorskip("pandas")
    spec = "rate=10 requests=200 prompt=lognormal:512:0.5 output=lognormal:64:0.5 seed=4"
    a = kvplan.simulate(MODEL, gpu="H100", max_model_len=4096, workload=spec, steps=True)
    b = kvplan.simulate(MODEL, gpu="H100", max_model_len=4096, workload=spec, steps=True)
    assert a == b
    steps = a.steps_frame()
    assert isinstance(steps, pd.DataFrame)
    assert len(steps) == a.steps
    assert steps["blocks_used"].max() == a.peak_blocks
    assert len(a.timeline_frame()) > 0
    assert a.percentiles_frame().loc["p99", "ttft_s"] == a.ttft_s.p99


def test_bad_input():
    with pytest.raises(kvplan.KvplanError, match="workload rate"):
        kvplan.simulate(MODEL, gpu="H100", workload="rate=fast")
    with pytest.raises(kvplan.KvplanError, match="exactly one of"):
        kvplan.simulate(MODEL, gpu="H100")
    with pytest.raises(kvplan.KvplanError, match="prompt_tokens"):
        kvplan.simulate(MODEL, gpu="H100", requests=[{"arrival_s": 0, "output_tokens": 3}])


def test_full_sequence_admission():
    # scheduler_reserve_full_isl (vLLM's default): 512 blocks of 16 tokens (1 GiB), 3000-token
    # prompts need 188 blocks each, so two run at once (growing to 2 x 191 = 382 blocks) and none is
    # preempted; admitting on the first chunk alone overcommits the cache (tests/cli has the CLI's).
    reqs = [{"arrival_s": 0, "prompt_tokens": 3000, "output_tokens": 50} for _ in range(20)]
    kw = dict(gpu="H100", max_model_len=4096, max_num_batched_tokens=512, kv_cache_memory="1GiB", requests=reqs)
    on = kvplan.simulate(MODEL, **kw)
    assert (on.num_blocks, on.peak_running, on.peak_blocks, on.preemptions) == (512, 2, 382, 0)
    off = kvplan.simulate(MODEL, scheduler_reserve_full_isl=False, **kw)
    assert off.peak_running > 2 and off.preemptions > 0


def test_priority_scheduling():
    # One slot: a runs first; b (priority 5, 100 tokens out) and c (priority 0, 2 tokens out) wait.
    # FCFS serves b first; vLLM's priority policy serves c first, so c stops waiting for b's 100
    # decode steps and the mean TTFT falls (the C++ suite checks the launch-command form).
    reqs = [{"arrival_s": 0, "prompt_tokens": 500, "output_tokens": 50},
            {"arrival_s": 0.001, "prompt_tokens": 500, "output_tokens": 100, "priority": 5},
            {"arrival_s": 0.002, "prompt_tokens": 500, "output_tokens": 2}]
    kw = dict(gpu="H100", max_model_len=4096, max_num_seqs=1, requests=reqs)
    fcfs = kvplan.simulate(MODEL, **kw)
    prio = kvplan.simulate(MODEL, scheduling_policy="priority", **kw)
    assert fcfs.finished == prio.finished == 3
    assert prio.ttft_s.mean < fcfs.ttft_s.mean
    assert any("FCFS ignores" in n for n in fcfs.notes)
    # Read from the vllm serve command the keywords stand for: the error names its flag.
    with pytest.raises(kvplan.KvplanError, match="--scheduling-policy.*fcfs or priority"):
        kvplan.simulate(MODEL, scheduling_policy="lifo", **kw)
    with pytest.raises(kvplan.KvplanError, match="unknown key"):
        kvplan.simulate(MODEL, gpu="H100", requests=[{"arrival_s": 0, "prompt_tokens": 5, "output_tokens": 1, "prio": 1}])
    with pytest.raises(kvplan.KvplanError, match="scheduling_policy"):
        kvplan.simulate(MODEL, gpu="H100", engine="sglang", scheduling_policy="priority", requests=reqs)


def test_vllm_keywords_are_the_cli_model_form():
    # Issue 26: kvplan.simulate's vLLM keywords become the `vllm serve` command they stand for and
    # are read as the CLI's MODEL form reads its flags, so both give the same run.
    import json
    import os
    import pathlib
    import subprocess
    cli = pathlib.Path(kvplan.__file__).resolve().parents[2] / "bin" / "kvplan"
    if not cli.exists():
        pytest.skip(f"no CLI at {cli}")
    spec = "rate=8 requests=60 prompt=lognormal:600:0.8 output=uniform:20:200 seed=4"
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}  # the CLI links its own sanitizer runtime
    got = kvplan.simulate(MODEL, gpu="H100", max_model_len="8k", max_num_seqs=16, max_num_batched_tokens=2048,
                          kv_cache_dtype="fp8", enable_prefix_caching=False, workload=spec)
    out = subprocess.run([str(cli), "simulate", MODEL, "--gpu", "H100", "--max-model-len", "8k", "--max-num-seqs", "16",
                          "--max-num-batched-tokens", "2048", "--kv-cache-dtype", "fp8", "--no-enable-prefix-caching",
                          "--workload", spec, "--json"], capture_output=True, text=True, check=True, env=env).stdout
    want = json.loads(out)
    for key in ("num_blocks", "max_num_seqs", "max_num_batched_tokens", "max_model_len", "ttft_s", "tpot_s", "e2e_s",
                "peak_blocks", "prefix_caching"):
        assert getattr(got, key) == want[key], key
