#!/usr/bin/env python3
"""The plan/sweep request field table (libkvplan/include/kvplan/request.h) against every face:
- the CLI: each field's flag is in `kvplan plan --help` and `kvplan sweep --help` with the table's help;
- Python (when the module is built next to the CLI, <build>/python): kvplan.fields() is the table,
  each name is a keyword of kvplan.plan() and kvplan.sweep();
- both: each field set to a non-default value through its CLI flag and through its Python keyword
  gives the same request echo ("request") and the same plan, and an echo that differs from the
  defaults' (the option reaches the library);
- the page (read statically, no emscripten build): the WebAssembly shell passes the form to the
  library's parser (plan_input_from_request) and the page builds its plan form from the table;
  tests/web/test.mjs drives every field through the page itself.
Usage: test_fields_cli.py PATH_TO_KVPLAN. Prints 'N passed, N failed'."""
import inspect
import json
import os
import re

from _harness import SRC, check, finish, python_module, run  # noqa: E402

kvplan = python_module()


FIELDS_CPP = open(os.path.join(SRC, "libkvplan", "src", "planner", "request_fields.cpp")).read()
ROW = r'\{"(\w+)", "(--[\w-]+)", T::(\w+), "([^"]*)", "([^"]*)",'


def rows_of(text):
    """Table rows as written in libkvplan/src/planner/request_fields.cpp (no Python module needed);
    a named shared entry (kKvDtype, ...) is read from its definition."""
    shared = {m.group(1): m.group(2) for m in re.finditer(r"constexpr RequestField (k\w+)\{(.*?)\};", FIELDS_CPP, re.S)}
    text = re.sub(r"\b(k[A-Z]\w+)\b(?=[,\s])", lambda m: "{" + shared[m.group(1)] + "}" if m.group(1) in shared else m.group(0), text)
    return [{"name": n, "cli_flag": f, "type": t, "unit": u, "default": d or None} for n, f, t, u, d in re.findall(ROW, text)]


def table_from_source(array):
    body = FIELDS_CPP[FIELDS_CPP.index(f"{array}{{{{"):]
    return rows_of(body[: body.index("}};")])


source_table = table_from_source("kPlanFields")
check("table read from source", len(source_table) >= 25, len(source_table))
if kvplan is not None:
    fields = kvplan.fields()
    check("kvplan.fields() is the table",
          [{k: f[k] for k in ("name", "cli_flag", "type", "unit", "default")} for f in fields] == source_table,
          [f["name"] for f in fields])
    check("every field has help", all(f["help"] for f in fields))
else:
    fields = source_table

# The CLI face: the flags exist, with the table's help (plan's own help texts are the table's).
plan_help = run("plan", "--help").stdout
sweep_help = run("sweep", "--help").stdout
for f in fields:
    check(f"plan --help has {f['cli_flag']}", re.search(rf"(^|[ ,]){re.escape(f['cli_flag'])}\b", plan_help, re.M) is not None)
    if f["name"] not in ("context", "concurrency"):  # sweep takes --contexts / --concurrency lists
        check(f"sweep --help has {f['cli_flag']}", re.search(rf"(^|[ ,]){re.escape(f['cli_flag'])}\b", sweep_help, re.M) is not None)
    if "help" in f:
        check(f"{f['cli_flag']} help is the table's", " ".join(f["help"].split())[:40] in " ".join(plan_help.split()), f["help"])

# ... and no flag outside it: plan's and sweep's other flags are the verb's own (output, model loading,
# a device file), listed here so that a new planner option cannot skip the table.
# --tokens: size's spelling of --context, read by plan too (one spelling per concept across verbs).
VERB_ONLY = {"--help", "--json", "--require-fit", "--gpu-file", "--assume", "--csv", "--contexts", "--tokens"}
names_by_flag = {f["cli_flag"] for f in fields}
for verb, text in (("plan", plan_help), ("sweep", sweep_help)):
    flags = set(re.findall(r"(?:^\s+|,)(--[a-z][a-z-]*)", text, re.M))
    check(f"{verb}: its flags were read", len(flags) >= 25, sorted(flags))
    check(f"{verb}: every flag is a table field or the verb's own", flags - names_by_flag - VERB_ONLY == set(),
          sorted(flags - names_by_flag - VERB_ONLY))

# Every field set away from its default: (CLI words, Python keywords), from the shared table of cases
# (tests/data/request_cases.json, which tests/web/test.mjs drives through the page as well).
CASES_DOC = json.load(open(os.path.join(SRC, "tests", "data", "request_cases.json")))
MODEL, GPU = CASES_DOC["plan"]["model"], CASES_DOC["plan"]["gpu"]
CASES = {k: (c["cli"], c["python"]) for k, c in CASES_DOC["plan"]["cases"].items()}
check("a case for every field", sorted(CASES) == sorted(f["name"] for f in fields),
      sorted(set(CASES) ^ {f["name"] for f in fields}))


def cli_plan(words):
    r = run("plan", MODEL, *(["--gpu", GPU] if "--gpu" not in words else []), *words, "--json")
    return json.loads(r.stdout) if r.returncode == 0 else {"error": r.stderr}


def without(doc, *keys):
    return {k: v for k, v in doc.items() if k not in keys}


