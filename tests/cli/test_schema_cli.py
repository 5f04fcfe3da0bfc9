#!/usr/bin/env python3
"""Every `--json` document validates against its schema in docs/schema/ and names it
("schema": "kvplan.<verb>/<version>"); the version is written once, in VERSION.
Usage: test_schema_cli.py PATH_TO_KVPLAN. Prints 'N passed, N failed'."""
import json
import os
import re
import subprocess
import sys

import jsonschema

KVPLAN = sys.argv[1]
SRC = os.environ.get("KVPLAN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name} {detail}"[:2000])


def run(*args):
    p = subprocess.run([KVPLAN, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


schemas = {}
for f in sorted(os.listdir(os.path.join(SRC, "docs", "schema"))):
    if f.endswith(".schema.json"):
        s = json.load(open(os.path.join(SRC, "docs", "schema", f)))
        jsonschema.Draft202012Validator.check_schema(s)
        verb = f[: -len(".schema.json")]
        check(f"{f} $id", s["$id"] == f"kvplan.{verb}/1", s["$id"])
        schemas[verb] = jsonschema.Draft202012Validator(s)

validated = {}


def validate(verb, *args):
    rc, out, err = run(verb, *args, "--json")
    if rc not in (0, 1):
        check(f"{verb} {args} ran", False, err)
        return None
    doc = json.loads(out)
    check(f"{verb} {args} schema id", doc.get("schema") == f"kvplan.{verb}/1", doc.get("schema"))
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
        validate("engine", "trtllm", m, "--gpu-memory", "80GiB", "--weights", "20GiB", "--max-seq-len", "8192")
validate("compare", "--bundled", "--tokens", "4096")
validate("gpus")
validate("gpus", "H100")

# Integers stay integers: counts and bytes are never floats (the plan's crossover is a token count).
plan = validate("plan", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--weights", "16GB", "--kv-dtype", "fp16",
                "--context", "4096", "--concurrency", "30")
check("crossover_tokens is an integer", isinstance(plan["crossover_tokens"], int), plan["crossover_tokens"])
check("reason is null when it fits", plan["fits"] and plan["reason"] is None, plan.get("reason"))

# Every verb whose schema exists was exercised (measure needs the runtime; check and simulate have their own tests).
for verb in schemas:
    if verb not in ("measure", "check", "simulate"):
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

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
