"""CLI contract for kvplan plan / gpus / compare / sweep.

Run as: /usr/bin/python3 test_plan_cli.py <path-to-kvplan>. Expected values are derived by hand
(layers x heads x dims x bytes, the seeds' figures), never copied from kvplan's output.
"""
import json
import math
import os
import tempfile
from _harness import SRC, check_fn as check, js, run, finish  # noqa: E402

H100 = 81559 * 2**20  # nvidia-smi 81,559 MiB


# The calibrated step (kvplan/step_time.h, docs/speed.md) of a memory-bound decode step of the
# 32-layer Llama-3.1-8B with `seqs` sequences: its overheads + bytes / (fraction x bandwidth).
CAL = json.load(open(os.path.join(SRC, "data", "step_time.json")))


def decode_step(bytes_read, bandwidth, seqs, layers=32):
    overhead = CAL["step_overhead_s"] + layers * CAL["layer_overhead_s"] + seqs * (CAL["token_overhead_s"] + CAL["seq_overhead_s"])
    return overhead + bytes_read / (CAL["bandwidth_fraction"] * bandwidth)


def close(a, b, rel=1e-9):
    assert math.isclose(a, b, rel_tol=rel), f"{a} != {b}"


def s4():
    j = js("plan", "meta-llama/Llama-3.1-70B", "--gpu", "H100", "--context", "128k")
    assert j["per_gpu"]["kv_bytes"] == 2 * 80 * 8 * 128 * 2 * 131072  # 43 GB
    assert round(j["per_gpu"]["kv_bytes"] / 1e9) == 43
    assert round(j["per_gpu"]["weights_bytes"] / 1e9) == 141
    assert j["fits"] is False
    assert "weights alone need 141.11 GB" in j["reason"] and "use at least 2" in j["reason"], j["reason"]
    assert j["per_gpu"]["memory_bytes"] == H100


def s5():
    with open(os.path.join(SRC, "model_configs", "meta-llama__Llama-3.1-70B.json")) as f:
        cfg = json.load(f)
    cfg["num_key_value_heads"] = 64
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(cfg, f)
    try:
        j = js("plan", f.name, "--gpu", "H100", "--context", "128k")
        assert j["cache_total_bytes"] == 2 * 80 * 64 * 128 * 2 * 131072  # 344 GB
        assert round(j["cache_total_bytes"] / 1e9) == 344
    finally:
        os.unlink(f.name)


def s11():
    per_token = 32 * 2 * 8 * 128 * 2
    j = js("plan", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--weights", "16GB", "--reserved", "0",
           "--context", "4096", "--concurrency", "30")
    close(j["decode_step_seconds"], decode_step(16e9 + 30 * 4096 * per_token, 3.35e12, 30))
    assert j["crossover_tokens"] == math.ceil(16e9 / per_token) == 122071  # 122,070.3 rounded up
    assert j["crossover_concurrency"] == 30  # 29 x 4096 x 128 KiB < 16 GB < 30 x ...
    assert j["kv_bytes_read_per_step"] > j["weight_bytes_read_per_step"]
    close(j["decode_tokens_per_second"], 1 / j["decode_step_seconds"])


def s12():
    j = js("plan", "meta-llama/Llama-3.1-70B", "--gpu", "H100", "--context", "128k", "--concurrency", "15")
    cache = 15 * 2 * 80 * 8 * 128 * 2 * 131072
    assert j["cache_total_bytes"] == cache
    assert j["cache_only_gpus"] == math.ceil(cache / 80e9) == 9
    assert j["cache_only_gpus_device"] == math.ceil(cache / H100) == 8


def s14():
    for tp in ("8", "16"):
        j = js("plan", "meta-llama/Llama-3.1-70B", "--gpu", "H100", "--tp", tp)
        assert j["cache_bytes_per_token"] == 2 * 80 * 1 * 128 * 2, tp
    j = js("plan", "deepseek-ai/DeepSeek-V3", "--gpu", "H200", "--tp", "8", "--context", "4096")
    assert j["cache_bytes_per_token"] == 61 * 576 * 2 == 70272
    assert j["per_gpu"]["kv_bytes"] == 70272 * 4096


