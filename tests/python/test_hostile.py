"""Issue 18 through Python: every bad argument raises kvplan.KvplanError (or TypeError for a
wrong type), with one line of message; nothing crashes, hangs or passes a wrong verdict."""
import pytest

import kvplan

QWEN = "Qwen/Qwen3-0.6B"


def _deep(n):
    d = 1
    for _ in range(n):
        d = [d]
    return d


def _qwen_cfg(**changes):
    base = {"model_type": "qwen3", "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8,
            "head_dim": 128, "hidden_size": 1024, "torch_dtype": "bfloat16"}
    base.update(changes)
    return base


@pytest.mark.parametrize("call, fragment", [
    # 8: a Python int beyond 64 bits is a KvplanError, not RuntimeError "Unable to cast".
    (lambda: kvplan.load(_qwen_cfg(num_attention_heads=2**70)), "an integer in [-2^63, 2^64)"),
    (lambda: kvplan.load(_qwen_cfg(num_key_value_heads=-2**70)), "an integer in [-2^63, 2^64)"),
    (lambda: kvplan.plan(QWEN, "H100", gpu_flops=2**2000), "gpu_flops"),
    (lambda: kvplan.plan(QWEN, {"name": "X", "memory_bytes": 2**80, "bandwidth_bytes_per_s": 1e12}),
     "an integer in [-2^63, 2^64)"),
    # 8: a 2-D numpy array is not a list of token counts.
    (lambda: kvplan.sweep(QWEN, __import__("numpy").array([[1024, 2048], [4096, 8192]]), [1, 2]),
     "a 1-D array or list of token counts"),
    # 1: deep nesting and self-containing dicts are one clear error.
    (lambda: kvplan.load(_qwen_cfg(x=_deep(100000))), "nested deeper than 64 levels"),
    (lambda: kvplan.plan(QWEN, {"name": "X", "memory_bytes": _deep(100)}), "nested deeper than 64 levels"),
    # 2: negative, NaN and infinite rates.
    (lambda: kvplan.plan(QWEN, "H100", gpu_flops=-1e12), "gpu_flops: expected a non-negative number"),
    (lambda: kvplan.plan(QWEN, "H100", gpu_flops=float("nan")), "a finite number"),
    (lambda: kvplan.plan(QWEN, "H100", gpu_bandwidth=float("inf")), "a finite number"),
    (lambda: kvplan.plan(QWEN, "H100", tp=-1), "tp"),
    (lambda: kvplan.check("vllm serve Qwen/Qwen3-0.6B --tensor-parallel-size 4294967296 "
                          "--pipeline-parallel-size 4294967296", gpu="H100"), "overflow"),
    (lambda: kvplan.check("vllm serve Qwen/Qwen3-0.6B", gpu="H100", gpus=0), "gpus"),
    # 5: the sweep grid limit.
    (lambda: kvplan.sweep(QWEN, list(range(1, 2001)), list(range(1, 1001))), "between 1 and 1048576 cells"),
    # 4: files that are not regular files.
    (lambda: kvplan.load("/dev/zero"), "/dev/zero"),
    # 7: a DeepSeek-V3 config without kv_lora_rank is refused, not read as MHA.
    (lambda: kvplan.load(_deepseek_without_kv_lora_rank()), "kv_lora_rank"),
])
def test_hostile_argument_raises_kvplan_error(call, fragment):
    with pytest.raises(kvplan.KvplanError) as e:
        call()
    assert fragment in str(e.value)
    assert "\n" not in str(e.value)


def _deepseek_without_kv_lora_rank():
    import json
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[2]
    cfg = json.loads((root / "model_configs" / "deepseek-ai__DeepSeek-V3.json").read_text())
    del cfg["kv_lora_rank"]
    return cfg


def test_self_containing_dict_is_an_error():
    d = _qwen_cfg()
    d["x"] = d
    with pytest.raises(kvplan.KvplanError, match="containing themselves"):
        kvplan.load(d)


def test_control_characters_are_escaped():
    with pytest.raises(kvplan.KvplanError) as e:
        kvplan.load({"model_type": "llama\nFAKE\x1b[31m", "num_hidden_layers": 2})
    assert "\n" not in str(e.value) and "\x1b" not in str(e.value)
    assert "llama\\nFAKE\\x1b[31m" in str(e.value)


@pytest.mark.parametrize("call", [
    lambda: kvplan.plan(QWEN, "H100", tp="two"),
    lambda: kvplan.sweep(QWEN, 4096.5, [1]),
])
def test_wrong_type_is_kvplan_error_or_type_error(call):
    with pytest.raises((kvplan.KvplanError, TypeError)):
        call()


def test_invalid_utf8_in_a_deployment_name_is_replaced(tmp_path):
    f = tmp_path / "u.yaml"
    f.write_bytes(b"name: bad\xffname\nengine: vllm\nmodel: Qwen/Qwen3-0.6B\ngpu: H100\n"
                  b"args:\n  - --max-model-len\n  - 4096\n")
    r = kvplan.check(file=f)
    assert r["name"] == "bad\ufffdname" and r["passed"]
    assert "bad\ufffdname" in kvplan.check(file=f, format="json")
    assert isinstance(kvplan.check(file=f, format="text"), str)  # raw bytes in the report: replaced, no UnicodeDecodeError


# Issue 29: a lone surrogate (Python str that UTF-8 cannot encode) is a KvplanError naming the
# argument, never pybind11's RuntimeError / UnicodeEncodeError, whichever entry point takes it.
@pytest.mark.parametrize("call, names", [
    (lambda: kvplan.load("\udcff"), "model"),
    (lambda: kvplan.load(QWEN, assume="\udcff"), "assume"),
    (lambda: kvplan.load({"model_type": "qwen3\udcff", "num_hidden_layers": 2}), "config dict"),
    (lambda: kvplan.plan(QWEN, "H100\udcff"), "gpu"),
    (lambda: kvplan.check("vllm serve \udcff", gpu="H100"), "command"),
])
def test_lone_surrogate_is_kvplan_error(call, names):
    with pytest.raises(kvplan.KvplanError) as e:
        call()
    assert not isinstance(e.value, RuntimeError)
    assert names in str(e.value) and "no lone surrogates" in str(e.value)
