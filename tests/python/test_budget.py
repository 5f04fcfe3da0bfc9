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
    r = kvplan.check(CMD + " --max-model-len 8192", gpu="RTX3090")
    assert r.verdict == "UNCERTAIN" and r.exit_code == 3 and r.margin_bytes > 0
    assert kvplan.check(CMD + " --max-model-len 8192", gpu="RTX3090", strict=True).exit_code == 1


def test_gpu_memory_needs_a_unit():
    r = kvplan.check(CMD + " --max-model-len 4096", gpu_memory="40GiB")
    assert r.device_memory.low_bytes == r.device_memory.high_bytes == 40 * 2**30
    with pytest.raises(kvplan.KvplanError, match="unit"):
        kvplan.check(CMD, gpu_memory="24")


def test_engine_log_makes_it_exact():
    r = kvplan.check(CMD + " --max-model-len 20000", gpu="RTX3090", engine_version="0.6.3",
                     engine_log=os.path.join(LOGS, "vllm_v0_3090_llama8b_20k.log"))
    assert r.calibrated and r.verdict == "PASS" and r.kv_cache_tokens == 1952 * 16
    r = kvplan.check(CMD + " --max-model-len 29000", gpu="RTX3090", engine_version="0.6.3",
                     engine_log=os.path.join(LOGS, "vllm_v0_3090_llama8b_29k.log"))
    assert r.verdict == "FAIL"
