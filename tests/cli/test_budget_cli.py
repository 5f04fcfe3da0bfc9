#!/usr/bin/python3
"""The engine's memory budget in `kvplan check`: the GPU catalog, --gpu-memory / --gpu-file, the
tri-state verdict (exit 0 PASS, 1 FAIL, 3 UNCERTAIN, --strict), --engine-log calibration on real
start-up logs (tests/data/engine_logs, each with its source), and weights that exceed the GPU.
Run: /usr/bin/python3 test_budget_cli.py <path-to-kvplan>"""
import json
import os
import shlex
import subprocess
import sys

from _harness import counts as harness_counts, run as harness_run  # noqa: E402

KVPLAN = sys.argv[1]
SRC = os.environ.get("KVPLAN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
LOGS = os.path.join(SRC, "tests", "data", "engine_logs")
passed = failed = 0


def run(*args):
    p = harness_run(*args)  # tests/cli/_harness.py: validates each --json / --format json document
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: {detail}")


LLAMA8B = "vllm serve meta-llama/Llama-3.1-8B"

# The cards people run, by the names they type and as nvidia-smi prints them.
for name, canon in [("RTX3090", "RTX3090-24GB"), ("3090", "RTX3090-24GB"), ("NVIDIA GeForce RTX 3090", "RTX3090-24GB"),
                    ("4090", "RTX4090-24GB"), ("T4", "T4-16GB"), ("Tesla T4", "T4-16GB"), ("V100", "V100-32GB"),
                    ("A10", "A10-24GB"), ("A30", "A30-24GB"), ("A40", "A40-48GB"), ("L40", "L40-48GB"), ("H20", "H20-96GB"),
                    ("GB10", "GB10-128GB"), ("DGX Spark", "GB10-128GB"), ("MI210", "MI210-64GB"), ("MI250", "MI250-GCD-64GB"),
                    ("M1-Max", "M1-Max-64GB"), ("M4-Pro", "M4-Pro-64GB"), ("Jetson-AGX-Orin", "Jetson-AGX-Orin-64GB"),
                    ("RX7900XTX", "RX7900XTX-24GB"), ("Arc-A770", "Arc-A770-16GB"), ("RTX4080-SUPER", "RTX4080-SUPER-16GB"),
                    ("H100 80GB HBM3", "H100-SXM-80GB"), ("A100-SXM4-80GB", "A100-80GB"), ("NVIDIA A100-SXM4-80GB", "A100-80GB")]:
    rc, out, err = run("gpus", name, "--json")
    ok = rc == 0 and json.loads(out)["name"] == canon
    check(f"gpu {name!r}", ok, (rc, out[:120], err))
# The 3090's nvidia-smi total (24,576 MiB, cited in data/gpus.json).
rc, out, _ = run("gpus", "RTX3090", "--json")
check("3090 memory", rc == 0 and json.loads(out)["memory_bytes"] == 24576 * 2**20, out[:200])

# check runs on the new cards.
rc, out, err = run("check", "--gpu", "RTX3090", "--format", "json", "--", *LLAMA8B.split(), "--max-model-len", "4096")
check("check --gpu RTX3090", rc in (0, 3) and json.loads(out)["gpu"] == "RTX3090-24GB", (rc, out[:200], err))

# --gpu-memory: a unit is required; alone it is a custom device (check and plan).
rc, out, err = run("check", "--gpu-memory", "20GiB", "--format", "json", "--", *LLAMA8B.split(), "--max-model-len", "4096")
j = json.loads(out) if rc in (0, 1, 3) else {}
check("check --gpu-memory 20GiB", rc in (0, 1, 3) and j["device_memory"]["low_bytes"] == 20 * 2**30 == j["device_memory"]["high_bytes"],
      (rc, out[:300], err))
rc, out, err = run("check", "--gpu-memory", "24", "--", *LLAMA8B.split())
check("bare --gpu-memory refused", rc == 2 and "--gpu-memory" in err and "unit" in err, (rc, err))
rc, out, err = run("plan", "meta-llama/Llama-3.1-8B", "--gpu-memory", "20GiB", "--json")
j = json.loads(out) if rc == 0 else {}
check("plan --gpu-memory alone", rc == 0 and j["per_gpu"]["memory_bytes"] == 20 * 2**30 and j["decode_step_seconds"] == 0
      and any("bandwidth" in n for n in j["notes"]), (rc, out[:300], err))
rc, out, err = run("plan", "meta-llama/Llama-3.1-8B", "--gpu-memory", "24")
check("plan bare --gpu-memory refused", rc == 2 and "unit" in err, (rc, err))

# The verdict is tri-state and says why; the budget lists every term with a band.
rc, out, err = run("check", "--gpu", "H100", "--format", "json", "--", *LLAMA8B.split(), "--max-model-len", "32768")
j = json.loads(out)
names = [t["name"] for t in j["budget"]]
check("H100 8B passes", rc == 0 and j["verdict"] == "PASS", (rc, j.get("verdict"), j.get("reason")))
check("budget terms", names[:2] == ["weights", "activation peak"] and "CUDA graphs" in names
      and all(t["low_bytes"] <= t["high_bytes"] for t in j["budget"]), names)
check("band ends", j["favourable"]["kv_memory_bytes"] >= j["per_gpu"]["kv_memory_bytes"] > 0, j["favourable"])
# Older vLLM: graphs outside the budget.
rc, out, _ = run("check", "--gpu", "H100", "--engine-version", "0.10.1", "--format", "json", "--", *LLAMA8B.split())
check("vLLM 0.10 has no graph term", rc == 0 and "CUDA graphs" not in [t["name"] for t in json.loads(out)["budget"]], out[:200])
rc, out, err = run("check", "--gpu", "H100", "--engine-version", "new", "--", *LLAMA8B.split())
check("bad --engine-version", rc == 2 and "--engine-version" in err, err)

# 8k tokens on a 3090 with 8B bf16 weights at 0.8: starts only at the favourable end -> UNCERTAIN (3), --strict 1.
args = ["check", "--gpu", "RTX3090", "--format", "json", "--", *LLAMA8B.split(), "--max-model-len", "8192", "--gpu-memory-utilization", "0.8"]
rc, out, _ = run(*args)
j = json.loads(out)
check("uncertain exit 3", rc == 3 and j["verdict"] == "UNCERTAIN" and j["exit_code"] == 3 and not j["passed"], (rc, j.get("verdict")))
check("uncertain margin", j["margin_bytes"] > 0 and "more KV memory per GPU" in j["margin"], j.get("margin"))
# At vLLM's default 0.9 the cache fits (vllm serve's 2,048-token batch on a 24 GB card), but the
# 2.35 GiB outside the budget may not hold the CUDA context, the sampler warm-up and a desktop's
# other processes (1.68 GiB in TheBuccaneer/vllm-offload-profiles' failed start): UNCERTAIN, with
# the utilization that would make it certain.
rc, out, _ = run("check", "--gpu", "RTX3090", "--format", "json", "--", *LLAMA8B.split(), "--max-model-len", "8192")
j = json.loads(out)
failing = [c["name"] for c in j["checks"] if not c["ok"]]
check("3090 at 0.9: headroom UNCERTAIN", rc == 3 and failing == ["headroom"] and "--gpu-memory-utilization 0.86" in j["margin"], (rc, failing, j.get("margin")))
check("vllm serve's batch default on a 24 GB card", any("max_num_batched_tokens 2048, max_num_seqs 256" in n for n in j["notes"]), j["notes"])
# A datacenter card has no desktop: the same headroom on an H100 at 0.95 holds.
rc, out, _ = run("check", "--gpu", "H100", "--format", "json", "--", *LLAMA8B.split(), "--gpu-memory-utilization", "0.95")
j = json.loads(out)
check("H100 at 0.95: headroom holds", [c["ok"] for c in j["checks"] if c["name"] == "headroom"] == [True], j.get("checks"))
rc, out, _ = run(*args[:1], "--strict", *args[1:])
check("--strict", rc == 1 and json.loads(out)["exit_code"] == 1, rc)
rc, out, _ = run("check", "--gpu", "RTX3090", "--format", "github", "--", *LLAMA8B.split(), "--max-model-len", "8192")
check("github warning", rc == 3 and "::warning" in out, out)

# Weights alone exceed the GPU: negative KV memory in JSON as in the text, and useful advice.
rc, out, _ = run("check", "--gpu", "H100", "--format", "json", "--", "vllm", "serve", "meta-llama/Llama-3.1-70B")
j = json.loads(out)
check("70B on one H100: FAIL", rc == 1 and j["verdict"] == "FAIL", rc)
check("negative KV memory", j["per_gpu"]["kv_memory_bytes"] < 0 and j["per_gpu"]["kv_budget_bytes"] == 0, j["per_gpu"])
check("advice", "more GPUs" in j["reason"] and "quantized" in j["reason"] and "gpu_memory_utilization" not in j["reason"], j["reason"])
rc, out, _ = run("check", "--gpu", "H100", "--", "vllm", "serve", "meta-llama/Llama-3.1-70B")
check("negative KV memory in text", rc == 1 and "KV memory -" in out, out[:400])

# --kv-cache-memory-bytes with a fractional value, as vLLM's human_readable_int takes it (lower
# case: decimal, 3.81g = 3,810,000,000 bytes); vLLM's parser has no --kv-cache-memory spelling.
rc, out, err = run("check", "--gpu", "H100", "--format", "json", "--", *LLAMA8B.split(), "--max-model-len", "8192",
                   "--kv-cache-memory-bytes", "3.81g")
j = json.loads(out) if rc in (0, 1, 3) else {}
check("--kv-cache-memory-bytes 3.81g", rc == 0 and j["per_gpu"]["kv_budget_bytes"] == 3_810_000_000, (rc, out[:200], err))

# --cpu-offload-gb takes weights off the GPU.
rc, out, _ = run("check", "--gpu", "H100", "--format", "json", "--", *LLAMA8B.split())
w = json.loads(out)["budget"][0]["low_bytes"]
rc, out, _ = run("check", "--gpu", "H100", "--format", "json", "--", *LLAMA8B.split(), "--cpu-offload-gb", "4")
check("--cpu-offload-gb", json.loads(out)["budget"][0]["low_bytes"] == w - 4 * 2**30, (w, out[:200]))

# --quantization fp8: linear layers in fp8, embedding and head kept in bf16 (Llama-3.1-8B: 1 GiB x 2
# tables at 2 B + the rest at 1 B, about 8.46 GiB, against 14.96 GiB in bf16); a method the
# checkpoint does not have is refused.
rc, out, _ = run("check", "--gpu", "H100", "--format", "json", "--", *LLAMA8B.split(), "--quantization", "fp8")
wq = json.loads(out)["budget"][0]["low_bytes"]
check("--quantization fp8", 8.3 * 2**30 < wq < 8.6 * 2**30, wq / 2**30)
rc, out, err = run("check", "--gpu", "H100", "--", *LLAMA8B.split(), "--quantization", "awq")
check("--quantization awq on a bf16 checkpoint", rc == 2 and "quantization_config" in err, (rc, err))

# LoRA: max_loras x rank slots for every linear layer. Llama-3.1-8B, 4 x rank 64, bf16: 4 x 64 x 2 B x 32
# layers x (9 x 4096 + 3 x 14336) = 1.22 GiB at the low end; up to (11 x 4096 + 3 x 14336) = 1.34 GiB.
rc, out, _ = run("check", "--gpu", "H100", "--format", "json", "--", *LLAMA8B.split(), "--enable-lora", "--max-loras", "4",
                 "--max-lora-rank", "64")
lora = [t for t in json.loads(out)["budget"] if t["name"] == "LoRA adapter slots"]
check("LoRA slots", lora and lora[0]["low_bytes"] == 4 * 64 * 2 * 32 * (9 * 4096 + 3 * 14336)
      and lora[0]["high_bytes"] == 4 * 64 * 2 * 32 * (11 * 4096 + 3 * 14336), lora)

# vLLM's MLA block follows the backend the GPU runs: FlashMLA's 64 on Hopper, TRITON_MLA's 16 on an A100.
for gpu, block in (("H100", 64), ("A100", 16)):
    rc, out, _ = run("check", "--gpu", gpu, "--gpus", "16", "--format", "json", "--", "vllm", "serve", "deepseek-ai/DeepSeek-V3",
                     "-tp", "16", "--max-model-len", "32768")
    check(f"MLA block on {gpu}", json.loads(out)["engine_result"]["block_size"] == block, out[:200])

# Expert parallelism: with dp 4 the routed experts split over tp x dp = 8 ranks, so fewer weights per GPU.
qwen = "vllm serve Qwen/Qwen3-30B-A3B -tp 2 -dp 4"
rc, out, _ = run("check", "--gpu", "H100", "--gpus", "8", "--format", "json", qwen)
w_tp = json.loads(out)["budget"][0]["low_bytes"]
rc, out, _ = run("check", "--gpu", "H100", "--gpus", "8", "--format", "json", qwen + " --enable-expert-parallel")
w_ep = json.loads(out)["budget"][0]["low_bytes"]
check("--enable-expert-parallel", 0 < w_ep < w_tp / 2, (w_tp, w_ep))

# Speculative decoding: MTP weights and a draft layer's KV pages (fewer KV tokens); a model
# without MTP layers is refused; a draft model adds its weights.
dsv3 = "vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --max-model-len 32768"
rc, out, _ = run("check", "--gpu", "H200", "--gpus", "8", "--format", "json", dsv3)
base = json.loads(out)
rc, out, _ = run("check", "--gpu", "H200", "--gpus", "8", "--format", "json",
                 dsv3 + " --speculative-config '{\"method\": \"deepseek_mtp\", \"num_speculative_tokens\": 1}'")
mtp = json.loads(out)
check("MTP weights", mtp["budget"][0]["low_bytes"] > base["budget"][0]["low_bytes"], (mtp["budget"][0], base["budget"][0]))
check("MTP KV pages", 0 < mtp["kv_cache_tokens"] < base["kv_cache_tokens"], (mtp["kv_cache_tokens"], base["kv_cache_tokens"]))
rc, out, err = run("check", "--gpu", "H100", LLAMA8B + " --speculative-config '{\"method\": \"mtp\"}'")
check("MTP without MTP layers", rc == 2 and "num_nextn_predict_layers" in err, (rc, err))
rc, out, err = run("check", "--gpu", "H100", LLAMA8B + " --speculative-config 'not json'")
check("bad --speculative-config", rc == 2 and "--speculative-config" in err, (rc, err))
rc, out, _ = run("check", "--gpu", "H100", "--format", "json",
                 LLAMA8B + " --speculative-config '{\"method\": \"eagle\", \"model\": \"meta-llama/Llama-3.2-1B-Instruct\"}'")
j = json.loads(out)
rc0, out0, _ = run("check", "--gpu", "H100", "--format", "json", LLAMA8B)
check("draft model weights", j["budget"][0]["low_bytes"] > json.loads(out0)["budget"][0]["low_bytes"], j["budget"][0])

# Real start-up logs (tests/data/engine_logs/index.json, each with its source): with the log, the
# logged KV tokens and concurrency exactly (or, where the log prints a rounded GiB figure, inside the
# band of that rounding); a failed start is FAIL; from the GPU alone a failed start is never PASS;
# a log kvplan does not reproduce (known_gap) is never PASS either way; where the index says the
# GPU-alone band holds the logged tokens, it still does.
with open(os.path.join(LOGS, "index.json")) as f:
    index = json.load(f)["logs"]
check("engine log index", len(index) >= 3 and all(os.path.exists(os.path.join(LOGS, e["file"])) for e in index), len(index))
within = {"logs": 0, "unfavourable": 0, "favourable": 0, "estimate": 0}
for e in index:
    with open(os.path.join(LOGS, e["file"])) as f:
        first = f.readline()
    check(f"{e['file']} cites its source", first.startswith("# https://") and e["source"].split()[0] in first, first)
    cmd = shlex.split(e["command"])
    base = ["check", "--gpu", e["gpu"], "--format", "json"]
    if "engine_version" in e:
        base += ["--engine-version", e["engine_version"]]
    if "gpus" in e:
        base += ["--gpus", str(e["gpus"])]
    if "model" in e:
        base += ["--model", e["model"]]
    gap = "known_gap" in e
    rc, out, err = run(*base, "--engine-log", os.path.join(LOGS, e["file"]), "--", *cmd)
    j = json.loads(out) if rc in (0, 1, 3) else {}
    if gap:
        check(f"{e['file']} (known gap) calibrated never PASS", rc in (1, 3) and j["verdict"] != "PASS", (rc, out[:300], err))
    elif e["started"]:
        lo, hi = j.get("kv_cache_tokens", -1), j.get("favourable", {}).get("kv_cache_tokens", -1)
        # A command with a flag kvplan does not model (the KVBM run's --kv-transfer-config) is UNCERTAIN
        # in its `modelled` check whatever the log says (issue 26); every other check passes and the tokens reproduce.
        # A log that does not state what the band needs (the device total) stays UNCERTAIN where the
        # index says so and why; a started log is never FAIL for any other reason.
        failing = [c["name"] for c in j.get("checks", []) if not c["ok"]]
        if e.get("calibrated_verdict") == "UNCERTAIN":
            ok = rc == 3 and j["verdict"] == "UNCERTAIN" and all(c["status"] != "FAIL" for c in j["checks"])
        else:
            ok = rc == (3 if failing == ["modelled"] else 0) and failing in ([], ["modelled"])
        check(f"{e['file']} calibrated", ok and j["calibrated"] and lo <= e["tokens"] <= hi, (rc, failing, lo, hi, e["tokens"], err))
        if "max_concurrency" in e:
            clo, chi = round(j["max_concurrency_ratio"], 2), round(j["favourable"]["max_concurrency_ratio"], 2)
            check(f"{e['file']} concurrency", clo <= e["max_concurrency"] <= chi, (clo, chi, e["max_concurrency"]))
    else:
        check(f"{e['file']} calibrated fails", rc == 1 and j["verdict"] == "FAIL", (rc, out[:300], err))
    if "kv_cache_mib" in e:
        # llama.cpp prints its KV buffer in MiB to 0.01: kvplan's bytes lie within that rounding.
        kv = j.get("engine_result", {}).get("kv_bytes", -1)
        check(f"{e['file']} KV buffer with the log", abs(kv - e["kv_cache_mib"] * 2**20) <= 0.005 * 2**20, (kv, e["kv_cache_mib"]))
    rc, out, err = run(*base, "--", *cmd)
    j = json.loads(out) if rc in (0, 1, 3) else {}
    if "kv_cache_mib" in e:
        kv = j.get("engine_result", {}).get("kv_bytes", -1)
        check(f"{e['file']} KV buffer from the GPU alone", abs(kv - e["kv_cache_mib"] * 2**20) <= 0.005 * 2**20, (kv, e["kv_cache_mib"]))
    if "gpu_alone_wrong_pass" in e:
        # A documented wrong PASS (README.md, findings): still PASS today; when the budget model
        # learns the cause this fails and the index entry is updated.
        print(f"KNOWN WRONG PASS {e['file']}: {e['gpu_alone_wrong_pass'][:100]}...")
        check(f"{e['file']} documented wrong PASS", not e["started"] and rc == 0 and j["verdict"] == "PASS", (rc, j.get("verdict")))
    elif not e["started"] or gap:
        check(f"{e['file']} never PASS from the GPU alone", rc in (1, 3) and j["verdict"] != "PASS", (rc, j.get("verdict")))
    # Predicted from the GPU alone, is the KV memory within 5 % of the logged one? kvplan's
    # estimate (every budget term at its typical value) is asserted below for 70 % of the logs (the
    # issue's target); the band's ends are reported (README.md's calibration table).
    if "kv_cache_gib" in e and e["kv_cache_gib"] > 0:
        logged = e["kv_cache_gib"] * 2**30
        lo_b, hi_b = j["per_gpu"]["kv_memory_bytes"], j["favourable"]["kv_memory_bytes"]
        est = j["estimate"]["kv_memory_bytes"]
        if e["engine"] == "llamacpp":  # the cache is what the command asks for, at both ends
            lo_b = hi_b = est = j["engine_result"]["kv_bytes"]
        check(f"{e['file']} estimate inside the band", min(lo_b, hi_b) <= est <= max(lo_b, hi_b), (lo_b, est, hi_b))
        within["logs"] += 1
        within["estimate"] += abs(est / logged - 1) <= 0.05
        within["unfavourable"] += abs(lo_b / logged - 1) <= 0.05
        within["favourable"] += abs(hi_b / logged - 1) <= 0.05
    if e.get("band_holds_log"):
        lo, hi = j.get("kv_cache_tokens", -1), j.get("favourable", {}).get("kv_cache_tokens", -1)
        check(f"{e['file']} GPU-alone band holds the log", lo <= e["tokens"] <= hi, (lo, hi, e["tokens"]))
    if "release_defaults" in e:
        # The source's release applied a default kvplan's current one differs from (SGLang's
        # mem_fraction_static before 2025-09): given it explicitly, the GPU-alone band holds the log,
        # so the arithmetic is right and only the default is version-bound (README.md, findings).
        rc, out, err = run(*base, "--", *cmd, *shlex.split(e["release_defaults"]))
        j = json.loads(out) if rc in (0, 1, 3) else {}
        lo, hi = j.get("kv_cache_tokens", -1), j.get("favourable", {}).get("kv_cache_tokens", -1)
        check(f"{e['file']} band with the release's defaults holds the log", lo <= e["tokens"] <= hi, (rc, lo, hi, e["tokens"], err))
print(f"engine logs: {len(index)} ({sum(not e['started'] for e in index)} failed starts); of {within['logs']} with a logged "
      f"KV memory, from the GPU alone kvplan's estimate is within 5 % of it for {within['estimate']}, the band's unfavourable end for "
      f"{within['unfavourable']}, its favourable end for {within['favourable']}")
check("estimate within 5 % on 70 % of the logs", within["estimate"] >= 0.7 * within["logs"], within)
rc, out, err = run("check", "--gpu", "H100", "--engine-log", os.path.join(SRC, "README.md"), "--", *LLAMA8B.split())
check("log without figures", rc == 2 and "--engine-log" in err, (rc, err))
import tempfile
with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as g:
    g.write("Available KV cache memory: " + "9" * 40 + " GiB\n" + "x" * 300000 + "\n")
try:
    rc, out, err = run("check", "--gpu", "H100", "--engine-log", g.name, "--", *LLAMA8B.split())
    check("absurd log figure", rc == 2 and "--engine-log" in err and err.count("\n") == 1, (rc, err[:200]))
finally:
    os.unlink(g.name)

# --gpu-used: what other processes hold, as a size or nvidia-smi's CSV (@FILE). vLLM V1 refuses to
# start when free memory is below utilization x total (gpu_worker.py init_device): 0.9 x 79 GiB
# cannot be free beside 10 GiB.
with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as g:
    g.write("memory.used [MiB], memory.total [MiB]\n10240 MiB, 81559 MiB\n")
try:
    for used in ("10GiB", "@" + g.name):
        rc, out, err = run("check", "--gpu", "H100", "--gpu-used", used, "--format", "json", "--", *LLAMA8B.split(),
                           "--max-model-len", "8192")
        doc = json.loads(out) if out.strip().startswith(("{", "[")) else {}
        doc = doc[0] if isinstance(doc, list) else doc
        check(f"--gpu-used {used}: FAIL naming other processes",
              rc == 1 and any("other processes hold 10.00 GiB" in x for x in doc.get("reasons", [])), (rc, out[:300], err))
    rc, out, err = run("check", "--gpu", "H100", "--gpu-used", "@/nonexistent.csv", "--", *LLAMA8B.split())
    check("--gpu-used @missing", rc == 2 and "--gpu-used" in err, (rc, err))
finally:
    os.unlink(g.name)

print(f"{passed} passed, {failed} failed")
harness_passed, harness_failed = harness_counts()  # schema checks made by harness_run
print(f"{harness_passed} schema checks passed, {harness_failed} failed")
sys.exit(1 if failed or harness_failed else 0)
