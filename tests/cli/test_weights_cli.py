"""CLI contract for weights that kvplan cannot count (issue 12 items 5 and 6).

Run as: /usr/bin/python3 test_weights_cli.py <path-to-kvplan>. plan, sweep and check stop with
exit 2 and ask for --weights when the weight bytes are unknown (never a silent 0 B); size and
inspect answer the cache regardless of weight-only fields. Figures are derived by hand
(tests/data/weights/README.md gives the sources).
"""
import json
import os
import tempfile
from _harness import SRC, check, run, finish  # noqa: E402


NANO = os.path.join(SRC, "tests", "data", "weights", "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json")
# Devstral Small 2's quantization_config, verbatim (tests/data/weights/README.md).
DEVSTRAL_FP8 = {"activation_scheme": "static", "dequantize": False,
                "modules_to_not_convert": ["model.vision_tower", "model.multi_modal_projector", "lm_head"],
                "quant_method": "fp8", "weight_block_size": None}


def write(tmp, name, cfg):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump(cfg, f)
    return path


with open(os.path.join(SRC, "model_configs", "mistralai__Mistral-7B-v0.1.json")) as f:
    MISTRAL = json.load(f)
H, I, KV, V = 4096, 14336, 1024, 32000
MISTRAL_PARAMS = 32 * (2 * H * H + 2 * KV * H + 3 * H * I) + 2 * V * H + 65 * H  # 7,241,732,096

with tempfile.TemporaryDirectory() as tmp:
    # Nemotron-3-Nano: 31,577,940,288 parameters (published 31.6B) in bf16, no longer 0 B.
    r = run("plan", NANO, "--gpu", "H100", "--context", "8k", "--json")
    ok = r.returncode == 0
    if ok:
        j = json.loads(r.stdout)
        ok = j["per_gpu"]["weights_bytes"] == 2 * 31_577_940_288 and j["fits"] is True
    check("nemotron-3-nano plan prices its MoE layers", ok, (r.returncode, r.stdout[:300], r.stderr))

    # A count kvplan cannot make: plan and sweep stop with exit 2 and name --weights.
    bare = write(tmp, "bare.json", {"model_type": "brandnew", "hidden_size": 64, "num_attention_heads": 4,
                                    "num_hidden_layers": 2, "vocab_size": 1000, "torch_dtype": "bfloat16"})
    for verb in (["plan", bare, "--gpu", "H100", "--assume", "dense"],
                 ["sweep", bare, "--gpu", "H100", "--assume", "dense", "--contexts", "4k", "--concurrency", "1"]):
        r = run(*verb)
        line = r.stderr.strip()
        check(f"{verb[0]} without a weight count: exit 2", r.returncode == 2 and r.stdout == "", (r.returncode, r.stdout[:200]))
        check(f"{verb[0]} says --weights is needed",
              line.startswith("kvplan: ") and "weight bytes unknown (model_type brandnew: kvplan has no parameter rule" in line
              and "give the checkpoint's size with --weights" in line and line.count("\n") == 0, line)
    r = run("plan", bare, "--gpu", "H100", "--assume", "dense", "--weights", "1GB", "--json")
    check("plan with --weights runs", r.returncode == 0 and json.loads(r.stdout)["per_gpu"]["weights_bytes"] == 10**9,
          (r.returncode, r.stderr))
    r = run("size", bare, "--assume", "dense", "--tokens", "1", "--json")
    check("size needs no weights", r.returncode == 0 and json.loads(r.stdout)["total_bytes"] == 2 * 2 * 4 * 16 * 2,
          (r.returncode, r.stdout[:300], r.stderr))

    # Per-tensor FP8 (weight_block_size null, the real Devstral 2 block) is valid: linear layers
    # at 1 B per value + an fp32 weight scale and (static activations) an fp32 input scale per
    # matrix; embeddings, lm_head and norms in bf16.
    cfg = dict(MISTRAL, quantization_config=DEVSTRAL_FP8)
    fp8 = write(tmp, "fp8.json", cfg)
    linear = 32 * (2 * H * H + 2 * KV * H + 3 * H * I)
    r = run("plan", fp8, "--gpu", "H100", "--context", "4k", "--json")
    ok = r.returncode == 0 and json.loads(r.stdout)["per_gpu"]["weights_bytes"] == linear + 32 * 7 * 8 + 2 * (MISTRAL_PARAMS - linear)
    check("per-tensor fp8 is priced", ok, (r.returncode, r.stdout[:300], r.stderr))

    # fmt: null is an error naming the field, only where weights are needed.
    bad = dict(DEVSTRAL_FP8, fmt=None)
    badp = write(tmp, "fmt_null.json", dict(MISTRAL, quantization_config=bad))
    r_ok = run("size", os.path.join(SRC, "model_configs", "mistralai__Mistral-7B-v0.1.json"), "--tokens", "1000", "--json")
    r = run("size", badp, "--tokens", "1000", "--json")
    check("size answers despite fmt: null", r.returncode == 0 and r_ok.returncode == 0 and
          json.loads(r.stdout)["total_bytes"] == json.loads(r_ok.stdout)["total_bytes"] == 32 * 2 * 1024 * 2 * 1000,
          (r.returncode, r.stderr))
    r = run("inspect", badp)
    check("inspect answers despite fmt: null", r.returncode == 0 and "32" in r.stdout, (r.returncode, r.stderr))
    want = "(/quantization_config/fmt): expected an fp8 format: \"e4m3\", \"e5m2\" or a torch name such as \"float8_e4m3fn\" (or no fmt: e4m3), got null"
    for verb in (["plan", badp, "--gpu", "H100"],
                 ["sweep", badp, "--gpu", "H100", "--contexts", "4k", "--concurrency", "1"],
                 ["check", f"vllm serve {badp} --max-model-len 4096", "--gpu", "H100"]):
        r = run(*verb)
        out = r.stderr + r.stdout
        check(f"{verb[0]} with fmt: null: exit 2", r.returncode == 2, (r.returncode, out[:300]))
        check(f"{verb[0]} with fmt: null names the field and --weights",
              want in out and "weight bytes unknown" in out and "--weights" in out, out[:400])
    r = run("check", f"vllm serve {badp} --max-model-len 4096", "--gpu", "H100", "--weights", "15GB", "--format", "json")
    check("check with --weights runs", r.returncode in (0, 1) and json.loads(r.stdout)["passed"] is True, (r.returncode, r.stdout[:300], r.stderr))
    # A dtype override does not need the quantization_config.
    r = run("plan", badp, "--gpu", "H100", "--weight-dtype", "bf16", "--json")
    check("plan --weight-dtype bf16 ignores the broken block",
          r.returncode == 0 and json.loads(r.stdout)["per_gpu"]["weights_bytes"] == 2 * MISTRAL_PARAMS, (r.returncode, r.stderr))

finish()
