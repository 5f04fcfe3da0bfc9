"""`kvplan.check` at the boundary (issue 18 (b)), the same setups as tests/test_boundaries.cpp:
a required context or concurrency exactly equal to what fits passes, one more fails, for every
engine, so a `>=` turned into `>` in the verdict fails here."""
import math

import pytest

import kvplan

ENGINES = [
    ("vllm serve Qwen/Qwen3-8B --max-model-len 32768 --num-gpu-blocks-override 8192", None),
    ("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 32768 --max-total-tokens 131072", None),
    ("llama-server -m qwen3-8b.gguf --ctx-size 131072 --parallel 4", "Qwen/Qwen3-8B"),
    # kv_cache_config.max_tokens 131,072: 4,096 blocks / 1,024 per sequence = 4 exactly
    ("trtllm-serve Qwen/Qwen3-8B --max_seq_len 32768 --extra_llm_api_options {extra}", None),
]


@pytest.mark.parametrize("command, model", ENGINES, ids=["vllm", "sglang", "llama.cpp", "trtllm"])
def test_check_passes_at_equality_and_fails_one_above(command, model, tmp_path):
    extra = tmp_path / "extra.yaml"
    extra.write_text("kv_cache_config:\n  max_tokens: 131072\n")
    command = command.format(extra=extra)
    base = kvplan.check(command, gpu="H100", model=model)
    assert base["passed"]
    ctx = min(base["context"], base["max_fitting_context"])
    assert kvplan.check(command, gpu="H100", model=model, require_context=ctx)["passed"]
    assert not kvplan.check(command, gpu="H100", model=model, require_context=ctx + 1)["passed"]
    conc = base["max_concurrency"]
    assert conc >= 1 and conc == math.floor(conc)
    n = int(conc)
    assert kvplan.check(command, gpu="H100", model=model, require_concurrency=n)["passed"]
    above = kvplan.check(command, gpu="H100", model=model, require_concurrency=n + 1)
    assert not above["passed"] and above["exit_code"] == 1


# tp 3 (issue 18, cause 7: `check(..., tp=3).passed` was True). GPT-2's 12 attention heads and 12 KV
# heads (openai-community/gpt2 config.json: n_head 12, no GQA) divide by 3, so tp 3 starts on every
# engine and the boundary holds per rank: 1,024-token sequences, KV fixed by the command.
TP3 = [
    "vllm serve openai-community/gpt2 --tensor-parallel-size 3 --max-model-len 1024 --num-gpu-blocks-override 256",
    "python -m sglang.launch_server --model-path openai-community/gpt2 --tp-size 3 --context-length 1024 --max-total-tokens 4096",
    "trtllm-serve openai-community/gpt2 --tp_size 3 --max_seq_len 1024 --extra_llm_api_options {extra}",
]


@pytest.mark.parametrize("command", TP3, ids=["vllm", "sglang", "trtllm"])
def test_check_tp3_passes_at_equality_and_fails_one_above(command, tmp_path):
    extra = tmp_path / "extra.yaml"
    extra.write_text("kv_cache_config:\n  max_tokens: 4096\n")
    command = command.format(extra=extra)
    base = kvplan.check(command, gpu="H100", gpus=3)
    assert base["passed"] and base["tp"] == 3 and base["gpus_needed"] == 3
    assert base["context"] == 1024 and base["max_fitting_context"] >= 1024
    assert kvplan.check(command, gpu="H100", gpus=3, require_context=1024)["passed"]
    assert not kvplan.check(command, gpu="H100", gpus=3, require_context=1025)["passed"]
    # 4,096 tokens of KV per rank (vLLM: 256 blocks of 16) hold exactly 4 sequences of 1,024.
    assert base["max_concurrency"] == 4
    assert kvplan.check(command, gpu="H100", gpus=3, require_concurrency=4)["passed"]
    above = kvplan.check(command, gpu="H100", gpus=3, require_concurrency=5)
    assert not above["passed"] and above["exit_code"] == 1
    # Two GPUs cannot hold tp 3.
    assert not kvplan.check(command, gpu="H100", gpus=2)["passed"]


# tp 3 where the engines refuse it: Qwen3-8B's 32 attention heads (Qwen/Qwen3-8B config.json).
# vLLM vllm/config/model.py verify_with_parallel_config; SGLang and TensorRT-LLM shard heads alike.
@pytest.mark.parametrize("command", [
    "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 3",
    "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 3",
    "trtllm-serve Qwen/Qwen3-8B --tp_size 3",
], ids=["vllm", "sglang", "trtllm"])
def test_check_tp3_refused_when_heads_do_not_divide(command):
    r = kvplan.check(command, gpu="H100", gpus=3)
    assert not r["passed"] and not r["starts"] and r["exit_code"] == 1
    assert "does not divide the model's 32 attention heads" in r["reasons"][0]
