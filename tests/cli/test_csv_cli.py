#!/usr/bin/python3
"""`--csv` on the tabular verbs (size, inspect, compare; sweep has had it): a header row, one row
per layer (or model), exact byte counts that add up to the same verb's --json, fields with commas
quoted so Python's csv module reads them back, and --csv refused next to --json.
Run: /usr/bin/python3 test_csv_cli.py <kvplan>"""
import csv
import io

from _harness import check, finish, js, run  # noqa: E402


def rows(*args):
    r = run(*args, "--csv")
    check(f"{' '.join(args)} --csv exits 0", r.returncode == 0, r.stderr)
    return list(csv.DictReader(io.StringIO(r.stdout)))


# gemma-2-9b: 42 layers alternating sliding (window 4096) and full attention, 8 KV heads x 256,
# bf16. Two sequences of 32,768 tokens: a sliding layer holds 4,096 tokens, a full one 32,768;
# K (and V) = 2 sequences x tokens x 8 x 256 x 2 B.
size = rows("size", "google/gemma-2-9b", "-n", "32k", "-b", "2")
check("size: one row per layer", len(size) == 42, len(size))
check("size: layer 0 is sliding and holds the window",
      size[0]["kind"] == "sliding_attention" and size[0]["tokens_held"] == "4096", size[0])
check("size: layer 0 K bytes by hand", int(size[0]["k_bytes"]) == 2 * 4096 * 8 * 256 * 2, size[0])
check("size: layer 1 holds the whole context",
      size[1]["kind"] == "full_attention" and int(size[1]["bytes"]) == 2 * 2 * 32768 * 8 * 256 * 2, size[1])
total = js("size", "google/gemma-2-9b", "-n", "32k", "-b", "2")["total_bytes"]
check("size: the rows add up to --json's total", sum(int(r["bytes"]) for r in size) == total,
      (sum(int(r["bytes"]) for r in size), total))
check("size: k + v + state = bytes on every row",
      all(int(r["k_bytes"]) + int(r["v_bytes"]) + int(r["state_bytes"]) == int(r["bytes"]) for r in size))

# Jamba v0.1: Mamba-1 layers, d_inner 8192, d_state 16, d_conv 4, bf16: (3 x 8192 + 8192 x 16) x 2 B.
jamba = rows("inspect", "ai21labs/Jamba-v0.1")
check("inspect: the shape with commas reads back as one field",
      jamba[0]["shape"] == "mamba1 d_inner 8192, d_state 16, conv 4", jamba[0])
check("inspect: Mamba-1 state bytes by hand", int(jamba[0]["state_bytes"]) == (3 * 8192 + 8192 * 16) * 2, jamba[0])
jamba_size = rows("size", "ai21labs/Jamba-v0.1", "-n", "1k")
check("size: a Mamba layer holds no tokens, only its state",
      jamba_size[0]["tokens_held"] == "0" and int(jamba_size[0]["bytes"]) == (3 * 8192 + 8192 * 16) * 2, jamba_size[0])

# Qwen3-8B: 36 layers, 8 KV heads x 128, bf16: 36 x 2 x 8 x 128 x 2 = 147,456 B per token.
cmp = rows("compare", "Qwen/Qwen3-8B", "google/gemma-2-9b", "-n", "128k")
check("compare: one row per model", [r["model"] for r in cmp] == ["Qwen/Qwen3-8B", "google/gemma-2-9b"], cmp)
check("compare: Qwen3-8B bytes per token by hand", int(cmp[0]["bytes_per_token"]) == 36 * 2 * 8 * 128 * 2, cmp[0])
check("compare: cache = bytes per token x tokens for full attention",
      int(cmp[0]["cache_bytes"]) == 147456 * 131072 and cmp[0]["tokens"] == "131072", cmp[0])
doc = js("compare", "Qwen/Qwen3-8B", "google/gemma-2-9b", "-n", "128k")["models"]
check("compare: the CSV's weights are --json's", [int(r["weights_bytes"]) for r in cmp] == [m["weights_bytes"] for m in doc],
      (cmp, doc))
check("compare: kinds with a '+' stay one field", cmp[1]["kinds"] == "21 sliding_attention + 21 full_attention", cmp[1])

for verb in (["size", "Qwen/Qwen3-8B"], ["inspect", "Qwen/Qwen3-8B"], ["compare", "Qwen/Qwen3-8B"]):
    r = run(*verb, "--csv", "--json")
    check(f"{verb[0]}: --csv with --json is refused (exit 2, one line)",
          r.returncode == 2 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1, (r.returncode, r.stderr))

finish()