base_cli = cli_plan([])
check("plan --json echoes the request", "request" in base_cli and "error" not in base_cli, base_cli.get("error"))
if kvplan is not None:
    sig_plan = inspect.signature(kvplan.plan).parameters
    sig_sweep = inspect.signature(kvplan.sweep).parameters
    names = {f["name"] for f in fields}
    check("kvplan.plan()'s keywords are the table", set(sig_plan) - {"model"} == names, sorted(set(sig_plan) ^ names))
    check("kvplan.sweep()'s keywords are the table", set(sig_sweep) - {"model", "contexts"} == names - {"context"},
          sorted(set(sig_sweep) ^ names))
    for f in fields:
        check(f"kvplan.plan() takes {f['name']}", f["name"] in sig_plan)
        if f["name"] not in ("context", "concurrency"):
            check(f"kvplan.sweep() takes {f['name']}", f["name"] in sig_sweep)
    base_py = kvplan.plan(MODEL, GPU)
    check("defaults: CLI and Python echo the same request", dict(base_py["request"]) == base_cli["request"],
          (base_py["request"], base_cli["request"]))

for name, (words, kw) in CASES.items():
    c = cli_plan(words)
    if not check(f"{name}: CLI plan runs", "error" not in c, c.get("error")):
        continue
    changed = {k for k in c["request"] if c["request"][k] != base_cli["request"][k]}
    check(f"{name}: the CLI flag reaches the library", changed != set(), c["request"])
    if kvplan is None:
        continue
    kw = {"gpu": GPU, **kw}
    p = kvplan.plan(MODEL, **kw)
    check(f"{name}: same request from the CLI and Python", dict(p["request"]) == c["request"],
          {k: (p["request"][k], c["request"][k]) for k in c["request"] if p["request"].get(k) != c["request"][k]})
    check(f"{name}: same plan from the CLI and Python", without(dict(p), "schema") == without(c, "schema"),
          sorted(k for k in c if k != "schema" and p.get(k) != c[k]))

# kvplan sweep: the same options through its flags and keywords give plan's request (less the axes).
for name, (words, kw) in CASES.items():
    if name in ("context", "concurrency"):
        continue
    r = run("sweep", MODEL, *(["--gpu", GPU] if "--gpu" not in words else []), *words, "--contexts", "4096",
            "--concurrency", "1", "--json")
    if not check(f"sweep {name}: CLI runs", r.returncode == 0, r.stderr):
        continue
    s = json.loads(r.stdout)["request"]
    want = without(cli_plan(words)["request"], "context", "concurrency")
    check(f"sweep {name}: the same request as plan's", s == want, (s, want))
    if kvplan is not None:
        ps = kvplan.sweep(MODEL, [4096], [1], **{"gpu": GPU, **kw})
        check(f"sweep {name}: same request from the CLI and Python", dict(ps.request) == s, (ps.request, s))

# kvplan size: the same walk over its own table (tokens, batch, tp and the shared cache dtypes).
size_source = table_from_source("kSizeFields")
check("size table read from source", [f["name"] for f in size_source] ==
      ["tokens", "batch", "tp", "kv_dtype", "k_dtype", "v_dtype", "state_dtype"], size_source)
size_fields = kvplan.fields("size") if kvplan is not None else size_source
if kvplan is not None:
    check("kvplan.fields('size') is the table",
          [{k: f[k] for k in ("name", "cli_flag", "type", "unit", "default")} for f in size_fields] == size_source)
size_help = " ".join(run("size", "--help").stdout.split())
for f in size_fields:
    check(f"size --help has {f['cli_flag']}", f["cli_flag"] in size_help)
    if "help" in f:
        check(f"size {f['cli_flag']} help is the table's", " ".join(f["help"].split()) in size_help, f["help"])
SIZE_MODEL = CASES_DOC["size"]["model"]  # full attention and a recurrent state: every dtype matters
SIZE_CASES = {k: (c["cli"], c["python"]) for k, c in CASES_DOC["size"]["cases"].items()}
check("a size case for every field", sorted(SIZE_CASES) == sorted(f["name"] for f in size_fields))
base_size = json.loads(run("size", SIZE_MODEL, "--json").stdout)
for name, (words, kw) in SIZE_CASES.items():
    r = run("size", SIZE_MODEL, *words, "--json")
    if not check(f"size {name}: CLI runs", r.returncode == 0, r.stderr):
        continue
    c = json.loads(r.stdout)
    check(f"size {name}: the flag reaches the library", without(c, "schema") != without(base_size, "schema"))
    if kvplan is not None:
        p = dict(kvplan.size(SIZE_MODEL, **kw))
        check(f"size {name}: same result from the CLI and Python", without(p, "schema") == without(c, "schema"),
              sorted(k for k in c if k != "schema" and p.get(k) != c[k]))

# The page, read statically (its behaviour is tests/web/test.mjs's "every request field" test, which
# needs the emscripten build): the WebAssembly shell hands the page's plan and size fields to the
# library's own parser, and reads none of them itself.
wasm = open(os.path.join(SRC, "web", "src", "kvplan_wasm.cpp")).read()
check("the page's plan request goes through plan_input_from_request", "plan_input_from_request(request_of(a" in wasm)
check("the page's size request goes through workload_from_request", "workload_from_request(request_of(a" in wasm)
read = set(re.findall(r'_field\(a, "(\w+)"', wasm[wasm.index("json do_plan("):wasm.index("// Seed S13")]))
check("the shell reads no plan field itself", read == set(), sorted(read))
check("the page builds its plan form from the table", "call('fields'" in open(os.path.join(SRC, "web", "site", "app.js")).read())

finish()
