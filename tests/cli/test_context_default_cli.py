#!/usr/bin/env python3
"""One default context rule, stated (docs/cli.md "Default length"):
- `size` and `plan` default to 4,096 tokens; their text marks the length "(default)" and their JSON
  carries "context_default": true when --tokens / --context was not given, false when it was (even
  when the value given is 4096), and the same documents come from Python (kvplan.size / kvplan.plan
  without tokens= / context=);
- `engine` uses the engine's own default, the config's maximum length, and says so in its notes
  (text and JSON) when the engine's length flag was not given, not when it was; `check` of a launch
  command without the flag says the same.
Usage: test_context_default_cli.py PATH_TO_KVPLAN. Prints 'N passed, N failed'."""
from _harness import check, finish, js, python_module, run  # noqa: E402

kvplan = python_module()
MODEL = "meta-llama/Llama-3.1-8B"  # max_position_embeddings 131072 in its bundled config.json


def line_of(text, key):
    return next((ln for ln in text.splitlines() if ln.startswith(key)), "")


# size: "workload     1 sequence x 4,096 tokens (default)"
s_default, s_given, s_4096 = js("size", MODEL), js("size", MODEL, "--tokens", "32k"), js("size", MODEL, "-n", "4096")
check("size: no --tokens -> context_default true, 4096 tokens", s_default["context_default"] is True and s_default["tokens"] == 4096,
      s_default.get("context_default"))
check("size: --tokens 32k -> context_default false", s_given["context_default"] is False and s_given["tokens"] == 32768)
check("size: -n 4096 given -> context_default false", s_4096["context_default"] is False)
check("size: the bytes do not depend on how 4096 was reached", s_default["total_bytes"] == s_4096["total_bytes"] == 4096 * 131072)
t = line_of(run("size", MODEL).stdout, "workload")
check("size text: (default) on the workload line", t.endswith("x 4,096 tokens (default)"), t)
t = line_of(run("size", MODEL, "--tokens", "4096").stdout, "workload")
check("size text: no marker when --tokens is given", "(default)" not in t and "4,096 tokens" in t, t)

# plan: "load                  1 sequence x 4,096 tokens (default), KV bf16"
p_default = js("plan", MODEL, "--gpu", "H100")
p_given = js("plan", MODEL, "--gpu", "H100", "--context", "32k")
p_4096 = js("plan", MODEL, "--gpu", "H100", "-n", "4096")
check("plan: no --context -> context_default true, 4096", p_default["context_default"] is True and p_default["context"] == 4096,
      p_default.get("context_default"))
check("plan: --context 32k -> context_default false", p_given["context_default"] is False and p_given["context"] == 32768)
check("plan: --context 4096 -> false, the same plan otherwise", p_4096["context_default"] is False and
      {k: v for k, v in p_4096.items() if k != "context_default"} == {k: v for k, v in p_default.items() if k != "context_default"})
check("plan: the request echo is the same either way", p_default["request"] == p_4096["request"])
t = line_of(run("plan", MODEL, "--gpu", "H100").stdout, "load")
check("plan text: (default) on the load line", "x 4,096 tokens (default), KV" in t, t)
t = line_of(run("plan", MODEL, "--gpu", "H100", "--context", "32k").stdout, "load")
check("plan text: no marker when --context is given", "(default)" not in t and "32,768 tokens" in t, t)
check("plan --help still shows the default", "--context,--tokens TOKENS=4096" in run("plan", "--help").stdout)

if kvplan is not None:
    check("Python size(): no tokens -> context_default True", kvplan.size(MODEL)["context_default"] is True)
    check("Python size(tokens=4096) -> False", kvplan.size(MODEL, tokens=4096)["context_default"] is False)
    check("Python size() is size --json", {**dict(kvplan.size(MODEL)), "schema": s_default["schema"]} == s_default)
    check("Python plan(): no context -> context_default True", kvplan.plan(MODEL, "H100")["context_default"] is True)
    check("Python plan(context='32k') -> False", kvplan.plan(MODEL, "H100", context="32k")["context_default"] is False)
    check("Python plan() is plan --json", {**dict(kvplan.plan(MODEL, "H100")), "schema": p_default["schema"]} == p_default)
    check("Python plan_text() marks the default", "(default)" in line_of(kvplan.plan_text(MODEL, "H100"), "load"))

# engine / check: the engine's own default, the config's maximum length, stated in the notes.
ENGINES = {"vllm": (["--kv-cache-memory", "20GiB"], "max_model_len", ["--max-model-len", "8192"], "--max-model-len not given"),
           "sglang": (["--kv-memory", "20GiB"], "context_length", ["--context-length", "8192"], "--context-length not given"),
           "trtllm": (["--kv-memory", "20GiB"], "max_seq_len", ["--max-seq-len", "8192"], "max_seq_len not given"),
           "llama.cpp": ([], None, ["--ctx-size", "8192"], "-c 0: n_ctx = n_ctx_train = 131072")}
for engine, (base, key, flag, note) in ENGINES.items():
    d, g = js("engine", engine, MODEL, *base), js("engine", engine, MODEL, *base, *flag)
    said = [n for n in d["notes"] if n.startswith(note)]
    check(f"engine {engine}: the default length is stated in JSON notes", len(said) == 1, d["notes"])
    if key:
        check(f"engine {engine}: it is the config's 131,072", d[key] == 131072 and "131,072 tokens" in said[0], (d[key], said))
        check(f"engine {engine}: the flag's length is used", g[key] == 8192)
    check(f"engine {engine}: nothing stated when the flag is given", not any(n.startswith(note) for n in g["notes"]), g["notes"])
    check(f"engine {engine}: the text says it too", f"note: {note}" in run("engine", engine, MODEL, *base).stdout)
c = run("check", "--gpu", "H100", "--", "vllm", "serve", MODEL)
check("check -- vllm serve without --max-model-len states the default", "note: --max-model-len not given: the config's maximum length, 131,072 tokens" in c.stdout, c.stdout[-600:])
c = run("check", "--gpu", "H100", "--", "vllm", "serve", MODEL, "--max-model-len", "8192")
check("check with --max-model-len: not stated", "--max-model-len not given" not in c.stdout)

finish()
