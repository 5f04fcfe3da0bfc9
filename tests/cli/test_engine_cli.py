#!/usr/bin/python3
"""kvplan engine: JSON keys and figures from the engines' rules (docs/engines.md), exit codes.
Run: /usr/bin/python3 test_engine_cli.py <path-to-kvplan>"""
import json
from _harness import check, run as harness_run, finish  # noqa: E402


def run(*args):
    p = harness_run(*args)
    return p.returncode, p.stdout, p.stderr


def engine_json(*args):
    rc, out, err = run("engine", *args, "--json")
    if rc != 0:
        return rc, None, err
    return rc, json.loads(out), err


GiB = 1 << 30

# vLLM, Llama-3.1-8B, 40 GiB: 40 GiB // (16 x 4,096) // 32 = 20,480 blocks; x 16 = 327,680 tokens;
# 20,480 / cdiv(131,072, 16) = 2.5
rc, j, err = engine_json("vllm", "meta-llama/Llama-3.1-8B", "--max-model-len", "131072", "--kv-cache-memory", "40GiB")
check("vllm rc", rc == 0, err)
if j:
    check("vllm num_blocks", j["num_blocks"] == 40 * GiB // (16 * 2 * 8 * 128 * 2) // 32, j.get("num_blocks"))
    check("vllm block_size", j["block_size"] == 16, j.get("block_size"))
    check("vllm kv_cache_tokens", j["kv_cache_tokens"] == 20480 * 16, j.get("kv_cache_tokens"))
    check("vllm max_concurrency", abs(j["max_concurrency"] - 20480 / 8192) < 1e-12, j.get("max_concurrency"))
    check("vllm log line", "GPU KV cache size: 327,680 tokens" in j["log_lines"], j.get("log_lines"))

# vLLM, DeepSeek-V3 (FlashMLA block 64): 40 GiB // (64 x 1,152) // 61 = 9,549 blocks -> 611,136 tokens
rc, j, err = engine_json("vllm", "deepseek-ai/DeepSeek-V3", "--kv-cache-memory", "40GiB")
check("dsv3 rc", rc == 0, err)
if j:
    check("dsv3 num_blocks", j["num_blocks"] == 40 * GiB // (64 * 576 * 2) // 61 and j["num_blocks"] == 9549, j.get("num_blocks"))
    check("dsv3 block_size", j["block_size"] == 64, j.get("block_size"))
    check("dsv3 kv_cache_tokens", j["kv_cache_tokens"] == 9549 * 64, j.get("kv_cache_tokens"))
    check("dsv3 concurrency", "Maximum concurrency for 163,840 tokens per request: 3.73x" in j["log_lines"], j.get("log_lines"))

# vLLM, Qwen3-Next: the 544-token attention block
rc, j, err = engine_json("vllm", "Qwen/Qwen3-Next-80B-A3B-Thinking", "--kv-cache-memory", "40GiB")
check("qwen3-next rc", rc == 0, err)
if j:
    check("qwen3-next block", j["attention_block_size"] == 16 * -(-1097728 // (16 * 2048)), j.get("attention_block_size"))
    check("qwen3-next blocks", j["num_blocks"] == 40 * GiB // (544 * 2048) // 12, j.get("num_blocks"))

# llama.cpp, Llama-3.1-8B -c 8192 (server default: 4 unified slots)
rc, j, err = engine_json("llama.cpp", "meta-llama/Llama-3.1-8B", "--ctx-size", "8192")
check("llama rc", rc == 0, err)
if j:
    check("llama cells", j["cells"] == 8192, j.get("cells"))
    check("llama k_bytes", j["k_bytes"] == 32 * 8192 * 1024 * 2, j.get("k_bytes"))
    check("llama v_bytes", j["v_bytes"] == 32 * 8192 * 1024 * 2, j.get("v_bytes"))
    check("llama kv_bytes", j["kv_bytes"] == 1024 * 2**20, j.get("kv_bytes"))
    check("llama state_bytes", j["state_bytes"] == 0, j.get("state_bytes"))
    check("llama log", j["log_lines"][0] == "llama_kv_cache: size = 1024.00 MiB (  8192 cells,  32 layers,  4/1 seqs), "
          "K (f16):  512.00 MiB, V (f16):  512.00 MiB", j.get("log_lines"))

# llama.cpp q4_0 with -np 3, not unified: 1,536 cells x 3 streams, rows of 1,024 / 32 x 18 = 576 B
rc, j, err = engine_json("llama.cpp", "meta-llama/Llama-3.1-8B", "-c", "4096", "--parallel", "3",
                         "--cache-type-k", "q4_0", "--cache-type-v", "q4_0")
check("llama q4 rc", rc == 0, err)
if j:
    check("llama q4 cells", j["cells"] == 1536 and j["n_stream"] == 3, (j.get("cells"), j.get("n_stream")))
    check("llama q4 bytes", j["kv_bytes"] == 2 * 32 * 1536 * 3 * 576, j.get("kv_bytes"))

# llama.cpp recurrent: mamba-2.8b, 1 sequence: (3 x 5,120 + 16 x 5,120) x 4 B x 64 layers
rc, j, err = engine_json("llama.cpp", "ArthurZ/mamba-2.8b", "--parallel", "1", "-c", "4096")
check("mamba rc", rc == 0, err)
if j:
    check("mamba state", j["state_bytes"] == 64 * (3 * 5120 + 16 * 5120) * 4, j.get("state_bytes"))

# Quantised V with flash attention off: exit 2, one line naming the flag
rc, out, err = run("engine", "llama.cpp", "meta-llama/Llama-3.1-8B", "--cache-type-v", "q8_0", "--flash-attn", "off", "--json")
check("quant V without FA exits 2", rc == 2 and out == "" and "--cache-type-v" in err and err.count("\n") == 1, (rc, err))

# A flag another engine reads is refused, never ignored: --ctx-size is llama.cpp's n_ctx, --tp is
# not a llama.cpp option, --max-model-len is vLLM's. Flags two engines read pass for both.
for eng, flag, named in (("vllm", ["--ctx-size", "4096"], "--ctx-size"), ("llama.cpp", ["--tp", "2"], "--tensor-parallel-size"),
                         ("sglang", ["--max-model-len", "4096"], "--max-model-len"), ("trtllm", ["--page-size", "64"], "--page-size"),
                         ("llama.cpp", ["--weights", "10GiB"], "--weights")):
    rc, out, err = run("engine", eng, "meta-llama/Llama-3.1-8B", *flag)
    check(f"engine {eng} refuses {flag[0]}", rc == 2 and out == "" and named in err and eng in err, (rc, out[:100], err))
for eng in ("sglang", "trtllm"):
    rc, out, err = run("engine", eng, "meta-llama/Llama-3.1-8B", "--kv-memory", "10GiB", "--enable-dp-attention")
    check(f"engine {eng} takes --kv-memory and --enable-dp-attention", rc == 0, err)

# SGLang with a fixed KV budget: 10 GiB // 131,072 = 81,920 tokens (page 1), +1 dummy row
rc, j, err = engine_json("sglang", "meta-llama/Llama-3.1-8B", "--kv-memory", "10GiB", "--context-length", "8192")
check("sglang rc", rc == 0, err)
if j:
    check("sglang tokens", j["max_total_num_tokens"] == 10 * GiB // 131072, j.get("max_total_num_tokens"))
    check("sglang rows", j["rows_allocated"] == 10 * GiB // 131072 + 1, j.get("rows_allocated"))

# TRT-LLM: 40 GiB // 131,072 = 327,680 tokens; // 32 = 10,240 blocks
rc, j, err = engine_json("trtllm", "meta-llama/Llama-3.1-8B", "--kv-memory", "40GiB", "--max-seq-len", "131072")
check("trtllm rc", rc == 0, err)
if j:
    check("trtllm tokens", j["max_tokens"] == 40 * GiB // 131072, j.get("max_tokens"))
    check("trtllm blocks", j["blocks"] == 40 * GiB // 131072 // 32, j.get("blocks"))

# Bad input: unknown engine, bad dtype, vLLM without any memory, Ollama on a config without the
# layer sizes a GGUF would give -> exit 2
for args, frag in [(["engine", "tgi", "meta-llama/Llama-3.1-8B"], "engine"),
                   (["engine", "ollama", "meta-llama/Llama-3.1-8B"], "layer_bytes"),
                   (["engine", "vllm", "meta-llama/Llama-3.1-8B", "--kv-cache-memory", "40GiB", "--kv-cache-dtype", "fp3"], "--kv-cache-dtype"),
                   (["engine", "vllm", "meta-llama/Llama-3.1-8B"], "--kv-cache-memory"),
                   (["engine", "vllm", "meta-llama/Llama-3.1-8B", "--kv-cache-memory", "lots"], "--kv-cache-memory")]:
    rc, out, err = run(*args)
    check(f"exit 2 for {args}", rc == 2 and frag in err and err.startswith("kvplan: "), (rc, err))

# -np is llama.cpp's slot count wherever kvplan reads it (llama-server's spelling): the same
# profile as --parallel, and as the launch command's -np.
rc_a, a, err_a = engine_json("llama.cpp", "meta-llama/Llama-3.1-8B", "-np", "4")
rc_b, b, _ = engine_json("llama.cpp", "meta-llama/Llama-3.1-8B", "--parallel", "4")
check("-np is --parallel", rc_a == 0 and a == b, err_a)
check("-np 4 slots", rc_a == 0 and a.get("n_seq_max", a.get("sequences")) == 4, str(a)[:400])

# Ollama from the engine verb, against real server logs (tests/data/engine_logs/ollama/README.md):
# the log's runner arguments and weights go in as flags, and kvplan's offload line must carry the
# log's own figures (HumanBytes2, one decimal), read here from the log file, never restated.
import os
import re
from _harness import SRC  # noqa: E402
LOGS = os.path.join(SRC, "tests", "data", "engine_logs", "ollama")
UNIT = {"GiB": 1 << 30, "MiB": 1 << 20, "KiB": 1 << 10, "B": 1}


def log_field(text, key):
    m = re.search(re.escape(key) + r'="([^"]*)"', text) or re.search(re.escape(key) + r"=(\S+)", text)
    return m and m[1]


def size_of(human):
    v, u = human.split()
    return int(float(v) * UNIT[u])


for log, model, layers, gpu_free, same_layers in (
        ("ollama_8098_llama3.2-3b_ctx2048x4_h100.log", "meta-llama/Llama-3.2-3B-Instruct", 28, "78.6GiB", True),
        ("ollama_9181_llama-70b_ctx64000_fa_4gpu.log", "meta-llama/Llama-3.1-70B", 80, "22GiB,22GiB,22GiB,22GiB", False),
        ("langflow_6669_qwen2.5-7b_ctx2048x4_cpu.log", "Qwen/Qwen2.5-7B-Instruct", 28, None, True)):
    text = open(os.path.join(LOGS, log)).read()
    ctx = int(re.search(r"--ctx-size (\d+)", text)[1])
    par = int(re.search(r"--parallel (\d+)", text)[1]) if "--parallel" in text else 1
    words = ["--num-ctx", str(ctx // par), "--num-parallel", str(par),
             "--layer-bytes", str(size_of(log_field(text, "memory.weights.repeating")) // layers),
             "--output-bytes", str(size_of(log_field(text, "memory.weights.nonrepeating")))]
    if "--flash-attn" in text:
        words.append("--flash-attention")
    if gpu_free:
        words += ["--gpu-free", gpu_free]
    rc, j, err = engine_json("ollama", model, *words)
    if not check(f"ollama {log}: runs", rc == 0, err):
        continue
    line = next(x for x in j["log_lines"] if "msg=offload" in x)
    for key in ("memory.required.kv", "memory.graph.full", "memory.graph.partial", "layers.model"):
        check(f"ollama {log}: {key} is the log's", log_field(line, key) == log_field(text, key),
              (log_field(line, key), log_field(text, key)))
    offload = int(log_field(line, "layers.offload"))
    check(f"ollama {log}: layers.offload", offload == int(log_field(text, "layers.offload")) if same_layers
          else offload <= int(log_field(text, "layers.offload")), (offload, log_field(text, "layers.offload")))
    check(f"ollama {log}: --ctx-size", f"--ctx-size {ctx}" in " ".join(j["runner_args"]) or str(ctx) in j["runner_args"],
          j["runner_args"])

finish()
