"""The typed engine functions (kvplan.vllm, kvplan.llamacpp, kvplan.sglang, kvplan.trtllm, kvplan.ollama) against
the engine option tables (kvplan.fields("engine.<e>"), libkvplan/src/engines/engine_fields.cpp):
each function's keyword-only parameters are exactly its table's fields, in table order, each
defaulting to None ("not given": the table's default applies) and annotated with its field type's
alias; a field added to a table without its keyword fails here. Each keyword is then driven with
the cases of tests/data/request_cases.json ("engine", the ones test_engine_fields_cli.py runs
through the CLI): the typed function gives the same Record (or the same refusal) as kvplan.engine()."""
import inspect
import json
import pathlib

import pytest

import kvplan

ROOT = pathlib.Path(__file__).resolve().parents[2]
FUNCTIONS = {"vllm": kvplan.vllm, "llama.cpp": kvplan.llamacpp, "sglang": kvplan.sglang, "trtllm": kvplan.trtllm,
             "ollama": kvplan.ollama}
# kvplan/fields.h FieldType -> the annotation alias in kvplan/_engines.py (written as source text).
ANNOTATION = {"count": "Optional[Count]", "tokens": "Optional[Tokens]", "bytes": "Optional[Bytes]",
              "fraction": "Optional[Fraction]", "text": "Optional[Text]", "boolean": "Optional[bool]",
              "token_list": "Optional[TokenList]", "bytes_list": "Optional[BytesList]"}
CASES = json.loads((ROOT / "tests" / "data" / "request_cases.json").read_text())["engine"]


def outcome(fn, *args, **kw):
    try:
        return dict(fn(*args, **kw))
    except kvplan.KvplanError as e:
        return {"error": str(e)}


@pytest.mark.parametrize("engine", sorted(FUNCTIONS))
def test_signature_is_the_table(engine):
    fn, table = FUNCTIONS[engine], kvplan.fields(f"engine.{engine}")
    assert len(table) >= 10
    params = list(inspect.signature(fn).parameters.values())
    assert params[0].name == "model" and params[0].kind == inspect.Parameter.POSITIONAL_OR_KEYWORD
    keywords = params[1:]
    assert all(p.kind == inspect.Parameter.KEYWORD_ONLY for p in keywords), [p.name for p in keywords]
    assert [p.name for p in keywords] == [f["name"] for f in table]
    for p, f in zip(keywords, table):
        assert p.default is None, (p.name, "the table's default applies when not given", f["default"])
        assert p.annotation == ANNOTATION[f["type"]], (p.name, f["type"], p.annotation)
        assert f["name"] in fn.__doc__ and f["cli_flag"] in fn.__doc__  # help() lists the table
    assert fn.__module__ == "kvplan._engines" and fn.__name__ in kvplan.__all__


@pytest.mark.parametrize("engine", sorted(FUNCTIONS))
def test_each_keyword_reaches_the_library_as_through_engine(engine):
    fn, spec = FUNCTIONS[engine], CASES[engine]
    base = spec["base"]["python"]
    assert sorted(spec["cases"]) == sorted(f["name"] for f in kvplan.fields(f"engine.{engine}"))
    plain = outcome(fn, spec["model"], **base)
    assert "error" not in plain and plain == outcome(kvplan.engine, engine, spec["model"], **base)
    for name, case in spec["cases"].items():
        kw = {**(base if case.get("base", True) else {}), **case["python"]}
        model = case.get("model", spec["model"])
        typed, generic = outcome(fn, model, **kw), outcome(kvplan.engine, engine, model, **kw)
        assert typed == generic, name
        assert ("error" in typed) == bool(case.get("error")), (name, typed.get("error"))
        if not case.get("error") and "ref" not in case and model == spec["model"]:
            assert typed != plain, f"{name}: the keyword changes nothing"


def test_records_match_hand_derived_figures():
    # Llama-3.1-8B: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes (bf16) = 131,072 B per token.
    per_token = 32 * 8 * 128 * 2 * 2
    v = kvplan.vllm("meta-llama/Llama-3.1-8B", max_model_len="32k", available_kv_bytes="20GiB")
    assert v.num_blocks == 20 * 2**30 // (16 * per_token) and v.max_model_len == 32768
    assert v == kvplan.engine("vllm", "meta-llama/Llama-3.1-8B", max_model_len=32768, available_kv_bytes=20 * 2**30)
    r = kvplan.llamacpp("meta-llama/Llama-3.1-8B", ctx_size=4096, parallel=1)
    assert r.k_bytes == r.v_bytes == 4096 * per_token // 2
    t = kvplan.trtllm("meta-llama/Llama-3.1-8B", kv_memory_bytes="40GiB", max_seq_len=8192)
    assert t.bytes_per_token == per_token and t.max_seq_len == 8192
    s = kvplan.sglang("meta-llama/Llama-3.1-8B", rest_bytes="40GiB", context_length=8192)
    assert s.context_length == 8192 and s.cell_size == per_token


def test_typed_functions_refuse_unknown_keywords_and_positionals():
    with pytest.raises(TypeError, match="max_model_lenn"):
        kvplan.vllm("meta-llama/Llama-3.1-8B", max_model_lenn=4096)
    with pytest.raises(TypeError):
        kvplan.llamacpp("meta-llama/Llama-3.1-8B", 4096)  # options are keyword-only
    with pytest.raises(kvplan.KvplanError, match="kv_unified"):
        kvplan.llamacpp("meta-llama/Llama-3.1-8B", kv_unified="yes")