def fits_and_capacity():
    j = js("plan", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--weights", "16GB", "--reserved", "0",
           "--context", "4096", "--concurrency", "8")
    budget = H100 * 9 // 10 - 16 * 10**9
    assert j["fits"] is True and j["reason"] is None
    assert j["max_concurrency"] == budget // (131072 * 4096) == 113
    assert j["max_context"] == budget // (131072 * 8)
    assert j["per_gpu"]["free_bytes"] == budget - 8 * 4096 * 131072
    for k in ("memory_bytes", "weights_bytes", "kv_bytes", "state_bytes", "reserved_bytes", "free_bytes"):
        assert isinstance(j["per_gpu"][k], int), k
    for k in ("fits", "gpus", "tp", "pp", "context", "concurrency", "max_concurrency", "max_context",
              "kv_capacity_tokens", "min_gpus", "decode_step_seconds", "decode_tokens_per_second", "reason"):
        assert k in j, k


def require_fit_exit_code():
    r = run("plan", "meta-llama/Llama-3.1-70B", "--gpu", "H100", "--require-fit")
    assert r.returncode == 1, r.returncode
    r = run("plan", "meta-llama/Llama-3.1-70B", "--gpu", "H100")
    assert r.returncode == 0 and "NO" in r.stdout


def bad_input(args, fragments):
    def t():
        r = run(*args)
        assert r.returncode == 2, f"exit {r.returncode}"
        assert r.stdout == "", r.stdout
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, r.stderr
        for f in fragments:
            assert f in lines[0], (f, lines[0])
    return t


def gpus():
    j = js("gpus")
    names = {g["name"]: g for g in j["gpus"]}
    assert len(names) >= 25
    assert names["H100-SXM-80GB"]["memory_bytes"] == H100
    assert names["H100-SXM-80GB"]["memory_marketing_bytes"] == 80 * 10**9
    for n in ("H200-141GB", "A100-80GB", "MI300X-192GB"):
        assert n in names, n
    assert js("gpus", "mi300x")["name"] == "MI300X-192GB"
    r = run("gpus", "h100")
    assert r.returncode == 0 and "H100-SXM-80GB" in r.stdout


def compare():
    j = js("compare", "meta-llama/Llama-3.1-70B", "deepseek-ai/DeepSeek-V3", "--tokens", "128k")
    rows = {r["model"]: r for r in j["models"]}
    assert rows["meta-llama/Llama-3.1-70B"]["bytes_per_token"] == 327680
    assert rows["meta-llama/Llama-3.1-70B"]["cache_bytes"] == 327680 * 131072
    assert rows["deepseek-ai/DeepSeek-V3"]["bytes_per_token"] == 70272
    assert rows["deepseek-ai/DeepSeek-V3"]["cache_bytes"] == 70272 * 131072
    share = rows["meta-llama/Llama-3.1-70B"]["share_of_weights"]
    close(share, 327680 * 131072 / rows["meta-llama/Llama-3.1-70B"]["weights_bytes"])
    r = run("compare", "--bundled", "--tokens", "4096")
    assert r.returncode == 0 and r.stdout.count("\n") >= 10


