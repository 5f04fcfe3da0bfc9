"""kvplan::Error -> kvplan.KvplanError (a ValueError), with the library's own message."""
import pytest

import kvplan


def test_error_is_a_value_error():
    assert issubclass(kvplan.KvplanError, ValueError)


@pytest.mark.parametrize("call, fragment", [
    (lambda: kvplan.load("no-such/model"), "no-such/model"),
    (lambda: kvplan.load("Qwen/Qwen3-0.6B").kv_bytes(kv_dtype="fp7"), "kv_dtype"),
    (lambda: kvplan.load("Qwen/Qwen3-0.6B").kv_bytes(tokens=-5), "tokens"),
    (lambda: kvplan.load("Qwen/Qwen3-0.6B").kv_bytes(tokens="12q"), "tokens"),
    (lambda: kvplan.load("Qwen/Qwen3-0.6B").kv_bytes(tokens=1.5), "tokens"),
    (lambda: kvplan.load("Qwen/Qwen3-0.6B").kv_bytes(tp=0), "tp"),
    (lambda: kvplan.load({"model_type": "llama"}), "config dict"),
    (lambda: kvplan.load('{"model_type": "llama", '), "config JSON"),
    (lambda: kvplan.load({"model_type": "no_such_arch", "num_hidden_layers": 2}), "no_such_arch"),
    (lambda: kvplan.load(42), "model"),
    (lambda: kvplan.size("Qwen/Qwen3-0.6B", tokens=2**40, batch=2**40), "overflow"),
])
def test_bad_input_raises_kvplan_error(call, fragment):
    with pytest.raises(kvplan.KvplanError) as e:
        call()
    assert fragment.lower() in str(e.value).lower()
    assert "\n" not in str(e.value)


def test_message_is_the_library_message():
    # The same wording the CLI prints (kvplan::InputError::unknown): names the bad value and suggests.
    with pytest.raises(kvplan.KvplanError, match=r'unknown kv_dtype "fp7"; did you mean'):
        kvplan.load("Qwen/Qwen3-0.6B").kv_bytes(kv_dtype="fp7")
