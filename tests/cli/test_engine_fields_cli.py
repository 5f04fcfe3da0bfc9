#!/usr/bin/env python3
"""The engine option tables (libkvplan/include/kvplan/engine_fields.h) against the CLI and Python:
- the CLI: every table flag is in `kvplan engine --help`, and every engine flag there is in a table;
- Python (when the module is built next to the CLI, <build>/python): kvplan.fields("engine.<e>")
  is the table and kvplan.engine_options(<e>) its names;
- both: each field set to a non-default value (tests/data/request_cases.json, "engine") through its
  CLI flag and through its Python keyword gives the same `engine --json` document, and one that
  differs from the base options' (or the case's "ref" words': the option reaches the library); a
  case marked "error" must be refused by both faces.
Usage: test_engine_fields_cli.py PATH_TO_KVPLAN. Prints 'N passed, N failed'."""
import json
import os
import re

from _harness import SRC, check, finish, python_module, run  # noqa: E402

kvplan = python_module()

SOURCE = open(os.path.join(SRC, "libkvplan", "src", "engines", "engine_fields.cpp")).read()
SHARED = dict(re.findall(r'constexpr std::string_view (k\w+) = "([^"]+)";', SOURCE))
ROW = r'F\((\w+), ("[^"]*"|k\w+), (\w+), "([^"]*)", "([^"]*)",'
ARRAYS = {"vllm": "kVllm", "llama.cpp": "kLlamaCpp", "sglang": "kSglang", "trtllm": "kTrtllm"}


def table_from_source(array):
    body = SOURCE[SOURCE.index(f"constexpr std::array {array}{{"):]
    body = body[: body.index("};")]
    rows = []
    for name, flags, typ, unit, default in re.findall(ROW, body):
        flags = SHARED[flags] if flags in SHARED else flags.strip('"')
        flags = flags.split(",")
        rows.append({"name": name, "cli_flag": flags[0], "cli_aliases": flags[1:], "type": typ, "unit": unit,
                     "default": default or None})
    return rows


CASES = json.load(open(os.path.join(SRC, "tests", "data", "request_cases.json")))["engine"]
help_text = run("engine", "--help").stdout
help_flags = set(re.findall(r"(?:^\s+|,)(--[a-z][a-z-]*)", help_text, re.M))
table_flags = set()


def without(doc, *keys):
    return {k: v for k, v in doc.items() if k not in keys}


def cli_engine(engine, model, words):
    r = run("engine", engine, model, *words, "--json")
    return without(json.loads(r.stdout), "schema", "model") if r.returncode == 0 else {"error": r.stderr.strip()}


def py_engine(engine, model, kw):
    try:
        return dict(kvplan.engine(engine, model, **kw))
    except kvplan.KvplanError as e:
        return {"error": str(e)}


for engine, array in ARRAYS.items():
    table = table_from_source(array)
    check(f"{engine}: table read from source", len(table) >= 10, len(table))
    for f in table:
        table_flags.update([f["cli_flag"], *f["cli_aliases"]])
        check(f"{engine}: engine --help has {f['cli_flag']}",
              re.search(rf"(^|[ ,]){re.escape(f['cli_flag'])}\b", help_text, re.M) is not None)
    if kvplan is not None:
        fields = kvplan.fields(f"engine.{engine}")
        check(f"kvplan.fields('engine.{engine}') is the table",
              [{k: f[k] for k in ("name", "cli_flag", "cli_aliases", "type", "unit", "default")} for f in fields] == table,
              [f["name"] for f in fields])
        check(f"{engine}: every field has help", all(f["help"] for f in fields))
        check(f"kvplan.engine_options('{engine}') is the table's names",
              sorted(kvplan.engine_options(engine)) == sorted(f["name"] for f in table))

    spec = CASES[engine]
    model, base = spec["model"], spec["base"]
    check(f"{engine}: a case for every field", sorted(spec["cases"]) == sorted(f["name"] for f in table),
          sorted(set(spec["cases"]) ^ {f["name"] for f in table}))
    bases = {}

    def base_of(m):  # the base options' document on model m
        if m not in bases:
            bases[m] = cli_engine(engine, m, base["cli"])
            check(f"{engine} {m}: base runs", "error" not in bases[m], bases[m].get("error"))
            if kvplan is not None:
                check(f"{engine} {m}: base: same JSON from the CLI and Python",
                      py_engine(engine, m, base["python"]) == bases[m])
        return bases[m]
    flag_of = {f["name"]: {f["cli_flag"], *f["cli_aliases"]} for f in table}
    for name, case in spec["cases"].items():
        use_base = case.get("base", True)
        words = (base["cli"] if use_base else []) + case["cli"]
        kw = {**(base["python"] if use_base else {}), **case["python"]}
        check(f"{engine} {name}: the case uses the field's flag and keyword",
              bool(flag_of.get(name, set()) & set(case["cli"])) and name in case["python"], (case, flag_of.get(name)))
        m = case.get("model", model)
        c = cli_engine(engine, m, words)
        if case.get("error"):  # the option shows as a refusal: both faces refuse it
            check(f"{engine} {name}: the CLI refuses it", "error" in c, c)
            if kvplan is not None:
                check(f"{engine} {name}: Python refuses it", "error" in py_engine(engine, m, kw))
            continue
        if not check(f"{engine} {name}: CLI runs", "error" not in c, c.get("error")):
            continue
        ref = cli_engine(engine, m, (base["cli"] if use_base else []) + case["ref"]) if "ref" in case else base_of(m)
        check(f"{engine} {name}: the CLI flag reaches the library", "error" not in ref and c != ref, ref.get("error"))
        if kvplan is None:
            continue
        p = py_engine(engine, m, kw)
        check(f"{engine} {name}: same JSON from the CLI and Python", p == c,
              p.get("error") or sorted(k for k in c if p.get(k) != c[k]))

# ... and no engine flag outside the tables: the verb's own are ENGINE/MODEL's and --json.
VERB_ONLY = {"--help", "--json", "--assume"}
check("engine --help: its flags were read", len(help_flags) >= 60, sorted(help_flags))
check("engine --help: every flag is a table's or the verb's own", help_flags - table_flags - VERB_ONLY == set(),
      sorted(help_flags - table_flags - VERB_ONLY))

finish()