def sweep():
    r = run("sweep", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--contexts", "4096,8k", "--concurrency", "1,2,3", "--csv")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0].split(",")[:3] == ["context", "concurrency", "cache_bytes"]
    assert len(lines) == 1 + 2 * 3
    cells = {(int(l.split(",")[0]), int(l.split(",")[1])): int(l.split(",")[2]) for l in lines[1:]}
    assert cells[(8192, 2)] == 2 * 8192 * 131072
    assert cells[(4096, 3)] == 3 * 4096 * 131072
    j = js("sweep", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--contexts", "1k,2k", "--concurrency", "4")
    assert [c["cache_bytes"] for c in j["cells"]] == [4 * 1024 * 131072, 4 * 2048 * 131072]
    assert run("sweep", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--csv", "--json").returncode == 2


def weight_presets():
    # Llama-3.1-8B: awq = 4 bits + (fp16 scale + 4-bit zero) per 128 of the 6,979,321,856 matrix
    # values, embeddings/head/norms bf16 (2,101,878,784 B); Q4_K_M = llama-quantize's mix, derived
    # by hand in tests/test_weights.cpp (within 0.01 % of llama.cpp's published 4.8944 bits/weight).
    awq = 6979321856 // 2 + 6979321856 // 128 * 20 // 8 + 2101878784
    j = js("plan", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--weight-dtype", "awq")
    assert j["per_gpu"]["weights_bytes"] == awq, j["per_gpu"]
    assert "weights: awq int4 g128 + bf16 (preset --weight-dtype awq)" in j["notes"], j["notes"]
    j = js("plan", "meta-llama/Llama-3.1-8B", "--gpu", "RTX4090", "--weight-dtype", "Q4_K_M")
    assert j["per_gpu"]["weights_bytes"] == 4912898048, j["per_gpu"]
    j = js("compare", "meta-llama/Llama-3.1-8B", "--weight-dtype", "q4_k_m")
    assert j["models"][0]["weights_bytes"] == 4912898048, j["models"][0]
    j = js("sweep", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--contexts", "1k", "--concurrency", "1",
           "--weight-dtype", "awq")
    assert j["cells"], j


def custom_device():
    j = js("plan", "meta-llama/Llama-3.1-8B", "--gpu-memory", "48GB", "--gpu-bandwidth", "1e12", "--weights", "16GB",
           "--reserved", "0", "--utilization", "1", "--context", "4096", "--concurrency", "2")
    assert j["gpu"] == "custom" and j["per_gpu"]["memory_bytes"] == 48 * 10**9
    assert j["per_gpu"]["free_bytes"] == 48 * 10**9 - 16 * 10**9 - 2 * 4096 * 131072
    close(j["decode_step_seconds"], decode_step(16e9 + 2 * 4096 * 131072, 1e12, 2))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"name": "Card", "memory_bytes": "24GiB", "bandwidth_bytes_per_s": 5e11}, f)
    try:
        j = js("plan", "meta-llama/Llama-3.2-1B-Instruct", "--gpu-file", f.name)
        assert j["gpu"] == "Card" and j["per_gpu"]["memory_bytes"] == 24 * 2**30
        with open(f.name, "w") as g:
            g.write('{"name": "Card", "memory_bytes": 5}')
        # No bandwidth in the file: memory is planned, decode speed is not (and the plan says so).
        r = run("plan", "meta-llama/Llama-3.2-1B-Instruct", "--gpu-file", f.name)
        assert r.returncode == 0 and "no memory bandwidth" in r.stdout, r.stdout + r.stderr
    finally:
        os.unlink(f.name)


def deepseek_layout():
    # Issue 15: `plan deepseek-ai/DeepSeek-V3 --gpu H200 --gpus 8 --engine vllm` suggested tp 2 x pp 3.
    # Its fp8 weights (671B parameters, about 690 GB) exceed 4 H200s' usable memory, so the smallest
    # TP degree within one 8-GPU node that divides its 128 heads and holds them is 8: tp 8, pp 1.
    args = ["plan", "deepseek-ai/DeepSeek-V3", "--gpu", "H200", "--gpus", "8", "--engine", "vllm"]
    j = js(*args)
    assert j["weights_total_bytes"] > 4 * j["per_gpu"]["usable_bytes"], j["weights_total_bytes"]
    assert (j["min_gpus"], j["min_gpus_tp"], j["min_gpus_pp"]) == (8, 8, 1), (j["min_gpus"], j["min_gpus_tp"], j["min_gpus_pp"])
    assert "within one 8-GPU node" in j["min_gpus_reason"], j["min_gpus_reason"]
    assert j["kv_dtype_to_fit"] in ("bf16", "fp8_e4m3", "fp8_e5m2", "nvfp4", None), j["kv_dtype_to_fit"]
    text = run(*args).stdout
    assert "min GPUs            8 (tp 8, pp 1): the smallest tensor-parallel degree that fits within one 8-GPU node" in text, text
    # On H100s one node is not enough: tp 8 in each node, one pipeline stage per node.
    j = js("plan", "deepseek-ai/DeepSeek-V3", "--gpu", "H100")
    assert (j["min_gpus"], j["min_gpus_tp"], j["min_gpus_pp"]) == (16, 8, 2), (j["min_gpus"], j["min_gpus_tp"], j["min_gpus_pp"])
    assert "pp 2 across 2 nodes" in j["min_gpus_reason"], j["min_gpus_reason"]
    # Qwen3-8B on RTX 4090s (32 heads), 16 x 32k: pure TP inside the node, never PP first.
    j = js("plan", "Qwen/Qwen3-8B", "--gpu", "RTX4090", "--context", "32k", "--concurrency", "16")
    assert j["min_gpus_pp"] == 1 and j["min_gpus_tp"] == j["min_gpus"] > 1, (j["min_gpus"], j["min_gpus_tp"], j["min_gpus_pp"])


def singular_plural():
    # "1 sequence", never "1 sequences" or "sequence(s)", in every verb's text.
    texts = {
        "plan": run("plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--concurrency", "1").stdout,
        "plan unfit": run("plan", "meta-llama/Llama-3.1-70B", "--gpu", "L4", "--concurrency", "1").stdout,
        "size": run("size", "Qwen/Qwen3-8B", "--batch", "1").stdout,
        "llama.cpp": run("engine", "llama.cpp", "Qwen/Qwen3-8B", "--ctx-size", "8192", "--parallel", "1").stdout,
        "vllm": run("engine", "vllm", "Qwen/Qwen3-8B", "--kv-cache-memory", "20GiB", "--max-model-len", "8192").stdout,
        "simulate": run("simulate", "Qwen/Qwen3-8B", "--gpu", "H100", "--max-model-len", "4096", "--workload",
                        "requests=1 prompt=fixed:100 output=fixed:1 seed=1").stdout,
        "check": run("check", "--gpu", "H100", "--", "vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "1").stdout,
        "vllm block 1": run("engine", "vllm", "Qwen/Qwen3-8B", "--kv-cache-memory", "20GiB", "--max-model-len", "1",
                            "--block-size", "1").stdout,
    }
    # The engines' own log lines are reproduced verbatim (vLLM prints "Maximum concurrency for 1 tokens
    # per request"): only kvplan's text is checked.
    texts = {verb: "\n".join(line for line in t.splitlines() if not line.startswith("  Maximum concurrency for "))
             for verb, t in texts.items()}
    for verb, t in texts.items():
        assert t.strip(), verb
        for bad in ["(s)", " 1 sequences", " 1 streams", " 1 groups", " 1 layers", " 1 GPUs", " 1 steps", " 1 tokens"]:
            assert bad not in t, f"{verb}: {bad!r} in {t}"
    assert "load                  1 sequence x 4,096 tokens" in texts["plan"], texts["plan"]
    assert "1 sequence, 1 stream of" in texts["llama.cpp"], texts["llama.cpp"]
    assert "workload     1 sequence x 4,096 tokens" in texts["size"], texts["size"]
    assert "x at 1 token" in texts["check"], texts["check"]
    assert "block size 1 token," in texts["vllm block 1"] and "max concurrency at 1 token:" in texts["vllm block 1"], \
        texts["vllm block 1"]


check("S4 Llama 70B 128k / 141 GB weights", s4)
check("S5 Llama 70B without GQA", s5)
check("S11 roofline crossover", s11)
check("S12 GPUs the cache alone takes", s12)
check("S14 TP split and MLA replication", s14)
check("capacity and JSON keys", fits_and_capacity)
check("--require-fit exit code", require_fit_exit_code)
check("tp not dividing heads", bad_input(["plan", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--tp", "3"], ["--tp", "32 attention heads"]))
check("zero GPUs", bad_input(["plan", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--gpus", "0"], ["--gpus", "\"0\""]))
check("utilization > 1", bad_input(["plan", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--utilization", "1.5"], ["--utilization", "(0, 1]"]))
check("unknown GPU", bad_input(["plan", "meta-llama/Llama-3.1-8B", "--gpu", "H1OO"], ["unknown GPU", "did you mean", "H100-SXM-80GB"]))
check("no GPU", bad_input(["plan", "meta-llama/Llama-3.1-8B"], ["--gpu"]))
check("bad context", bad_input(["plan", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--context", "lots"], ["--context"]))
check("unknown gpus name", bad_input(["gpus", "nope-9000"], ["unknown GPU"]))
check("--weight-dtype presets", weight_presets)
check("unknown weight preset", bad_input(["plan", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--weight-dtype", "awq3"],
                                         ["--weight-dtype", "awq3", "awq gptq nf4 w8a8 fp8 mxfp4", "Q4_K_M", "bf16"]))
check("mxfp4 preset on a dense model", bad_input(["plan", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--weight-dtype",
                                                  "mxfp4"], ["--weight-dtype", "routed experts"]))
check("gpus", gpus)
check("custom devices", custom_device)
check("compare", compare)
check("sweep", sweep)
check("DeepSeek-V3 layout: TP within a node", deepseek_layout)
check("singular and plural", singular_plural)
finish()
