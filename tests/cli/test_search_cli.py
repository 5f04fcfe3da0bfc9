#!/usr/bin/python3
"""kvplan search's CLI contract: the JSON keys scripts use (pareto, chosen; gpu, gpus, tp, pp, dp,
replicas, launch_command, cost_per_hour, goodput, memory), every listed deployment's memory equal
to what `kvplan check` prints for its launch command, the chosen command passing `kvplan check`
(exit 0), costs only from --prices, and --shard K/N runs merging to the unsharded output byte for byte.
Run: /usr/bin/python3 test_search_cli.py <kvplan>"""
import csv
import io
import json
import os
import shlex
import tempfile

from _harness import SRC, check, finish, run  # noqa: E402

PRICES = os.path.join(SRC, "examples", "prices", "lambda-on-demand-2026-09-20.csv")
BASE = ["search", "Qwen/Qwen3-0.6B", "--gpu", "H100,A100", "--workload", "requests=120 prompt=fixed:512 output=fixed:32 seed=3",
        "--slo-ttft", "2", "--slo-tpot", "0.05", "--target-rate", "8", "--max-tp", "2", "--max-replicas", "2",
        "--max-model-len", "4096"]

p = run(*BASE, "--json")
check("search --json exits 0", p.returncode == 0, p.stderr)
doc = json.loads(p.stdout)
check("16 candidates (2 GPUs x tp 1, 2 x auto, fp8 x 1, 2 replicas)", doc["candidates_total"] == 16, doc["candidates_total"])
check("a chosen deployment", doc["chosen"] is not None)
check("without --prices cost is null", all(e["cost_per_hour"] is None for e in doc["pareto"]))
check("without --prices the cost axis is the GPU count", doc["cost_axis"] == "gpus")
check("the chosen one is the first of the Pareto set", doc["chosen"] == doc["pareto"][0])
for e in doc["pareto"]:
    for k in ("gpu", "gpus", "tp", "pp", "dp", "replicas", "launch_command", "cost_per_hour", "goodput", "memory"):
        check(f"pareto entry {e['index']} has {k}", k in e)

# Every listed deployment's memory is kvplan check's for its launch command (the binary, as a user runs it).
for e in doc["pareto"] + [c for c in doc["candidates"] if c["status"] == "pruned"][:2]:
    c = run("check", "--gpu", e["gpu"], "--format", "json", e["launch_command"])
    r = json.loads(c.stdout)
    m = e["memory"]
    check(f"{e['index']}: verdict is check's", m["verdict"] == r["verdict"], (m["verdict"], r["verdict"]))
    check(f"{e['index']}: per-GPU figures are check's", m["per_gpu"] == r["per_gpu"], (m["per_gpu"], r["per_gpu"]))
    check(f"{e['index']}: KV tokens are check's", m["kv_cache_tokens"] == r["kv_cache_tokens"])
    check(f"{e['index']}: context is check's", m["context"] == r["context"])
c = run("check", "--gpu", doc["chosen"]["gpu"], doc["chosen"]["launch_command"])
check("the chosen launch command passes kvplan check (exit 0)", c.returncode == 0, c.stdout + c.stderr)

# Prices: from the CSV only; the cost is the price per GPU-hour times the fleet's GPUs.
p = run(*BASE, "--prices", PRICES, "--json")
priced = json.loads(p.stdout)
rates = {"H100-SXM-80GB": 4.29, "A100-80GB": 2.79}  # examples/prices/lambda-on-demand-2026-09-20.csv
check("cost axis usd_per_hour", priced["cost_axis"] == "usd_per_hour")
for e in priced["pareto"]:
    check(f"{e['index']}: cost = price x GPUs", abs(e["cost_per_hour"] - rates[e["gpu"]] * e["gpus"]) < 1e-9, e["cost_per_hour"])
check("chosen is the cheapest kept", priced["chosen"]["cost_per_hour"] ==
      min(c["cost_per_hour"] for c in priced["candidates"] if c["status"] == "kept"))
# --csv: one row per candidate, the JSON's figures, the Pareto set and the chosen one flagged.
p = run(*BASE, "--prices", PRICES, "--csv")
rows = list(csv.DictReader(io.StringIO(p.stdout)))
check("--csv: one row per candidate", p.returncode == 0 and len(rows) == priced["candidates_total"], len(rows))
by_index = {c["index"]: c for c in priced["candidates"]}
for r in rows:
    c = by_index[int(r["index"])]
    same = (r["gpu"] == c["gpu"] and int(r["replicas"]) == c["replicas"] and r["status"] == c["status"]
            and float(r["cost_per_hour"]) == c["cost_per_hour"] and r["launch_command"] == c["launch_command"]
            and int(r["kv_cache_tokens"]) == c["memory"]["kv_cache_tokens"]
            and (r["goodput"] == "" if "goodput" not in c else float(r["goodput"]) == c["goodput"]))
    check(f"--csv row {r['index']} is the JSON's candidate", same, r)
