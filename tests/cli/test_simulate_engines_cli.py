"""CLI contract for kvplan simulate --engine sglang / llama.cpp / trtllm (docs/simulate.md, /shared/spec/interface.md).

Run as: /usr/bin/python3 test_simulate_engines_cli.py <path-to-kvplan>. Every JSON output is validated
against docs/schema/simulate.schema.json by the harness; the engine's pool must be the one
`kvplan check` reports for the same launch command (one source of truth).
"""
import json
import tempfile
from _harness import check_fn as check, js, run, finish  # noqa: E402

MODEL = "meta-llama/Llama-3.1-8B"
KEYS = ("num_blocks", "block_size", "peak_blocks", "peak_running", "preemptions")


def write(text, suffix):
    f = tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False)
    f.write(text)
    f.close()
    return f.name


def trace(n, prompt=500, output=20, gap=0.1):
    return write("".join(json.dumps({"arrival_s": i * gap, "prompt_tokens": prompt, "output_tokens": output}) + "\n"
                         for i in range(n)), ".jsonl")


def contract(j, engine):
    assert j["schema"] == "kvplan.simulate/1"
    assert j["engine"] == engine, j["engine"]
    for k in KEYS:
        assert isinstance(j[k], int), k
    for k in ("ttft_s", "tpot_s", "e2e_s"):
        for p in ("p50", "p90", "p99"):
            assert j[k][p] > 0, (k, p)
        assert j[k]["p50"] <= j[k]["p90"] <= j[k]["p99"]
    assert j["peak_blocks"] <= j["num_blocks"]


def sglang_json_contract():
    j = js("simulate", MODEL, "--gpu", "H100", "--engine", "sglang", "--context-length", "8192",
           "--workload", "rate=5 requests=200 prompt=uniform:100:1000 output=fixed:50 system_prompt=300 seed=1")
    contract(j, "sglang")
    c = json.loads(run("check", "--gpu", "H100", "--format", "json", "--", "python3", "-m", "sglang.launch_server",
                       "--model-path", MODEL, "--context-length", "8192").stdout)
    assert j["num_blocks"] == c["engine_result"]["max_total_num_tokens"]  # page_size 1: pages = tokens
    assert j["block_size"] == 1
    assert j["max_model_len"] == 8192
    assert j["finished"] == 200
    assert j["prefix_cache"]["hit_tokens"] > 0  # the system prompt


def sglang_launch_form_matches():
    t = trace(40)
    r = run("simulate", "--gpu", "H100", "--trace", t, "--json", "--", "python3", "-m", "sglang.launch_server",
            "--model-path", MODEL, "--context-length", "8192", "--page-size", "16", "--max-running-requests", "8")
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    b = js("simulate", MODEL, "--gpu", "H100", "--engine", "sglang", "--trace", t, "--context-length", "8192",
           "--page-size", "16", "--max-running-requests", "8")
    contract(a, "sglang")
    assert a["num_blocks"] == b["num_blocks"] and a["block_size"] == b["block_size"] == 16
    assert a["ttft_s"] == b["ttft_s"]
    assert a["max_num_seqs"] == 8 and a["peak_running"] <= 8


def sglang_flags_of_other_engines_refused():
    t = trace(2)
    r = run("simulate", MODEL, "--gpu", "H100", "--engine", "sglang", "--max-model-len", "4096", "--trace", t)
    assert r.returncode == 2 and "--max-model-len" in r.stderr and r.stdout == ""
    r = run("simulate", MODEL, "--gpu", "H100", "--context-length", "4096", "--trace", t)
    assert r.returncode == 2 and "--context-length" in r.stderr and "sglang" in r.stderr
    r = run("simulate", MODEL, "--gpu", "H100", "--engine", "trtllm", "--context-length", "4096", "--trace", t)
    assert r.returncode == 2 and "--context-length" in r.stderr and "sglang" in r.stderr


def llamacpp_json_contract():
    j = js("simulate", MODEL, "--gpu", "H100", "--engine", "llama.cpp", "--ctx-size", "16384", "--parallel", "4",
           "--workload", "rate=2 requests=60 prompt=uniform:100:1000 output=fixed:50 system_prompt=300 seed=1")
    contract(j, "llama.cpp")
    e = js("engine", "llama.cpp", MODEL, "--ctx-size", "16384", "--parallel", "4")
    assert j["num_blocks"] == e["cells"] * 4  # cells per slot stream x 4 streams
    assert j["block_size"] == 1 and j["max_model_len"] == 4096 and j["max_num_seqs"] == 4
    assert j["finished"] == 60 and j["preemptions"] == 0
    assert j["prefix_cache"]["hit_tokens"] > 0  # the system prompt, reused from the slots' caches


def llamacpp_slots_reach_the_concurrency():
    j = js("simulate", MODEL, "--gpu", "H100", "--engine", "llama.cpp", "--ctx-size", "8192", "--parallel", "2",
           "--trace", trace(6, prompt=1000, output=200, gap=0))
    assert j["peak_running"] == 2 and j["engine_max_concurrency"] == 2 and j["finished"] == 6


