#!/usr/bin/env python3
"""CLI contract for models as users have them: a GGUF file (inspect/size/plan and check -- llama-server
-m FILE.gguf without --model), a Hugging Face cache entry found through HF_HUB_CACHE, an Ollama store
entry, and a sparse multi-GB safetensors folder. Files are written here with the byte layouts of
ggml's docs/gguf.md and the safetensors format (independently of kvplan's readers).
Usage: test_checkpoints_cli.py PATH_TO_KVPLAN. Prints 'N passed, N failed'."""
import json
import os
import shutil
import struct
import tempfile
from _harness import SRC, check, run as harness_run, finish  # noqa: E402


def run(*args, env=None):
    p = harness_run(*args, env=env, timeout=60)
    return p.returncode, p.stdout, p.stderr


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def write_gguf(path, arch, kv_u32, tensors):
    """GGUF v3: magic, version, tensor count, kv count, kv pairs, tensor infos, pad to 32, data (sparse)."""
    kvs = [gguf_string("general.architecture") + struct.pack("<I", 8) + gguf_string(arch)]
    for k, v in kv_u32.items():
        kvs.append(gguf_string(k) + struct.pack("<II", 4, v))
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs)
    off = 0
    for name, dims, ggml_type, nbytes in tensors:
        out += gguf_string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", ggml_type, off)
        off += (nbytes + 31) // 32 * 32
    out += b"\0" * (-len(out) % 32)
    with open(path, "wb") as f:
        f.write(out)
        f.truncate(len(out) + off)
    return sum(t[3] for t in tensors)


tmp = tempfile.mkdtemp(prefix="kvplan_cli_ckpt_")
try:
    # Llama-3.1-8B shapes in Q8_0 (32 values in 34 bytes) with f32 norms.
    tensors = [("token_embd.weight", [4096, 128256], 8, 128256 * 4096 // 32 * 34),
               ("output.weight", [4096, 128256], 8, 128256 * 4096 // 32 * 34)]
    for i in range(32):
        for n, rows, cols in [("attn_q", 4096, 4096), ("attn_k", 1024, 4096), ("attn_v", 1024, 4096),
                              ("attn_output", 4096, 4096), ("ffn_gate", 14336, 4096), ("ffn_up", 14336, 4096),
                              ("ffn_down", 4096, 14336)]:
            tensors.append((f"blk.{i}.{n}.weight", [cols, rows], 8, rows * cols // 32 * 34))
        tensors.append((f"blk.{i}.attn_norm.weight", [4096], 0, 4096 * 4))
    gguf = os.path.join(tmp, "Meta-Llama-3.1-8B-Instruct-Q8_0.gguf")
    total = write_gguf(gguf, "llama", {"llama.block_count": 32, "llama.context_length": 131072,
                                       "llama.embedding_length": 4096, "llama.feed_forward_length": 14336,
                                       "llama.attention.head_count": 32, "llama.attention.head_count_kv": 8,
                                       "llama.vocab_size": 128256}, tensors)
    check("sparse multi-GB file", os.path.getsize(gguf) > 8 * 10**9)

    rc, out, err = run("size", gguf, "--tokens", "8192", "--json")
    j = json.loads(out) if rc == 0 else {}
    # 32 layers x 8,192 tokens x (K + V) 8 x 128 values x 2 bytes (f16) = 1 GiB.
    check("gguf size", j.get("total_bytes") == 32 * 8192 * 2 * 1024 * 2, (rc, err, out[:200]))
    rc, out, err = run("inspect", gguf, "--json")
    check("gguf inspect", rc == 0 and len(json.loads(out)["layers"]) == 32, (rc, err))
    rc, out, err = run("plan", gguf, "--gpu", "RTX4090", "--context", "8192", "--json")
    j = json.loads(out) if rc == 0 else {}
    check("gguf plan weights exact", j.get("per_gpu", {}).get("weights_bytes") == total, (rc, err, j.get("per_gpu")))
    check("gguf plan fits a 4090", j.get("fits") is True, out[:300])
    rc, out, err = run("check", "--gpu", "RTX4090", "--", "llama-server", "-m", gguf, "-c", "8192", "-np", "2")
    check("check llama-server -m FILE.gguf without --model", rc == 0, (rc, out[-300:], err))

    # A Hugging Face cache entry, found through HF_HUB_CACHE.
    hub = os.path.join(tmp, "hub")
    snap = os.path.join(hub, "models--acme--Tiny-8B", "snapshots", "c0ffee")
    os.makedirs(snap)
    os.makedirs(os.path.join(hub, "models--acme--Tiny-8B", "refs"))
    with open(os.path.join(hub, "models--acme--Tiny-8B", "refs", "main"), "w") as f:
        f.write("c0ffee")
    shutil.copy(os.path.join(SRC, "model_configs", "meta-llama__Llama-3.1-8B.json"), os.path.join(snap, "config.json"))
    rc, out, err = run("size", "acme/Tiny-8B", "--tokens", "8192", "--kv-dtype", "fp16", "--json",
                       env={"HF_HUB_CACHE": hub})
    check("hf cache by id", rc == 0 and json.loads(out)["total_bytes"] == 32 * 8192 * 2 * 1024 * 2, (rc, err))
    rc, out, err = run("size", "acme/Tiny-8B", env={"HF_HUB_CACHE": os.path.join(tmp, "nothing")})
    check("unknown model: one line, where it looked, how to fetch",
          rc == 2 and err.count("\n") == 1 and "huggingface-cli download acme/Tiny-8B config.json" in err, err)

    # Ollama: manifest -> blob.
    store = os.path.join(tmp, "ollama")
    digest = "ab" * 32
    os.makedirs(os.path.join(store, "blobs"))
    os.link(gguf, os.path.join(store, "blobs", "sha256-" + digest))
    mdir = os.path.join(store, "manifests", "registry.ollama.ai", "library", "llama3.1")
    os.makedirs(mdir)
    with open(os.path.join(mdir, "8b-instruct-q8_0"), "w") as f:
        json.dump({"schemaVersion": 2, "layers": [{"mediaType": "application/vnd.ollama.image.model",
                                                   "digest": "sha256:" + digest, "size": os.path.getsize(gguf)}]}, f)
    rc, out, err = run("size", "ollama:llama3.1:8b-instruct-q8_0", "--tokens", "8192", "--json",
                       env={"OLLAMA_MODELS": store})
    check("ollama", rc == 0 and json.loads(out)["total_bytes"] == 32 * 8192 * 2 * 1024 * 2, (rc, err))

    # Hostile GGUF: wrong magic and a truncated header are one-line input errors.
    bad = os.path.join(tmp, "bad.gguf")
    with open(bad, "wb") as f:
        f.write(b"GGUF" + struct.pack("<IQQ", 3, 1, 1 << 40))
    rc, out, err = run("inspect", bad)
    check("hostile gguf", rc == 2 and "metadata count" in err and err.count("\n") == 1, (rc, err))
finally:
    shutil.rmtree(tmp, ignore_errors=True)

finish()
