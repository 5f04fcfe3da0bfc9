// The web calculator's only entry point into libkvplan, compiled to WebAssembly.
//
// One JSON-in / JSON-out call per page action: kvplan_call("size", "{...}") returns
// {"ok": true, "result": {...}} or {"ok": false, "error": "<the library's message>"}.
// Every figure comes from a library function and its own JSON formatter (report.h,
// planner.h, engines.h), exactly as the CLI verbs print them with --json; this file only maps
// the page's fields onto the same inputs the CLI's flags fill in. No formula lives here or in
// the page's JavaScript.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/kvplan.h"

#include "kvplan/check.h"
#include "kvplan/engine_fields.h"
#include "kvplan/simulate.h"
#include "kvplan/planner.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define KVPLAN_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define KVPLAN_EXPORT
#endif

namespace kvplan::web {
namespace {

using json = nlohmann::json;

// A field given as a string ("128k") or a number (131072): the CLI's parse_tokens either way.
std::optional<std::uint64_t> tokens_field(const json& a, const char* key, const char* flag) {
  if (!a.contains(key) || a[key].is_null()) return std::nullopt;
  const auto& v = a[key];
  if (v.is_string()) {
    if (v.get<std::string>().empty()) return std::nullopt;
    return parse_tokens(v.get<std::string>(), flag);
  }
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
  throw InputError::value(flag, v.dump(), "a token count such as 4096, 32k or 128k");
}

std::optional<std::uint64_t> count_field(const json& a, const char* key, const char* flag) {
  if (!a.contains(key) || a[key].is_null()) return std::nullopt;
  const auto& v = a[key];
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s.empty()) return std::nullopt;
    std::size_t used = 0;
    unsigned long long n = 0;
    try {
      n = std::stoull(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || s[0] == '-') throw InputError::value(flag, s, "a whole number");
    return n;
  }
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  throw InputError::value(flag, v.dump(), "a whole number");
}

std::string string_field(const json& a, const char* key, std::string fallback = "") {
  if (!a.contains(key) || a[key].is_null()) return fallback;
  if (!a[key].is_string()) throw InputError::value(key, a[key].dump(), "a string");
  return a[key].get<std::string>();
}

// "auto" or empty = the model's own dtype (the CLI's parse_dtype_or_auto).
std::optional<Dtype> dtype_field(const json& a, const char* key, const char* flag) {
  const std::string s = string_field(a, key);
  if (s.empty() || s == "auto") return std::nullopt;
  return parse_dtype(s, flag);
}

// --weight-dtype: "auto" or empty = the checkpoint's format; a preset or a dtype (the CLI's
// parse_weight_format_or_auto).
std::optional<WeightFormat> weight_format_field(const json& a, const char* key, const char* flag) {
  const std::string s = string_field(a, key);
  if (s.empty() || s == "auto") return std::nullopt;
  return parse_weight_format(s, flag);
}

// The model: a bundled id ("model") or pasted/uploaded config text ("config" + "source").
ModelSpec load(const json& a) {
  LoadOptions lo;
  if (a.contains("assume") && a["assume"].is_array())
    for (const auto& s : a["assume"]) lo.assume.push_back(s.get<std::string>());
  const std::string config = string_field(a, "config");
  if (!config.empty()) return load_model_from_json(config, string_field(a, "source", "config.json"), lo);
  const std::string id = string_field(a, "model");
  if (id.empty()) throw InputError::value("model", "nothing", "a bundled model id or a pasted config.json");
  return load_model(id, lo);
}

// The request-table fields among the page's arguments (kvplan/request.h): every key but the
// model's ("model", "config", "source", "assume") and the ones `extra` names (a sweep's axes).
json request_of(const json& a, std::initializer_list<const char*> extra = {}) {
  json r = json::object();
  for (const auto& [k, v] : a.items()) {
    bool skip = k == "model" || k == "config" || k == "source" || k == "assume" || k == "gpu_file";
    for (const char* e : extra) skip = skip || k == e;
    if (!skip) r[k] = v;
  }
  return r;
}

// The size request, read by the library's own parser (the CLI's and Python's).
Workload workload(const json& a) { return workload_from_request(request_of(a, {"prompt", "steps"})); }

// `kvplan size --json`
json do_size(const json& a) {
  const Workload w = workload(a);
  const ModelSpec m = load(a);
  auto j = to_json(cache_size(m, w));
  j["assumptions"] = m.assumptions;
  return j;
}

// `kvplan inspect --json` plus, per layer, the columns of `kvplan inspect`'s table
// (describe_layer, bytes_per_token, state bytes) and `kvplan size --json` for the workload.
json do_inspect(const json& a) {
  const Workload w = workload(a);
  const ModelSpec m = load(a);
  const CacheDtypes dt = resolve_dtypes(m, w);
  json j = to_json(m);
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const auto& c = m.layers[i];
    j["layers"][i]["shape"] = describe_layer(c);
    j["layers"][i]["bytes_per_token"] = bytes_per_token(c, dt, w.tp);
    j["layers"][i]["state_bytes"] = layer_bytes(c, 0, dt, w.tp).state_bytes();
  }
  auto size = to_json(cache_size(m, w));
  size["assumptions"] = m.assumptions;
  return {{"model", std::move(j)}, {"size", std::move(size)}};
}

