#!/usr/bin/env python3
"""Property test of `kvplan check` (issue 18, Done-when 3): random launch commands built from each
engine's flag table (libkvplan/src/deploy/flags_<engine>.cpp; every flag used here must be listed
there as a `memory` flag), over several bundled models and GPUs, with valid and boundary values.
Every PASS verdict is checked against an independent statement of the engine's start-up
validation written below (not kvplan's code), each rule citing the engine source it was read from.
A PASS that breaks a rule is a failure: the engine would refuse to start, or the stated
requirement cannot be met. FAIL verdicts and bad-input errors are not judged here (kvplan may be
more conservative than the engine).

The memory rules are lower bounds: weights counted from config.json's matrices only (no norms, no
biases) at the checkpoint's bytes per parameter and split evenly over tp x pp; KV as
2 x layers x kv_heads x head_dim x element bytes per token, split over pp, kv heads over tp but at
least one per rank (vLLM/SGLang replicate a KV head when tp > kv heads). Activations, CUDA graphs
and the CUDA context are left out, so the bound only catches verdicts that cannot be right.

Seeded and reproducible: the seed is printed; ctest runs seed 18, KVPLAN_PROPERTY_SEED=<n> runs or
replays another.
Usage: test_launch_property.py PATH_TO_KVPLAN. Prints 'N passed, N failed'."""
import concurrent.futures
import json
import os
import random
import re
import subprocess
from _harness import KVPLAN, SRC, check, finish, validate_output  # noqa: E402

SEED = int(os.environ.get("KVPLAN_PROPERTY_SEED", "18"))  # fixed in ctest; set it to explore
CASES_PER_ENGINE = 75
print(f"seed {SEED} (replay: KVPLAN_PROPERTY_SEED={SEED})")
rng = random.Random(SEED)


# --- the engines' flag tables: the generator uses only flags classified `memory` there ------------
def memory_flags(engine_file):
    with open(os.path.join(SRC, "libkvplan", "src", "deploy", engine_file)) as f:
        text = f.read()
    start = text.index('R"(') + 3
    table = text[start:text.index(')"', start)]
    flags = set()
    for line in table.splitlines():
        cols = [c.strip() for c in line.split("|")]
        if len(cols) >= 3 and cols[0].startswith("-") and cols[2] == "memory":
            flags.update(cols[0].split())
    return flags


TABLES = {"vllm": memory_flags("flags_vllm.cpp"), "sglang": memory_flags("flags_sglang.cpp"),
          "llama.cpp": memory_flags("flags_llamacpp.cpp"), "trtllm": memory_flags("flags_trtllm.cpp")}


# --- an independent reader of the bundled raw config.json files -----------------------------------
MODELS = ["meta-llama/Llama-3.1-8B", "Qwen/Qwen3-8B", "Qwen/Qwen3-0.6B", "meta-llama/Llama-3.2-1B-Instruct",
          "Qwen/Qwen2.5-7B-Instruct", "meta-llama/Llama-3.1-70B"]


def read_config(name):
    with open(os.path.join(SRC, "model_configs", name.replace("/", "__") + ".json")) as f:
        c = json.load(f)
    heads, kv, layers, hidden = c["num_attention_heads"], c["num_key_value_heads"], c["num_hidden_layers"], c["hidden_size"]
    hd = c.get("head_dim") or hidden // heads
    assert c["torch_dtype"] == "bfloat16" and not c.get("use_sliding_window") and "layer_types" not in c, name
    # Matrices only: q, k, v, o; gate, up, down; embeddings (and lm_head unless tied).
    per_layer = hidden * heads * hd + 2 * hidden * kv * hd + heads * hd * hidden + 3 * hidden * c["intermediate_size"]
    params = layers * per_layer + c["vocab_size"] * hidden * (1 if c.get("tie_word_embeddings") else 2)
    return {"heads": heads, "kv": kv, "layers": layers, "hd": hd, "params": params,
            "max_pos": c["max_position_embeddings"]}


CONFIGS = {m: read_config(m) for m in MODELS}

# nvidia-smi memory.total of each card, from data/gpus.json (its "memory_basis" cites the reading).
with open(os.path.join(SRC, "data", "gpus.json")) as f:
    GPU_BYTES = {g["name"]: g["memory_bytes"] for g in json.load(f)["accelerators"]}
