"""Python results are the CLI's JSON documents: kvplan.plan() and kvplan.size() (with the schema tag
the CLI adds) validate against docs/schema/plan.schema.json and size.schema.json."""
import json

import jsonschema
import pytest

import kvplan

MODELS = ["meta-llama/Llama-3.1-8B", "deepseek-ai/DeepSeek-V3", "google/gemma-3-1b-it", "ArthurZ/mamba-2.8b",
          "openai-community/gpt2"]


def validator(root, verb):
    s = json.loads((root / "docs" / "schema" / f"{verb}.schema.json").read_text())
    return jsonschema.Draft202012Validator(s)


def errors(v, doc, verb):
    # The version CHANGELOG.md states for each verb (plan/2: ttft_seconds may be null, issue 30).
    version = {"plan": 2}.get(verb, 1)
    return [f"{list(e.path)}: {e.message[:200]}" for e in v.iter_errors({**dict(doc), "schema": f"kvplan.{verb}/{version}"})]


@pytest.mark.parametrize("model", MODELS)
def test_plan_result_is_the_plan_document(root, model):
    v = validator(root, "plan")
    assert errors(v, kvplan.plan(model, "H100"), "plan") == []
    # a plan that does not fit: reason text, min_gpus and its reason
    p = kvplan.plan(model, "L4", context="128k", concurrency=64)
    assert errors(v, p, "plan") == []
    # the assumptions the CLI prints, e.g. gpt2's float32 config served in bf16
    assert p["assumptions"] == kvplan.size(model)["assumptions"]
    if model == "openai-community/gpt2":
        assert any("bf16" in a for a in p["assumptions"]), p["assumptions"]


@pytest.mark.parametrize("model", MODELS)
def test_size_result_is_the_size_document(root, model):
    assert errors(validator(root, "size"), kvplan.size(model, tokens="32k", batch=2), "size") == []


def test_a_wrong_document_fails(root):
    # the check can fail: a count as a float is refused
    p = dict(kvplan.plan("meta-llama/Llama-3.1-8B", "H100"))
    p["max_concurrency"] = float(p["max_concurrency"]) + 0.5
    assert errors(validator(root, "plan"), p, "plan") != []
