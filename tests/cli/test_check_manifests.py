#!/usr/bin/python3
"""kvplan check on real-world-shaped manifests and launch scripts (tests/data/deployments/, each file
names the public example its shape follows): every engine container found, with the right engine,
model, GPU count (nvidia.com/gpu / amd.com/gpu limits, compose reservations, LWS groups,
CUDA_VISIBLE_DEVICES), GPU model (nvidia.com/gpu.product selectors), parallelism, and the line the
report points at. Run: /usr/bin/python3 test_check_manifests.py <path-to-kvplan>"""
import json
import os
import subprocess
from _harness import KVPLAN, SRC, check, finish, validate_output  # noqa: E402

DIR = os.path.join(SRC, "tests", "data", "deployments")


L8, L70, Q8 = "meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-70B", "Qwen/Qwen3-8B"
# (file, kvplan flags, exit code, [(engine, model, gpus, tp, pp, gpu, line, where fragment)])
CASES = [
    ("production-stack-helm.yaml", [], 0,
     [("vllm", L8, 1, 1, 1, "L40S-48GB", 40, "document 2, Deployment/vllm-llama3-deployment-vllm, container vllm")]),
    ("kserve-vllm-container.yaml", ["--gpu", "A10G"], 0,
     [("vllm", "meta-llama/Llama-2-7b-hf", 1, 1, 1, "A10G-24GB", 14, "InferenceService/llama-2-7b, container kserve-container")]),
    ("kserve-servingruntime.yaml", ["--gpu", "L40S"], 0,
     [("vllm", Q8, 2, 2, 1, "L40S-48GB", 33, "InferenceService/qwen3-8b")]),
    # Two pods of 8 GPUs in one LWS group; the leader's command runs tp 8 x pp 2.
    ("lws-vllm-multinode.yaml", ["--gpu", "H100"], 0,
     [("vllm", L70, 16, 8, 2, "H100-SXM-80GB", 21, "LeaderWorkerSet/vllm, container vllm-leader")]),
    ("sglang-deployment.yaml", ["--require-context", "32k"], 0,
     [("sglang", L8, 1, 1, 1, "H100-SXM-80GB", 27, "Deployment/meta-llama-31-8b-instruct-sglang")]),
    ("sglang-statefulset-tp2.yaml", ["--gpu", "L40S"], 0, [("sglang", Q8, 2, 2, 1, "L40S-48GB", 19, "StatefulSet/sglang-qwen3")]),
    # LLAMA_ARG_CTX_SIZE 16384 over LLAMA_ARG_N_PARALLEL 2 slots: 8,192 tokens each.
    ("llamacpp-deployment.yaml", ["--gpu", "RTX4090", "--model", L8, "--require-context", "8192"], 0,
     [("llama.cpp", L8, 1, 1, 1, "RTX4090-24GB", 18, "Deployment/llama-server, container llama-server")]),
    # 70B bf16 over tp 2 at 0.92: ~66 GiB of weights per GPU leave KV memory only at the favourable end
    # of the budget band (docs/engines.md, "The memory budget"): UNCERTAIN, exit 3.
    ("compose-vllm.yaml", ["--gpu", "H100"], 3, [("vllm", L70, 2, 2, 1, "H100-SXM-80GB", 7, "compose service vllm")]),
    ("compose-llamacpp-env.yaml", ["--gpu", "L4", "--model", L8, "--require-context", "2048"], 0,
     [("llama.cpp", L8, 1, 1, 1, "L4-24GB", 7, "compose service llamacpp-server")]),
    ("compose-sglang.yaml", ["--gpu", "H100"], 0, [("sglang", L8, 1, 1, 1, "H100-SXM-80GB", 5, "compose service sglang")]),
    ("pod-vllm-image-args.yaml", ["--gpu", "L4", "--require-context", "8000"], 0,
     [("vllm", "mistralai/Mistral-7B-v0.1", 1, 1, 1, "L4-24GB", 13, "Pod/mistral-7b")]),
    ("job-trtllm.yaml", ["--gpu", "H100", "--require-concurrency", "8"], 0,
     [("trtllm", L8, 1, 1, 1, "H100-SXM-80GB", 14, "Job/trtllm-llama-8b")]),
    ("helm-anchors.yaml", ["--gpu", "L40S"], 0,
     [("vllm", "google/gemma-2-9b", 1, 1, 1, "L40S-48GB", 16, "Deployment/gemma-2-9b"),
      ("vllm", "Qwen/Qwen2.5-7B-Instruct", 1, 1, 1, "L40S-48GB", 33, "Deployment/qwen25-7b")]),
    ("launch-vllm.sh", ["--gpu", "H100"], 0, [("vllm", L70, 4, 4, 1, "H100-SXM-80GB", 10, "line 10")]),
    ("launch-llamacpp-docker.sh", ["--gpu", "RTX4090", "--model", "meta-llama/Llama-2-7b-hf"], 0,
     [("llama.cpp", "meta-llama/Llama-2-7b-hf", 1, 1, 1, "RTX4090-24GB", 4, "line 4")]),
    # nvidia.com/gpu.product In [H100, A100-40GB]: checked on the smaller A100-40GB.
    ("affinity-two-products.yaml", [], 0, [("vllm", L8, 1, 1, 1, "A100-40GB", 21, "Deployment/llama-8b")]),
    # Only the engine container of two is checked; 100 x 40,960 tokens do not fit an L4.
    ("sidecar.yaml", ["--gpu", "L4", "--require-concurrency", "100"], 1,
     [("vllm", "Qwen/Qwen3-0.6B", 1, 1, 1, "L4-24GB", 15, "container vllm")]),
    ("deepseek-v3-h200.yaml", [], 0, [("vllm", "deepseek-ai/DeepSeek-V3", 8, 8, 1, "H200-141GB", 16, "Deployment/deepseek-v3")]),
    ("amd-mi300x.yaml", ["--gpu", "MI300X"], 0, [("vllm", L70, 2, 2, 1, "MI300X-192GB", 14, "Deployment/llama-70b-rocm")]),
    ("too-few-gpus.yaml", ["--gpu", "H100"], 1, [("vllm", L70, 2, 4, 1, "H100-SXM-80GB", 11, "Deployment/llama-70b")]),
    ("cronjob-sglang.yaml", ["--gpu", "A100"], 0, [("sglang", Q8, 4, 2, 1, "A100-80GB", 17, "CronJob/nightly-eval")]),
    ("vllm-config-file.yaml", [], 0, [("vllm", L8, 1, 1, 1, "H100-SXM-80GB", 4, "vllm-config-file.yaml")]),
    ("trtllm-extra-options.yaml", [], 0, [("trtllm", L70, 8, 8, 1, "H100-SXM-80GB", 5, "trtllm-extra-options.yaml")]),
    # --- written as the cited public examples write them (README.md beside the files) ---
    # helm template of production-stack's values-04-multiple-models.yaml: two Deployments, one GPU each.
    # On an L40S both fit; on an L4 Llama-3.1-8B at --gpu_memory_utilization 0.8 (18 GiB of 22.5) has
    # ~15 GiB of bf16 weights, so its KV memory is positive only at the favourable end: UNCERTAIN, exit 3,
    # while Mistral at 0.95 keeps ~5 GiB of KV and passes.
    ("production-stack-multiple-models.yaml", ["--gpu", "L40S"], 0,
     [("vllm", L8, 1, 1, 1, "L40S-48GB", 55, "document 1, Deployment/vllm-llama3-deployment-vllm, container vllm"),
      ("vllm", "mistralai/Mistral-7B-v0.1", 1, 1, 1, "L40S-48GB", 178, "document 2, Deployment/vllm-mistral-deployment-vllm")]),
    ("production-stack-multiple-models.yaml", ["--gpu", "L4"], 3,
     [("vllm", L8, 1, 1, 1, "L4-24GB", 55, "Deployment/vllm-llama3-deployment-vllm"),
      ("vllm", "mistralai/Mistral-7B-v0.1", 1, 1, 1, "L4-24GB", 178, "Deployment/vllm-mistral-deployment-vllm")]),
    # LWS SGLang: leader + 1 worker pod of one GPU each; --tp 2 spans the group's 2 GPUs.
    ("lws-sglang-multinode.yaml", ["--gpu", "L4"], 0,
     [("sglang", L8, 2, 2, 1, "L4-24GB", 21, "document 1, LeaderWorkerSet/sglang, container sglang-leader")]),
    # The InferenceService's predictor.model args follow the ClusterServingRuntime's, so --model wins over /mnt/models.
    ("kserve-vllmserver-runtime.yaml", ["--gpu", "L4"], 0,
     [("vllm", "Qwen/Qwen3-0.6B", 1, 1, 1, "L4-24GB", 82, "document 2, InferenceService/vllm-qwen-chat, container kserve-container")]),
    # The image is vLLM 0.6.4 (V0): checked with the V0 budget.
    ("vllm-k8s-docs-amd.yaml", ["--gpu", "MI300X", "--engine-version", "0.6.3"], 0,
     [("vllm", "mistralai/Mistral-7B-v0.1", 1, 1, 1, "MI300X-192GB", 37, "Deployment/mistral-7b, container mistral-7b")]),
    # docker run --gpus all / podman --device nvidia.com/gpu=all: vLLM itself uses tp x pp = 1 GPU.
    ("launch-vllm-docker.sh", ["--gpu", "H100"], 0, [("vllm", "Qwen/Qwen3-0.6B", 1, 1, 1, "H100-SXM-80GB", 6, "line 6")]),
    ("launch-vllm-podman.sh", ["--gpu", "L4"], 0, [("vllm", "Qwen/Qwen3-0.6B", 1, 1, 1, "L4-24GB", 5, "line 5")]),
    # DeepSeek-V3 FP8 (~642 GiB of weights) over tp 8: ~78 GiB per GPU. On H200 it serves, as SGLang's guide
    # says; on H100 the weights alone exceed what SGLang may use (TensorRT-LLM's DeepSeek guide lists 16 H100
    # as the FP8 minimum): FAIL, exit 1.
    ("launch-sglang-deepseek-docker.sh", ["--gpu", "H200"], 0,
     [("sglang", "deepseek-ai/DeepSeek-V3", 8, 8, 1, "H200-141GB", 7, "line 7")]),
    ("launch-sglang-deepseek-docker.sh", ["--gpu", "H100"], 1,
     [("sglang", "deepseek-ai/DeepSeek-V3", 8, 8, 1, "H100-SXM-80GB", 7, "line 7")]),
    ("launch-trtllm-deepseek.sh", ["--gpu", "H200"], 0,
     [("trtllm", "deepseek-ai/DeepSeek-V3", 8, 8, 1, "H200-141GB", 7, "line 7")]),
    ("launch-llamacpp-docker-cuda.sh", ["--gpu", "RTX4090", "--model", "meta-llama/Llama-2-7b-hf"], 0,
     [("llama.cpp", "meta-llama/Llama-2-7b-hf", 1, 1, 1, "RTX4090-24GB", 8, "line 8")]),
    # --data-parallel-size 8 --enable-expert-parallel: 8 GPUs, tp 1, routed experts split over the 8 ranks.
    ("launch-vllm-deepseek-dp-ep.sh", ["--gpu", "H200"], 0,
     [("vllm", "deepseek-ai/DeepSeek-V3", 8, 1, 1, "H200-141GB", 6, "line 6")]),
    # --- operators' custom resources, verbatim (deploy/operators.cpp renders them as the controller does) ---
    # KServe LLMInferenceService, config-llm-template: vllm serve Qwen2.5-7B-Instruct --port 8000 on the
    # template's 1 GPU. On an H100 it passes; on an L4 the default 32,768-token context over ~14.2-14.6 GiB
    # of bf16 weights at 0.9 is positive only at the favourable end: UNCERTAIN.
    ("kserve-llmisvc-qwen2-7b-gpu-no-scheduler.yaml", ["--gpu", "H100"], 0,
     [("vllm", "Qwen/Qwen2.5-7B-Instruct", 1, 1, 1, "H100-SXM-80GB", 14, "LLMInferenceService/qwen2-7b-instruct-single-no-scheduler, container main")]),
    ("kserve-llmisvc-qwen2-7b-gpu-no-scheduler.yaml", ["--gpu", "L4"], 3,
     [("vllm", "Qwen/Qwen2.5-7B-Instruct", 1, 1, 1, "L4-24GB", 14, "LLMInferenceService/qwen2-7b-instruct-single-no-scheduler")]),
    ("kserve-llmisvc-qwen2-7b-amd-no-scheduler.yaml", ["--gpu", "MI300X"], 0,
     [("vllm", "Qwen/Qwen2.5-7B-Instruct", 1, 1, 1, "MI300X-192GB", 20, "LLMInferenceService/qwen2-7b-instruct-amd, container main")]),
    # Prefill and decode pools, each with --kv_transfer_config NixlConnector (unmodelled): UNCERTAIN naming it.
    ("kserve-llmisvc-pd-qwen2-7b-gpu.yaml", ["--gpu", "L40S"], 3,
     [("vllm", "Qwen/Qwen2.5-7B-Instruct", 1, 1, 1, "L40S-48GB", 75, "LLMInferenceService/qwen2-7b-instruct-pd (prefill), container main"),
      ("vllm", "Qwen/Qwen2.5-7B-Instruct", 1, 1, 1, "L40S-48GB", 18, "LLMInferenceService/qwen2-7b-instruct-pd (decode), container main")]),
    # worker + data 16 / dataLocal 8: a LeaderWorkerSet of 2 pods x 8 GPUs, dp 16 x tp 1 with expert parallelism.
    # DeepSeek-Coder-V2-Lite-Instruct is not bundled: DeepSeek-V2-Lite (the checkpoint it was further trained
    # from) stands in, named by --model.
    ("kserve-llmisvc-dp-ep-deepseek-gpu-naive.yaml", ["--gpu", "H100", "--model", "deepseek-ai/DeepSeek-V2-Lite"], 0,
     [("vllm", "deepseek-ai/DeepSeek-V2-Lite", 16, 1, 1, "H100-SXM-80GB", 23, "LLMInferenceService/deepseek-coder-v2, container main")]),
    # KubeAI Model: resourceProfile nvidia-gpu-l4:1 is one L4 (the chart's default profiles); at 0.95 and
    # 8,192 tokens with an fp8 KV cache the headroom outside the utilization is in doubt: UNCERTAIN.
    ("kubeai-model-qwen2.5-7b-instruct-l4.yaml", [], 3,
     [("vllm", "Qwen/Qwen2.5-7B-Instruct", 1, 1, 1, "L4-24GB", 6, "Model/qwen2.5-7b-instruct-l4, container server")]),
]
# (file, kvplan flags, fragments of the error): refused, naming the field or the input that would let kvplan judge.
ERROR_CASES = [
    # KServe's own sample nests kvCacheOffloading under spec.workload, which the v1alpha2 CRD has not.
    ("kserve-llmisvc-kv-cache-offloading.yaml", ["--gpu", "L40S"], ["spec.workload is not a field of KServe's LLMInferenceServiceSpec"]),
    # nvidia-gpu-h100:2 reads as 2 GPUs; the FP8 checkpoint is not bundled: the error names how to fetch its config.
    ("kubeai-model-llama-3.1-70b-instruct-fp8-h100.yaml", [],
     ['unknown model "neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8"', "huggingface-cli download"]),
]

