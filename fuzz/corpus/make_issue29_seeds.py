#!/usr/bin/env python3
"""Writes the GGUF and safetensors regression seeds of issue 29 (hostile checkpoint headers) into
fuzz/corpus/fuzz_gguf/ and fuzz/corpus/fuzz_safetensors/. The GGUF bytes follow the v3 layout of
ggml's docs/gguf.md (ggml-org/ggml: magic, u32 version, u64 tensor count, u64 metadata count,
key/value pairs, tensor infos, data aligned to general.alignment = 32); each seed is one class of
input ggml's gguf.cpp refuses. Run from the repository root; the output is committed."""
import json
import os
import struct

GGUF = "fuzz/corpus/fuzz_gguf"
ST = "fuzz/corpus/fuzz_safetensors"
U32, STRING, F32_TYPE, GGML_F32 = 4, 8, 6, 0


def s(b):
    b = b if isinstance(b, bytes) else b.encode()
    return struct.pack("<Q", len(b)) + b


def kv_u32(k, v):
    return s(k) + struct.pack("<II", U32, v)


def kv_str(k, v):
    return s(k) + struct.pack("<I", STRING) + s(v)


def llama_kvs(arch=b"llama", blocks=2):
    return [kv_str("general.architecture", arch), kv_u32("llama.block_count", blocks),
            kv_u32("llama.embedding_length", 64), kv_u32("llama.attention.head_count", 4),
            kv_u32("llama.attention.head_count_kv", 2), kv_u32("llama.context_length", 256),
            kv_u32("llama.feed_forward_length", 128)]


def gguf(kvs, tensors, version=3, data_bytes=None):
    """tensors: (name, dims, ggml type, offset); data_bytes: the data section's size."""
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs)) + b"".join(kvs)
    for name, dims, typ, off in tensors:
        out += s(name) + struct.pack("<I", len(dims)) + struct.pack("<%dQ" % len(dims), *dims) + struct.pack("<IQ", typ, off)
    out += b"\0" * (-len(out) % 32)
    if data_bytes is None:
        data_bytes = max(off + 4 * d[0] * d[1] for _, d, _, off in tensors) if tensors else 0
    return out + b"\0" * data_bytes


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


emb = ("token_embd.weight", (64, 32), GGML_F32, 0)        # 8192 bytes at 0
q = ("blk.0.attn_q.weight", (64, 64), GGML_F32, 8192)      # 16384 bytes at 8192
write(GGUF, "issue29_valid.gguf", gguf(llama_kvs(), [emb, q]))
# Two tensors over the same bytes (ggml: "tensor ... has offset ..., expected ..."): 24 KiB priced from 16 KiB.
write(GGUF, "issue29_overlapping_tensors.gguf", gguf(llama_kvs(), [("token_embd.weight", (64, 64), GGML_F32, 0), ("blk.0.attn_q.weight", (64, 64), GGML_F32, 0)], data_bytes=16384))
# A tensor past the data section.
write(GGUF, "issue29_tensor_past_data.gguf", gguf(llama_kvs(), [emb, q], data_bytes=8192))
# The same tensor name twice (ggml: "duplicate tensor name").
write(GGUF, "issue29_duplicate_tensor_name.gguf", gguf(llama_kvs(), [emb, ("token_embd.weight", (64, 32), GGML_F32, 8192)]))
# A string kvplan reads (general.architecture) that is not UTF-8.
write(GGUF, "issue29_invalid_utf8_architecture.gguf", gguf(llama_kvs(arch=b"ll\xffama"), [emb]))
# Version 0 (not a byte-swapped file: ggml reads the version and refuses 0).
write(GGUF, "issue29_version_0.gguf", gguf(llama_kvs(), [emb], version=0))
# block_count 0.
write(GGUF, "issue29_block_count_0.gguf", gguf(llama_kvs(blocks=0), [emb]))
# split.count as a string (ggml's split key is a u16).
write(GGUF, "issue29_split_count_string.gguf", gguf(llama_kvs() + [kv_str("split.count", "3")], [emb]))
# A 20 KB architecture string (the 1 MiB one is made by the tests at run time).
write(GGUF, "issue29_long_string.gguf", gguf(llama_kvs(arch=b"x" * 20000), [emb]))

# safetensors: the header JSON (the fuzz target's input).
def st(h):
    return json.dumps(h)

write(ST, "issue29_overlapping_offsets.json", st({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
                                                   "b": {"dtype": "F32", "shape": [4], "data_offsets": [8, 24]}}))
write(ST, "issue29_offsets_wrong_size.json", st({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 8]}}))
write(ST, "issue29_shape_overflow.json", st({"a": {"dtype": "F32", "shape": [2**40, 2**40, 2**40], "data_offsets": [0, 16]}}))
# A 20 KB tensor name in an error (data_offsets for 2 of its 4 floats): quoted cut, not whole.
write(ST, "issue29_long_name.json", st({"x" * 20000: {"dtype": "F32", "shape": [4], "data_offsets": [0, 8]}}))
write(ST, "issue29_deep.json", '{"a": ' + "[" * 2000 + "]" * 2000 + "}")
