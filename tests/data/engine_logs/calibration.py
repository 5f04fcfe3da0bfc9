#!/usr/bin/python3
"""Prints the calibration table of README.md / docs/engines.md: for every log in index.json, the KV
memory and tokens the engine logged against kvplan's prediction from the GPU alone (the band's
unfavourable and favourable ends) and with the log. Not a test (tests/cli/test_budget_cli.py checks
the logs); run it after adding a log and paste its output.
Usage: /usr/bin/python3 tests/data/engine_logs/calibration.py build/bin/kvplan"""
import json
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GIB = 2**30


def check(kvplan, e, log):
    args = [kvplan, "check", "--gpu", e["gpu"], "--format", "json"]
    if "engine_version" in e:
        args += ["--engine-version", e["engine_version"]]
    if "gpus" in e:
        args += ["--gpus", str(e["gpus"])]
    if "model" in e:
        args += ["--model", e["model"]]
    if log:
        args += ["--engine-log", os.path.join(HERE, e["file"])]
    p = subprocess.run(args + ["--", *shlex.split(e["command"])], capture_output=True, text=True)
    if p.returncode not in (0, 1, 3):
        sys.exit(f"{e['file']}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def pct(x, ref):
    return f"{(x / ref - 1) * 100:+.0f} %"


def main():
    kvplan = sys.argv[1]
    with open(os.path.join(HERE, "index.json")) as f:
        index = json.load(f)["logs"]
    print("| log | engine, GPU | logged KV memory / tokens | kvplan from the GPU alone: KV memory (error), tokens | verdict | with the log |")
    print("|---|---|---|---|---|---|")
    near_fav = near_unfav = near_est = measured = 0
    for e in index:
        g, c = check(kvplan, e, False), check(kvplan, e, True)
        # The logged KV memory: the engine's own figure where it prints one, else what its logged
        # tokens take (kvplan's calibrated KV memory).
        logged = e["kv_cache_gib"] * GIB if "kv_cache_gib" in e else c["per_gpu"]["kv_memory_bytes"] if "tokens" in e else None
        lo, hi = g["per_gpu"]["kv_memory_bytes"], g["favourable"]["kv_memory_bytes"]
        if e["engine"] == "llamacpp":
            # llama.cpp allocates the cache the command asks for (n_ctx cells), not what the memory
            # leaves: its prediction is the KV buffer itself, the same at both ends of the band.
            lo = hi = g["engine_result"]["kv_bytes"]
        est = lo if e["engine"] == "llamacpp" else g["estimate"]["kv_memory_bytes"]
        tlo, thi = g["kv_cache_tokens"], g["favourable"]["kv_cache_tokens"]
        holds = "" if "tokens" not in e or tlo <= e["tokens"] <= thi else " **log outside the band**"
        started = "started" if e["started"] else "**failed**"
        logged_s = (f"{logged / GIB:.2f} GiB" if logged is not None else "no KV memory") + \
                   (f" / {e['tokens']:,} tokens" if "tokens" in e else "") + f" ({started})"
        err = f" ({pct(lo, logged)} … {pct(hi, logged)})" if logged else ""
        if logged and logged > 0:
            measured += 1
            near_unfav += abs(lo / logged - 1) <= 0.05
            near_fav += abs(hi / logged - 1) <= 0.05
            near_est += abs(est / logged - 1) <= 0.05
        pred = f"{lo / GIB:.2f}–{hi / GIB:.2f} GiB{err}, estimate {est / GIB:.2f} GiB" + \
               (f" ({pct(est, logged)})" if logged else "") + f", {tlo:,}–{thi:,} tokens{holds}"
        if "gpu_alone_wrong_pass" in e:
            pred += " **wrong PASS**"
        gap = f"; known gap: {e['known_gap']}" if "known_gap" in e else ""
        clo, chi = c["kv_cache_tokens"], c["favourable"]["kv_cache_tokens"]
        ctok = f"{clo:,}" if clo == chi else f"{clo:,}–{chi:,}"
        withlog = f"{c['verdict']}, {ctok} tokens{gap}"
        print(f"| `{e['file']}` | {' '.join(filter(None, [e['engine'], e.get('engine_version')]))}, {g['gpu']} | {logged_s} | {pred} | "
              f"{g['verdict']} | {withlog} |")
    print(f"\nOf {measured} logs with a positive logged KV memory, kvplan's estimate from the GPU alone is within 5 % of it "
          f"for {near_est} ({near_est / measured:.0%}); the band's favourable end for {near_fav} ({near_fav / measured:.0%}) "
          f"and its unfavourable end for {near_unfav} ({near_unfav / measured:.0%}).")


if __name__ == "__main__":
    main()
