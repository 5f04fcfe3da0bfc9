#!/usr/bin/python3
"""The CI step: every example deployment under examples/ci/ (manifests and values files, *.yaml other than
GitHub workflows) checked with the CLI in each output format (text, json, github, junit); the exit code is
the same in every format and names a verdict (0, 1, 3) or bad input (2), never 4; the JSON validates
against docs/schema/, and the JUnit file validates against the JUnit XSD (tests/data/junit/junit-10.xsd).
Run: /usr/bin/python3 test_ci_examples.py <path-to-kvplan>"""
import os
import shutil
import subprocess
import tempfile
from _harness import KVPLAN, SRC, check, finish, validate_output  # noqa: E402

EXAMPLES = os.path.join(SRC, "examples", "ci")
XSD = os.path.join(SRC, "tests", "data", "junit", "junit-10.xsd")
# The GPU each example is documented with (examples/ci/README.md); files naming their own GPU need none.
FLAGS = {"k8s-vllm.yaml": ["--gpu", "H100", "--require-concurrency", "8"], "production-stack-values.yaml": ["--gpu", "L40S"]}


def junit_errors(xml_text):
    """Schema errors of a JUnit document ('' when valid)."""
    if shutil.which("xmllint"):
        with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
            f.write(xml_text)
        try:
            p = subprocess.run(["xmllint", "--noout", "--schema", XSD, f.name], capture_output=True, text=True)
            return "" if p.returncode == 0 else p.stderr
        finally:
            os.remove(f.name)
    try:
        from lxml import etree
    except ImportError:
        return "neither xmllint (libxml2-utils) nor python3-lxml is installed"
    schema = etree.XMLSchema(etree.parse(XSD))
    doc = etree.fromstring(xml_text.encode())
    return "" if schema.validate(doc) else str(schema.error_log)


files = sorted(f for f in os.listdir(EXAMPLES) if f.endswith((".yaml", ".yml")) and not f.startswith("kvplan-check"))
check("examples/ci has deployments", len(files) >= 2, files)
for name in files:
    path = os.path.join(EXAMPLES, name)
    codes = {}
    for fmt in ("text", "json", "github", "junit"):
        args = ["check", path, *FLAGS.get(name, []), "--format", fmt]
        p = subprocess.run([KVPLAN, *args], capture_output=True, text=True)
        codes[fmt] = p.returncode
        if fmt == "json":
            validate_output(args, p.stdout, p.returncode)
        if fmt == "junit":
            check(f"{name} junit is a testsuites document", p.stdout.lstrip().startswith("<?xml") and "<testsuites" in p.stdout, p.stdout[:200])
            errors = junit_errors(p.stdout)
            check(f"{name} junit validates against the JUnit XSD", errors == "", errors)
    check(f"{name}: one exit code in every format", len(set(codes.values())) == 1, codes)
    check(f"{name}: a verdict or bad input, never an internal error", codes["text"] in (0, 1, 2, 3), codes)

# A failing and a bad-input outcome validate too (a <failure> / <error> testcase).
for args in (["--gpu", "L4", "--require-concurrency", "500"], ["--gpu", "NO-SUCH-GPU"]):
    p = subprocess.run([KVPLAN, "check", os.path.join(EXAMPLES, "k8s-vllm.yaml"), *args, "--format", "junit"], capture_output=True, text=True)
    check(f"junit for {args} validates", p.returncode in (1, 2) and junit_errors(p.stdout) == "", (p.returncode, junit_errors(p.stdout)))

finish()
