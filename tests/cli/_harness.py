"""Shared harness of the CLI contract tests (tests/cli/test_*.py; not a test itself).

- KVPLAN (argv[1]) and SRC (the source tree), as ctest passes them;
- run(*args): runs the CLI; every JSON document it prints (`--json`, `--format json`) is
  validated against its verb's schema in docs/schema/ (a verb without a schema is a failure);
- js(*args): run(*args, "--json"), exit 0 asserted, the parsed object;
- check(name, cond, detail) and check_fn(name, fn) count results; finish() prints
  'N passed, N failed' plus the schema tally and exits 1 on any failure.
"""
import json
import os
import subprocess
import sys

import jsonschema

KVPLAN = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 and os.sep in sys.argv[1] else (
    sys.argv[1] if len(sys.argv) > 1 else "build/bin/kvplan")
SRC = os.environ.get("KVPLAN_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCHEMA_DIR = os.path.join(SRC, "docs", "schema")

_state = {"passed": 0, "failed": 0, "validated": 0}
_validators = {}


def python_module():
    """The kvplan module built next to the CLI (<build>/python), or None (KVPLAN_BUILD_PYTHON=OFF:
    the CLI face only, said out loud)."""
    build_py = os.path.join(os.path.dirname(os.path.abspath(KVPLAN)), "..", "python")
    try:
        sys.path.insert(0, build_py)
        import kvplan  # noqa: E402
        return kvplan
    except ImportError as e:
        print(f"note: no Python module at {build_py} ({e}); the Python face is not checked in this build")
        return None


def check(name, cond, detail=""):
    """One assertion: counted, and printed when it fails."""
    if cond:
        _state["passed"] += 1
    else:
        _state["failed"] += 1
        print(f"FAIL {name} {detail}"[:2000])
    return cond


def check_fn(name, fn):
    """A test function that raises on failure (assert ...): counted like check()."""
    try:
        fn()
        _state["passed"] += 1
        return True
    except Exception as e:  # noqa: BLE001 - report every failure and go on
        _state["failed"] += 1
        print(f"FAIL {name}: {type(e).__name__}: {e}"[:2000])
        return False


def counts():
    return _state["passed"], _state["failed"]


def validator(schema_id):
    """The validator for "kvplan.<verb>/<version>": docs/schema/<verb>.schema.json, whose $id
    must be that id. KeyError naming the id when there is no such schema."""
    if schema_id not in _validators:
        verb = schema_id.split(".", 1)[1].split("/", 1)[0] if schema_id.startswith("kvplan.") else schema_id
        path = os.path.join(SCHEMA_DIR, f"{verb}.schema.json")
        if not os.path.exists(path):
            raise KeyError(f"no schema for {schema_id!r} (docs/schema/{verb}.schema.json)")
        s = json.load(open(path))
        jsonschema.Draft202012Validator.check_schema(s)
        if s.get("$id") != schema_id:
            raise KeyError(f"docs/schema/{verb}.schema.json has $id {s.get('$id')!r}, not {schema_id!r}")
        _validators[schema_id] = jsonschema.Draft202012Validator(s)
    return _validators[schema_id]


def schema_errors(doc, verb=None):
    """Problems with one JSON document against its schema, as strings ([] when valid)."""
    if not isinstance(doc, dict):
        return [f"not a JSON object: {type(doc).__name__}"]
    sid = doc.get("schema")
    if not isinstance(sid, str):
        return [f"no \"schema\" key naming kvplan.<verb>/<version> (verb {verb})"]
    if verb and not sid.startswith(f"kvplan.{verb}/"):
        return [f"schema {sid!r} is not the {verb} verb's"]
    try:
        v = validator(sid)
    except KeyError as e:
        return [str(e)]
    out = []
    for e in sorted(v.iter_errors(doc), key=lambda e: list(e.path))[:3]:
        # A oneOf failure says "not valid under any"; name each branch's first complaint instead.
        for c in (e.context or [e])[:4]:
            out.append(f"/{'/'.join(map(str, c.absolute_path))}: {c.message[:200]}")
    return out


def _verb(args):
    for a in args:
        if not a.startswith("-"):
            return a
    return None


def wants_json(args):
    args = list(args)
    if "--" in args:
        args = args[: args.index("--")]
    if "--json" in args or "--format=json" in args:
        return True
    return any(a == "--format" and i + 1 < len(args) and args[i + 1] == "json" for i, a in enumerate(args))


def validate_output(args, stdout, returncode):
    """Validates the JSON a run printed. Bad input (exit 2) outside `check` prints no JSON."""
    if not wants_json(args) or not stdout.strip():
        return
    if returncode == 2 and _verb(args) != "check":
        return
    try:
        doc = json.loads(stdout)
    except json.JSONDecodeError as e:
        check(f"{' '.join(args)[:200]}: stdout is one JSON object", False, str(e))
        return
    errors = schema_errors(doc, _verb(args))
    _state["validated"] += 1
    check(f"{' '.join(args)[:200]}: schema", not errors, "; ".join(errors))


def run(*args, env=None, timeout=300, cwd=None, input=None):
    """Runs the CLI (subprocess.CompletedProcess, text); a JSON document on stdout is validated."""
    e = None
    if env is not None:
        e = dict(os.environ)
        e.update(env)
    p = subprocess.run([KVPLAN, *args], capture_output=True, text=True, timeout=timeout, env=e, cwd=cwd, input=input)
    validate_output([str(a) for a in args], p.stdout, p.returncode)
    return p


def js(*args, **kw):
    """run(*args, "--json"): exit 0 asserted, the parsed object."""
    r = run(*args, "--json", **kw)
    assert r.returncode == 0, f"exit {r.returncode}: {r.stderr}"
    return json.loads(r.stdout)  # exactly one JSON object on stdout


def finish():
    print(f"{_state['validated']} JSON documents validated against docs/schema/")
    print(f"{_state['passed']} passed, {_state['failed']} failed")
    sys.exit(1 if _state["failed"] else 0)