check("--csv flags the chosen one", [int(r["index"]) for r in rows if r["chosen"] == "true"] == [priced["chosen"]["index"]])
check("--csv flags the Pareto set", sorted(int(r["index"]) for r in rows if r["pareto"] == "true") ==
      sorted(e["index"] for e in priced["pareto"]))
p = run(*BASE[:3], "H100,L40S", *BASE[4:], "--prices", PRICES, "--json")
check("a GPU without a price row is an error naming it", p.returncode == 2 and "L40S-48GB" in p.stderr, p.stderr)

# --shard K/N and --merge: byte for byte the unsharded output.
with tempfile.TemporaryDirectory() as d:
    files = []
    for k in (1, 2, 3):
        s = run(*BASE, "--shard", f"{k}/3", "--json")
        check(f"shard {k}/3 exits 0", s.returncode == 0, s.stderr)
        f = os.path.join(d, f"s{k}.json")
        open(f, "w").write(s.stdout)
        files.append(f)
    m = run("search", "--merge", files[2], files[0], files[1], "--json")
    check("merge exits 0", m.returncode == 0, m.stderr)
    whole = run(*BASE, "--json")
    check("merged shards == the unsharded run, byte for byte", m.stdout == whole.stdout)
    m = run("search", "--merge", files[0], files[1], "--json")
    check("a missing shard is an error", m.returncode == 2 and "exactly once" in m.stderr, m.stderr)
    m = run("search", "--merge", *files, "--shard", "1/2", "--json")
    check("a study option with --merge is an error naming it", m.returncode == 2 and "--shard" in m.stderr, m.stderr)

p = run(*BASE, "--shard", "4/3")
check("--shard 4/3 is bad usage", p.returncode == 2 and "--shard" in p.stderr, p.stderr)
p = run(*BASE)
check("text output names the chosen launch command", p.returncode == 0 and doc["chosen"]["launch_command"] in p.stdout, p.stdout)
# docs/search.md: every `$ kvplan search ...` console block prints what the binary prints (run from the
# source tree, where the example's price file is), and its chosen command passes kvplan check.
lines = open(os.path.join(SRC, "docs", "search.md"), encoding="utf-8").read().split("\n")
examples = 0
for i, line in enumerate(lines):
    if line == "```console" and lines[i + 1].startswith("$ kvplan search "):
        end = lines.index("```", i + 1)
        want = "\n".join(lines[i + 2:end]) + "\n"
        got = run(*shlex.split(lines[i + 1][len("$ kvplan "):]), cwd=SRC)
        examples += 1
        check(f"docs/search.md:{i + 2} example output is the binary's", got.returncode == 0 and got.stdout == want,
              got.stderr + got.stdout)
        out = got.stdout.split("\n")
        at = [k for k, x in enumerate(out) if x.startswith("chosen: ")]
        if check(f"docs/search.md:{i + 2} names a chosen deployment", len(at) == 1, got.stdout):
            gpu = out[at[0]].split(" x ", 1)[1].split(" ", 1)[0]
            c = run("check", "--gpu", gpu, out[at[0] + 1].strip())
            check(f"docs/search.md:{i + 2} chosen command passes kvplan check on {gpu}", c.returncode == 0, c.stdout + c.stderr)
check("docs/search.md has its worked examples", examples == 3, examples)
for line in lines:
    if line.startswith("kvplan check --gpu H100 -- vllm serve"):
        c = run(*shlex.split(line[len("kvplan "):]))
        check("docs/search.md's chosen command passes kvplan check", c.returncode == 0, c.stdout + c.stderr)
# --router: the study and every simulated candidate name it; least-outstanding at 8 req/s of short
# requests on 2 replicas leaves neither idle; a router not known is an error naming --router.
p = run(*BASE, "--router", "least-outstanding", "--json")
check("search --router least-outstanding exits 0", p.returncode == 0, p.stderr)
lo = json.loads(p.stdout)
check("the study names its router", lo["study"]["router"] == "least-outstanding")
sim = [c for c in lo["candidates"] if c["status"] != "pruned"]
check("every simulated candidate names its router", all(c["router"] == "least-outstanding" for c in sim))
check("requests per replica add up to the workload's 120",
      all(sum(c["requests_per_replica"]) == 120 and len(c["requests_per_replica"]) == c["replicas"] for c in sim))
check("the default router is round-robin", doc["study"]["router"] == "round-robin")
p = run(*BASE, "--router", "random")
check("an unknown router is an error naming --router", p.returncode != 0 and "--router" in p.stderr and "random" in p.stderr,
      p.stderr)

finish()
