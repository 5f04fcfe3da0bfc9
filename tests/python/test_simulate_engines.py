"""kvplan.simulate(..., engine="sglang" / "llama.cpp" / "trtllm") from Python: the pool kvplan.check reports for
the same launch command, the JSON contract, and a clear error for an engine that is not simulated
(the C++ suites `simulate_engines` and `simulate_trtllm` hold the ported scenarios)."""
import pytest

import kvplan

MODEL = "meta-llama/Llama-3.1-8B"
SPEC = "rate=5 requests=80 prompt=uniform:100:1000 output=fixed:50 system_prompt=300 seed=1"


def test_sglang_pool_is_checks_and_contract():
    r = kvplan.simulate(MODEL, gpu="H100", engine="sglang", engine_args=["--context-length", "8192"], workload=SPEC)
    chk = kvplan.check("python3 -m sglang.launch_server --model-path " + MODEL + " --context-length 8192", gpu="H100")
    assert r.engine == "sglang"
    assert r.num_blocks == chk.engine_result["max_total_num_tokens"]  # page_size 1: pages = tokens
    assert r.block_size == 1 and r.max_model_len == 8192
    assert r.finished == 80
    assert r.peak_blocks <= r.num_blocks
    for k in ("ttft_s", "tpot_s", "e2e_s"):
        assert 0 < r[k]["p50"] <= r[k]["p90"] <= r[k]["p99"]
    assert r.prefix_cache["hit_tokens"] > 0  # the shared system prompt, from the radix tree


def test_sglang_launch_command_matches_engine_args():
    a = kvplan.simulate(MODEL, gpu="H100", engine="sglang", workload=SPEC,
                        engine_args=["--context-length", "8192", "--page-size", "16"])
    b = kvplan.simulate(None, gpu="H100", engine="sglang", workload=SPEC,
                        command=["python3", "-m", "sglang.launch_server", "--model-path", MODEL,
                                 "--context-length", "8192", "--page-size", "16"])
    assert a.block_size == b.block_size == 16
    assert a.num_blocks == b.num_blocks and a.ttft_s == b.ttft_s


def test_llamacpp_slots():
    reqs = [{"arrival_s": 0.0, "prompt_tokens": 1000, "output_tokens": 200} for _ in range(6)]
    r = kvplan.simulate(MODEL, gpu="H100", engine="llama.cpp", engine_args=["--ctx-size", "8192", "--parallel", "2"],
                        requests=reqs)
    assert r.engine == "llama.cpp"
    assert r.peak_running == 2 == r.engine_max_concurrency
    assert r.max_model_len == 4096 and r.finished == 6


def test_trtllm_pool_is_checks():
    args = ["--max_seq_len", "8192", "--max_batch_size", "64"]
    r = kvplan.simulate(MODEL, gpu="H100", engine="trtllm", engine_args=args, workload=SPEC)
    chk = kvplan.check("trtllm-serve " + MODEL + " " + " ".join(args), gpu="H100")
    assert r.engine == "trtllm"
    assert r.num_blocks == chk.engine_result["blocks"]
    assert r.block_size == 32 and r.max_model_len == 8192 and r.max_num_seqs == 64
    assert r.finished == 80 and r.preemptions == 0
    # enable_block_reuse is TensorRT-LLM's default (issue 33): SPEC's shared prefix is reused in whole blocks
    # of 32 tokens, never beyond what was queried.
    assert r.prefix_cache["reused_blocks"] > 0
    assert 0 < r.prefix_cache["hit_tokens"] <= r.prefix_cache["query_tokens"]


def test_unsimulated_engine_and_foreign_options_refused():
    with pytest.raises(kvplan.KvplanError, match="trtllm"):
        kvplan.simulate(MODEL, gpu="H100", engine="tgi", workload=SPEC)
    with pytest.raises(kvplan.KvplanError, match="max_model_len"):
        kvplan.simulate(MODEL, gpu="H100", engine="sglang", max_model_len=4096, workload=SPEC)