for name, flags, want, expected in CASES:
    path = os.path.join(DIR, name)
    # Run from the folder, as a launch script is run: its relative paths (launch-trtllm-deepseek.sh's
    # --extra_llm_api_options files/...) are the shell's, relative to the working directory.
    p = subprocess.run([KVPLAN, "check", path, *flags, "--format", "json"], capture_output=True, text=True, cwd=DIR)
    validate_output(["check", path, *flags, "--format", "json"], p.stdout, p.returncode)
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

for name, flags, fragments in ERROR_CASES:
    path = os.path.join(DIR, name)
    p = subprocess.run([KVPLAN, "check", path, *flags, "--format", "json"], capture_output=True, text=True, cwd=DIR)
    validate_output(["check", path, *flags, "--format", "json"], p.stdout, p.returncode)
    check(f"{name} refused", p.returncode == 2 and all(f in p.stderr for f in fragments), (p.returncode, p.stderr[:400]))

# `helm template ... | kvplan check -`: standard input, multi-document, the Service and ConfigMap skipped by kind.
rendered = ("apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports: [{port: 8000}]\n---\n"
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n---\n"
            + open(os.path.join(DIR, "kserve-llmisvc-qwen2-7b-gpu-no-scheduler.yaml"), encoding="utf-8").read())