// `kvplan models --json` (ids and types only: the page lists them in a picker).
json do_models(const json&) {
  json out = json::array();
  for (const auto& b : bundled_models()) out.push_back({{"id", b.id}, {"file", b.file_name}});
  return {{"models", out}};
}

// `kvplan gpus --json`
json do_gpus(const json&) {
  json out = json::array();
  for (const auto& g : accelerator_catalog()) out.push_back(to_json(g));
  return {{"gpus", out}};
}

// `kvplan compare MODEL... --tokens N --kv-dtype D --weight-dtype D --json`
json do_compare(const json& a) {
  const std::uint64_t tokens = tokens_field(a, "tokens", "--tokens").value_or(128 * 1024);
  const auto kv = dtype_field(a, "kv_dtype", "--kv-dtype");
  const auto wd = weight_format_field(a, "weight_dtype", "--weight-dtype");
  LoadOptions lo;
  json rows = json::array();
  if (!a.contains("models") || !a["models"].is_array() || a["models"].empty())
    throw InputError::value("MODEL", "nothing", "one or more models");
  for (const auto& n : a["models"]) rows.push_back(to_json(compare_row(load_model(n.get<std::string>(), lo), tokens, kv, wd)));
  return {{"tokens", tokens}, {"models", rows}};
}

// --gpu-file: the page reads no files, so the accelerator's JSON object is pasted; the CLI's
// reader (accelerator_from_json) and size cap apply to it.
std::optional<Accelerator> pasted_device(const json& a) {
  const std::string text = string_field(a, "gpu_file");
  if (text.empty()) return std::nullopt;
  if (text.size() > kMaxGpuFileBytes)
    throw InputError::value("--gpu-file", std::to_string(text.size()) + " bytes",
                            "at most " + std::to_string(kMaxGpuFileBytes) + " bytes of JSON (one accelerator)");
  return accelerator_from_json(text, "pasted --gpu-file");
}

// `kvplan plan --json`
// The request goes through the library's one parser (plan_input_from_request, as the CLI's flags
// and Python's keywords do) and comes back as the same echo, request_json().
json do_plan(const json& a) {
  const auto device = pasted_device(a);
  const PlanInput in = plan_input_from_request(request_of(a), FieldNaming::keyword, device ? &*device : nullptr);
  const ModelSpec m = load(a);
  auto j = to_json(plan(m, in));
  j["assumptions"] = m.assumptions;
  j["request"] = request_json(in);
  return j;
}

