"""Engine profiles, check and the reference runtime through Python (values derived by hand)."""
import pytest

import kvplan

LLAMA8B = "meta-llama/Llama-3.1-8B"
PAGE = 16 * 2 * 8 * 128 * 2  # one 16-token vLLM block of one Llama-3.1-8B layer, bf16


class TestEngines:
    def test_vllm_blocks_tokens_concurrency(self):
        v = kvplan.engine("vllm", LLAMA8B, max_model_len=32768, available_kv_bytes="20GiB")
        assert v.block_size == 16
        assert v.num_blocks == 20 * 2**30 // (32 * PAGE) == 10240
        assert v.kv_cache_tokens == 10240 * 16
        assert v.max_concurrency == pytest.approx(10240 * 16 / 32768)
        assert any("GPU KV cache size: 163,840 tokens" in line for line in v.log_lines)

    def test_llamacpp_cells_and_bytes(self):
        r = kvplan.engine("llama.cpp", LLAMA8B, ctx_size=4096, parallel=1)
        assert r.cells == 4096
        assert r.k_bytes == r.v_bytes == 32 * 4096 * 8 * 128 * 2
        assert r.state_bytes == 0
        q = kvplan.engine("llama.cpp", LLAMA8B, ctx_size=4096, parallel=1, cache_type_k="q8_0", cache_type_v="q8_0")
        assert q.k_bytes == 32 * 4096 * 8 * (128 // 32) * 34

    def test_text_report_and_options(self):
        assert "GPU KV cache size" in kvplan.engine_text("vllm", LLAMA8B, max_model_len=32768,
                                                         available_kv_bytes="20GiB")
        assert "max_model_len" in kvplan.engine_options("vllm")
        assert "ctx_size" in kvplan.engine_options("llama.cpp")

    def test_engine_errors(self):
        with pytest.raises(kvplan.KvplanError, match="max_model_len"):
            kvplan.engine("vllm", LLAMA8B, max_model_lenn=4096)
        with pytest.raises(kvplan.KvplanError, match="nosuchengine"):
            kvplan.engine("nosuchengine", LLAMA8B)
        with pytest.raises(kvplan.KvplanError, match="kv_unified"):
            kvplan.engine("llama.cpp", LLAMA8B, kv_unified="yes")


@pytest.mark.skipif(not hasattr(kvplan, "measure"), reason="reference runtime not built")
def test_measure_matches_formula():
    r = kvplan.measure("Qwen/Qwen3-0.6B", tokens=64, kv_dtype="bf16")
    assert r["formula_total_bytes"] == 28 * 2 * 8 * 128 * 2 * 64
    assert r["measured_total_bytes"] == r["formula_total_bytes"]
    with pytest.raises(kvplan.KvplanError):
        kvplan.measure("Qwen/Qwen3-0.6B", tokens=64, kv_dtype="fp7")


class TestCheck:
    CMD = "vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768"

    def test_check_command_passes_and_agrees_with_engine(self):
        r = kvplan.check(self.CMD, gpu="H100", gpus=1)
        assert r.passed is True and r.starts is True
        assert r.engine == "vllm" and r.context == 32768
        # The verdict's token capacity is the vLLM profile's for the same KV budget.
        v = kvplan.engine("vllm", LLAMA8B, max_model_len=32768, available_kv_bytes=r.per_gpu.kv_budget_bytes)
        assert r.kv_cache_tokens == v.kv_cache_tokens == r.per_gpu.kv_budget_bytes // (32 * PAGE) * 16

    def test_failed_requirement_is_a_result(self):
        r = kvplan.check(self.CMD.split(), gpu="H100", gpus=1, require_concurrency=100000)
        assert r.passed is False and r.reasons
        assert "<testsuite" in kvplan.check(self.CMD, gpu="H100", gpus=1, require_concurrency=100000,
                                            format="junit")

    def test_check_deployment_text_and_errors(self):
        text = "engine: vllm\nmodel: meta-llama/Llama-3.1-8B\ngpu: H100\ngpus: 1\nargs:\n  - --max-model-len\n  - '8192'\n"
        assert kvplan.check(deployment=text).passed is True
        with pytest.raises(kvplan.KvplanError):
            kvplan.check()
        with pytest.raises(kvplan.KvplanError):
            kvplan.check(self.CMD, gpu="NoSuchGPU", gpus=1)
