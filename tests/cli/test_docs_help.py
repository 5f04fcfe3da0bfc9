#!/usr/bin/python3
"""Every `--help` block in docs/cli.md is what the binary prints: under each "### `kvplan VERB`"
heading, the fenced block that starts with the verb's summary and "Usage: kvplan VERB" must equal
`kvplan VERB --help` (the program path in "Usage:" read as "kvplan"). A verb this build lacks
(`measure` needs KVPLAN_BUILD_RUNTIME) is named and skipped. Every relative link of docs/cli.md,
docs/python.md, docs/web.md and README.md stays inside the repository and exists.
Run: /usr/bin/python3 test_docs_help.py <kvplan>
Regenerate the blocks: /usr/bin/python3 test_docs_help.py <kvplan> --update"""
import os
import re
import sys

from _harness import KVPLAN, SRC, check, finish, run  # noqa: E402

DOC = os.path.join(SRC, "docs", "cli.md")
HEADING = re.compile(r"^### `kvplan ([a-z][a-z. -]*)`\s*$")


def help_text(verb):
    r = run(*verb.split(), "--help")
    if r.returncode != 0:
        return None
    return re.sub(r"^Usage: \S*kvplan\b", "Usage: kvplan", r.stdout, flags=re.M)


verbs_built = set(re.findall(r"^  ([a-z]+)\s", run("--help").stdout, re.M))
lines = open(DOC, encoding="utf-8").read().split("\n")
out, blocks, i, verb = [], 0, 0, None
while i < len(lines):
    line = lines[i]
    m = HEADING.match(line)
    if m:
        verb = m.group(1)
    elif line.startswith("#"):
        verb = None
    if verb and line == "```" and i + 2 < len(lines) and lines[i + 2].startswith("Usage: kvplan " + verb):
        end = lines.index("```", i + 1)
        doc_text = "\n".join(lines[i + 1:end]) + "\n"
        blocks += 1
        if verb.split()[0] not in verbs_built:
            print(f"note: this build has no `kvplan {verb}`; its --help block is not checked")
            out.extend(lines[i:end + 1])
        else:
            real = help_text(verb)
            if check(f"kvplan {verb} --help runs", real is not None):
                check(f"docs/cli.md's `kvplan {verb} --help` block is the binary's", doc_text == real,
                      "\n" + "\n".join(f"  {a!r}\n  {b!r}" for a, b in zip(doc_text.split("\n"), real.split("\n")) if a != b)[:1500]
                      + "\n(regenerate: tests/cli/test_docs_help.py build/bin/kvplan --update)")
                doc_text = real
            out.extend(["```"] + doc_text.rstrip("\n").split("\n") + ([""] if doc_text.endswith("\n\n") else []) + ["```"])
        i = end + 1
        verb = None
        continue
    out.append(line)
    i += 1

check("docs/cli.md has the verbs' --help blocks", blocks >= 10, blocks)

# Issue 15: docs/cli.md linked to a file outside the repository. Every link of the CLI and Python
# docs is a web address or a path inside the repository that exists.
root = os.path.realpath(SRC)
for doc in ("docs/cli.md", "docs/python.md", "docs/web.md", "README.md"):
    text = open(os.path.join(SRC, doc), encoding="utf-8").read()
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = os.path.realpath(os.path.join(SRC, os.path.dirname(doc), target.split("#")[0]))
        check(f"{doc} links {target} inside the repository", path.startswith(root + os.sep) and os.path.exists(path), path)
if "--update" in sys.argv:
    open(DOC, "w", encoding="utf-8").write("\n".join(out))
    print(f"docs/cli.md: {blocks} --help blocks written from {KVPLAN}")
finish()
