#!/usr/bin/env python3
"""`kvplan measure`: the reference runtime's measured bytes beside the formula.

Run as: python3 test_measure.py <path-to-kvplan>. Exits non-zero on any failure and prints
'N passed, M failed'. Expected values are derived here from the model dimensions.
"""
import json
from _harness import check, run as harness_run, finish  # noqa: E402


def run(*args):
    p = harness_run("measure", *args)
    return p.returncode, p.stdout, p.stderr


# Seed S2: Qwen3-0.6B, 512 tokens. K of layer 0 is [1, 8, 512, 128]; K and V of 28 layers
# hold 28 * 2 * 8 * 512 * 128 = 29,360,128 numbers; bf16 = 2 bytes each.
rc, out, err = run("Qwen/Qwen3-0.6B", "--tokens", "512", "--scaled", "--json")
check("s2 exit", rc == 0, err)
j = json.loads(out)
check("s2 keys", all(k in j for k in ("layers", "formula_total_bytes", "measured_total_bytes")), list(j))
check("s2 layer count", len(j["layers"]) == 28)
l0 = j["layers"][0]
check("s2 layer keys", all(k in l0 for k in ("index", "kind", "formula_bytes", "measured_bytes", "shapes")), list(l0))
check("s2 K shape", l0["shapes"]["k"] == [1, 8, 512, 128], l0["shapes"])
check("s2 numbers", j["kv_numbers"] == 28 * 2 * 8 * 512 * 128 == 29360128, j["kv_numbers"])
check("s2 bytes", j["measured_total_bytes"] == 29360128 * 2 == j["formula_total_bytes"], j["measured_total_bytes"])
check("s2 per layer", all(l["formula_bytes"] == l["measured_bytes"] == 2 * 8 * 512 * 128 * 2 for l in j["layers"]))

# q8_0: each 128-number head row is 4 blocks of 34 bytes.
rc, out, err = run("Qwen/Qwen3-0.6B", "--tokens", "100", "--kv-dtype", "q8_0", "--scaled", "--json")
j = json.loads(out)
check("q8_0 exit", rc == 0, err)
check("q8_0 bytes", j["measured_total_bytes"] == 28 * 2 * 8 * 100 * 4 * 34 == j["formula_total_bytes"],
      j["measured_total_bytes"])
check("q8_0 element", j["layers"][0]["tensors"][0]["element_type"] == "block_q8_0")

# Gemma 3 1B: sliding layers hold a 512-slot ring (its sliding_window) at 2000 tokens.
rc, out, err = run("google/gemma-3-1b-it", "--tokens", "2000", "--scaled", "--json")
j = json.loads(out)
check("gemma3 exit", rc == 0, err)
kinds = {l["kind"] for l in j["layers"]}
check("gemma3 kinds", kinds == {"sliding_attention", "full_attention"}, kinds)
for l in j["layers"]:
    slots = l["shapes"]["k"][2]
    check("gemma3 slots", slots == (512 if l["kind"] == "sliding_attention" else 2000), (l["index"], slots))
check("gemma3 total", j["formula_total_bytes"] == j["measured_total_bytes"])

# Mamba: no token cache, conv (kernel-1, d_inner) and SSM (d_inner, 1, d_state) state only.
rc, out, err = run("ArthurZ/mamba-2.8b", "--tokens", "64", "--scaled", "--json")
j = json.loads(out)
check("mamba exit", rc == 0, err)
s = j["layers"][0]["shapes"]
check("mamba shapes", s == {"conv_state": [1, 3, 5120], "ssm_state": [1, 5120, 1, 16]}, s)
check("mamba total", j["formula_total_bytes"] == j["measured_total_bytes"] == 64 * (3 * 5120 + 5120 * 16) * 2,
      j["measured_total_bytes"])

# Text output: a table with the totals.
rc, out, err = run("Qwen/Qwen3-0.6B", "--tokens", "16", "--scaled")
check("text exit", rc == 0, err)
check("text equal", "equal, every layer" in out, out[-300:])

# Full-size mode for a small model (the default without --scaled).
rc, out, err = run("Qwen/Qwen3-0.6B", "--tokens", "8", "--run", "2", "--json")
j = json.loads(out) if rc == 0 else {}
check("full size exit", rc == 0, err)
check("full size dims", j.get("run_dims", {}).get("hidden_size") == 1024 and j.get("scaled") is False, j.get("run_dims"))

# Bad input: exit 2 and a one-line message naming the flag or field.
rc, out, err = run("Qwen/Qwen3-0.6B", "--kv-dtype", "q9_0", "--scaled")
check("bad dtype exit", rc == 2, rc)
check("bad dtype message", "--kv-dtype" in err and err.count("\n") == 1, err)
check("bad dtype stdout", out == "", out)
rc, out, err = run("deepseek-ai/DeepSeek-V3", "--tokens", "8")
check("too big for full size", rc == 2 and "--scaled" in err, (rc, err))
rc, out, err = run("no/such-model", "--scaled")
check("unknown model", rc == 2 and err.count("\n") == 1, (rc, err))

finish()