GPUS = {"H100": "H100-SXM-80GB", "H200": "H200-141GB", "A100-40GB": "A100-40GB", "L40S": "L40S-48GB",
        "RTX4090": "RTX4090-24GB"}
for full in GPUS.values():
    assert full in GPU_BYTES, full


def kv_bytes_per_token_per_gpu(cfg, tp, pp, elem_bytes):
    return 2 * (cfg["layers"] / pp) * max(1.0, cfg["kv"] / tp) * cfg["hd"] * elem_bytes


# --- the engines' start-up validation, stated independently ----------------------------------------
def tp_rules(cfg, tp, kv_rule):
    """vLLM vllm/config/model.py ModelConfig.verify_with_parallel_config: "Total number of attention
    heads (..) must be divisible by tensor parallel size"; SGLang python/sglang/srt/layers/linear.py and
    TensorRT-LLM tensorrt_llm/_torch/modules/attention.py shard the heads the same way. KV heads
    (vllm/model_executor/layers/linear.py QKVParallelLinear, copied by SGLang's linear.py): kv heads
    divisible by tp when tp <= kv heads, else tp divisible by kv heads (a head replicated)."""
    errs = []
    if cfg["heads"] % tp:
        errs.append(f"{cfg['heads']} attention heads not divisible by tp {tp}")
    if kv_rule and (cfg["kv"] % tp if tp <= cfg["kv"] else tp % cfg["kv"]):
        errs.append(f"{cfg['kv']} KV heads and tp {tp} do not divide")
    return errs


def common_rules(case, cfg):
    """GPUs: the engine launches tp x pp x dp workers, one per GPU (vllm/config/parallel.py
    world_size_across_dp; sglang server_args tp_size x dp_size; tensorrt_llm/llmapi/llm_args.py
    world_size = tp x pp). Layers are split over pp ranks (vllm/distributed/utils.py get_pp_indices):
    pp <= layers. A required concurrency needs that many sequences admitted (vLLM --max-num-seqs,
    SGLang --max-running-requests, TensorRT-LLM --max_batch_size, llama.cpp -np slots)."""
    errs = []
    if case["gpus"] < case["tp"] * case["pp"] * case["dp"]:
        errs.append(f"{case['gpus']} GPUs for tp {case['tp']} x pp {case['pp']} x dp {case['dp']}")
    if case["pp"] > cfg["layers"]:
        errs.append(f"pp {case['pp']} > {cfg['layers']} layers")
    n = case["conc"]
    if n and case.get("max_seqs") is not None and n > case["max_seqs"] * case["dp"]:
        errs.append(f"concurrency {n} > {case['max_seqs']} sequences x dp {case['dp']}")
    return errs


def memory_rule(case, cfg, usable, elem_bytes, weight_bytes_per_param, trt_fraction=None):
    """vLLM vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory: the KV budget
    (gpu_memory_utilization x total - weights - ...) must hold one max_model_len sequence, else
    "To serve at least one request with the models's max seq len (..), (..) GiB KV cache is needed";
    SGLang model_runner.py profile_max_num_token ("Not enough memory. Please try to increase
    --mem-fraction-static") and TensorRT-LLM kv_cache_free_gpu_memory_fraction x (free after the
    weights) state the same bound. A required concurrency N at the served length needs N sequences."""
    tp, pp = case["tp"], case["pp"]
    weights = cfg["params"] * weight_bytes_per_param / (tp * pp)
    per_tok = kv_bytes_per_token_per_gpu(cfg, tp, pp, elem_bytes)
    length = case["ctx"]
    if case["req_ctx"]:
        length = max(length, case["req_ctx"]) if case["engine"] != "llama.cpp" else case["req_ctx"]
    seqs = max(1, case["conc"] or 1)
    per_seq = min(case["ctx"], case["req_ctx"]) if (case["conc"] and case["req_ctx"]) else case["ctx"]
    kv = max(per_tok * length, per_tok * per_seq * seqs)
    if trt_fraction is not None:
        # TensorRT-LLM does not refuse a max_seq_len the KV pool cannot hold: it lowers max_seq_len
        # to fit (tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator), so only what is required
        # must fit: the required context, and N sequences of it (of one token when none is given).
        need = case["req_ctx"] or 1
        kv = per_tok * need * seqs
        room = trt_fraction * (usable - weights)
        ok = weights < usable and kv <= room
        return [] if ok else [f"KV {kv / 2**30:.2f} GiB > {trt_fraction} x (memory - weights {weights / 2**30:.2f} GiB)"]
    if weights + kv > usable:
        return [f"weights {weights / 2**30:.2f} GiB + KV {kv / 2**30:.2f} GiB > usable {usable / 2**30:.2f} GiB"]
    return []