std::vector<std::uint64_t> token_list(const json& a, const char* key, const char* flag) {
  std::vector<std::uint64_t> out;
  if (a.contains(key) && a[key].is_array())
    for (const auto& v : a[key]) {
      json one = {{"v", v}};
      out.push_back(*tokens_field(one, "v", flag));
    }
  if (out.empty()) throw InputError::value(flag, "nothing", "a comma-separated list such as 4096,32k,128k");
  return out;
}

// `kvplan sweep --json`
json do_sweep(const json& a) {
  const auto device = pasted_device(a);
  PlanInput in = plan_input_from_request(request_of(a, {"contexts", "concurrency_list"}), FieldNaming::keyword,
                                         device ? &*device : nullptr);
  const auto contexts = token_list(a, "contexts", "--contexts");
  const auto concurrency = token_list(a, "concurrency_list", "--concurrency");
  in.context = contexts.front();
  const ModelSpec m = load(a);
  auto j = to_json(sweep(m, in, contexts, concurrency));
  j["model"] = m.name;
  j["gpu"] = in.gpu.name;
  j["request"] = sweep_request_json(in);
  return j;
}


// Seed S13, the generation loop (generation.h): `--prompt` tokens, then `--steps` steps of one.
json do_generation(const json& a) {
  const std::uint64_t prompt = tokens_field(a, "prompt", "--prompt").value_or(8);
  const std::uint64_t steps = tokens_field(a, "steps", "--steps").value_or(16);
  const ModelSpec m = load(a);
  json rows = json::array();
  for (const auto& s : generation_steps(m, workload(a), prompt, steps)) rows.push_back(to_json(s));
  return {{"model", m.name}, {"prompt", prompt}, {"steps", steps}, {"rows", rows}};
}

// `kvplan engine ENGINE MODEL --json`: the engine's option table (kvplan/engine_fields.h) read by
// the library's parser, as the CLI's flags and kvplan.engine()'s keywords are; every key but the
// model's and "engine" is a field of that table (an unknown one is the parser's error). "text" is
// the CLI's text output (format_engine_text) for the report box.
json do_engine(const json& a) {
  const EngineKind kind = parse_engine(string_field(a, "engine", "vllm"));
  const json req = request_of(a, {"engine"});
  const ModelSpec m = load(a);
  const EngineReport r = engine_report(kind, m, req);
  return {{"engine", r.json}, {"text", m.name + "\n" + r.text}};
}

// A switch given as a JSON bool, or as the text "true" / "false" a form sends (anything else is refused).
bool bool_field(const json& a, const char* key, const char* flag) {
  if (!a.contains(key) || a[key].is_null()) return false;
  const auto& v = a[key];
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string() && (v == "true" || v == "false" || v == "")) return v == "true";
  throw InputError::value(flag, v.is_string() ? v.get<std::string>() : v.dump(), "true or false");
}

// `kvplan check --format json -- COMMAND` (a pasted launch command; the page reads no files, so a
// start-up log is pasted text): the same steps as the CLI's run_check, option by option (check has
// no field table). "text" adds format_check_text for the report box.
json do_check(const json& a) {
  const std::string command = string_field(a, "command");
  const std::vector<std::string> argv = split_command_line(command);
  if (argv.empty()) throw InputError::value("kvplan check", "", "a launch command (vllm serve ..., llama-server ...)");
  const Deployment d = parse_launch_command(argv);
  CheckOptions c;
  c.gpu = string_field(a, "gpu");
  // --gpu-file (pasted) and --gpu-memory: a custom device, or the named GPU's memory replaced
  // (the CLI reads them with plan's request parser too).
  const auto pasted = pasted_device(a);
  if (const std::string mem = string_field(a, "gpu_memory"); !mem.empty() || pasted) {
    json dev = json::object();
    if (!mem.empty()) dev["gpu_memory"] = mem;
    if (!c.gpu.empty()) dev["gpu"] = c.gpu;
    c.device = plan_input_from_request(dev, FieldNaming::cli_flag, pasted ? &*pasted : nullptr).gpu;
  }
  c.strict = bool_field(a, "strict", "--strict");
  c.engine_version = string_field(a, "engine_version");
  if (const std::string log = string_field(a, "engine_log"); !log.empty()) {
    c.engine_log = log;
    c.engine_log_source = "pasted start-up log";
  }
  if (const std::string w = string_field(a, "weights"); !w.empty()) c.weight_bytes = parse_bytes(w, "--weights");
  const auto gpus = count_field(a, "gpus", "--gpus");
  if (gpus && *gpus == 0) throw InputError::value("--gpus", "0", "a positive GPU count");
  c.gpus = gpus.value_or(0);
  if (const std::string m = string_field(a, "model"); !m.empty()) c.model = m;
  c.require_concurrency = count_field(a, "require_concurrency", "--require-concurrency");
  if (c.require_concurrency && *c.require_concurrency == 0)
    throw InputError::value("--require-concurrency", "0", "a positive number of sequences");
  c.require_context = tokens_field(a, "require_context", "--require-context");
  const CheckResult r = check_deployment(d, c);
  return {{"check", to_json(r)}, {"text", format_check_text(r)}};
}

