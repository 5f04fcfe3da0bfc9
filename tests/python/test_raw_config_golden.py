"""A KV-size golden for every bundled model, derived from its raw config.json by a minimal reader
written here (issue 18 (c)): plain dict lookups of the fields each family's transformers config
class reads, no kvplan code. kvplan's bytes per token (bf16 cache, one sequence, one token, so
sliding and chunked windows do not matter) must equal it; a parsing bug that makes kvplan's
runtime and its formula agree with each other still disagrees with this reader."""
import json
import pathlib

import pytest

import kvplan

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "model_configs").glob("*.json"))


def attention_layers(t, mt, n):
    """Indices of the layers that keep a KV cache, from the config's own layer description."""
    if mt == "mamba":
        return []
    if mt == "jamba":  # JambaConfig: attention every attn_layer_period, from attn_layer_offset
        return [i for i in range(n) if i % t["attn_layer_period"] == t["attn_layer_offset"]]
    if mt == "nemotron_h" and "layers_block_type" in t:  # transformers-5 names; legacy "attention"
        return [i for i, b in enumerate(t["layers_block_type"]) if b in ("attention", "full_attention")]
    if mt == "nemotron_h":  # '*' marks an attention layer in hybrid_override_pattern
        return [i for i, c in enumerate(t["hybrid_override_pattern"]) if c == "*"]
    if mt == "lfm2":
        return list(t["full_attn_idxs"])
    if mt.startswith("minimax") and "attn_type_list" in t:  # 1 = softmax attention, 0 = lightning (linear)
        return [i for i, a in enumerate(t["attn_type_list"]) if a == 1]
    if "layer_types" in t:
        return [i for i, lt in enumerate(t["layer_types"]) if lt in ("full_attention", "sliding_attention")]
    if "full_attention_interval" in t:  # Qwen3-Next: every interval-th layer is full attention
        return [i for i in range(n) if (i + 1) % t["full_attention_interval"] == 0]
    return list(range(n))


def kv_bytes_per_token(cfg, elem=2):
    t = cfg.get("text_config") or cfg
    mt = t.get("model_type") or cfg["model_type"]
    n = t.get("num_hidden_layers", t.get("n_layer"))
    heads = t.get("num_attention_heads", t.get("n_head"))
    hidden = t.get("hidden_size", t.get("n_embd"))
    if mt.startswith("deepseek") or mt == "kimi_k2":  # MLA (kimi_k2 is DeepseekV3ForCausalLM): one latent
        # (kv_lora_rank) + the shared RoPE key per token
        row = t["kv_lora_rank"] + t["qk_rope_head_dim"] + t.get("index_head_dim", 0)
        return n * row * elem
    if mt == "glm_moe_dsa":  # MLA + DSA indexer key; a "shared" indexer layer reuses an earlier top-k
        kinds = t.get("indexer_types") or ["full"] * n
        return sum((t["kv_lora_rank"] + t["qk_rope_head_dim"] + (t["index_head_dim"] if k == "full" else 0)) * elem
                   for k in kinds)
    if mt == "nemotron-nas":  # DeciLM block_configs: heads / n_heads_in_group KV heads, no_op = no attention
        hd = hidden // heads
        return sum(2 * (heads // b["attention"]["n_heads_in_group"]) * hd * elem
                   for b in t["block_configs"] if not b["attention"]["no_op"])
    if mt == "mimo_v2_flash":  # hybrid_layer_pattern: 1 = sliding (swa_* shapes), 0 = full attention
        total = 0
        for p in t["hybrid_layer_pattern"]:
            if p:
                total += t["swa_num_key_value_heads"] * (t["swa_head_dim"] + t["swa_v_head_dim"]) * elem
            else:
                total += t["num_key_value_heads"] * (t["head_dim"] + t["v_head_dim"]) * elem
        return total
    layers = attention_layers(t, mt, n)
    if not layers:
        return 0
    kv = t.get("num_key_value_heads") or t.get("n_head_kv") or heads
    if mt == "gpt_bigcode":
        kv = 1 if t.get("multi_query") else heads
    if mt in ("falcon", "RefinedWebModel"):  # new_decoder_architecture: num_kv_heads; else multi_query -> 1
        kv = t["num_kv_heads"] if t.get("new_decoder_architecture") else (1 if t.get("multi_query") else heads)
    hd = t.get("head_dim") or t.get("attention_head_dim") or hidden // heads
    total = 0
    for i in layers:
        if mt.startswith("gemma4") and t["layer_types"][i] == "full_attention":
            total += 2 * t["num_global_key_value_heads"] * t["global_head_dim"] * elem
        else:
            total += 2 * kv * hd * elem
    return total


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_kv_bytes_per_token_from_raw_config(path):
    cfg = json.loads(path.read_text())
    spec = kvplan.load(str(path))
    got = kvplan.size(spec, tokens=1, kv_dtype="bf16")["kv_bytes"]
    assert got == kv_bytes_per_token(cfg)


def test_every_bundled_model_is_covered():
    assert len(CONFIGS) == len(kvplan.models())
