import json

import pytest

import kvplan


def test_kv_bytes_is_int_and_total_bytes():
    m = kvplan.load("Qwen/Qwen3-0.6B")
    got = m.kv_bytes(tokens=40960, batch=1, kv_dtype="bf16")
    assert isinstance(got, int)
    assert got == 28 * 2 * 8 * 128 * 2 * 40960


def test_load_is_case_insensitive_and_accepts_token_strings():
    m = kvplan.load("qwen/qwen3-0.6b")
    assert m.name == "Qwen/Qwen3-0.6B"
    assert m.kv_bytes(tokens="32k") == 28 * 2 * 8 * 128 * 2 * 32768


def test_layers_have_kinds_and_dimensions():
    m = kvplan.load("openai/gpt-oss-20b")
    assert len(m.layers) == len(m) == 24
    kinds = [l.kind for l in m.layers]
    assert kinds.count("sliding_attention") == 12 and kinds.count("full_attention") == 12
    sliding = next(l for l in m.layers if l.kind == "sliding_attention")
    assert sliding.window == 128 and sliding.kv_heads == 8
    assert sliding.tokens_held(100000) == 128
    b = sliding.bytes(tokens=100000, kv_dtype="bf16")
    assert b["k_bytes"] == 128 * 8 * 64 * 2 and b["total_bytes"] == 2 * 128 * 8 * 64 * 2
    with pytest.raises(AttributeError):
        sliding.no_such_field


def test_hybrid_state_layer():
    m = kvplan.load("Qwen/Qwen3-Next-80B-A3B-Thinking")
    lin = next(l for l in m.layers if l.kind == "linear_attention")
    b = lin.bytes(tokens=1000, kv_dtype="bf16")
    assert b["tokens_held"] == 0
    # conv state: (kernel-1) x (2 x 16 x 128 + 32 x 128) in bf16; ssm: 32 x 128 x 128 in bf16
    assert b["conv_bytes"] == 3 * (2 * 16 * 128 + 32 * 128) * 2
    assert b["ssm_bytes"] == 32 * 128 * 128 * 2


def test_load_from_dict_json_string_and_path(tmp_path):
    cfg = {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
           "num_key_value_heads": 2, "torch_dtype": "float16", "vocab_size": 100, "intermediate_size": 128,
           "max_position_embeddings": 128}
    expected = 2 * 2 * 2 * 16 * 2 * 10  # layers x (K,V) x kv_heads x head_dim x fp16 x tokens
    assert kvplan.load(cfg).kv_bytes(tokens=10) == expected
    assert kvplan.load(json.dumps(cfg)).kv_bytes(tokens=10) == expected
    p = tmp_path / "config.json"
    p.write_text(json.dumps(cfg))
    assert kvplan.load(p).kv_bytes(tokens=10) == expected
    assert kvplan.load(str(tmp_path)).kv_bytes(tokens=10) == expected


def test_parameters_counts():
    p = kvplan.load("openai-community/gpt2").parameters()
    # gpt2: wte 50257 x 768 + wpe 1024 x 768, tied head; 124,439,808 parameters in total
    assert p["embedding"] == 50257 * 768 + 1024 * 768
    assert p["lm_head"] == 0
    assert p["total"] == 124439808
    assert p.total == p["total"]


def test_size_matches_cli_json_keys():
    s = kvplan.size("Qwen/Qwen3-0.6B", tokens=512, kv_dtype="bf16")
    for key in ("model", "tokens", "batch", "k_dtype", "v_dtype", "total_bytes", "kv_bytes", "state_bytes",
                "bytes_per_token", "layers"):
        assert key in s
    assert s.layers[0].keys() >= {"index", "kind", "bytes", "tokens_held"}
    assert sum(l["bytes"] for l in s.layers) == s.total_bytes == 28 * 2 * 8 * 128 * 2 * 512


def test_models_and_dtypes_catalogs():
    assert "Qwen/Qwen3-0.6B" in kvplan.models()
    q8 = {d["name"]: d for d in kvplan.dtypes()}["q8_0"]
    assert (q8["block_values"], q8["block_bytes"]) == (32, 34)
    assert kvplan.parse_tokens("128k") == 131072
    assert kvplan.parse_bytes("80GB") == 80 * 10**9


def test_generation_loop_seed_s13():
    # A prompt of 8 tokens, then 16 steps of one: 23 tokens computed with the cache, sum(8..23) = 248
    # without; the cache after step n holds 8 + n tokens of 114,688 bytes.
    rows = kvplan.generation("Qwen/Qwen3-0.6B", prompt=8, steps=16, kv_dtype="bf16")
    assert len(rows) == 16
    assert [r.tokens_computed_with_cache for r in rows[:3]] == [8, 1, 1]
    assert rows[-1].cumulative_with_cache == 23
    assert rows[-1].cumulative_without_cache == 248
    assert all(r.cache_bytes == 114688 * (8 + r.step) for r in rows)
    with pytest.raises(kvplan.KvplanError, match="steps"):
        kvplan.generation("Qwen/Qwen3-0.6B", steps=0)


def test_version_comes_from_the_version_file():
    import pathlib
    version = (pathlib.Path(__file__).resolve().parents[2] / "VERSION").read_text().strip()
    assert kvplan.__version__ == version
