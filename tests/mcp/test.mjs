// kvplan mcp end to end with the official MCP TypeScript client (@modelcontextprotocol/sdk):
// the handshake, tools/list (every field of each request table in the schemas), a call of every
// tool compared with `kvplan VERB --json`, bad input as a tool error naming the field, and the
// server still answering afterwards. Run: node test.mjs <kvplan> (tests/mcp/run.sh).
import { execFileSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

const kvplan = process.argv[2];
let passed = 0, failed = 0;
const check = (name, ok, detail) => {
  if (ok) passed++;
  else { failed++; console.log(`FAIL ${name}${detail === undefined ? "" : ": " + JSON.stringify(detail).slice(0, 400)}`); }
};
const cli = (args) => JSON.parse(execFileSync(kvplan, args, { encoding: "utf8" }));

const client = new Client({ name: "kvplan-test", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: kvplan, args: ["mcp"], stderr: "inherit" }));
check("server name", client.getServerVersion()?.name === "kvplan", client.getServerVersion());
check("tools capability", client.getServerCapabilities()?.tools !== undefined, client.getServerCapabilities());
check("protocol version is the SDK's latest", client.transport?._protocolVersion === undefined ||
      client.transport._protocolVersion === LATEST_PROTOCOL_VERSION, client.transport?._protocolVersion);

const { tools } = await client.listTools();
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
const want = ["size", "inspect", "plan", "check", "simulate", "gpus", "models"];
check("tools listed", want.every((n) => byName[n]) && tools.length === want.length, tools.map((t) => t.name));

// The schemas hold every field of each request table (kvplan.fields via `kvplan` is not a verb:
// the tables' fields are the verbs' flags, so read them from the CLI's own field listing).
const tableFields = (verb) => JSON.parse(execFileSync("/usr/bin/python3", ["-c",
  `import json, sys; sys.path.insert(0, ${JSON.stringify(process.env.KVPLAN_PYTHONPATH || "")}); import kvplan; ` +
  `print(json.dumps([f["name"] for f in kvplan.fields(${JSON.stringify(verb)})]))`], { encoding: "utf8" }));
for (const verb of ["size", "plan"]) {
  let names;
  try { names = tableFields(verb); } catch { names = null; }
  if (names === null) { console.log(`note: kvplan Python module not importable, ${verb} table not compared`); continue; }
  const props = Object.keys(byName[verb].inputSchema.properties);
  check(`${verb} schema: every table field`, names.length > 0 && names.every((n) => props.includes(n)),
        names.filter((n) => !props.includes(n)));
  check(`${verb} schema: model required`, byName[verb].inputSchema.required.includes("model"));
}

const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  return { r, doc: r.isError ? null : JSON.parse(r.content[0].text) };
};
const same = async (name, args, argv) => {
  const { r, doc } = await call(name, args);
  const expected = cli(argv);
  check(`${name} ${JSON.stringify(args)} = kvplan ${argv.join(" ")}`, !r.isError && JSON.stringify(doc) === JSON.stringify(expected),
        r.isError ? r.content : { doc, expected });
  check(`${name} structuredContent`, r.isError || JSON.stringify(r.structuredContent) === JSON.stringify(expected));
};

await same("size", { model: "Qwen/Qwen3-0.6B", tokens: 40960 }, ["size", "Qwen/Qwen3-0.6B", "--tokens", "40960", "--json"]);
await same("size", { model: "meta-llama/Llama-3.1-70B", tokens: "128k", kv_dtype: "fp16", batch: 2 },
           ["size", "meta-llama/Llama-3.1-70B", "--tokens", "128k", "--kv-dtype", "fp16", "--batch", "2", "--json"]);
await same("inspect", { model: "google/gemma-3-1b-it" }, ["inspect", "google/gemma-3-1b-it", "--json"]);
await same("plan", { model: "meta-llama/Llama-3.1-8B", gpu: "H100", context: "32k", concurrency: 8 },
           ["plan", "meta-llama/Llama-3.1-8B", "--gpu", "H100", "--context", "32k", "--concurrency", "8", "--json"]);
await same("check", { command: "vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768", gpu: "H100" },
           ["check", "vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768", "--gpu", "H100", "--format", "json"]);
