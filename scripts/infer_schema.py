#!/usr/bin/python3
"""Drafts a JSON Schema from real `kvplan VERB --json` outputs (a maintainer's tool, not a test).

Usage: scripts/infer_schema.py VERB OUT.schema.json SAMPLE.json... [--split KEY]
Keys present in every sample are required; a value seen as several types gets all of them
("integer" never widens to "number" silently: a count that is sometimes a float is a bug to fix,
so the draft lists both and the maintainer decides). --split KEY writes one branch per value of
KEY (e.g. `engine`), joined with oneOf. Review the draft by hand before committing it.
"""
import json
import sys


def kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def infer(values):
    types = sorted({kind(v) for v in values})
    s = {"type": types[0] if len(types) == 1 else types}
    objs = [v for v in values if isinstance(v, dict)]
    if objs:
        keys = sorted({k for o in objs for k in o})
        s["properties"] = {k: infer([o[k] for o in objs if k in o]) for k in keys}
        s["required"] = [k for k in keys if all(k in o for o in objs)]
    arrays = [v for v in values if isinstance(v, list)]
    items = [x for a in arrays for x in a]
    if items:
        s["items"] = infer(items)
    return s


def main():
    args = sys.argv[1:]
    split = None
    if "--split" in args:
        i = args.index("--split")
        split = args[i + 1]
        del args[i:i + 2]
    verb, out, files = args[0], args[1], args[2:]
    docs = [json.load(open(f)) for f in files]
    if split:
        groups = {}
        for d in docs:
            groups.setdefault(d[split], []).append(d)
        body = {"oneOf": []}
        for value, group in sorted(groups.items()):
            branch = infer(group)
            branch["properties"][split] = {"const": value}
            body["oneOf"].append(branch)
    else:
        body = infer(docs)
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"kvplan.{verb}/1",
        "title": f"kvplan {verb} --json",
    }
    schema.update(body)
    with open(out, "w") as f:
        json.dump(schema, f, indent=2, sort_keys=False)
        f.write("\n")


main()
