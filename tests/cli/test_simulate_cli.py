"""CLI contract for kvplan simulate (docs/simulate.md, /shared/spec/interface.md).

Run as: /usr/bin/python3 test_simulate_cli.py <path-to-kvplan>. The block count must be the one
`kvplan check` reports for the same vllm serve command (one source of truth); the concurrency
figure is derived by hand from it.
"""
import json
import tempfile
from _harness import check_fn as check, js, run, finish  # noqa: E402

MODEL = "meta-llama/Llama-3.1-8B"


def write(text, suffix):
    f = tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False)
    f.write(text)
    f.close()
    return f.name


def engine_blocks():
    r = run("check", "--gpu", "H100", "--format", "json", "--", "vllm", "serve", MODEL, "--max-model-len", "4096")
    return json.loads(r.stdout)["engine_result"]["num_blocks"]


def json_contract():
    j = js("simulate", MODEL, "--gpu", "H100", "--max-model-len", "4096",
           "--workload", "rate=5 requests=200 prompt=uniform:100:1000 output=fixed:50 seed=1")
    assert j["schema"] == "kvplan.simulate/1"
    for k in ("num_blocks", "block_size", "peak_blocks", "peak_running", "preemptions"):
        assert isinstance(j[k], int), k
    for k in ("ttft_s", "tpot_s", "e2e_s"):
        for p in ("p50", "p90", "p99"):
            assert j[k][p] > 0, (k, p)
        assert j[k]["p50"] <= j[k]["p90"] <= j[k]["p99"]
    assert j["num_blocks"] == engine_blocks()
    assert j["block_size"] == 16
    assert j["peak_blocks"] <= j["num_blocks"] - 1
    assert j["finished"] == 200


def launch_form_matches():
    trace = write("".join(json.dumps({"arrival_s": i * 0.1, "prompt_tokens": 500, "output_tokens": 20}) + "\n"
                          for i in range(50)), ".jsonl")
    r = run("simulate", "--gpu", "H100", "--trace", trace, "--json", "--", "vllm", "serve", MODEL, "--max-model-len", "4096")
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    b = js("simulate", MODEL, "--gpu", "H100", "--trace", trace, "--max-model-len", "4096")
    assert a["num_blocks"] == b["num_blocks"] == engine_blocks()
    assert a["ttft_s"] == b["ttft_s"]
    assert a["max_num_seqs"] == 1024  # vllm serve's default on an 80 GB H100


def flags_read_as_check_reads_them():
    # Both forms are read by the check layer (read_vllm_launch): --max-num-seqs reaches check's
    # budget (its sampler term) and the scheduler, prefix caching off reaches the allocator, and the
    # block count is the one `kvplan check` reports for the same command.
    trace = write("".join(json.dumps({"arrival_s": i * 0.1, "prompt_tokens": 500, "output_tokens": 20}) + "\n"
                          for i in range(20)), ".jsonl")
    flags = ["--max-model-len", "4096", "--max-num-seqs", "64", "--no-enable-prefix-caching"]
    r = run("check", "--gpu", "H100", "--format", "json", "--", "vllm", "serve", MODEL, *flags)
    blocks = json.loads(r.stdout)["engine_result"]["num_blocks"]
    a = js("simulate", MODEL, "--gpu", "H100", "--trace", trace, *flags)
    r = run("simulate", "--gpu", "H100", "--trace", trace, "--json", "--", "vllm", "serve", MODEL, *flags)
    assert r.returncode == 0, r.stderr
    b = json.loads(r.stdout)
    for j in (a, b):
        assert j["num_blocks"] == blocks, (j["num_blocks"], blocks)
        assert j["max_num_seqs"] == 64
        assert j["prefix_caching"] is False
    assert a["ttft_s"] == b["ttft_s"]


def concurrency_reaches_engine_figure():
    # 300 requests of 4095 prompt tokens at once, a 20 GiB cache: one block of 16 tokens is
    # 32 layers x 8 heads x 128 x 2 (K, V) x 2 B x 16 = 2 MiB, so 10,240 blocks; each request
    # holds cdiv(4095, 16) = 256 and block 0 is vLLM's null block: floor(10,239 / 256) = 39 run.
    trace = write("".join(json.dumps({"arrival_s": 0, "prompt_tokens": 4095, "output_tokens": 1}) + "\n"
                          for _ in range(300)), ".jsonl")
    j = js("simulate", MODEL, "--gpu", "H100", "--max-model-len", "4096", "--max-num-batched-tokens", "2000000",
           "--kv-cache-memory", "20GiB", "--trace", trace)
    assert j["num_blocks"] == 10240, j["num_blocks"]
    assert j["peak_running"] == 39, j["peak_running"]
    assert j["engine_max_concurrency"] == 40.0  # vLLM's figure counts the null block
    assert j["finished"] == 300 and j["preemptions"] == 0


