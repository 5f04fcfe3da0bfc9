// kvplan mcp: a Model Context Protocol server over stdio (https://modelcontextprotocol.io/specification,
// revision 2025-11-25: JSON-RPC 2.0, one message per line, no batches). Tools: size, inspect, plan,
// check, simulate, gpus and models. Their arguments are `model` plus the verb's field names as the
// Python keywords (size: tokens, batch, kv_dtype, ...), their input schemas are generated from the
// request tables (kvplan/request.h), and each returns the document `kvplan VERB --json` prints
// (with its "schema" tag), from the same library calls. Bad input is a tool result with
// isError: true and the library's message (naming the field); the server never exits on one.
#include <iostream>
#include <string>

#include "common.h"
#include "kvplan/check.h"
#include "kvplan/planner.h"
#include "kvplan/request.h"
#include "kvplan/simulate.h"
#include "kvplan/text.h"
#include "verb_documents.h"

namespace kvplan::cli {

namespace {
using json = nlohmann::json;

// The protocol revisions this server speaks, newest first (the spec's version negotiation: the
// client's, when supported, else the newest).
const char* const kMcpVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

// A field of a verb that has no library request table (check, simulate, gpus, models): the
// Python keywords of kvplan.check() / kvplan.simulate() / kvplan.gpus().
struct ToolArg {
  const char* name;
  FieldType type;
  const char* help;
};
const ToolArg kCheckArgs[] = {
    {"command", FieldType::text, "an engine launch command: vllm serve ..., python -m sglang.launch_server ..., llama-server ..., trtllm-serve ... (a string or an argv array)"},
    {"file", FieldType::text, "a deployment file path: a Kubernetes manifest, helm output, a compose file, a launch script or a kvplan deployment file"},
    {"deployment", FieldType::text, "a kvplan deployment file's text"},
    {"gpu", FieldType::name, "GPU model (kvplan gpus), e.g. H100"},
    {"gpu_memory", FieldType::memory, "device memory as the runtime reports it, with a unit (20GiB)"},
    {"gpus", FieldType::count, "GPU count (default: the deployment's)"},
    {"model", FieldType::text, "the config kvplan reads instead of the one the command names"},
    {"weights", FieldType::bytes, "total weight bytes, replacing kvplan's count (16GB)"},
    {"require_concurrency", FieldType::count, "sequences of max-model-len tokens that must fit at once"},
    {"require_context", FieldType::tokens, "tokens one request must be able to hold (32k)"},
    {"strict", FieldType::boolean, "treat UNCERTAIN as failure"},
    {"engine_version", FieldType::text, "vLLM version whose budget to model: 0.6.3, 0.10, 0.21+"},
};
const ToolArg kSimulateArgs[] = {
    {"gpu", FieldType::name, "GPU model (kvplan gpus), e.g. H100 (required)"},
    {"engine", FieldType::name, "vllm (default), sglang, llama.cpp or trtllm"},
    {"engine_args", FieldType::text, "the engine's own flags as an argv array (--max-num-seqs 64 ...)"},
    {"command", FieldType::text, "a launch command instead of model + engine_args (a string or an argv array)"},
    {"workload", FieldType::text, "a synthetic workload spec: \"rate=10 requests=1000 prompt=lognormal:1024:0.8 output=uniform:64:512 seed=1\""},
    {"trace", FieldType::text, "a trace file path (JSONL, Azure LLM trace CSV, BurstGPT CSV)"},
    {"seed", FieldType::count, "seed for the synthetic workload"},
};
const ToolArg kGpusArgs[] = {
    {"name", FieldType::name, "one device (case-insensitive, aliases accepted)"},
    {"vendor", FieldType::name, "only this vendor (NVIDIA, AMD, Intel, Google, Apple)"},
};

json schema_type(FieldType t) {
  switch (t) {
    case FieldType::boolean: return {{"type", "boolean"}};
    case FieldType::count:
    case FieldType::tokens:
    case FieldType::bytes:
    case FieldType::memory: return {{"type", json::array({"integer", "string"})}};
    case FieldType::fraction:
    case FieldType::rate: return {{"type", json::array({"number", "string"})}};
    case FieldType::count_list:
    case FieldType::token_list:
    case FieldType::bytes_list:
      return {{"type", json::array({"array", "string"})}, {"items", {{"type", json::array({"integer", "string"})}}}};
    default: return {{"type", "string"}};
  }
}

json property(std::string_view help, FieldType t, std::string_view unit = {}, std::string_view def = {}) {
  json p = schema_type(t);
  std::string d(help);
  d += " (" + std::string(field_expected(t)) + ")";
  if (!unit.empty()) d += "; unit: " + std::string(unit);
  if (!def.empty()) d += "; default " + std::string(def);
  p["description"] = d;
  return p;
}

json model_properties() {
  return {{"model", {{"type", "string"}, {"description", "config.json path, a directory holding one, or a bundled id (the models tool)"}}},
          {"assume", {{"type", "array"}, {"items", {{"type", "string"}}},
                      {"description", "explicit assumptions accepted: 'dense', 'dtype=NAME' (as --assume)"}}}};
}

json table_properties(std::span<const RequestField> fields, bool dtypes_only = false) {
  json props = model_properties();
  for (const RequestField& f : fields) {
    if (dtypes_only && f.type != FieldType::dtype) continue;
    props[std::string(f.name)] = property(f.help, f.type, f.unit, f.default_value);
  }
  return props;
}

template <std::size_t N>
json arg_properties(const ToolArg (&args)[N], json props = json::object()) {
  for (const ToolArg& a : args) {
    props[a.name] = property(a.help, a.type);
    if (std::string_view(a.name) == "command" || std::string_view(a.name) == "engine_args") {
      props[a.name]["type"] = std::string_view(a.name) == "command" ? json::array({"string", "array"}) : json("array");
      props[a.name]["items"] = {{"type", "string"}};
    }
  }
  return props;
}

json tool(const char* name, const char* description, json props, json required) {
  return {{"name", name},
          {"description", description},
          {"inputSchema", {{"type", "object"}, {"properties", std::move(props)}, {"required", std::move(required)},
                           {"additionalProperties", false}}}};
}

json tools_list() {
  json tools = json::array();
  tools.push_back(tool("size", "exact cache bytes held by B sequences of N tokens (kvplan size --json)",
                       table_properties(size_request_fields()), {"model"}));
  tools.push_back(tool("inspect", "per-layer table: kind, heads, head dims, window, bytes per token, state (kvplan inspect --json)",
                       table_properties(size_request_fields(), true), {"model"}));
  tools.push_back(tool("plan", "what fits on which GPUs, capacity, min GPUs and roofline decode speed (kvplan plan --json)",
                       table_properties(plan_request_fields()), {"model"}));
  tools.push_back(tool("check", "does an engine launch command or deployment file start on the GPUs and meet the requirements? (kvplan check --format json)",
                       arg_properties(kCheckArgs), json::array()));
  tools.push_back(tool("simulate", "an engine's scheduler and KV allocator over a workload (kvplan simulate --json)",
                       arg_properties(kSimulateArgs, model_properties()), {"gpu"}));
  tools.push_back(tool("gpus", "the accelerator catalog, or one device (kvplan gpus --json)", arg_properties(kGpusArgs), json::array()));
  tools.push_back(tool("models", "the bundled model configs (kvplan models --json)", json::object(), json::array()));
  return tools;
}

// ---- arguments ----
struct Args {
  const json& a;
  std::string text(const char* k) const {
    if (!a.contains(k) || a[k].is_null()) return {};
    if (!a[k].is_string()) throw InputError::value(k, a[k].dump(), "a string");
    return a[k].get<std::string>();
  }
  std::vector<std::string> words(const char* k, bool split) const {
    if (!a.contains(k) || a[k].is_null()) return {};
    if (a[k].is_string()) return split ? split_command_line(a[k].get<std::string>()) : std::vector<std::string>{a[k].get<std::string>()};
    if (!a[k].is_array()) throw InputError::value(k, a[k].dump(), "an array of strings");
    std::vector<std::string> out;
    for (const auto& w : a[k]) {
      if (!w.is_string()) throw InputError::value(k, w.dump(), "an array of strings");
      out.push_back(w.get<std::string>());
    }
    return out;
  }
  // Only these keys (plus model and assume where `with_model`).
  template <class Names>
  void only(const Names& names, bool with_model) const {
    for (const auto& [k, v] : a.items()) {
      if (with_model && (k == "model" || k == "assume")) continue;
      bool known = false;
      for (const auto& n : names) known = known || k == std::string_view(n);
      if (!known) throw InputError::value("argument", k, "one of the tool's inputSchema properties");
    }
  }
  ModelSpec load() const {
    const std::string m = text("model");
    if (m.empty()) throw InputError::value("model", "", "a config.json path, a directory holding one, or a bundled id");
    LoadOptions o;
    o.assume = words("assume", false);
    return load_model(m, o);
  }
  // The object of table fields (everything but model / assume).
  json request() const {
    json r = json::object();
    for (const auto& [k, v] : a.items())
      if (k != "model" && k != "assume") r[k] = v;
    return r;
  }
};

std::vector<std::string_view> names_of(const ToolArg* b, const ToolArg* e) {
  std::vector<std::string_view> out;
  for (; b != e; ++b) out.push_back(b->name);
  return out;
}

json call_size(const Args& a) {
  const Workload w = workload_from_request(a.request(), FieldNaming::keyword);
  ModelSpec m = a.load();
  json j = to_json(cache_size(m, w));
  j["assumptions"] = m.assumptions;
  return j;
}

json call_inspect(const Args& a) {
  std::vector<std::string_view> names;
  for (const RequestField& f : size_request_fields())
    if (f.type == FieldType::dtype) names.push_back(f.name);
  a.only(names, true);
  const Workload w = workload_from_request(a.request(), FieldNaming::keyword);
  const ModelSpec m = a.load();
  (void)resolve_dtypes(m, w);  // as the verb: a dtype the model cannot take is an error
  return to_json(m);
}

json call_plan(const Args& a) {
  const PlanInput in = plan_input_from_request(a.request(), FieldNaming::keyword);
  const ModelSpec m = a.load();
  json j = to_json(plan(m, in));
  j["assumptions"] = m.assumptions;
  j["request"] = request_json(in);
  return j;
}

json call_check(const Args& a) {
  a.only(names_of(std::begin(kCheckArgs), std::end(kCheckArgs)), false);
  CheckOptions c;
  c.gpu = a.text("gpu");
  if (a.a.contains("gpu_memory") && !field_unset(a.a["gpu_memory"])) {
    json dev = {{"gpu_memory", a.a["gpu_memory"]}};
    if (!c.gpu.empty()) dev["gpu"] = c.gpu;
    c.device = plan_input_from_request(dev, FieldNaming::keyword).gpu;
  }
  if (a.a.contains("strict") && !a.a["strict"].is_null()) c.strict = field_bool(a.a["strict"], "strict");
  c.engine_version = a.text("engine_version");
  if (a.a.contains("gpus") && !field_unset(a.a["gpus"])) c.gpus = field_uint(a.a["gpus"], FieldType::count, "gpus");
  if (const std::string m = a.text("model"); !m.empty()) c.model = m;
  if (a.a.contains("weights") && !field_unset(a.a["weights"])) c.weight_bytes = field_uint(a.a["weights"], FieldType::bytes, "weights");
  if (a.a.contains("require_concurrency") && !field_unset(a.a["require_concurrency"]))
    c.require_concurrency = field_uint(a.a["require_concurrency"], FieldType::count, "require_concurrency");
  if (a.a.contains("require_context") && !field_unset(a.a["require_context"]))
    c.require_context = field_uint(a.a["require_context"], FieldType::tokens, "require_context");
  const std::vector<std::string> command = a.words("command", true);
  const std::string file = a.text("file"), text = a.text("deployment");
  if (!command.empty() + !file.empty() + !text.empty() != 1)
    throw InputError::value("check", "", "exactly one of command, file or deployment");
  std::vector<CheckOutcome> outcomes;
  if (!command.empty()) outcomes = check_command(command, c);
  else if (!file.empty()) outcomes = check_file(file, c);
  else {
    CheckOutcome o;
    o.label = "<deployment>";
    o.result = check_deployment(parse_deployment(text, "<deployment>"), c);
    outcomes.push_back(std::move(o));
  }
  // A deployment that could not be read is bad input, as `kvplan check` exits 2 on it.
  for (const auto& o : outcomes)
    if (!o.result) throw InputError::value(o.label.empty() ? "check" : o.label, "", o.error);
  return json::parse(format_check_outcomes(outcomes, "json"));
}

json call_simulate(const Args& a) {
  a.only(names_of(std::begin(kSimulateArgs), std::end(kSimulateArgs)), true);
  const std::string gpu_name = a.text("gpu");
  if (gpu_name.empty()) throw InputError::value("gpu", "", "a GPU model (the gpus tool), e.g. H100");
  const Accelerator& gpu = find_accelerator(gpu_name);
  const std::string workload = a.text("workload"), trace = a.text("trace");
  if (workload.empty() == trace.empty()) throw InputError::value("workload", "", "exactly one of workload or trace");
  std::vector<std::string> command = a.words("command", true);
  const std::vector<std::string> extra = a.words("engine_args", false);
  const std::string model = a.text("model");
  std::string engine = a.text("engine");
  Deployment d;
  CheckOptions co;
  co.gpu = gpu.name;
  if (!command.empty()) {
    if (!extra.empty()) throw InputError::value("engine_args", "", "the flags inside command, not both");
    d = parse_launch_command(command);
    if (!model.empty()) co.model = model;
  } else {
    if (model.empty()) throw InputError::value("model", "", "a model, or a launch command in command");
    const EngineKind kind = parse_engine(engine.empty() ? "vllm" : engine);
    // The engine's launch command for MODEL, as `kvplan simulate MODEL --engine E` builds it.
    if (kind == EngineKind::vllm) {
      d.engine = kind;
      d.model = model;
      d.source = "command line";
      // `kvplan simulate MODEL` always writes the parallel sizes (1 unless given); so does this.
      auto given = [&](std::initializer_list<const char*> names) {
        for (const auto& w : extra)
          for (const char* n : names)
            if (w == n || w.rfind(std::string(n) + "=", 0) == 0) return true;
        return false;
      };
      if (!given({"--tensor-parallel-size", "--tp", "-tp"})) d.args.insert(d.args.end(), {"--tensor-parallel-size", "1"});
      if (!given({"--pipeline-parallel-size", "--pp", "-pp"})) d.args.insert(d.args.end(), {"--pipeline-parallel-size", "1"});
      d.args.insert(d.args.end(), extra.begin(), extra.end());
    } else {
      if (kind == EngineKind::sglang) command = {"python3", "-m", "sglang.launch_server", "--model-path", model};
      else if (kind == EngineKind::trtllm) command = {"trtllm-serve", model};
      else command = {"llama-server"};
      command.insert(command.end(), extra.begin(), extra.end());
      d = parse_launch_command(command);
      d.source = "command line";
      if (kind == EngineKind::llamacpp) d.model = model;
    }
  }
  LoadOptions lo;
  lo.assume = a.words("assume", false);
  SimDeployment p = prepare_simulation(d, co, lo);
  auto finish = [&](json j) {
    j["deployment"] = {{"source", p.deployment.source}, {"args", p.deployment.args}};
    j["check_notes"] = p.check.notes;
    for (const auto& n : p.notes) j["notes"].push_back(n);
    return j;
  };
  if (!trace.empty()) return finish(to_json(simulate(p.model, gpu, p.options, load_trace(trace))));
  WorkloadSpec w = parse_workload_spec(workload);
  if (a.a.contains("seed") && !field_unset(a.a["seed"])) w.seed = field_uint(a.a["seed"], FieldType::count, "seed");
  json j = finish(to_json(simulate(p.model, gpu, p.options, w)));
  j["workload"] = to_json(w);
  return j;
}

json call_gpus(const Args& a) {
  a.only(names_of(std::begin(kGpusArgs), std::end(kGpusArgs)), false);
  return gpus_document(a.text("name"), a.text("vendor"));
}

json call_models(const Args& a) {
  a.only(std::vector<std::string_view>{}, false);
  return models_document();
}

json call_tool(const std::string& name, const json& arguments) {
  const Args a{arguments};
  json doc;
  if (name == "size") doc = call_size(a);
  else if (name == "inspect") doc = call_inspect(a);
  else if (name == "plan") doc = call_plan(a);
  else if (name == "check") doc = call_check(a);
  else if (name == "simulate") doc = call_simulate(a);
  else if (name == "gpus") doc = call_gpus(a);
  else doc = call_models(a);
  return with_schema(name, std::move(doc));
}

bool is_tool(const std::string& n) {
  return n == "size" || n == "inspect" || n == "plan" || n == "check" || n == "simulate" || n == "gpus" || n == "models";
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json tool_text(const std::string& text, bool error) {
  return {{"content", json::array({{{"type", "text"}, {"text", text}}})}, {"isError", error}};
}

// One message in, at most one out (notifications get none).
std::optional<json> handle(const json& msg) {
  if (!msg.is_object() || msg.value("jsonrpc", "") != "2.0" || !msg.contains("method") || !msg["method"].is_string())
    return json{{"jsonrpc", "2.0"}, {"id", msg.is_object() && msg.contains("id") ? msg["id"] : json()},
                {"error", {{"code", -32600}, {"message", "invalid request: expected a JSON-RPC 2.0 object with a method"}}}};
  const std::string method = msg["method"];
  if (!msg.contains("id")) return std::nullopt;  // a notification (notifications/initialized, cancelled, ...)
  const json& id = msg["id"];
  const json params = msg.contains("params") && msg["params"].is_object() ? msg["params"] : json::object();
  auto result = [&](json r) { return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(r)}}; };
  auto error = [&](int code, const std::string& m) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", m}}}};
  };
  if (method == "initialize") {
    std::string version = kMcpVersions[0];
    if (params.contains("protocolVersion") && params["protocolVersion"].is_string())
      for (const char* v : kMcpVersions)
        if (params["protocolVersion"] == v) version = v;
    return result({{"protocolVersion", version},
                   {"capabilities", {{"tools", {{"listChanged", false}}}}},
                   {"serverInfo", {{"name", "kvplan"}, {"version", KVPLAN_VERSION_STRING}}},
                   {"instructions", "Exact KV-cache bytes and deployment checks for LLMs. Each tool returns the "
                                    "JSON document of `kvplan <tool> --json`."}});
  }
  if (method == "ping") return result(json::object());
  if (method == "tools/list") return result({{"tools", tools_list()}});
  if (method != "tools/call") return error(-32601, "method not found: " + method);
  if (!params.contains("name") || !params["name"].is_string()) return error(-32602, "tools/call: params.name missing");
  const std::string name = params["name"];
  if (!is_tool(name)) return error(-32602, "unknown tool: " + name);
  const json arguments = params.contains("arguments") && !params["arguments"].is_null() ? params["arguments"] : json::object();
  if (!arguments.is_object()) return result(tool_text("kvplan: arguments: expected an object", true));
  try {
    const json doc = call_tool(name, arguments);
    json r = tool_text(doc.dump(2, ' ', false, json::error_handler_t::replace), false);
    r["structuredContent"] = doc;
    return result(r);
  } catch (const Error& e) {
    return result(tool_text(std::string("kvplan: ") + e.what(), true));
  } catch (const json::exception& e) {
    return result(tool_text(std::string("kvplan: bad argument: ") + e.what(), true));
  } catch (const std::exception& e) {
    return result(tool_text(std::string("kvplan: internal error: ") + e.what(), true));
  }
}

int run_mcp() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const json msg = json::parse(line, nullptr, false);
    std::optional<json> reply;
    if (msg.is_discarded())
      reply = json{{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", -32700}, {"message", "parse error"}}}};
    else if (msg.is_array())
      reply = json{{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", -32600}, {"message", "batches are not supported"}}}};
    else
      reply = handle(msg);
    if (reply) std::cout << dump(*reply) << "\n" << std::flush;
  }
  return 0;
}
}  // namespace

static void register_mcp(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("mcp", "serve the verbs as Model Context Protocol tools over stdio (JSON-RPC, one message per line)");
  cmd->callback([&run] { run = [] { return run_mcp(); }; });
}

KVPLAN_VERB(90, register_mcp);

}  // namespace kvplan::cli
