// Independent GGUF reader for the cross-check in tests/test_checkpoints.cpp: prints the header of
// FILE as parsed by the npm package @huggingface/gguf (metadata, tensor names, ggml types, dims).
// Usage: NODE_PATH=<dir holding node_modules/@huggingface/gguf> node crosscheck.mjs FILE
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.KVPLAN_GGUF_NODE_MODULES || process.cwd(), "x.js"));
const { gguf } = require("@huggingface/gguf");
const file = process.argv[2];
const { metadata, tensorInfos } = await gguf(path.resolve(file), { allowLocalFile: true });
const md = {};
for (const [k, v] of Object.entries(metadata)) {
  if (Array.isArray(v)) md[k] = v.length > 4096 ? { length: v.length } : v.map((x) => (typeof x === "bigint" ? Number(x) : x));
  else md[k] = typeof v === "bigint" ? Number(v) : v;
}
const tensors = tensorInfos.map((t) => ({
  name: t.name,
  type: t.dtype,
  dims: t.shape.map((d) => Number(d)),
  offset: Number(t.offset),
}));
process.stdout.write(JSON.stringify({ metadata: md, tensors }));
