#!/usr/bin/python3
"""kvplan check on realistic launch commands across the four engines: verdicts and exit codes
(0 pass, 1 check failed, 2 bad input). Run: /usr/bin/python3 test_check_cli.py <path-to-kvplan>

Each expectation is reasoned from the engine rules and sizes, with wide margins, e.g. Llama-3.1-8B
is ~15 GiB of bf16 weights and 128 KiB of KV per token; Llama-3.1-70B is ~131 GiB of weights."""
import json
import os
import tempfile
from _harness import SRC, check, run as harness_run, finish  # noqa: E402


def run(*args):
    p = harness_run("check", *args)
    return p.returncode, p.stdout, p.stderr


CASES = [
    # (name, launch command, kvplan flags, expected exit, fragment of the JSON reason or None)
    # vLLM 8B on one H100: ~72 GiB budget - 15 GiB weights leaves ~50 GiB of KV -> >300k tokens, 10+ x 32k.
    ("vllm 8B H100 ok", "vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768",
     ["--gpu", "H100", "--require-concurrency", "8"], 0, None),
    # ...but not 100 sequences of 32k (that needs 100 x 4 GiB).
    ("vllm 8B H100 concurrency", "vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768",
     ["--gpu", "H100", "--require-concurrency", "100"], 1, "required concurrency 100"),
    # Fixed 2 GiB of KV cannot hold one 131,072-token request (16 GiB).
    ("vllm 8B 2GiB KV", "vllm serve meta-llama/Llama-3.1-8B --kv-cache-memory-bytes 2G", ["--gpu", "H100"], 1, "16.00 GiB KV cache is needed"),
    # 70B with TP 4 on 4 x H100: ~33 GiB of weights per GPU, ~35 GiB of KV per GPU.
    ("vllm 70B tp4", "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4 --max-model-len 32768",
     ["--gpu", "H100", "--gpus", "4", "--require-context", "32768"], 0, None),
    # The same command on 2 GPUs.
    ("vllm 70B tp4 on 2 gpus", "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4 --max-model-len 32768",
     ["--gpu", "H100", "--gpus", "2"], 1, "needs 4 GPUs"),
    # 70B on a single H100: weights alone exceed the 0.9 x 80 GB budget.
    ("vllm 70B 1 gpu", "vllm serve meta-llama/Llama-3.1-70B --max-model-len 8192", ["--gpu", "H100"], 1, "weights alone"),
    # DeepSeek-V3 (fp8 weights ~640 GiB) with TP 8 on H200-141GB: ~80 GiB weights per GPU, MLA KV replicated.
    ("vllm dsv3 tp8 h200", "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --max-model-len 32768",
     ["--gpu", "H200", "--gpus", "8", "--require-concurrency", "4"], 0, None),
    # SGLang 8B on H100: mem_fraction_static 0.835 -> ~50 GiB of KV -> ~400k tokens.
    ("sglang 8B ok", "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --context-length 32768 --port 30000",
     ["--gpu", "H100", "--require-context", "32768", "--require-concurrency", "4"], 0, None),
    # mem_fraction_static 0.2: 0.2 x ~79 GiB = ~15.8 GiB barely above the weights -> < 1 GiB of KV (< 8k tokens).
    ("sglang 8B tiny fraction", "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --mem-fraction-static 0.2 --context-length 32768",
     ["--gpu", "H100", "--require-context", "32768"], 1, "required context 32,768"),
    # llama-server with 4 slots of 2,048 (-c 8192 -np 4) on a 24 GB card: fits, but not a 4,096 context.
    ("llama-server 8B np4", "llama-server -m Meta-Llama-3.1-8B-Q8_0.gguf -c 8192 -np 4 -ngl 99 --port 8080",
     ["--gpu", "RTX4090", "--model", "meta-llama/Llama-3.1-8B", "--require-context", "4096"], 1, "required context 4,096"),
    ("llama-server 8B ok", "llama-server -m Meta-Llama-3.1-8B.gguf -c 16384 -np 2 -fa on -ctk q8_0 -ctv q8_0",
     ["--gpu", "RTX4090", "--model", "meta-llama/Llama-3.1-8B", "--require-context", "8192", "--require-concurrency", "2"], 0, None),
    # 128k context in f16 = 16 GiB of KV on top of ~15 GiB of weights: more than 24 GB.
    ("llama-server 8B 128k", "llama-server -m x.gguf -c 131072", ["--gpu", "RTX4090", "--model", "meta-llama/Llama-3.1-8B"], 1, "compute buffer need"),
    # TensorRT-LLM 8B on H100: (80 - ~17) x 0.9 GiB of KV -> ~450k tokens.
    ("trtllm 8B ok", "trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 32768 --max_batch_size 64",
     ["--gpu", "H100", "--require-concurrency", "8"], 0, None),
    ("trtllm 70B tp8", "trtllm-serve meta-llama/Llama-3.1-70B --tp_size 8 --max_seq_len 131072",
     ["--gpu", "H100", "--gpus", "8", "--require-context", "131072"], 0, None),
    # 70B on one A100-40GB: the weights exceed the device.
    ("trtllm 70B a100-40", "trtllm-serve meta-llama/Llama-3.1-70B --max_seq_len 8192", ["--gpu", "A100-40GB"], 1, "cannot start"),
]