def full_sequence_admission():
    # vLLM's scheduler_reserve_full_isl (default True): a waiting request is admitted only when
    # its whole prompt's blocks are free. A 1 GiB cache is 1 GiB / (32 x 8 x 128 x 2 x 2 B x 16)
    # = 512 blocks, 511 usable; a 3000-token prompt needs cdiv(3000, 16) = 188, so at most two are
    # admitted (376 <= 511 < 564) and each grows to cdiv(3050, 16) = 191 blocks: 382 at the peak,
    # no preemption. With --no-scheduler-reserve-full-isl a third is admitted on its first
    # 512-token chunk and the cache runs out.
    trace = write("".join(json.dumps({"arrival_s": 0, "prompt_tokens": 3000, "output_tokens": 50}) + "\n"
                          for _ in range(20)), ".jsonl")
    flags = ["--gpu", "H100", "--max-model-len", "4096", "--max-num-batched-tokens", "512",
             "--kv-cache-memory", "1GiB", "--trace", trace]
    on = js("simulate", MODEL, *flags)
    assert on["num_blocks"] == 512, on["num_blocks"]
    assert on["peak_running"] == 2 and on["peak_blocks"] == 382 and on["preemptions"] == 0, on
    off = js("simulate", MODEL, *flags, "--no-scheduler-reserve-full-isl")
    assert off["peak_running"] > 2 and off["preemptions"] > 0, off
    assert any("first chunk" in n for n in off["notes"]) and not any("first chunk" in n for n in on["notes"])
    r = run("simulate", "--gpu", "H100", "--trace", trace, "--json", "--", "vllm", "serve", MODEL, "--max-model-len",
            "4096", "--max-num-batched-tokens", "512", "--kv-cache-memory-bytes", str(2**30),
            "--no-scheduler-reserve-full-isl")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["preemptions"] == off["preemptions"]


def priority_scheduling():
    # One slot (--max-num-seqs 1): a runs first, then b (priority 5, 100 tokens out) and c
    # (priority 0, 2 tokens out). FCFS serves b first; --scheduling-policy priority serves c first,
    # in both the MODEL form and the launch-command form (the same reading: read_vllm_launch).
    rows = [{"arrival_s": 0, "prompt_tokens": 500, "output_tokens": 50},
            {"arrival_s": 0.001, "prompt_tokens": 500, "output_tokens": 100, "priority": 5},
            {"arrival_s": 0.002, "prompt_tokens": 500, "output_tokens": 2}]
    trace = write("".join(json.dumps(r) + "\n" for r in rows), ".jsonl")
    flags = ["--gpu", "H100", "--max-model-len", "4096", "--max-num-seqs", "1", "--trace", trace]
    fcfs = js("simulate", MODEL, *flags)
    prio = js("simulate", MODEL, *flags, "--scheduling-policy", "priority")
    assert prio["ttft_s"]["mean"] < fcfs["ttft_s"]["mean"], (prio["ttft_s"], fcfs["ttft_s"])
    assert any("FCFS ignores" in n for n in fcfs["notes"])
    r = run("simulate", "--gpu", "H100", "--trace", trace, "--json", "--", "vllm", "serve", MODEL, "--max-model-len",
            "4096", "--max-num-seqs", "1", "--scheduling-policy", "priority")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["ttft_s"] == prio["ttft_s"]
    r = run("simulate", MODEL, *flags, "--scheduling-policy", "lifo")
    assert r.returncode == 2 and "--scheduling-policy" in r.stderr and "fcfs or priority" in r.stderr, r.stderr
    r = run("simulate", MODEL, "--gpu", "H100", "--engine", "sglang", "--trace", trace, "--scheduling-policy", "priority")
    assert r.returncode == 2 and "--scheduling-policy" in r.stderr, r.stderr


def csv_and_text():
    out = tempfile.mktemp(suffix=".csv")
    r = run("simulate", MODEL, "--gpu", "H100", "--max-model-len", "4096", "--workload", "requests=20 rate=2", "--csv", out)
    assert r.returncode == 0, r.stderr
    assert "TTFT" in r.stdout and "estimates of the calibrated step model" in r.stdout, r.stdout
    lines = open(out).read().splitlines()
    assert lines[0].startswith("step,start_s,duration_s,running,waiting")
    assert len(lines) > 20


def azure_and_burstgpt():
    az = write("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n"
               "2023-11-16 18:15:50.9951690,396,109\n", ".csv")
    j = js("simulate", MODEL, "--gpu", "H100", "--max-model-len", "4096", "--trace", az)
    assert j["finished"] == 2 and j["output_tokens"] == 153
    bg = write("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
               "5,ChatGPT,472,18,490,Conversation log\n45,ChatGPT,1087,230,1317,Conversation log\n", ".csv")
    j = js("simulate", MODEL, "--gpu", "H100", "--max-model-len", "4096", "--trace", bg)
    assert j["finished"] == 2 and j["prompt_tokens"] == 472 + 1087