p = subprocess.run([KVPLAN, "check", "-", "--gpu", "H100", "--format", "json"], input=rendered, capture_output=True, text=True)
validate_output(["check", "-", "--gpu", "H100", "--format", "json"], p.stdout, p.returncode)
j = json.loads(p.stdout) if p.stdout.strip() else {}
check("stdin: one deployment, document 3", p.returncode == 0 and j.get("line") == 25 and
      "<stdin> (line 25, document 3, LLMInferenceService/qwen2-7b-instruct-single-no-scheduler" in j.get("where", ""), (p.returncode, p.stdout[:300], p.stderr))
p = subprocess.run([KVPLAN, "check", "--file", "-", "--gpu", "H100", "--format", "json"], input=rendered, capture_output=True, text=True)
check("--file - reads standard input too", p.returncode == 0, (p.returncode, p.stderr))
# A kind kvplan does not read that holds containers is an error naming it, not skipped.
p = subprocess.run([KVPLAN, "check", "-", "--gpu", "H100"], capture_output=True, text=True,
                   input=rendered + "\n---\napiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: r}\nspec:\n  headGroupSpec:\n"
                   "    template:\n      spec:\n        containers: [{name: head, image: rayproject/ray}]\n")
check("unknown kind with containers refused", p.returncode == 2 and "kind RayCluster (apiVersion ray.io/v1) holds containers" in p.stderr, p.stderr)

