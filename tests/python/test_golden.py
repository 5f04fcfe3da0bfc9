"""The golden cache sizes shared with the C++ tests (tests/data/golden.json): each expected value
is a hand derivation, checked here twice: the derivation evaluates to it, and kvplan computes it."""
import json
import pathlib

import pytest

import kvplan

ROOT = pathlib.Path(__file__).resolve().parents[2]
CASES = json.loads((ROOT / "tests" / "data" / "golden.json").read_text())["sizes"]


def test_golden_table_is_not_empty():
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_derivation_matches_expected(case):
    assert eval(case["derivation"], {"__builtins__": {}}) == case["expected"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_kvplan_matches_expected(case):
    kw = dict(tokens=case["tokens"], batch=case["batch"], kv_dtype=case["kv_dtype"])
    if "state_dtype" in case:
        kw["state_dtype"] = case["state_dtype"]
    s = kvplan.size(case["model"], **kw)
    assert s[case["key"]] == case["expected"]
    assert s["total_bytes"] == s["kv_bytes"] + s["state_bytes"]
    # The scalar API agrees with the report.
    assert kvplan.load(case["model"]).kv_bytes(**kw) == s["total_bytes"]


@pytest.mark.parametrize("case", [c for c in CASES if c["key"] == "bytes_per_token"],
                         ids=lambda c: c["id"])
def test_bytes_per_token_method(case):
    m = kvplan.load(case["model"])
    assert m.bytes_per_token(kv_dtype=case["kv_dtype"]) == case["expected"]