def find_max_rate_and_price():
    j = js("simulate", MODEL, "--gpu", "H100", "--max-model-len", "4096", "--find", "max-rate",
           "--workload", "requests=300 prompt=fixed:1000 output=fixed:100 seed=2", "--slo-ttft", "0.5",
           "--price", "2.5", "--target-rate", "100")
    assert j["max_rate"] > 0
    assert j["at_max_rate"]["ttft_s"]["p90"] <= 0.5
    assert j["replicas_for_target"] >= 1
    assert j["cost_per_million_output_tokens"] > 0


def custom_device():
    # Issue 30: simulate takes plan's custom-device options. One request on an H100 whose catalog
    # bandwidth is replaced: each decode step is the calibrated step (docs/speed.md) on the new
    # figure, from the step's own bytes (the CSV's weight_bytes + kv_bytes; memory-bound at batch 1).
    import os
    from _harness import SRC
    cal = json.load(open(os.path.join(SRC, "data", "step_time.json")))
    out = tempfile.mktemp(suffix=".csv")
    r = run("simulate", MODEL, "--gpu", "H100", "--gpu-bandwidth", "6.7e12", "--max-model-len", "4096",
            "--workload", "requests=1 prompt=fixed:100 output=fixed:4 seed=1", "--csv", out)
    assert r.returncode == 0, r.stderr
    rows = [dict(zip(lines[0].split(","), l.split(","))) for lines in [open(out).read().splitlines()] for l in lines[1:]]
    decode = [x for x in rows if x["prefill_tokens"] == "0"]
    assert len(decode) == 3, rows
    fixed = cal["step_overhead_s"] + 32 * cal["layer_overhead_s"] + cal["token_overhead_s"] + cal["seq_overhead_s"]
    for x in decode:
        want = fixed + (float(x["weight_bytes"]) + float(x["kv_bytes"])) / (cal["bandwidth_fraction"] * 6.7e12)
        assert abs(float(x["duration_s"]) / want - 1) < 1e-6, (x["duration_s"], want)
    # A --gpu-file with the catalog's H100 figures under another name times steps as --gpu H100 does
    # (its memory is taken as given: check deducts no driver reservation from a given figure, so
    # the pool is larger; 20 requests never fill either).
    h100 = js("gpus", "H100")
    h100 = h100["gpus"][0] if "gpus" in h100 else h100
    card = {k: h100[k] for k in ("memory_bytes", "bandwidth_bytes_per_s", "bf16_flops", "fp8_flops")}
    card["name"] = "Card"
    f = write(json.dumps(card), ".json")
    a = js("simulate", MODEL, "--gpu-file", f, "--max-model-len", "4096", "--workload", "requests=20 rate=5 seed=2")
    b = js("simulate", MODEL, "--gpu", "H100", "--max-model-len", "4096", "--workload", "requests=20 rate=5 seed=2")
    assert a["gpu"] == "Card" and a["num_blocks"] > b["num_blocks"] > a["peak_blocks"] == b["peak_blocks"], (a, b)
    assert a["ttft_s"] == b["ttft_s"] and a["tpot_s"] == b["tpot_s"], (a["ttft_s"], b["ttft_s"])
    # Memory alone cannot time a step: the error names the missing figure.
    r = run("simulate", MODEL, "--gpu-memory", "80GB", "--max-model-len", "4096", "--workload", "requests=1")
    assert r.returncode == 2 and "bandwidth" in r.stderr and r.stdout == "", r.stderr


def bad_input():
    r = run("simulate", MODEL, "--gpu", "H100", "--workload", "rate=fast")
    assert r.returncode == 2 and "workload rate" in r.stderr and r.stdout == ""
    r = run("simulate", MODEL, "--gpu", "H100")
    assert r.returncode == 2 and "--trace" in r.stderr
    r = run("simulate", MODEL, "--gpu", "H100", "--trace", "/nonexistent.jsonl")
    assert r.returncode == 2 and "/nonexistent.jsonl" in r.stderr
    r = run("simulate", "--gpu", "H100", "--engine", "vllm", "--workload", "requests=1", "--", "llama-server", "-m", "x.gguf")
    assert r.returncode == 2 and "vllm" in r.stderr
    r = run("simulate", MODEL, "--gpu", "H100", "--max-model-len", "131072", "--gpu-memory-utilization", "0.3",
            "--workload", "requests=1")
    assert r.returncode == 2 and "vLLM" in r.stderr


for name, fn in list(globals().items()):
    if callable(fn) and name not in ("run", "js", "check", "write", "engine_blocks") and fn.__module__ == "__main__" \
            and not name.startswith("_"):
        check(name, fn)
finish()
