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