# vllm-config-file.yaml: the command line's --max-model-len 16384 wins over the file's 131072.
p = subprocess.run([KVPLAN, "check", os.path.join(DIR, "vllm-config-file.yaml"), "--format", "json"], capture_output=True, text=True)
validate_output(["check", "vllm-config-file.yaml", "--format", "json"], p.stdout, p.returncode)
check("--config file under the command line", json.loads(p.stdout)["context"] == 16384, p.stdout[:300])
# Every deployment file of the folder is in the table (at least 20).
listed = {c[0] for c in CASES} | {c[0] for c in ERROR_CASES}
on_disk = {f for f in os.listdir(DIR) if f.endswith((".yaml", ".sh"))}
check("every example is checked", listed == on_disk and len(listed) >= 20, sorted(on_disk ^ listed))
# README.md beside the files has a row for each, and at least 20 rows follow a cited public example.
readme = open(os.path.join(DIR, "README.md"), encoding="utf-8").read()
rows = {line.split("|")[1].strip(): line for line in readme.splitlines() if line.startswith("| ") and line.count("|") > 5}
check("README lists every file", on_disk <= set(rows), sorted(on_disk - set(rows)))
public = [f for f, line in rows.items() if "| public example" in line and "https://github.com/" in line]
check("at least 20 follow a cited public example", len(public) >= 20, len(public))

# GitHub annotations point at the container's line in the manifest.
p = subprocess.run([KVPLAN, "check", os.path.join(DIR, "too-few-gpus.yaml"), "--gpu", "H100", "--format", "github"],
                   capture_output=True, text=True)
check("github annotation at the manifest line", p.returncode == 1 and ",line=11,title=kvplan check%3A gpus::" in p.stdout, p.stdout)

finish()