# --- generators --------------------------------------------------------------------------------------
def pick(*choices):
    return rng.choice(choices)


def base_case(engine):
    model = rng.choice(MODELS)
    cfg = CONFIGS[model]
    tp = pick(1, 1, 2, 2, 3, 4, 4, 7, 8, 16)
    # pp stays <= the layers of every model here: with pp > layers get_pp_indices (vllm/distributed/
    # utils.py, sglang python/sglang/srt/distributed/utils.py) gives stages no layer and no engine
    # refuses that explicitly, so it is no start-up rule; kvplan PASSes it (reported, issue 18).
    pp = pick(1, 1, 1, 2, 4, 8)
    dp = pick(1, 1, 1, 2)
    gpus = tp * pp * dp - pick(0, 0, 0, 0, 0, 1)
    mp = cfg["max_pos"]
    ctx = pick(512, 4096, 8192, 32768, 32768, mp, mp, mp - 1, mp + 1, 2 * mp, 131072)
    c = {"engine": engine, "model": model, "gpu": rng.choice(list(GPUS)), "tp": tp, "pp": pp, "dp": dp,
         "gpus": max(gpus, 0), "ctx": ctx, "conc": pick(None, None, 1, 2, 4, 16, 64, 512),
         "req_ctx": pick(None, None, None, 1024, ctx, ctx + 1), "valid": rng.random() < 0.5}
    if c["valid"]:  # half the cases lean valid, so every engine reaches PASS verdicts to judge
        c.update(tp=pick(1, 2, 4), pp=1, dp=1, ctx=pick(4096, 8192, min(32768, mp)), gpu=pick("H100", "H200"),
                 conc=pick(None, 1, 2, 4), req_ctx=pick(None, 1024))
        c["gpus"] = c["tp"]
    return c


def gen_vllm():
    c = base_case("vllm")
    bs = pick(None, None, 1, 8, 16, 32, 64, 128, 256, 7, 24, 512)
    util = pick(None, None, 0.5, 0.8, 0.9, 0.95, 1.0, 1.0000001, 0.0001, 0)
    if c["valid"]:
        bs, util = pick(None, 16, 32), pick(None, 0.9, 0.95)
    dtype = pick(None, "auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2")
    c["max_seqs"] = pick(None, None, 1, 4, 256)
    flags = [("--tensor-parallel-size", c["tp"]), ("--pipeline-parallel-size", c["pp"]), ("--data-parallel-size", c["dp"]),
             ("--max-model-len", c["ctx"]), ("--block-size", bs), ("--gpu-memory-utilization", util),
             ("--kv-cache-dtype", dtype), ("--max-num-seqs", c["max_seqs"])]
    c["cmd"] = f"vllm serve {c['model']} " + render(flags, TABLES["vllm"])
    c["bs"], c["util"], c["dtype"] = bs, util, dtype
    return c


def gen_sglang():
    c = base_case("sglang")
    frac = pick(None, None, 0.5, 0.8, 0.9, 0.95, 1.0, 1.5, 0)
    if c["valid"]:
        frac = pick(None, 0.85, 0.9)
    dtype = pick(None, "auto", "fp8_e5m2", "fp8_e4m3")
    c["max_seqs"] = pick(None, None, 1, 4, 256)
    flags = [("--tp-size", c["tp"]), ("--pp-size", c["pp"]), ("--dp-size", c["dp"]), ("--context-length", c["ctx"]),
             ("--mem-fraction-static", frac), ("--kv-cache-dtype", dtype), ("--max-running-requests", c["max_seqs"]),
             ("--page-size", pick(None, 1, 16, 64))]
    c["cmd"] = f"python -m sglang.launch_server --model-path {c['model']} " + render(flags, TABLES["sglang"])
    c["frac"], c["dtype"] = frac, dtype
    return c