for name, cmd, flags, want, frag in CASES:
    rc, out, err = run(cmd, *flags, "--format", "json")
    ok = rc == want
    reason = ""
    if rc in (0, 1):
        j = json.loads(out)
        reason = j["reason"]
        ok = ok and j["passed"] == (want == 0) and j["exit_code"] == want
        if frag:
            ok = ok and frag in reason
    check(name, ok, f"rc={rc} want={want} reason={reason!r} err={err.strip()!r}")

# Malformed commands and inputs: exit 2 with one clear line on stderr.
BAD = [
    (["vllm serv meta-llama/Llama-3.1-8B", "--gpu", "H100"], "vllm serve MODEL"),
    (["vllm serve meta-llama/Llama-3.1-8B --tensor-paralel-size 2", "--gpu", "H100"], "did you mean"),
    (["vllm serve meta-llama/Llama-3.1-8B --max-model-len", "--gpu", "H100"], "--max-model-len"),
    (["vllm serve meta-llama/Llama-3.1-8B --gpu-memory-utilization 1.5", "--gpu", "H100"], "--gpu-memory-utilization"),
    (["vllm serve meta-llama/Llama-3.1-8B '--max-model-len 4096", "--gpu", "H100"], "quote"),
    (["docker run vllm/vllm-openai", "--gpu", "H100"], "model"),
    (["docker run lmsysorg/sglang:latest", "--gpu", "H100"], "lmsysorg/sglang"),
    (["vllm serve meta-llama/Llama-3.1-8B --require-concurrency 100", "--gpu", "H100"], "belongs before `--`"),
    (["vllm serve meta-llama/Llama-3.1-8B --max-model-len 1.5K", "--gpu", "H100"], "1.5K"),
    (["llama-server -m x.gguf -c 8192", "--gpu", "RTX4090"], "--model"),
    (["vllm serve meta-llama/Llama-3.1-8B", "--gpu", "H900"], "H900"),
    (["vllm serve meta-llama/Llama-3.1-8B"], "--gpu"),
    (["vllm serve nobody/no-such-model", "--gpu", "H100"], "no-such-model"),
    (["vllm serve meta-llama/Llama-3.1-8B", "--gpu", "H100", "--format", "xml"], "--format"),
    (["llama-server -m x.gguf -ctv q4_0 -fa off", "--gpu", "H100", "--model", "meta-llama/Llama-3.1-8B"], "--cache-type-v"),
]
for args, frag in BAD:
    rc, out, err = run(*args)
    check(f"bad {args[0]!r}", rc == 2 and out == "" and frag in err and err.count("\n") == 1, (rc, out[:80], err))

# Formats: text / github / junit on a failing check.
cmd = "vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 --kv-cache-memory-bytes 10G"
rc, out, _ = run(cmd, "--gpu", "H100", "--require-concurrency", "3")
check("text", rc == 1 and out.startswith("FAIL: vllm") and "required concurrency 3" in out, out)
rc, out, _ = run(cmd, "--gpu", "H100", "--require-concurrency", "3", "--format", "github")
check("github", rc == 1 and "::error title=kvplan check%3A concurrency::" in out, out)
rc, out, _ = run(cmd, "--gpu", "H100", "--require-concurrency", "3", "--format", "junit")
check("junit", rc == 1 and out.startswith("<?xml") and "<failure message=" in out, out)
rc, out, _ = run(cmd, "--gpu", "H100", "--require-concurrency", "2", "--format", "github")
check("github pass", rc == 0 and "::notice" in out and "::error" not in out, out)

