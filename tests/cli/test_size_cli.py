#!/usr/bin/env python3
"""CLI contract for `kvplan size`, `models` and `inspect` (../shared/spec/interface.md).
Usage: test_size_cli.py PATH_TO_KVPLAN. Prints 'N passed, N failed'."""
import glob
import json
import os
from _harness import SRC, check, run as harness_run, finish  # noqa: E402


def run(*args):
    p = harness_run(*args)
    return p.returncode, p.stdout, p.stderr


# S3 through the CLI: exact integer, JSON only on stdout.
rc, out, err = run("size", "Qwen/Qwen3-0.6B", "--tokens", "40960", "--kv-dtype", "bf16", "--json")
j = json.loads(out)
check("S3 total_bytes", rc == 0 and j["total_bytes"] == 28 * 2 * 8 * 128 * 2 * 40960, out[:200])
check("keys", all(k in j for k in ["model", "tokens", "batch", "k_dtype", "v_dtype", "total_bytes", "kv_bytes",
                                   "state_bytes", "bytes_per_token", "layers"]))
check("sum", j["total_bytes"] == j["kv_bytes"] + j["state_bytes"])
check("layers", len(j["layers"]) == 28 and all({"index", "kind", "bytes", "tokens_held"} <= set(l) for l in j["layers"]))
check("per layer sum", sum(l["bytes"] for l in j["layers"]) == j["total_bytes"])
check("stderr empty", err == "", err)

# Token suffixes and batch.
rc, out, _ = run("size", "meta-llama/Llama-3.1-70B", "--tokens", "128k", "--kv-dtype", "fp16", "--json")
check("S4 128k", json.loads(out)["total_bytes"] == 2 * 80 * 8 * 128 * 2 * 131072)
rc, out, _ = run("size", "meta-llama/Llama-3.1-8B", "--tokens", "8k", "--batch", "4", "--json")
check("batch", json.loads(out)["total_bytes"] == 32 * 2 * 8 * 128 * 2 * 8192 * 4 and json.loads(out)["batch"] == 4)
# Split K/V dtypes (llama.cpp -ctk q8_0 -ctv f16: 784 MiB at 8192).
rc, out, _ = run("size", "meta-llama/Llama-3.1-8B", "--tokens", "8192", "--k-dtype", "q8_0", "--v-dtype", "fp16", "--json")
j = json.loads(out)
check("k/v dtypes", j["total_bytes"] == 784 * 2**20 and j["k_dtype"] == "q8_0" and j["v_dtype"] == "fp16", out[:300])
# Hybrid: state separate from kv.
rc, out, _ = run("size", "Qwen/Qwen3-Next-80B-A3B-Thinking", "--tokens", "1000", "--json")
j = json.loads(out)
check("hybrid state", j["state_bytes"] == 36 * (3 * 8192 * 2 + 32 * 128 * 128 * 2) and
      j["kv_bytes"] == 12 * 2 * 2 * 256 * 2 * 1000, out[:300])
kinds = {l["kind"] for l in j["layers"]}
check("kinds", kinds == {"linear_attention", "full_attention"}, str(kinds))
# Path and directory inputs.
path = os.path.join(SRC, "model_configs", "Qwen__Qwen3-0.6B.json")
rc, out, _ = run("size", path, "--tokens", "1", "--json")
check("path", rc == 0 and json.loads(out)["bytes_per_token"] == 114688)
# Text output shows both units.
rc, out, _ = run("size", "meta-llama/Llama-3.1-70B", "--tokens", "128k", "--kv-dtype", "fp16")
check("text units", "42.95 GB (40.00 GiB)" in out and "42,949,672,960 B" in out, out)

# models / inspect
rc, out, _ = run("models", "--json")
ids = [m["id"] for m in json.loads(out)["models"]]
check("models", rc == 0 and len(ids) == len(glob.glob(os.path.join(SRC, "model_configs", "*.json"))) and "Qwen/Qwen3-0.6B" in ids)
rc, out, _ = run("inspect", "google/gemma-3-1b-it")
check("inspect text", rc == 0 and "window 512" in out and "full_attention" in out, out[:300])
rc, out, _ = run("inspect", "google/gemma-3-1b-it", "--json")
check("inspect json", json.loads(out)["layer_counts"] == {"sliding_attention": 22, "full_attention": 4})

# Errors: exit 2, one line on stderr naming the thing, nothing on stdout.
for args, frag in [
    (["size", "Qwen/Qwen3-0.7B"], "did you mean"),
    (["size", "Qwen/Qwen3-0.6B", "--kv-dtype", "fp9"], "--kv-dtype"),
    (["size", "Qwen/Qwen3-0.6B", "--tokens", "-5"], "--tokens"),
    (["size", "Qwen/Qwen3-0.6B", "--tokens", "12q", "--json"], "--tokens"),
    (["size", "Qwen/Qwen3-0.6B", "--batch", "0"], "batch"),
    (["size", "Qwen/Qwen3-0.6B", "--bogus-flag"], "bogus"),
    (["size"], "MODEL"),
    (["frobnicate"], "frobnicate"),
    (["size", "meta-llama/Llama-3.1-70B", "--tokens", "1099511627776", "--batch", "1048576"], "overflow"),
]:
    rc, out, err = run(*args)
    check(f"error {args}", rc == 2 and out == "" and err.count("\n") == 1 and frag in err, f"rc={rc} out={out!r} err={err!r}")

# One spelling per concept: size reads plan's --context, plan reads size's --tokens (both the
# tokens of one sequence: 8 KV heads x 128 x 2 (K, V) x 2 bytes x 32 layers = 128 KiB a token).
rc, out, err = run("size", "meta-llama/Llama-3.1-8B", "--context", "8k", "--json")
check("size --context", rc == 0 and json.loads(out)["total_bytes"] == 32 * 2 * 8 * 128 * 2 * 8192, err)
rc, out, err = run("plan", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--tokens", "8k", "--json")
check("plan --tokens", rc == 0 and json.loads(out)["context"] == 8192, (err, out[:300]))
rc, out, err = run("size", "meta-llama/Llama-3.1-8B", "--context", "8k", "--tokens", "4k")
check("both spellings refused", rc == 2 and out == "" and "--tokens" in err, err)

# Every malformed config: exit 2, one line naming the file.
bad = sorted(glob.glob(os.path.join(SRC, "tests", "bad_configs", "*.json")))
bad = [b for b in bad if not b.endswith("expected.json")]
for b in bad:
    rc, out, err = run("size", b, "--json")
    check(f"bad {os.path.basename(b)}", rc == 2 and out == "" and err.count("\n") == 1 and os.path.basename(b) in err,
          f"rc={rc} err={err!r}")

finish()
