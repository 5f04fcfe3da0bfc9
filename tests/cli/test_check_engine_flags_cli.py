#!/usr/bin/env python3
"""`kvplan engine`'s option tables (libkvplan/src/engines/engine_fields.cpp) against `kvplan check`'s
launch-command parser (libkvplan/src/deploy/flags_<engine>.cpp, each engine's real CLI, cited):
- every spelling of every table field is either a flag of the engine's own CLI, which check must
  classify as changing memory, or one of the kvplan-only inputs listed below with why check does
  not take it (budget figures check derives from the GPU and the checkpoint, short spellings the
  engine does not have); a new table field has to be one or the other;
- every field with a real flag, given in a launch command (the field's case in
  tests/data/request_cases.json, "engine", spelled with the engine's own flag), reaches the same
  engine result in check as through `kvplan engine` with check's KV budget, and changes it (or,
  for a case with "ref", differs from the reference words'); a case marked "error" is refused by both.
vLLM, llama.cpp and SGLang (trtllm-serve spells its flags apart and reads most settings from
--extra_llm_api_options YAML, so its table shares no spelling with `kvplan engine trtllm`).
Usage: test_check_engine_flags_cli.py PATH_TO_KVPLAN. Prints 'N passed, N failed'."""
import json
import os
import re

from _harness import SRC, check, finish, run  # noqa: E402

ENGINE_SOURCE = open(os.path.join(SRC, "libkvplan", "src", "engines", "engine_fields.cpp")).read()
SHARED = dict(re.findall(r'constexpr std::string_view (k\w+) = "([^"]+)";', ENGINE_SOURCE))
ROW = r'F\((\w+), ("[^"]*"|k\w+), (\w+),'
ARRAYS = {"vllm": "kVllm", "llama.cpp": "kLlamaCpp", "sglang": "kSglang"}
CASES = json.load(open(os.path.join(SRC, "tests", "data", "request_cases.json")))["engine"]


def engine_table(array):
    body = ENGINE_SOURCE[ENGINE_SOURCE.index(f"constexpr std::array {array}{{"):]
    body = body[: body.index("};")]
    return [(name, (SHARED[flags] if flags in SHARED else flags.strip('"')).split(","))
            for name, flags, _ in re.findall(ROW, body)]


def check_table(file):
    """flag spelling -> effect (memory, ignored, unmodelled), negations included, from the table text."""
    out = {}
    for line in open(os.path.join(SRC, "libkvplan", "src", "deploy", file)).read().splitlines():
        m = re.match(r"^(-[^|]+)\|\s*\S+\s*\|\s*(\w+)(.*)$", line)
        if not m:
            continue
        for name in m.group(1).split():
            out[name] = m.group(2)
        for neg in re.findall(r"neg=([^|\s]+)", m.group(3)):
            for name in neg.split(","):
                out[name] = m.group(2)
    return out


# kvplan-only spellings of `kvplan engine` and why `check` does not read them from a launch command.
BUDGET = "a budget figure check derives from the GPU and the checkpoint"
KVPLAN_ONLY = {
    "vllm": {"--tp": "vLLM spells it -tp", "--tp-size": "not a vLLM flag", "--pp": "vLLM spells it -pp",
             "--pp-size": "not a vLLM flag", "--blackwell": "check derives the platform from --gpu",
             "--mamba-chunk-size": "vLLM reads it from the model config", "--num-speculative-tokens":
             "vLLM reads it from --speculative-config", "--available-kv-memory": BUDGET, "--gpu-memory": BUDGET,
             "--weights": BUDGET, "--activation-memory": BUDGET, "--non-torch-memory": BUDGET,
             "--cudagraph-memory": BUDGET, "--kv-cache-memory": "kvplan's short spelling; vLLM's is --kv-cache-memory-bytes"},
    "llama.cpp": {"--no-server": "llama-server is the server; libllama's defaults are not a launch command",
                  "--before-v-less": "a llama.cpp version switch (PR #19067), not a flag"},
    "sglang": {"--tp": "not an SGLang flag", "--pp": "not an SGLang flag", "--enable-attention-dp": "TensorRT-LLM's name",
               "--blackwell": "check derives the platform from --gpu", "--kv-memory": BUDGET, "--gpu-memory": BUDGET,
               "--free-memory": BUDGET, "--weights": BUDGET},
}
LAUNCH = {"vllm": lambda m: ["vllm", "serve", m],
          "llama.cpp": lambda m: ["llama-server", "-m", "/models/model.gguf"],  # --model names the config
          "sglang": lambda m: ["python3", "-m", "sglang.launch_server", "--model-path", m]}