# Deployment files: the example in examples/ci and an inline YAML / JSON.
example = os.path.join(SRC, "examples", "ci", "deployment.yaml")
rc, out, err = run(example, "--format", "json")
check("examples/ci/deployment.yaml passes", rc == 0 and json.loads(out)["passed"], (rc, out[:300], err))
with tempfile.TemporaryDirectory() as d:
    y = os.path.join(d, "deploy.yaml")
    with open(y, "w") as f:
        f.write("name: chat-8b\nengine: vllm\nmodel: meta-llama/Llama-3.1-8B\ngpu: H100\ngpus: 1\n"
                "args:\n  --max-model-len: 32768\n  --kv-cache-memory-bytes: 10G\nrequire:\n  concurrency: 3\n")
    rc, out, err = run("--file", y, "--format", "json")
    check("yaml file fails concurrency 3 (2.50x)", rc == 1 and json.loads(out)["max_concurrency_ratio"] == 2.5
          and json.loads(out)["max_concurrency"] == 2, (rc, out[:200], err))
    bad = os.path.join(d, "bad.yaml")
    with open(bad, "w") as f:
        f.write("engine: vllm\nargs: [--max-model-len, 4096\n")
    rc, out, err = run(bad, "--gpu", "H100")
    check("bad yaml exits 2 with the line", rc == 2 and "bad.yaml (line" in err and "not valid YAML" in err, (rc, err))
    # Every outcome in the asked format, exit 2 kept.
    rc, out, err = run(bad, "--gpu", "H100", "--format", "json")
    check("bad yaml json", rc == 2 and "not valid YAML" in json.loads(out)["error"], (rc, out))
    rc, out, err = run(bad, "--gpu", "H100", "--format", "github")
    check("bad yaml github", rc == 2 and out.startswith("::error file=" + bad.replace(":", "%3A").replace(",", "%2C") + ",line="), (rc, out))
    rc, out, err = run(bad, "--gpu", "H100", "--format", "junit")
    import xml.dom.minidom
    try:
        doc = xml.dom.minidom.parseString(out)
        ok = rc == 2 and len(doc.getElementsByTagName("failure")) == 1
    except Exception as e:  # noqa: BLE001
        ok = False
        out += repr(e)
    check("bad yaml junit is well-formed with a failing testcase", ok, (rc, out))
    js = os.path.join(d, "deploy.json")
    with open(js, "w") as f:
        json.dump({"command": "llama-server -m m.gguf -c 8192", "model": "meta-llama/Llama-3.1-8B", "gpu": "RTX4090"}, f)
    rc, out, err = run(js, "--format", "json")
    check("json file", rc == 0 and json.loads(out)["engine"] == "llama.cpp", (rc, out[:200], err))

# A bad launch command in each format (the shell already split the words after --).
for fmt in ("json", "github", "junit"):
    rc, out, err = run("--gpu", "H100", "--format", fmt, "--", "vllm", "serve", "meta-llama/Llama-3.1-8B", "--tensor-paralel-size", "2")
    check(f"bad command {fmt}", rc == 2 and "--tensor-paralel-size" in out, (rc, out))
# Words after -- keep their spaces: a JSON flag value is one argument.
rc, out, err = run("--gpu", "H100", "--format", "json", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B",
                   "--kv-transfer-config", '{"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}')
check("json argument stays one word", rc == 3 and "--kv-transfer-config" in json.loads(out)["reason"], (rc, out, err))
# Invalid UTF-8 in a deployment name stays valid JSON and XML.
with tempfile.TemporaryDirectory() as d:
    y = os.path.join(d, "utf8.yaml")
    with open(y, "wb") as f:
        f.write(b"name: caf\xe9 \xff\ncommand: vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192\ngpu: H100\n")
    rc, out, err = run(y, "--format", "json")
    check("utf8 json", rc in (0, 2) and json.loads(out) is not None, (rc, out[:200], err))

finish()
