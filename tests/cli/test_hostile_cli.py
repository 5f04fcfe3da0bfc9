#!/usr/bin/env python3
"""Every CLI case of the hostile-input regression table (tests/data/hostile_inputs.json, issue 18)
through the real binary: the exact exit code, the exact one-line message on stderr (or the
stdout fragments a case names), and no hang (each run has a 60 s limit).
Usage: test_hostile_cli.py PATH_TO_KVPLAN. Prints 'N passed, N failed'."""
import json
import os
import re
import stat
import subprocess
import tempfile
from _harness import KVPLAN, SRC, check, finish, validate_output  # noqa: E402


def expand(text):
    """The table's generators: {{nest:N}} N nested arrays, {{csv:N}} 1,2,...,N, {{byte:ff}} a raw byte."""
    text = re.sub(r"\{\{nest:(\d+)\}\}", lambda m: "[" * int(m.group(1)) + "]" * int(m.group(1)), text)
    text = re.sub(r"\{\{csv:(\d+)\}\}", lambda m: ",".join(str(i) for i in range(1, int(m.group(1)) + 1)), text)
    return text


def to_bytes(text):
    out = bytearray()
    for part in re.split(r"(\{\{byte:[0-9a-f]{2}\}\})", expand(text)):
        m = re.fullmatch(r"\{\{byte:([0-9a-f]{2})\}\}", part)
        out += bytes([int(m.group(1), 16)]) if m else part.encode()
    return bytes(out)


with open(os.path.join(SRC, "tests", "data", "hostile_inputs.json")) as f:
    table = json.load(f)

for case in table["cases"]:
    cli = case.get("cli")
    if not cli:
        continue
    name = case["name"]
    with tempfile.TemporaryDirectory() as d:
        for fname, content in cli.get("files", {}).items():
            if isinstance(content, dict):  # a bundled config with keys removed
                with open(os.path.join(SRC, content["base"])) as fh:
                    cfg = json.load(fh)
                for k in content.get("remove", []):
                    cfg.pop(k, None)
                content = json.dumps(cfg)
            with open(os.path.join(d, fname), "wb") as fh:
                fh.write(to_bytes(content))
        for fname in cli.get("fifos", []):
            os.mkfifo(os.path.join(d, fname))
        argv = [expand(a).replace("{dir}", d + "/") for a in cli["argv"]]
        try:
            p = subprocess.run([KVPLAN, *argv], capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            check(name, False, "hung for 60 s")
            continue
        err = p.stderr.decode("utf-8", "replace")
        out = p.stdout.decode("utf-8", "replace")
        validate_output(argv, out, p.returncode)
        check(name + " exit", p.returncode == case["exit"], f"exit {p.returncode}, stderr {err[:300]!r}")
        if "message" in case:
            want = "kvplan: " + case["message"].replace("{dir}", d + "/") + "\n"
            check(name + " message", err == want, f"\n got {err[:400]!r}\nwant {want[:400]!r}")
        for frag in cli.get("stdout_contains", []):
            check(name + " stdout", frag in out, f"{frag!r} not in {out[:300]!r}")
        for frag in cli.get("stdout_lacks", []):
            check(name + " stdout lacks", frag not in out, f"{frag!r} in {out[:300]!r}")

finish()