def llamacpp_launch_form_and_limits():
    t = trace(10)
    r = run("simulate", "--gpu", "H100", "--trace", t, "--json", "--model", MODEL, "--",
            "llama-server", "-m", "x.gguf", "-c", "8192", "-np", "2")
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    b = js("simulate", MODEL, "--gpu", "H100", "--engine", "llama.cpp", "--trace", t, "--ctx-size", "8192", "--parallel", "2")
    contract(a, "llama.cpp")
    assert a["num_blocks"] == b["num_blocks"] and a["ttft_s"] == b["ttft_s"]
    j = js("simulate", MODEL, "--gpu", "H100", "--engine", "llama.cpp", "--ctx-size", "8192", "--parallel", "2",
           "--trace", trace(3, prompt=5000))
    assert j["rejected"] == 3 and j["finished"] == 0  # 5,000 >= the 4,096-token slot
    r = run("simulate", MODEL, "--gpu", "H100", "--engine", "llama.cpp", "--context-shift", "--trace", t)
    assert r.returncode == 2 and "--context-shift" in r.stderr
    r = run("simulate", MODEL, "--gpu", "H100", "--engine", "llama.cpp", "--kv-cache-dtype", "fp8", "--trace", t)
    assert r.returncode == 2 and "--kv-cache-dtype" in r.stderr


def trtllm_json_contract_and_pool_is_checks():
    j = js("simulate", MODEL, "--gpu", "H100", "--engine", "trtllm", "--max_seq_len", "8192", "--max_batch_size", "64",
           "--workload", "rate=5 requests=200 prompt=uniform:100:1000 output=fixed:50 system_prompt=300 seed=1")
    contract(j, "trtllm")
    c = json.loads(run("check", "--gpu", "H100", "--format", "json", "--", "trtllm-serve", MODEL,
                       "--max_seq_len", "8192", "--max_batch_size", "64").stdout)
    assert j["num_blocks"] == c["engine_result"]["blocks"]
    assert j["block_size"] == 32 and j["max_model_len"] == 8192
    assert j["max_num_seqs"] == 64 and j["max_num_batched_tokens"] == 8192 and j["peak_running"] <= 64
    assert j["finished"] == 200 and j["preemptions"] == 0  # GUARANTEED_NO_EVICT never pauses


def trtllm_launch_form_and_policy():
    t = trace(40)
    y = write("kv_cache_config:\n  tokens_per_block: 64\nscheduler_config:\n  capacity_scheduler_policy: MAX_UTILIZATION\n",
              ".yaml")
    r = run("simulate", "--gpu", "H100", "--trace", t, "--json", "--", "trtllm-serve", MODEL, "--max_seq_len", "8192",
            "--extra_llm_api_options", y)
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    b = js("simulate", MODEL, "--gpu", "H100", "--engine", "trtllm", "--trace", t, "--max_seq_len", "8192",
           "--extra_llm_api_options", y)
    contract(a, "trtllm")
    assert a["block_size"] == 64 and a["num_blocks"] == b["num_blocks"] and a["ttft_s"] == b["ttft_s"]
    assert any("MAX_UTILIZATION" in n for n in a["notes"])
    bad = write("scheduler_config:\n  capacity_scheduler_policy: STATIC_BATCH\n", ".yaml")
    r = run("simulate", MODEL, "--gpu", "H100", "--engine", "trtllm", "--extra_llm_api_options", bad, "--trace", t)
    assert r.returncode == 2 and "capacity_scheduler_policy" in r.stderr
    r = run("simulate", MODEL, "--gpu", "H100", "--engine", "trtllm", "--kv-cache-dtype", "fp8", "--trace", t)
    assert r.returncode == 2 and "--kv-cache-dtype" in r.stderr
    # Attention DP: one scheduler per rank, not simulated (issue 30); check still sizes it.
    dp = write("enable_attention_dp: true\n", ".yaml")
    r = run("simulate", "--gpu", "H100", "--trace", t, "--", "trtllm-serve", MODEL, "--tp_size", "2", "--max_seq_len", "8192",
            "--extra_llm_api_options", dp)
    assert r.returncode == 2 and "enable_attention_dp" in r.stderr and r.stdout == "", r.stderr
    c = run("check", "--gpu", "H100", "--", "trtllm-serve", MODEL, "--tp_size", "2", "--max_seq_len", "8192",
            "--extra_llm_api_options", dp)
    assert c.returncode in (0, 1, 3) and "enable_attention_dp" not in c.stderr, c.stdout + c.stderr


for name, fn in list(globals().items()):
    if callable(fn) and name not in ("run", "js", "check", "write", "trace", "contract") and fn.__module__ == "__main__" \
            and not name.startswith("_"):
        check(name, fn)
finish()