# What `kvplan engine` is given so that it works from check's KV memory (check's own bookkeeping of
# how it reached that memory is left out of the comparison).
BUDGET_WORDS = {"vllm": lambda r: ["--available-kv-memory", str(r["available_kv_bytes"])],
                "llama.cpp": lambda r: [],
                "sglang": lambda r: ["--kv-memory", str(r["rest_bytes"])]}
SETS_BUDGET = {"vllm": {"kv_cache_memory_bytes"}, "llama.cpp": set(), "sglang": set()}
BOOKKEEPING = {"vllm": set(), "llama.cpp": set(), "sglang": {"mem_fraction_default", "mem_fraction_static", "reserved_mib"}}
# Models too large for one H200 get tensor parallelism in both faces.
TP_FOR = {"deepseek-ai/DeepSeek-V3": 8, "Qwen/Qwen3-Next-80B-A3B-Thinking": 4}
TP_FLAG = {"vllm": "--tensor-parallel-size", "sglang": "--tp-size", "llama.cpp": None}


def checked(engine, model, words):
    # --blackwell is kvplan engine's switch for SM100 defaults; check takes them from a Blackwell --gpu.
    gpu = "B200" if "--blackwell" in words else "H200"
    words = [w for w in words if w != "--blackwell"]
    r = run("check", "--gpu", gpu, "--gpus", "8", "--format", "json", *(["--model", model] if engine == "llama.cpp" else []),
            "--", *LAUNCH[engine](model), *words)
    doc = json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}
    return doc.get("engine_result") or {"error": doc.get("error") or doc.get("reasons") or r.stderr.strip()}


def engine_json(engine, model, words):
    r = run("engine", engine, model, *words, "--json")
    if r.returncode != 0:
        return {"error": r.stderr.strip()}
    # (check's engine_result is the profile alone: `engine`'s request echo is not part of it.)
    return {k: v for k, v in json.loads(r.stdout).items() if k not in ("schema", "model", "request")}


for engine, array in ARRAYS.items():
    table, real = engine_table(array), check_table({"vllm": "flags_vllm.cpp", "llama.cpp": "flags_llamacpp.cpp",
                                                    "sglang": "flags_sglang.cpp"}[engine])
    check(f"{engine}: tables read", len(table) >= 10 and len(real) >= 100, (len(table), len(real)))
    only = KVPLAN_ONLY[engine]
    check(f"{engine}: the kvplan-only list names no flag of the engine", not (set(only) & set(real)), sorted(set(only) & set(real)))
    used = set()
    spec = CASES[engine]
    for name, spellings in table:
        for s in spellings:
            used.add(s)
            check(f"{engine} {name}: {s} is the engine's flag or a listed kvplan-only input", s in real or s in only, s)
            if s in real:
                check(f"{engine} {name}: check reads {s} as changing memory", real[s] == "memory", real[s])
        own = [s for s in spellings if s in real]
        if not own:
            continue
        # The field's case, each spelling of a field rewritten to the engine's own flag.
        case = spec["cases"][name]
        model = case.get("model", spec["model"])
        rename = {s: next((x for x in sp if x in real), s) for n, sp in table for s in sp}

        def words_of(ws):
            out = [rename.get(w, w) for w in ws]
            tp = TP_FOR.get(model)
            if tp and TP_FLAG[engine] and not any(w in ("--tensor-parallel-size", "--tp-size") for w in out):
                out += [TP_FLAG[engine], str(tp)]
            return out
        words = words_of(case["cli"])
        c = checked(engine, model, words)
        if case.get("error"):
            check(f"{engine} {name}: check refuses it", "error" in c, c)
            check(f"{engine} {name}: kvplan engine refuses it", "error" in engine_json(engine, model, words))
            continue
        if not check(f"{engine} {name}: check runs {' '.join(words)}", "error" not in c, c.get("error")):
            continue
        # A field that is itself the KV budget (vLLM's --kv-cache-memory-bytes) gives both faces the
        # same memory; check's figure is not passed on top of it.
        budget = [] if name in SETS_BUDGET[engine] else BUDGET_WORDS[engine](c)
        e = engine_json(engine, model, words + budget)
        keep = lambda d: {k: v for k, v in d.items() if k not in BOOKKEEPING[engine]}  # noqa: E731
        check(f"{engine} {name}: check reaches the same result as kvplan engine", keep(c) == keep(e),
              e.get("error") or sorted(k for k in set(c) | set(e) if keep(c).get(k) != keep(e).get(k)))
        ref = checked(engine, model, words_of(case.get("ref", [])))
        check(f"{engine} {name}: the flag changes check's result", keep(c) != keep(ref), ref.get("error"))
    check(f"{engine}: every kvplan-only entry is a table spelling", set(only) <= used, sorted(set(only) - used))

finish()
