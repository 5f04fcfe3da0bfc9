#!/usr/bin/python3
"""kvplan check on real-world-shaped manifests and launch scripts (tests/data/deployments/, each file
names the public example its shape follows): every engine container found, with the right engine,
model, GPU count (nvidia.com/gpu / amd.com/gpu limits, compose reservations, LWS groups,
CUDA_VISIBLE_DEVICES), GPU model (nvidia.com/gpu.product selectors), parallelism, and the line the
report points at. Run: /usr/bin/python3 test_check_manifests.py <path-to-kvplan>"""
import json
import os
import subprocess
import sys

KVPLAN = sys.argv[1]
SRC = os.environ.get("KVPLAN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DIR = os.path.join(SRC, "tests", "data", "deployments")
passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: {detail}")


L8, L70, Q8 = "meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-70B", "Qwen/Qwen3-8B"
# (file, kvplan flags, exit code, [(engine, model, gpus, tp, pp, gpu, line, where fragment)])
CASES = [
    ("production-stack-helm.yaml", [], 0,
     [("vllm", L8, 1, 1, 1, "L40S-48GB", 37, "document 2, Deployment/vllm-llama3-deployment-vllm, container vllm")]),
    ("kserve-vllm-container.yaml", ["--gpu", "A10G"], 0,
     [("vllm", "meta-llama/Llama-2-7b-hf", 1, 1, 1, "A10G-24GB", 11, "InferenceService/llama-2-7b, container kserve-container")]),
    ("kserve-servingruntime.yaml", ["--gpu", "L40S"], 0,
     [("vllm", Q8, 2, 2, 1, "L40S-48GB", 30, "InferenceService/qwen3-8b")]),
    # Two pods of 8 GPUs in one LWS group; the leader's command runs tp 8 x pp 2.
    ("lws-vllm-multinode.yaml", ["--gpu", "H100"], 0,
     [("vllm", L70, 16, 8, 2, "H100-SXM-80GB", 19, "LeaderWorkerSet/vllm, container vllm-leader")]),
    ("sglang-deployment.yaml", ["--require-context", "32k"], 0,
     [("sglang", L8, 1, 1, 1, "H100-SXM-80GB", 25, "Deployment/meta-llama-31-8b-instruct-sglang")]),
    ("sglang-statefulset-tp2.yaml", ["--gpu", "L40S"], 0, [("sglang", Q8, 2, 2, 1, "L40S-48GB", 18, "StatefulSet/sglang-qwen3")]),
    # LLAMA_ARG_CTX_SIZE 16384 over LLAMA_ARG_N_PARALLEL 2 slots: 8,192 tokens each.
    ("llamacpp-deployment.yaml", ["--gpu", "RTX4090", "--model", L8, "--require-context", "8192"], 0,
     [("llama.cpp", L8, 1, 1, 1, "RTX4090-24GB", 17, "Deployment/llama-server, container llama-server")]),
    # 70B bf16 over tp 2 at 0.92: ~66 GiB of weights per GPU leave KV memory only at the favourable end
    # of the budget band (docs/engines.md, "The memory budget"): UNCERTAIN, exit 3.
    ("compose-vllm.yaml", ["--gpu", "H100"], 3, [("vllm", L70, 2, 2, 1, "H100-SXM-80GB", 5, "compose service vllm")]),
    ("compose-llamacpp-env.yaml", ["--gpu", "L4", "--model", L8, "--require-context", "2048"], 0,
     [("llama.cpp", L8, 1, 1, 1, "L4-24GB", 4, "compose service llamacpp-server")]),
    ("compose-sglang.yaml", ["--gpu", "H100"], 0, [("sglang", L8, 1, 1, 1, "H100-SXM-80GB", 4, "compose service sglang")]),
    ("pod-vllm-image-args.yaml", ["--gpu", "L4", "--require-context", "8000"], 0,
     [("vllm", "mistralai/Mistral-7B-v0.1", 1, 1, 1, "L4-24GB", 9, "Pod/mistral-7b")]),
    ("job-trtllm.yaml", ["--gpu", "H100", "--require-concurrency", "8"], 0,
     [("trtllm", L8, 1, 1, 1, "H100-SXM-80GB", 12, "Job/trtllm-llama-8b")]),
    ("helm-anchors.yaml", ["--gpu", "L40S"], 0,
     [("vllm", "google/gemma-2-9b", 1, 1, 1, "L40S-48GB", 15, "Deployment/gemma-2-9b"),
      ("vllm", "Qwen/Qwen2.5-7B-Instruct", 1, 1, 1, "L40S-48GB", 32, "Deployment/qwen25-7b")]),
    ("launch-vllm.sh", ["--gpu", "H100"], 0, [("vllm", L70, 4, 4, 1, "H100-SXM-80GB", 8, "line 8")]),
    ("launch-llamacpp-docker.sh", ["--gpu", "RTX4090", "--model", "meta-llama/Llama-2-7b-hf"], 0,
     [("llama.cpp", "meta-llama/Llama-2-7b-hf", 1, 1, 1, "RTX4090-24GB", 3, "line 3")]),
    # nvidia.com/gpu.product In [H100, A100-40GB]: checked on the smaller A100-40GB.
    ("affinity-two-products.yaml", [], 0, [("vllm", L8, 1, 1, 1, "A100-40GB", 19, "Deployment/llama-8b")]),
    # Only the engine container of two is checked; 100 x 40,960 tokens do not fit an L4.
    ("sidecar.yaml", ["--gpu", "L4", "--require-concurrency", "100"], 1,
     [("vllm", "Qwen/Qwen3-0.6B", 1, 1, 1, "L4-24GB", 13, "container vllm")]),
    ("deepseek-v3-h200.yaml", [], 0, [("vllm", "deepseek-ai/DeepSeek-V3", 8, 8, 1, "H200-141GB", 13, "Deployment/deepseek-v3")]),
    ("amd-mi300x.yaml", ["--gpu", "MI300X"], 0, [("vllm", L70, 2, 2, 1, "MI300X-192GB", 10, "Deployment/llama-70b-rocm")]),
    ("too-few-gpus.yaml", ["--gpu", "H100"], 1, [("vllm", L70, 2, 4, 1, "H100-SXM-80GB", 10, "Deployment/llama-70b")]),
    ("cronjob-sglang.yaml", ["--gpu", "A100"], 0, [("sglang", Q8, 4, 2, 1, "A100-80GB", 15, "CronJob/nightly-eval")]),
    ("vllm-config-file.yaml", [], 0, [("vllm", L8, 1, 1, 1, "H100-SXM-80GB", 3, "vllm-config-file.yaml")]),
    ("trtllm-extra-options.yaml", [], 0, [("trtllm", L70, 8, 8, 1, "H100-SXM-80GB", 3, "trtllm-extra-options.yaml")]),
]

for name, flags, want, expected in CASES:
    path = os.path.join(DIR, name)
    p = subprocess.run([KVPLAN, "check", path, *flags, "--format", "json"], capture_output=True, text=True)
    try:
        j = json.loads(p.stdout)
    except ValueError:
        check(name, False, (p.returncode, p.stdout[:300], p.stderr))
        continue
    results = j.get("results", [j])
    check(f"{name} exit", p.returncode == want == j["exit_code"], (p.returncode, [r.get("reason") or r.get("error") for r in results]))
    check(f"{name} count", len(results) == len(expected), len(results))
    for r, (engine, model, gpus, tp, pp, gpu, line, where) in zip(results, expected):
        got = (r.get("engine"), r.get("model"), r.get("gpus"), r.get("tp"), r.get("pp"), r.get("gpu"), r.get("line"))
        check(f"{name} fields", got == (engine, model, gpus, tp, pp, gpu, line), (got, r.get("error")))
        check(f"{name} where", where in r.get("where", ""), r.get("where"))

# vllm-config-file.yaml: the command line's --max-model-len 16384 wins over the file's 131072.
p = subprocess.run([KVPLAN, "check", os.path.join(DIR, "vllm-config-file.yaml"), "--format", "json"], capture_output=True, text=True)
check("--config file under the command line", json.loads(p.stdout)["context"] == 16384, p.stdout[:300])
# 23 files in the table, every deployment file of the folder listed.
listed = {c[0] for c in CASES}
on_disk = {f for f in os.listdir(DIR) if f.endswith((".yaml", ".sh"))}
check("every example is checked", listed == on_disk and len(listed) >= 20, sorted(on_disk ^ listed))

# GitHub annotations point at the container's line in the manifest.
p = subprocess.run([KVPLAN, "check", os.path.join(DIR, "too-few-gpus.yaml"), "--gpu", "H100", "--format", "github"],
                   capture_output=True, text=True)
check("github annotation at the manifest line", p.returncode == 1 and ",line=10,title=kvplan check%3A gpus::" in p.stdout, p.stdout)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
