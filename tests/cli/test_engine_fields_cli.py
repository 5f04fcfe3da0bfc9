#!/usr/bin/env python3
"""The engine option tables (libkvplan/include/kvplan/engine_fields.h) against the CLI and Python:
- the CLI: every table flag is in `kvplan engine --help`, and every engine flag there is in a table;
- Python (when the module is built next to the CLI, <build>/python): kvplan.fields("engine.<e>")
  is the table and kvplan.engine_options(<e>) its names;
- both: each field set to a non-default value (tests/data/request_cases.json, "engine") through its
  CLI flag and through its Python keyword gives the same `engine --json` document, and one that
  differs from the base options' (or the case's "ref" words': the option reaches the library); a
  case marked "error" must be refused by both faces;
- the request echo: `engine --json`'s "request" is the whole table, each field at the value the case
  gave it (units read here: 80GiB, 40GB, 32k) and every other at the table's default (null when
  unset), and docs/schema/engine.schema.json describes exactly those keys.
Usage: test_engine_fields_cli.py PATH_TO_KVPLAN. Prints 'N passed, N failed'."""
import json
import os
import re

from _harness import SRC, check, finish, python_module, run  # noqa: E402

kvplan = python_module()

SOURCE = open(os.path.join(SRC, "libkvplan", "src", "engines", "engine_fields.cpp")).read()
SHARED = dict(re.findall(r'constexpr std::string_view (k\w+) = "([^"]+)";', SOURCE))
ROW = r'F\((\w+), ("[^"]*"|k\w+), (\w+), "([^"]*)", "([^"]*)",'
ARRAYS = {"vllm": "kVllm", "llama.cpp": "kLlamaCpp", "sglang": "kSglang", "trtllm": "kTrtllm", "ollama": "kOllama"}


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


SCHEMA = json.load(open(os.path.join(SRC, "docs", "schema", "engine.schema.json")))
UNITS = {"GiB": 2**30, "MiB": 2**20, "GB": 10**9, "k": 1024}


def value_of(v, typ):
    """A case's Python keyword value as the library must echo it (its own reading of units)."""
    if isinstance(v, (bool, int, float)):
        return v
    if typ in ("token_list", "count_list", "bytes_list"):
        return [value_of(x, "tokens") for x in (v if isinstance(v, list) else v.split(","))]
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(GiB|MiB|GB|k)?", v)
    if m and typ != "text":
        return int(float(m[1]) * UNITS.get(m[2] or "", 1))
    return v


def default_of(f):
    d = f["default"]
    if f["type"] == "boolean":
        return d == "true"
    if d is None:
        return None
    return value_of(d, f["type"]) if f["type"] != "fraction" else float(d)


def expected_request(engine, table, kw):
    req = {f["name"]: default_of(f) for f in table}
    types = {f["name"]: f["type"] for f in table}
    req.update({k: value_of(v, types[k]) for k, v in kw.items()})
    if engine == "sglang" and "free_before_bytes" not in kw:  # unset: the device total (engine_fields.h)
        req["free_before_bytes"] = req["gpu_memory_bytes"]
    return req


def without(doc, *keys):
    return {k: v for k, v in doc.items() if k not in keys}


def cli_engine(engine, model, words):
    r = run("engine", engine, model, *words, "--json")
    return without(json.loads(r.stdout), "schema") if r.returncode == 0 else {"error": r.stderr.strip()}


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

    variant = next(v for v in SCHEMA["oneOf"] if v["properties"]["engine"].get("const") == engine)
    check(f"{engine}: the schema's request is the table",
          sorted(variant["properties"]["request"]["properties"]) == sorted(f["name"] for f in table)
          and "request" in variant["required"], sorted(variant["properties"]["request"]["properties"]))

    spec = CASES[engine]
    model, base = spec["model"], spec["base"]
    check(f"{engine}: a case for every field", sorted(spec["cases"]) == sorted(f["name"] for f in table),
          sorted(set(spec["cases"]) ^ {f["name"] for f in table}))
    bases = {}

    def base_of(m):  # the base options' document on model m
        if m not in bases:
            bases[m] = cli_engine(engine, m, base["cli"])
            check(f"{engine} {m}: base runs", "error" not in bases[m], bases[m].get("error"))
            want = expected_request(engine, table, base["python"])
            got = bases[m].get("request")
            check(f"{engine} {m}: base: the request echo is the table's defaults", got == want,
                  got and sorted(k for k in want if got.get(k) != want[k]))
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
        check(f"{engine} {name}: the CLI flag reaches the library",
              "error" not in ref and without(c, "request") != without(ref, "request"), ref.get("error"))
        want = expected_request(engine, table, kw)
        check(f"{engine} {name}: the request echo holds it", c.get("request") == want,
              sorted(k for k in want if c.get("request", {}).get(k) != want[k]))
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