LLAMA_TYPES = {"f16": 2.0, "q8_0": 34 / 32, "q4_0": 18 / 32}  # ggml block sizes: ggml/src/ggml-common.h


def gen_llamacpp():
    c = base_case("llama.cpp")
    c.update(tp=1, pp=1, dp=1, gpus=pick(1, 1, 2))  # llama-server: layer split over the visible GPUs
    np_ = pick(None, 1, 2, 4, 8)
    ctk, ctv = pick(None, "f16", "q8_0", "q4_0"), pick(None, "f16", "q8_0")
    c["max_seqs"] = np_ if np_ is not None else None
    flags = [("-c", c["ctx"]), ("-np", np_), ("-ctk", ctk), ("-ctv", ctv), ("-fa", "on" if ctv else pick(None, "on"))]
    c["cmd"] = "llama-server -m model.gguf -ngl 99 " + render(flags, TABLES["llama.cpp"])
    c["ctk"], c["ctv"], c["np"] = ctk, ctv, np_
    return c


def gen_trtllm():
    c = base_case("trtllm")
    c["dp"] = 1
    c["gpus"] = c["tp"] * c["pp"] - pick(0, 0, 0, 0, 1)
    frac = pick(None, None, 0.5, 0.9, 0.95, 1.0)
    c["max_seqs"] = pick(None, None, 1, 8, 256)
    flags = [("--tp_size", c["tp"]), ("--pp_size", c["pp"]), ("--max_seq_len", c["ctx"]),
             ("--max_batch_size", c["max_seqs"]), ("--kv_cache_free_gpu_memory_fraction", frac)]
    c["cmd"] = f"trtllm-serve {c['model']} " + render(flags, TABLES["trtllm"])
    c["frac"] = frac
    return c


def render(flags, table):
    out = []
    for flag, value in flags:
        if value is None:
            continue
        assert flag in table, f"{flag} is not a memory flag of the table"
        out += [flag, str(value)]
    return " ".join(out)


