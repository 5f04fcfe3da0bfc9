"""The per-layer derivations of the issue-12 families (tests/data/families.json): each expected
value is the hand formula written in the file, and kvplan computes the same bytes per layer."""
import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = json.loads((ROOT / "tests" / "data" / "families.json").read_text())["models"]
CASES = [(m["model"], gi, dt, n) for m in MODELS for gi, g in enumerate(m["groups"])
         for dt in ("bf16", "fp8") for n in ("1", "4096", "131072")]


def test_every_family_has_groups():
    assert len(MODELS) >= 10
    assert all(m["groups"] and m["code"] for m in MODELS)


@pytest.mark.parametrize("model,group,dtype,tokens", CASES)
def test_derivation_matches_bytes(model, group, dtype, tokens):
    g = next(m for m in MODELS if m["model"] == model)["groups"][group]
    assert eval(g["derivation"][dtype][tokens], {"__builtins__": {}}) == g["bytes"][dtype][tokens]


@pytest.mark.parametrize("model", [m["model"] for m in MODELS])
def test_kvplan_matches_per_layer(model):
    kvplan = pytest.importorskip("kvplan")
    entry = next(m for m in MODELS if m["model"] == model)
    for dtype in ("bf16", "fp8"):
        for tokens in (1, 4096, 131072):
            s = kvplan.size(model, tokens=tokens, batch=1, kv_dtype=dtype)
            for g in entry["groups"]:
                for i in g["layers"]:
                    assert s["layers"][i]["bytes"] == g["bytes"][dtype][str(tokens)]
