#!/usr/bin/env python3
"""Every `--json` document validates against its schema in docs/schema/ and names it
("schema": "kvplan.<verb>/<version>"); the version is written once, in VERSION.
Usage: test_schema_cli.py PATH_TO_KVPLAN. Prints 'N passed, N failed'."""
import json
import os
import re

import jsonschema
from _harness import SRC, check, run as harness_run, finish  # noqa: E402


# Versions past 1, as CHANGELOG.md states them (plan/2: ttft_seconds may be null, issue 30).
SCHEMA_VERSION = {"plan": 2}


def run(*args):
    p = harness_run(*args)
    return p.returncode, p.stdout, p.stderr


schemas = {}
for f in sorted(os.listdir(os.path.join(SRC, "docs", "schema"))):
    if f.endswith(".schema.json"):
        s = json.load(open(os.path.join(SRC, "docs", "schema", f)))
        jsonschema.Draft202012Validator.check_schema(s)
        verb = f[: -len(".schema.json")]
        check(f"{f} $id", s["$id"] == f"kvplan.{verb}/{SCHEMA_VERSION.get(verb, 1)}", s["$id"])
        schemas[verb] = jsonschema.Draft202012Validator(s)

validated = {}


def validate(verb, *args):
    rc, out, err = run(verb, *args, "--json")
    if rc not in (0, 1):
        check(f"{verb} {args} ran", False, err)
        return None
    doc = json.loads(out)
    check(f"{verb} {args} schema id", doc.get("schema") == f"kvplan.{verb}/{SCHEMA_VERSION.get(verb, 1)}", doc.get("schema"))
    errors = sorted(schemas[verb].iter_errors(doc), key=lambda e: list(e.path))
    check(f"{verb} {args} valid", not errors,
          "; ".join(f"{'/'.join(map(str, e.path))}: {e.message[:200]}" for e in errors[:3]))
    validated[verb] = validated.get(verb, 0) + 1
    return doc


models = [m["id"] for m in validate("models")["models"]]
for m in models:
    validate("size", m)
    validate("size", m, "--tokens", "128k", "--batch", "3", "--kv-dtype", "fp8", "--tp", "2")
    validate("inspect", m)
    validate("plan", m, "--gpu", "H100")
    validate("plan", m, "--gpu", "A10G", "--context", "128k", "--concurrency", "64")
for m in ["meta-llama/Llama-3.1-8B", "deepseek-ai/DeepSeek-V3", "Qwen/Qwen3-Next-80B-A3B-Thinking", "google/gemma-3-1b-it",
          "ArthurZ/mamba-2.8b"]:
    validate("sweep", m, "--gpu", "H100")
    # Lengths given: a pure Mamba config has no maximum length to default to.
    validate("engine", "vllm", m, "--kv-cache-memory", "40GiB", "--max-model-len", "8192")
    validate("engine", "llama.cpp", m, "--ctx-size", "8192")
    if m != "ArthurZ/mamba-2.8b":  # SGLang and TensorRT-LLM need an attention layer (the verb refuses)
        validate("engine", "sglang", m, "--gpu-memory", "80GiB", "--weights", "20GiB", "--context-length", "8192")
        validate("engine", "trtllm", m, "--gpu-memory", "80GiB", "--peak-memory", "20GiB", "--max-seq-len", "8192")
validate("compare", "--bundled", "--tokens", "4096")
validate("gpus")
validate("gpus", "H100")

# Integers stay integers: counts and bytes are never floats (the plan's crossover is a token count).
plan = validate("plan", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--weights", "16GB", "--kv-dtype", "fp16",
                "--context", "4096", "--concurrency", "30")
check("crossover_tokens is an integer", isinstance(plan["crossover_tokens"], int), plan["crossover_tokens"])
check("reason is null when it fits", plan["fits"] and plan["reason"] is None, plan.get("reason"))


def validate_doc(verb, name, args, want_rc=(0, 1, 3)):
    """A verb whose JSON is asked another way (check --format json): same checks as validate()."""
    rc, out, err = run(verb, *args)
    if rc not in want_rc:
        check(f"{name} ran", False, f"rc={rc} {err}")
        return None
    doc = json.loads(out)
    check(f"{name} schema id", doc.get("schema") == f"kvplan.{verb}/{SCHEMA_VERSION.get(verb, 1)}", doc.get("schema"))
    errors = sorted(schemas[verb].iter_errors(doc), key=lambda e: list(e.path))
    check(f"{name} valid", not errors, "; ".join(f"{'/'.join(map(str, e.path))}: {e.message[:200]}" for e in errors[:3]))
    validated[verb] = validated.get(verb, 0) + 1
    return doc


