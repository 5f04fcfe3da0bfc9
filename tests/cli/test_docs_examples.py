#!/usr/bin/python3
"""Runs every `kvplan check` example in the docs (docs/engines.md, docs/cli.md, examples/ci/README.md,
README.md) so a wrong example cannot come back: each must be valid input (exit 0 PASS, 1 FAIL or
3 UNCERTAIN, never 2),
and kvplan's own options must sit before `--`. Run: /usr/bin/python3 test_docs_examples.py <kvplan>"""
import os
import re
import shlex
import subprocess
from _harness import KVPLAN, SRC, check, finish  # noqa: E402

DOCS = ["docs/engines.md", "docs/cli.md", "examples/ci/README.md", "README.md"]
KVPLAN_OPTIONS = {"--gpu", "--gpus", "--require-concurrency", "--require-context", "--format", "--file", "-f", "--model",
                  "--gpu-memory", "--gpu-file", "--engine-log", "--engine-version", "--strict", "--weights"}


examples = []
for doc in DOCS:
    path = os.path.join(SRC, doc)
    if not os.path.exists(path):
        continue
    in_block = False
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith("```"):
            in_block = not in_block
            continue
        cmd = line.split(" # ")[0].strip() if in_block else ""
        if cmd.startswith("kvplan check "):
            examples.append((f"{doc}:{n}", cmd))
check("the docs hold kvplan check examples", len(examples) >= 8, len(examples))

for where, cmd in examples:
    words = shlex.split(cmd)[2:]
    if "--" in words:
        after = words[words.index("--") + 1:]
        misplaced = [w for w in after if w.split("=")[0] in KVPLAN_OPTIONS - {"--model"}]
        check(f"{where}: kvplan options before --", not misplaced, cmd)
    p = subprocess.run([KVPLAN, "check", *words], capture_output=True, text=True, cwd=SRC)
    check(f"{where}: valid input", p.returncode in (0, 1, 3), f"{cmd}\n  rc={p.returncode} {p.stderr.strip()[:300]}")

finish()