await same("simulate", { model: "Qwen/Qwen3-0.6B", gpu: "H100", workload: "rate=5 requests=20 prompt=fixed:256 output=fixed:32 seed=1" },
           ["simulate", "Qwen/Qwen3-0.6B", "--gpu", "H100", "--workload", "rate=5 requests=20 prompt=fixed:256 output=fixed:32 seed=1", "--json"]);
await same("gpus", { name: "H100" }, ["gpus", "H100", "--json"]);
await same("gpus", {}, ["gpus", "--json"]);
await same("models", {}, ["models", "--json"]);

// Bad input: a tool error naming the field; the server keeps answering.
const bad = async (name, args, field) => {
  let r;
  try { r = await client.callTool({ name, arguments: args }); } catch (e) { r = { isError: "threw", content: [{ text: String(e) }] }; }
  const text = r.content?.[0]?.text || "";
  check(`${name} ${JSON.stringify(args)}: tool error naming ${field}`, r.isError === true && text.includes(field), r);
};
await bad("size", { model: "Qwen/Qwen3-0.6B", tokens: "lots" }, "tokens");
await bad("size", { model: "Qwen/Qwen3-0.6B", kv_dtype: "fp7" }, "kv_dtype");
await bad("size", { model: "Qwen/Qwen3-0.6B", tokenz: 5 }, "tokenz");
await bad("size", { tokens: 5 }, "model");
await bad("plan", { model: "meta-llama/Llama-3.1-8B", gpu: "H100", concurrency: -1 }, "concurrency");
await bad("plan", { model: "no/such-model", gpu: "H100" }, "no/such-model");
await bad("simulate", { model: "Qwen/Qwen3-0.6B", gpu: "H100", workload: "rate=1 requests=2", engine_args: ["--max-num-seqs", "x"] }, "--max-num-seqs");
await bad("inspect", { model: "Qwen/Qwen3-0.6B", tokens: 5 }, "tokens");
await bad("check", { gpu: "H100" }, "command");
await bad("simulate", { model: "Qwen/Qwen3-0.6B", gpu: "H100" }, "workload");
await bad("gpus", { name: "NoSuchGPU-9000" }, "NoSuchGPU-9000");
let unknown;
try { await client.callTool({ name: "nope", arguments: {} }); unknown = false; } catch (e) { unknown = String(e).includes("nope"); }
check("unknown tool: a protocol error naming it", unknown);
const again = await call("size", { model: "Qwen/Qwen3-0.6B", tokens: 1 });
check("still serving after bad input", !again.r.isError && again.doc.total_bytes > 0, again.r);

await client.close();

// Raw JSON-RPC lines the SDK would never send: each gets its error reply (or none, for a
// notification), and the server answers the next request and exits 0 at end of input.
{
  const lines = ["not json", "[1, 2]", JSON.stringify({ jsonrpc: "2.0", id: 7, method: "no/such" }),
                 JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
                 JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "size", arguments: [1] } }),
                 JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "size", arguments: { model: "Qwen/Qwen3-0.6B", tokens: 1e30 } } }),
                 JSON.stringify({ jsonrpc: "2.0", id: 10, method: "ping" })];
  const { spawnSync } = await import("node:child_process");
  const r = spawnSync(kvplan, ["mcp"], { input: lines.join("\n") + "\n", encoding: "utf8" });
  const replies = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  check("raw: exit 0 at end of input", r.status === 0, r);
  check("raw: six replies (none for the notification)", replies.length === 6, replies);
  check("raw: parse error", replies[0]?.error?.code === -32700, replies[0]);
  check("raw: batch refused", replies[1]?.error?.code === -32600, replies[1]);
  check("raw: unknown method", replies[2]?.error?.code === -32601 && replies[2].id === 7, replies[2]);
  check("raw: arguments not an object", replies[3]?.result?.isError === true, replies[3]);
  check("raw: overflowing tokens is a tool error naming the field", replies[4]?.result?.isError === true &&
        replies[4].result.content[0].text.includes("tokens"), replies[4]);
  check("raw: ping after all that", replies[5]?.id === 10 && replies[5].result !== undefined, replies[5]);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