# --- the rules per engine ------------------------------------------------------------------------------
def violations(c):
    cfg = CONFIGS[c["model"]]
    mem = GPU_BYTES[GPUS[c["gpu"]]]
    errs = common_rules(c, cfg)
    if c["req_ctx"] and c["engine"] != "llama.cpp" and c["req_ctx"] > c["ctx"]:
        errs.append(f"required context {c['req_ctx']} > served length {c['ctx']}")
    if c["engine"] == "vllm":
        errs += tp_rules(cfg, c["tp"], kv_rule=True)
        # vllm/config/cache.py: BlockSize = Literal[1, 8, 16, 32, 64, 128, 256];
        # gpu_memory_utilization = Field(gt=0, le=1).
        if c["bs"] is not None and c["bs"] not in (1, 8, 16, 32, 64, 128, 256):
            errs.append(f"block size {c['bs']} not allowed")
        util = 0.9 if c["util"] is None else c["util"]
        if not 0 < util <= 1:
            errs.append(f"gpu-memory-utilization {util} not in (0, 1]")
        # vllm/config/model.py _get_and_verify_max_len: a max_model_len above the derived
        # max_position_embeddings is refused unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (not set here).
        if c["ctx"] > cfg["max_pos"]:
            errs.append(f"max-model-len {c['ctx']} > max_position_embeddings {cfg['max_pos']}")
        elem = 1 if (c["dtype"] or "auto").startswith("fp8") else 2
        errs += memory_rule(c, cfg, util * mem, elem, 2)
    elif c["engine"] == "sglang":
        errs += tp_rules(cfg, c["tp"], kv_rule=True)
        # python/sglang/srt/configs/model_config.py: a context_length above the derived one is a
        # ValueError unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN is set.
        if c["ctx"] > cfg["max_pos"]:
            errs.append(f"context-length {c['ctx']} > max_position_embeddings {cfg['max_pos']}")
        frac = 1.0 if c["frac"] is None else c["frac"]
        if not 0 < frac <= 1:
            errs.append(f"mem-fraction-static {frac} not in (0, 1]")
        elem = 1 if (c["dtype"] or "auto").startswith("fp8") else 2
        errs += memory_rule(c, cfg, min(frac, 1.0) * mem, elem, 2)
    elif c["engine"] == "llama.cpp":
        # tools/server/server.cpp: each of the -np slots gets n_ctx / n_parallel cells unless
        # --kv-unified; a required context above the whole -c cannot be served either way.
        # llama.cpp pads n_ctx up to a multiple of 256 at most (src/llama-context.cpp, GGML_PAD of
        # n_ctx by the KV cache's padding), so -c 40961 serves 41,216: the rule takes the largest pad.
        padded = -(-c["ctx"] // 256) * 256
        if c["req_ctx"] and c["req_ctx"] > padded:
            errs.append(f"required context {c['req_ctx']} > -c {c['ctx']} padded to {padded}")
        # The weights: a GGUF of unknown type counted at 2 bits per parameter (below every
        # llama.cpp quantization kvplan could assume), the KV at the larger of -ctk's/-ctv's halves.
        elem = (LLAMA_TYPES[c["ctk"] or "f16"] + LLAMA_TYPES[c["ctv"] or "f16"]) / 2
        lc = dict(c, req_ctx=None, conc=None)  # the -c cells are allocated whatever is required
        errs += memory_rule(lc, cfg, mem * max(1, c["gpus"]), elem, 0.25)
    else:
        errs += tp_rules(cfg, c["tp"], kv_rule=False)
        frac = 1.0 if c["frac"] is None else c["frac"]
        # tensorrt_llm/llmapi/llm_args.py KvCacheConfig.free_gpu_memory_fraction (default 0.9):
        # the share of the memory free after the weights given to KV.
        errs += memory_rule(c, cfg, mem, 2, 2, trt_fraction=frac)
    return errs


def run(c):
    args = [KVPLAN, "check", c["cmd"], "--gpu", c["gpu"], "--gpus", str(c["gpus"]), "--format", "json"]
    if c["engine"] == "llama.cpp":
        args += ["--model", c["model"]]
    if c["conc"]:
        args += ["--require-concurrency", str(c["conc"])]
    if c["req_ctx"]:
        args += ["--require-context", str(c["req_ctx"])]
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    return c, args, p


cases = []
for gen in (gen_vllm, gen_sglang, gen_llamacpp, gen_trtllm):
    cases += [gen() for _ in range(CASES_PER_ENGINE)]

counts = {}
with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
    for c, args, p in pool.map(run, cases):
        key = (c["engine"], p.returncode)
        counts[key] = counts.get(key, 0) + 1
        replay = " ".join(repr(a) if " " in a else a for a in args[1:])
        validate_output(args[1:], p.stdout, p.returncode)
        if p.returncode == 3:  # UNCERTAIN (docs/engines.md "The memory budget"): not a PASS
            check("exit 3 is UNCERTAIN", json.loads(p.stdout).get("verdict") == "UNCERTAIN", f"{replay}: {p.stdout[:200]!r} {p.stderr!r}")
            continue
        if p.returncode not in (0, 1, 2):
            check("exit code", False, f"rc={p.returncode} {replay} {p.stderr.strip()!r}")
            continue
        if p.returncode == 2:
            check("bad input is one line", p.stderr.count("\n") == 1 and p.stderr.startswith("kvplan: ")
                  or p.stdout.strip().startswith("{"), f"{replay}: {p.stderr!r}")
            continue
        j = json.loads(p.stdout)
        check("verdict matches exit", j["passed"] == (p.returncode == 0), replay)
        if p.returncode == 0:
            errs = violations(c)
            check("PASS obeys the engine's start-up validation", not errs, f"{replay}: {'; '.join(errs)}")

print("outcomes:", ", ".join(f"{e} rc{rc}={n}" for (e, rc), n in sorted(counts.items())))
# The generator must reach every verdict for every engine, or the property says nothing.
for engine in ("vllm", "sglang", "llama.cpp", "trtllm"):
    check(f"{engine} reached PASS", counts.get((engine, 0), 0) >= 5, counts)
    check(f"{engine} reached FAIL", counts.get((engine, 1), 0) >= 5, counts)
finish()