// `kvplan simulate --gpu GPU --workload SPEC [--seed N] --json -- COMMAND`: a pasted launch command
// (vllm serve ..., python3 -m sglang.launch_server ..., llama-server ..., trtllm-serve ...) made
// ready by the library's prepare_simulation (kvplan check's budget and pool), a workload spec read
// by parse_workload_spec, one simulate() call; the JSON as the CLI prints it. The page runs on the
// browser's main thread, so the workload is bounded (kWebMaxRequests).
constexpr std::uint64_t kWebMaxRequests = 20000;
json do_simulate(const json& a) {
  const std::vector<std::string> argv = split_command_line(string_field(a, "command"));
  if (argv.empty()) throw InputError::value("kvplan simulate", "", "a launch command (vllm serve MODEL ..., llama-server ...)");
  const Deployment d = parse_launch_command(argv);
  CheckOptions c;
  c.gpu = string_field(a, "gpu");
  if (c.gpu.empty()) throw InputError::value("--gpu", "", "a GPU model (kvplan gpus), e.g. H100");
  if (const std::string m = string_field(a, "model"); !m.empty()) c.model = m;
  SimDeployment sd = prepare_simulation(d, c);
  WorkloadSpec w = parse_workload_spec(string_field(a, "workload"));
  if (const std::string seed = string_field(a, "seed"); !seed.empty()) w.seed = parse_tokens(seed, "--seed");
  if (w.requests > kWebMaxRequests)
    throw InputError::value("requests", std::to_string(w.requests),
                            "at most " + std::to_string(kWebMaxRequests) + " requests on the web page (the CLI runs any number)");
  const SimResult r = simulate(sd.model, find_accelerator(c.gpu), sd.options, w);
  json j = to_json(r);
  j["deployment"] = {{"source", sd.deployment.source}, {"args", sd.deployment.args}};
  j["check_notes"] = sd.check.notes;
  for (const auto& n : sd.notes) j["notes"].push_back(n);
  j["workload"] = to_json(w);
  return {{"simulate", std::move(j)}, {"text", format_simulate_text(r)}};
}

// The library's own formatters for numbers the page prints: format_bytes ("42.95 GB (40.00
// GiB)"), format_count ("1,234") and format_gb ("42.95 GB", chart axes), so the page and the CLI's
// text output spell them alike.
// A byte count is a whole number >= 0: a negative one is refused, never wrapped to 2^64 - n.
std::uint64_t unsigned_of(const json& v, const char* what) {
  if (!v.is_number_unsigned()) throw InputError::value(what, v.dump(), "a whole number >= 0");
  return v.get<std::uint64_t>();
}

