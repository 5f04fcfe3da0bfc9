#!/usr/bin/python3
"""The GitHub Action (action.yml), the pre-commit hook (.pre-commit-hooks.yaml) and the example
workflow (examples/ci/kvplan-check.yml): their YAML structure as GitHub Actions and pre-commit read
it (python3-yaml), and the workflow's own check run with kvplan. Run: test_ci_action.py <kvplan>"""
import os
import subprocess

import yaml
from _harness import KVPLAN, SRC, check, finish  # noqa: E402


def load(rel):
    with open(os.path.join(SRC, rel), encoding="utf-8") as f:
        return yaml.safe_load(f)


# action.yml: a composite action (https://docs.github.com/actions/creating-actions/metadata-syntax-for-github-actions).
action = load("action.yml")
check("action name/description", isinstance(action.get("name"), str) and isinstance(action.get("description"), str))
check("action is composite", action.get("runs", {}).get("using") == "composite")
steps = action["runs"].get("steps", [])
check("composite steps each have run + shell", steps and all("run" in s and s.get("shell") == "bash" for s in steps), steps)
inputs = action.get("inputs", {})
check("input paths required", inputs.get("paths", {}).get("required") is True, inputs)
for k, v in inputs.items():
    check(f"input {k} described", isinstance(v.get("description"), str), v)
# It runs the container image (Dockerfile) instead of building on the runner.
check("action gets the image", "docker build" in steps[0]["run"] and "docker pull" in steps[0]["run"], steps[0]["run"])
check("action runs the image", all("apt-get" not in s["run"] and "cmake" not in s["run"] for s in steps)
      and "docker run" in steps[-1]["run"] and os.path.exists(os.path.join(SRC, "Dockerfile")), steps)
check("action output exit-code", "exit-code" in action.get("outputs", {}))

# .pre-commit-hooks.yaml (https://pre-commit.com/#new-hooks): a list of hooks with id/name/entry/language.
hooks = load(".pre-commit-hooks.yaml")
check("hooks is a list", isinstance(hooks, list) and hooks, hooks)
for h in hooks:
    check(f"hook {h.get('id')} keys", all(k in h for k in ("id", "name", "entry", "language")), h)
    check(f"hook {h.get('id')} runs kvplan check", h.get("entry") == "kvplan check", h)

# The workflow: `on` (PyYAML reads the bare key `on` as True), jobs with runs-on and steps.
wf = load("examples/ci/kvplan-check.yml")
on = wf.get("on", wf.get(True))
check("workflow triggers", isinstance(on, dict) and ("pull_request" in on or "push" in on), on)
jobs = wf.get("jobs", {})
check("workflow jobs", isinstance(jobs, dict) and jobs, jobs)
uses = None
for name, job in jobs.items():
    check(f"job {name} runs-on", isinstance(job.get("runs-on"), str), job)
    for s in job.get("steps", []):
        check(f"job {name} step has uses or run", ("uses" in s) != ("run" in s), s)
        if s.get("uses") == "./":
            uses = s
check("workflow uses the action", uses is not None)
if uses:
    w = uses.get("with", {})
    paths = w.get("paths", "").split()
    check("the workflow's files exist", paths and all(os.path.exists(os.path.join(SRC, p)) for p in paths), paths)
    for k in w:
        check(f"with.{k} is an input of the action", k in inputs, k)
    # What the action runs, on the workflow's files: they pass.
    p = subprocess.run([KVPLAN, "check", *paths, "--gpu", w.get("gpu", "H100"), "--format", "github"],
                       capture_output=True, text=True, cwd=SRC)
    check("the workflow's deployments pass", p.returncode == 0 and "::error" not in p.stdout, (p.returncode, p.stdout, p.stderr))

finish()
