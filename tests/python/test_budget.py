"""kvplan.check's memory budget from Python: the verdict, the band's terms, gpu_memory, strict and
engine_log (the same figures as tests/cli/test_budget_cli.py)."""
import os

import pytest

import kvplan

SRC = os.path.join(os.path.dirname(__file__), "..", "..")
LOGS = os.path.join(SRC, "tests", "data", "engine_logs")
CMD = "vllm serve meta-llama/Llama-3.1-8B"


def test_verdict_and_terms():
    r = kvplan.check(CMD + " --max-model-len 32768", gpu="H100")
    assert r.verdict == "PASS" and r.exit_code == 0
    assert [t.name for t in r.budget][:2] == ["weights", "activation peak"]
    assert all(t.low_bytes <= t.high_bytes for t in r.budget)


def test_uncertain_and_strict():
    r = kvplan.check(CMD + " --max-model-len 8192 --gpu-memory-utilization 0.8", gpu="RTX3090")
    assert r.verdict == "UNCERTAIN" and r.exit_code == 3 and r.margin_bytes > 0
    assert kvplan.check(CMD + " --max-model-len 8192", gpu="RTX3090", strict=True).exit_code == 1
    # At 0.9 the cache fits but the headroom outside the budget may not hold a desktop's other
    # processes, the CUDA context and the sampler warm-up: the margin names the utilization.
    r = kvplan.check(CMD + " --max-model-len 8192", gpu="RTX3090")
    assert r.verdict == "UNCERTAIN" and r.margin_bytes == 0 and "--gpu-memory-utilization 0.86" in r.margin


def test_gpu_memory_needs_a_unit():
    r = kvplan.check(CMD + " --max-model-len 4096", gpu_memory="40GiB")
    assert r.device_memory.low_bytes == r.device_memory.high_bytes == 40 * 2**30
    with pytest.raises(kvplan.KvplanError, match="unit"):
        kvplan.check(CMD, gpu_memory="24")


def test_engine_log_makes_it_exact():
    r = kvplan.check(CMD + " --max-model-len 20000", gpu="RTX3090", engine_version="0.6.3",
                     engine_log=os.path.join(LOGS, "vllm_v0_3090_llama8b_20k.log"))
    # The cache is exact with the log; the verdict stays UNCERTAIN: V0 captures CUDA graphs after
    # the cache, outside the 0.9 budget, and a desktop 3090's other processes are unknown.
    assert r.calibrated and r.verdict == "UNCERTAIN" and r.kv_cache_tokens == 1952 * 16
    r = kvplan.check(CMD + " --max-model-len 29000", gpu="RTX3090", engine_version="0.6.3",
                     engine_log=os.path.join(LOGS, "vllm_v0_3090_llama8b_29k.log"))
    assert r.verdict == "FAIL"


def test_engine_log_llamacpp_2023_format():
    # llama.cpp build 1344 on ggml-org/ci's V100 (tests/data/engine_logs/README.md): "VRAM kv self =
    # 1024.00 MB" (MB = 2^20 bytes) is the cache; OpenLLaMA 7B v2 has Llama-2-7b's shapes.
    r = kvplan.check("llama-server -m ggml-model-q8_0.gguf -ngl 999 -c 2048 -b 512", gpu="V100-16GB",
                     model="meta-llama/Llama-2-7b-hf", engine_log=os.path.join(LOGS, "llamacpp_v100_openllama7b_q8_2048.log"))
    assert r.calibrated and r.verdict == "PASS" and r.kv_cache_tokens == 2048


def test_engine_log_failed_start_is_fail():
    # QwenLM/Qwen3#1387: Qwen3-30B-A3B on 4 x A10 ran out of memory; never PASS from the GPU alone.
    cmd = ("vllm serve /root/Qwen/Qwen3-30B-A3B --tensor-parallel-size 4 --max-model-len 8192 "
           "--gpu-memory-utilization 0.7 --host 0.0.0.0 --port 8081 --served-model-name Qwen3-30B-A3B-vllm")
    r = kvplan.check(cmd, gpu="A10", model="Qwen/Qwen3-30B-A3B",
                     engine_log=os.path.join(LOGS, "vllm_4xa10_qwen3-30b-a3b_8k_gmu070_oom.log"))
    assert r.verdict == "FAIL"
    assert kvplan.check(cmd, gpu="A10", model="Qwen/Qwen3-30B-A3B").verdict != "PASS"


def test_engine_log_tokens_within_rounding():
    # dennislee22/vLLM-benchmarking: vLLM 0.10.1.1, A100-80GB, "Available KV cache memory: 24.83 GiB",
    # "GPU KV cache size: 464,848 tokens".
    r = kvplan.check("vllm serve Qwen2-7B-Instruct --port 8081 --max-model-len 16384 --gpu-memory-utilization 0.5",
                     gpu="A100-80GB", model="Qwen/Qwen2.5-7B-Instruct", engine_version="0.10.1.1",
                     engine_log=os.path.join(LOGS, "vllm_v1_a100-80gb_qwen2-7b_16k_gmu050.log"))
    assert r.verdict == "PASS" and r.kv_cache_tokens <= 464848 <= r.favourable.kv_cache_tokens


def test_gpu_used_maps_as_the_cli_flag(tmp_path):
    # kvplan check --gpu-used: bytes, a size, "@FILE" or a path to nvidia-smi's CSV, each the same
    # figure. SGLang sizes from the free memory it probes, so 10 GiB elsewhere takes
    # mem_fraction_static x 10 GiB // 131,072 B (Llama-3.1-8B) from the pool; the default fraction
    # is 0.83-0.84 on an H100 (its reserved-memory heuristic; docs/engines.md "SGLang").
    cmd = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --context-length 8192"
    base = kvplan.check(cmd, gpu="H100")
    smi = tmp_path / "smi.csv"
    smi.write_text("memory.used [MiB], memory.total [MiB]\n10240 MiB, 81559 MiB\n")
    runs = [kvplan.check(cmd, gpu="H100", gpu_used=x) for x in (10 * 2**30, "10GiB", "@" + str(smi), smi)]
    assert len({r.kv_cache_tokens for r in runs}) == 1
    assert 0.83 * 81920 <= base.kv_cache_tokens - runs[0].kv_cache_tokens <= 0.84 * 81920  # 10 GiB = 81,920 tokens
    assert any(t.name == "other processes" for t in runs[0].budget)
    with pytest.raises(kvplan.KvplanError, match="gpu_used"):
        kvplan.check(cmd, gpu="H100", gpu_used="lots")