json do_format(const json& a) {
  json bytes = json::array(), counts = json::array(), gb = json::array();
  if (a.contains("bytes"))
    for (const auto& v : a["bytes"]) bytes.push_back(format_bytes(unsigned_of(v, "bytes")));
  // A count may be negative (Ollama's layers_requested -1: "as many as fit"): its sign, then the digits.
  if (a.contains("counts"))
    for (const auto& v : a["counts"]) {
      if (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0) {
        const std::int64_t n = v.get<std::int64_t>();
        counts.push_back("-" + format_count(static_cast<std::uint64_t>(-(n + 1)) + 1));
      } else {
        counts.push_back(format_count(unsigned_of(v, "counts")));
      }
    }
  // Chart axes in GB (10^9 bytes): format_gb, as the CLI's "GB" figures.
  if (a.contains("gb"))
    for (const auto& v : a["gb"]) gb.push_back(format_gb(unsigned_of(v, "gb"), 2));
  return {{"bytes", bytes}, {"counts", counts}, {"gb", gb}};
}

json do_dtypes(const json&) {
  json out = json::array();
  for (const auto& d : all_dtypes()) out.push_back({{"name", std::string(d.name)}, {"description", std::string(d.description)}});
  // --weight-dtype presets (the weights select offers them before the plain dtypes).
  return {{"dtypes", out}, {"weight_presets", weight_preset_names()}};
}

// kvplan.fields(verb) / request_fields(): the request table the page builds its plan form from;
// "engine.<engine>" is that engine's option table (the Engine panel's form).
json do_fields(const json& a) {
  json out = json::array();
  const std::string verb = string_field(a, "verb", "plan");
  if (verb.rfind("engine.", 0) == 0) {  // "engine.vllm": that engine's option table, as kvplan.fields()
    for (const auto& f : engine_fields(parse_engine(verb.substr(7)))) out.push_back(to_json(f));
  } else {
    for (const auto& f : request_fields(verb)) out.push_back(to_json(f));
  }
  return {{"fields", out}};
}

json functions() {
  return {"functions", "version", "format", "dtypes", "models", "size", "inspect", "generation",
          "gpus",      "compare", "plan",   "sweep",  "engine", "check",  "fields", "simulate"};
}

json dispatch(const std::string& fn, const json& a) {
  if (fn == "format") return do_format(a);
  if (fn == "dtypes") return do_dtypes(a);
  if (fn == "functions") return {{"functions", functions()}};
  if (fn == "version") return {{"version", KVPLAN_VERSION_STRING}};
  if (fn == "models") return do_models(a);
  if (fn == "size") return do_size(a);
  if (fn == "inspect") return do_inspect(a);
  if (fn == "generation") return do_generation(a);
  if (fn == "gpus") return do_gpus(a);
  if (fn == "compare") return do_compare(a);
  if (fn == "plan") return do_plan(a);
  if (fn == "sweep") return do_sweep(a);
  if (fn == "engine") return do_engine(a);
  if (fn == "check") return do_check(a);
  if (fn == "fields") return do_fields(a);
  if (fn == "simulate") return do_simulate(a);
  std::string known;
  for (const auto& f : functions()) known += (known.empty() ? "" : ", ") + f.get<std::string>();
  throw InputError::value("function", fn, known);
}

}  // namespace
}  // namespace kvplan::web

extern "C" KVPLAN_EXPORT const char* kvplan_call(const char* fn, const char* args_json) {
  static std::string out;
  nlohmann::json reply;
  try {
    nlohmann::json args = nlohmann::json::object();
    if (args_json && *args_json) args = nlohmann::json::parse(args_json);
    reply = {{"ok", true}, {"result", kvplan::web::dispatch(fn ? fn : "", args)}};
  } catch (const kvplan::Error& e) {
    reply = {{"ok", false}, {"error", e.what()}};
  } catch (const nlohmann::json::exception& e) {
    reply = {{"ok", false}, {"error", std::string("web page request: ") + e.what()}};
  } catch (const std::exception& e) {
    reply = {{"ok", false}, {"error", std::string("internal error: ") + e.what()}};
  }
  out = reply.dump();
  return out.c_str();
}