# check: all four engines, deployment files (one and several deployments), an error outcome.
DEPLOY = os.path.join(SRC, "tests", "data", "deployments")
L8 = "meta-llama/Llama-3.1-8B"
for name, args in [
    ("check vllm", ["--gpu", "H100", "--require-concurrency", "8", "--", "vllm", "serve", L8, "--max-model-len", "32768"]),
    ("check vllm fail", ["--gpu", "H100", "--require-concurrency", "100", "--", "vllm", "serve", L8, "--max-model-len", "32768"]),
    ("check sglang", ["--gpu", "H100", "--", "python", "-m", "sglang.launch_server", "--model-path", L8, "--context-length", "32768"]),
    ("check llama.cpp", ["--gpu", "RTX4090", "--model", L8, "--", "llama-server", "-m", "x.gguf", "-c", "16384", "-np", "2"]),
    ("check trtllm", ["--gpu", "H100", "--", "trtllm-serve", L8, "--max_seq_len", "32768"]),
    ("check deepseek-v3-h200.yaml", [os.path.join(DEPLOY, "deepseek-v3-h200.yaml")]),
    ("check compose-vllm.yaml", [os.path.join(DEPLOY, "compose-vllm.yaml"), "--gpu", "H100"]),
    ("check affinity-two-products.yaml", [os.path.join(DEPLOY, "affinity-two-products.yaml"), "--gpu", "H100"]),
    ("check job-trtllm.yaml", [os.path.join(DEPLOY, "job-trtllm.yaml"), "--gpu", "H100"]),
    ("check llamacpp-deployment.yaml", [os.path.join(DEPLOY, "llamacpp-deployment.yaml"), "--gpu", "RTX4090", "--model", L8]),
]:
    doc = validate_doc("check", name, ["--format", "json", *args])
    for r in (doc or {}).get("results", [doc] if doc else []):
        if "max_concurrency" in r:  # same type as plan's: whole sequences
            check(f"{name} max_concurrency is an integer", isinstance(r["max_concurrency"], int), r["max_concurrency"])
            check(f"{name} reason null or text", r["reason"] is None or isinstance(r["reason"], str) and r["reason"] != "",
                  r["reason"])
err_doc = validate_doc("check", "check error", ["--gpu", "H900", "--format", "json", "--", "vllm", "serve", L8], want_rc=(2,))
check("check error outcome", err_doc is not None and err_doc.get("exit_code") == 2 and "H900" in err_doc.get("error", ""),
      err_doc)

# simulate: a workload and a trace (the launch-command form).
validate_doc("simulate", "simulate workload", [L8, "--gpu", "H100", "--max-model-len", "4096", "--workload",
                                               "rate=5 requests=50 prompt=uniform:100:1000 output=fixed:20 seed=1", "--json"])
trace = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"kvplan_schema_trace_{os.getpid()}.jsonl")
with open(trace, "w") as f:
    for i in range(20):
        f.write(json.dumps({"arrival_s": i * 0.1, "prompt_tokens": 500, "output_tokens": 20}) + "\n")
validate_doc("simulate", "simulate trace", ["--gpu", "H100", "--trace", trace, "--json", "--", "vllm", "serve", L8,
                                            "--max-model-len", "4096"])
os.remove(trace)
# simulate --find max-rate: the capacity form (the schema's second branch) with the run at the max rate.
find = validate_doc("simulate", "simulate --find", [L8, "--gpu", "H100", "--max-model-len", "4096", "--find", "max-rate",
                                                    "--workload", "requests=60 prompt=fixed:1000 output=fixed:50 seed=3",
                                                    "--slo-ttft", "0.5", "--price", "2.5", "--target-rate", "50", "--json"])
check("simulate --find is the capacity form", find is not None and "max_rate" in find and "num_blocks" in find["at_max_rate"],
      sorted(find or {}))

# search: the document (the schema's first branch) and one shard of it (the second).
SEARCH = ["Qwen/Qwen3-0.6B", "--gpu", "H100,L40S", "--workload", "requests=40 prompt=fixed:256 output=fixed:16 seed=1",
          "--slo-ttft", "1", "--slo-tpot", "0.05", "--target-rate", "4", "--max-tp", "2", "--max-replicas", "2",
          "--max-model-len", "2048"]
validate("search", *SEARCH)
validate("search", *SEARCH, "--shard", "2/3")
validate("search", *SEARCH[:2], "H100,A100", *SEARCH[3:], "--prices",
         os.path.join(SRC, "examples", "prices", "lambda-on-demand-2026-09-20.csv"))

# The harness (tests/cli/_harness.py) refuses a document of a verb without a schema, or without its tag.
import _harness  # noqa: E402
check("a verb without a schema fails", _harness.schema_errors({"schema": "kvplan.nosuch/1"}, "nosuch") != [])
check("a document without its tag fails", _harness.schema_errors({"fits": True}, "plan") != [])

# Every verb whose schema exists was exercised (measure needs the runtime).
for verb in schemas:
    if verb != "measure":
        check(f"{verb} exercised", validated.get(verb, 0) > 0)

# One version: VERSION, the CLI, the web packages and the Python package metadata agree.
version = open(os.path.join(SRC, "VERSION")).read().strip()
check("VERSION format", re.fullmatch(r"\d+\.\d+\.\d+", version) is not None, version)
rc, out, err = run("--version")
check("kvplan --version", out.strip().endswith(version), out)
for p in ["web/package.json", "tests/web/package.json"]:
    check(p, json.load(open(os.path.join(SRC, p)))["version"] == version)
pyproject = open(os.path.join(SRC, "pyproject.toml")).read()
check("pyproject reads VERSION", 'dynamic = ["version"]' in pyproject and 'version = {file = "VERSION"}' in pyproject)
check("pyproject has no literal version", re.search(r'^version\s*=\s*"', pyproject, re.M) is None)
check("CHANGELOG names the version", f"## {version}" in open(os.path.join(SRC, "CHANGELOG.md")).read())

finish()
