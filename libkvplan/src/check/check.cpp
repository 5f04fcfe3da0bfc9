// kvplan check: launch-command / deployment-file parsing, the memory each engine budgets on the
// named GPU, and the verdict. The engine math lives in engine_*.cpp; this file only maps flags
// onto the engines' options structs and compares the results with the requirements.
#include "util/config_view.h"
#include "kvplan/check.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/units.h"
#include "kvplan/weights.h"

namespace kvplan {

// ---------------------------------------------------------------------------------------------
// Command lines
// ---------------------------------------------------------------------------------------------
std::vector<std::string> split_command_line(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\\' && i + 1 < s.size()) {
      if (s[i + 1] == '\n') { ++i; continue; }  // line continuation
      if (s[i + 1] == '\r' && i + 2 < s.size() && s[i + 2] == '\n') { i += 2; continue; }
      cur += s[++i];
      have = true;
    } else if (c == '\'' || c == '"') {
      const std::size_t end = s.find(c, i + 1);
      if (end == std::string_view::npos)
        throw InputError::value("launch command", std::string(s.substr(i, 40)), "a closing " + std::string(1, c) + " quote");
      cur += s.substr(i + 1, end - i - 1);
      i = end;
      have = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (have) out.push_back(cur), cur.clear(), have = false;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have) out.push_back(cur);
  return out;
}

namespace {

std::string base_name(const std::string& s) {
  const auto p = s.find_last_of('/');
  return p == std::string::npos ? s : s.substr(p + 1);
}

bool is_env_assignment(const std::string& t) {
  const auto eq = t.find('=');
  return eq != std::string::npos && eq > 0 && t[0] != '-' &&
         std::all_of(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(eq),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace

Deployment parse_launch_command(const std::vector<std::string>& argv_in, std::string_view source) {
  Deployment d;
  d.source = std::string(source);
  std::vector<std::string> a;
  std::size_t i = 0;
  // Skip VAR=value prefixes, `env`, and docker-style wrappers are not handled.
  while (i < argv_in.size() && (is_env_assignment(argv_in[i]) || argv_in[i] == "env")) ++i;
  a.assign(argv_in.begin() + static_cast<std::ptrdiff_t>(i), argv_in.end());
  if (a.empty()) throw InputError::value("launch command", "", "an engine command (vllm serve, python -m sglang.launch_server, llama-server, trtllm-serve)");
  const std::string exe = base_name(a[0]);
  std::size_t rest = 1;
  auto take_positional_model = [&]() {
    if (rest < a.size() && !a[rest].empty() && a[rest][0] != '-') d.model = a[rest++];
  };
  if (exe == "vllm") {
    if (a.size() < 2 || a[1] != "serve") throw InputError::value("launch command", a[0] + (a.size() > 1 ? " " + a[1] : ""), "vllm serve MODEL ...");
    d.engine = EngineKind::vllm;
    rest = 2;
    take_positional_model();
  } else if (exe == "python" || exe == "python3" || exe.rfind("python3.", 0) == 0) {
    if (a.size() < 3 || a[1] != "-m") throw InputError::value("launch command", a[0], "python -m sglang.launch_server ... or python -m vllm.entrypoints.openai.api_server ...");
    if (a[2] == "sglang.launch_server") d.engine = EngineKind::sglang;
    else if (a[2] == "vllm.entrypoints.openai.api_server") d.engine = EngineKind::vllm;
    else throw InputError::value("launch command", "python -m " + a[2], "sglang.launch_server or vllm.entrypoints.openai.api_server");
    rest = 3;
  } else if (exe == "sglang") {
    if (a.size() < 2 || a[1] != "serve") throw InputError::value("launch command", a[0], "sglang serve ...");
    d.engine = EngineKind::sglang;
    rest = 2;
  } else if (exe == "llama-server" || exe == "llama-cli") {
    d.engine = EngineKind::llamacpp;
  } else if (exe == "trtllm-serve") {
    d.engine = EngineKind::trtllm;
    if (a.size() > 1 && a[1] == "serve") rest = 2;
    take_positional_model();
  } else {
    throw InputError::value("launch command", a[0], "vllm, python -m sglang.launch_server, llama-server or trtllm-serve");
  }
  d.args.assign(a.begin() + static_cast<std::ptrdiff_t>(rest), a.end());
  return d;
}

// ---------------------------------------------------------------------------------------------
// The YAML subset
// ---------------------------------------------------------------------------------------------
namespace {

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

[[noreturn]] void yaml_fail(std::string_view source, std::size_t line, std::string_view what) {
  throw ConfigError(std::string(source) + " (line " + std::to_string(line) + "): " + std::string(what));
}

// Removes a trailing comment (" #..." outside quotes).
std::string strip_comment(const std::string& s) {
  char q = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (q) {
      if (c == q) q = 0;
    } else if (c == '\'' || c == '"') {
      q = c;
    } else if (c == '#' && (i == 0 || std::isspace(static_cast<unsigned char>(s[i - 1])))) {
      return s.substr(0, i);
    }
  }
  return s;
}

nlohmann::json yaml_scalar(const std::string& raw, std::string_view source, std::size_t line) {
  const std::string v = trim(raw);
  if (v.empty() || v == "~" || v == "null") return nullptr;
  if (v.front() == '"' || v.front() == '\'') {
    if (v.size() < 2 || v.back() != v.front()) yaml_fail(source, line, "unterminated quoted string");
    std::string out;
    for (std::size_t i = 1; i + 1 < v.size(); ++i) {
      if (v.front() == '"' && v[i] == '\\' && i + 2 < v.size()) {
        const char n = v[++i];
        out += n == 'n' ? '\n' : n == 't' ? '\t' : n;
      } else if (v.front() == '\'' && v[i] == '\'' && i + 2 < v.size() && v[i + 1] == '\'') {
        out += '\'';
        ++i;
      } else {
        out += v[i];
      }
    }
    return out;
  }
  const char f = v.front();
  if (f == '[' || f == '{') yaml_fail(source, line, "flow collections ([...] / {...}) are not supported; use one '- item' per line");
  if (f == '|' || f == '>') yaml_fail(source, line, "block scalars (| and >) are not supported; write the value on one line");
  if (f == '&' || f == '*' || f == '!') yaml_fail(source, line, "anchors, aliases and tags are not supported");
  if (v == "true" || v == "True" || v == "yes") return true;
  if (v == "false" || v == "False" || v == "no") return false;
  // Integers and decimals; everything else is a string.
  char* end = nullptr;
  errno = 0;
  const unsigned long long u = std::strtoull(v.c_str(), &end, 10);
  if (end && *end == '\0' && errno == 0 && std::isdigit(static_cast<unsigned char>(v[0]))) return static_cast<std::uint64_t>(u);
  const double dv = std::strtod(v.c_str(), &end);
  if (end && *end == '\0' && (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '.')) return dv;
  return v;
}

// Splits "key: value" (the colon must be followed by a space or end the line).
bool split_key(const std::string& s, std::string& key, std::string& value) {
  char q = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (q) {
      if (c == q) q = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      if (i == 0) q = c;
      continue;
    }
    if (c == ':' && (i + 1 == s.size() || s[i + 1] == ' ' || s[i + 1] == '\t')) {
      key = trim(s.substr(0, i));
      value = trim(s.substr(i + 1));
      if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'') && key.back() == key.front())
        key = key.substr(1, key.size() - 2);
      return true;
    }
  }
  return false;
}

}  // namespace

nlohmann::json parse_yaml_subset(std::string_view text, std::string_view source) {
  nlohmann::json root = nlohmann::json::object();
  std::istringstream in{std::string(text)};
  std::string raw, open_key;  // open_key: the top-level key whose block is being read
  std::size_t line = 0, child_indent = 0;
  while (std::getline(in, raw)) {
    ++line;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (raw.find('\t') != std::string::npos && trim(raw).size() && raw.find_first_not_of(" \t") != std::string::npos &&
        raw.substr(0, raw.find_first_not_of(" \t")).find('\t') != std::string::npos)
      yaml_fail(source, line, "tabs are not allowed for indentation");
    const std::string content = strip_comment(raw);
    if (trim(content).empty()) continue;
    if (trim(content) == "---" && line == 1) continue;
    const std::size_t indent = content.find_first_not_of(' ');
    const std::string body = trim(content);
    if (indent == 0) {
      std::string k, v;
      if (body.rfind("- ", 0) == 0 || body == "-") yaml_fail(source, line, "a top-level list is not supported; the file must be a mapping (key: value)");
      if (!split_key(body, k, v)) yaml_fail(source, line, "expected 'key: value'");
      if (root.contains(k)) yaml_fail(source, line, "duplicate key '" + k + "'");
      if (v.empty()) {
        root[k] = nullptr;
        open_key = k;
        child_indent = 0;
      } else {
        root[k] = yaml_scalar(v, source, line);
        open_key.clear();
      }
      continue;
    }
    if (open_key.empty()) yaml_fail(source, line, "unexpected indentation (only one level of nesting under a 'key:' line is supported)");
    if (child_indent == 0) child_indent = indent;
    if (indent != child_indent)
      yaml_fail(source, line, "nesting deeper than one level is not supported (items of '" + open_key + "' must share one indentation)");
    auto& node = root[open_key];
    if (body == "-" || body.rfind("- ", 0) == 0) {
      if (node.is_object()) yaml_fail(source, line, "'" + open_key + "' mixes list items and keys");
      if (node.is_null()) node = nlohmann::json::array();
      const std::string item = trim(body.substr(1));
      std::string k, v;
      if (split_key(item, k, v) && !item.empty() && item[0] != '"' && item[0] != '\'' && item[0] != '-')
        yaml_fail(source, line, "lists of mappings are not supported (one level of nesting)");
      node.push_back(yaml_scalar(item, source, line));
    } else {
      if (node.is_array()) yaml_fail(source, line, "'" + open_key + "' mixes list items and keys");
      if (node.is_null()) node = nlohmann::json::object();
      std::string k, v;
      if (!split_key(body, k, v)) yaml_fail(source, line, "expected 'key: value' under '" + open_key + "'");
      if (v.empty()) yaml_fail(source, line, "nesting deeper than one level is not supported ('" + k + ":' opens a block)");
      node[k] = yaml_scalar(v, source, line);
    }
  }
  return root;
}

namespace {

std::string scalar_string(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());  // 2^64-1 is not "-1"
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number_float()) {
    std::ostringstream os;
    os << v.get<double>();
    return os.str();
  }
  return detail::describe_json(v);
}

std::uint64_t positive(const nlohmann::json& v, std::string_view source, std::string_view key) {
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > 0) return v.get<std::uint64_t>();
  if (v.is_string()) return parse_tokens(v.get<std::string>(), std::string(source) + " (" + std::string(key) + ")");
  throw ConfigError::field(source, key, "a positive integer", detail::describe_json(v), "deployment");
}

}  // namespace

Deployment parse_deployment(std::string_view text, std::string_view source) {
  nlohmann::json j;
  const std::string t = trim(text);
  if (!t.empty() && t.front() == '{') {
    // The config reader's JSON parser: every nlohmann exception (syntax, number overflow) becomes
    // a ConfigError naming the file.
    j = detail::parse_config_text(t, source);
  } else {
    j = parse_yaml_subset(text, source);
  }
  if (!j.is_object()) throw ConfigError::field(source, "", "a mapping of deployment keys", j.type_name(), "deployment");
  static const std::set<std::string> known = {"name", "engine", "model", "command", "args", "gpu", "gpus", "require"};
  for (const auto& [k, v] : j.items())
    if (!known.count(k))
      throw ConfigError::field(source, "/" + k, "one of the keys name, engine, model, command, args, gpu, gpus, require", k, "deployment");
  Deployment d;
  if (j.contains("command") && !j["command"].is_null()) {
    std::vector<std::string> argv;
    if (j["command"].is_string()) argv = split_command_line(j["command"].get<std::string>());
    else if (j["command"].is_array())
      for (const auto& x : j["command"]) argv.push_back(scalar_string(x));
    else throw ConfigError::field(source, "/command", "a command string or a list of words", detail::describe_json(j["command"]), "deployment");
    d = parse_launch_command(argv, source);
  } else {
    if (!j.contains("engine") || !j["engine"].is_string())
      throw ConfigError::field(source, "/engine", "an engine name (vllm, llama.cpp, sglang, trtllm) when there is no command", detail::describe_json(j.value("engine", nlohmann::json())), "deployment");
    d.engine = parse_engine(j["engine"].get<std::string>());
  }
  d.source = std::string(source);
  if (j.contains("engine") && j["engine"].is_string() && parse_engine(j["engine"].get<std::string>()) != d.engine)
    throw ConfigError::field(source, "/engine", "the engine the command runs (" + std::string(engine_name(d.engine)) + ")",
                             j["engine"].get<std::string>(), "deployment");
  if (j.contains("name") && !j["name"].is_null()) d.name = scalar_string(j["name"]);
  if (j.contains("model") && !j["model"].is_null()) d.model = scalar_string(j["model"]);
  if (j.contains("args") && !j["args"].is_null()) {
    const auto& a = j["args"];
    if (a.is_array()) {
      for (const auto& x : a) d.args.push_back(scalar_string(x));
    } else if (a.is_object()) {
      for (const auto& [k, v] : a.items()) {
        const std::string flag = k.rfind("-", 0) == 0 ? k : "--" + k;
        if (v.is_boolean()) {
          if (v.get<bool>()) d.args.push_back(flag);
        } else {
          d.args.push_back(flag);
          d.args.push_back(scalar_string(v));
        }
      }
    } else {
      throw ConfigError::field(source, "/args", "a list of arguments or a mapping flag: value", detail::describe_json(a), "deployment");
    }
  }
  if (j.contains("gpu") && !j["gpu"].is_null()) d.gpu = scalar_string(j["gpu"]);
  if (j.contains("gpus") && !j["gpus"].is_null()) d.gpus = positive(j["gpus"], source, "/gpus");
  if (j.contains("require") && !j["require"].is_null()) {
    const auto& r = j["require"];
    if (!r.is_object()) throw ConfigError::field(source, "/require", "a mapping with concurrency and/or context", detail::describe_json(r), "deployment");
    for (const auto& [k, v] : r.items()) {
      if (k == "concurrency") d.require_concurrency = positive(v, source, "/require/concurrency");
      else if (k == "context") d.require_context = positive(v, source, "/require/context");
      else throw ConfigError::field(source, "/require/" + k, "concurrency or context", k, "deployment");
    }
  }
  return d;
}

Deployment load_deployment_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError::value("deployment file", path, "a readable YAML or JSON file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_deployment(ss.str(), path);
}

// ---------------------------------------------------------------------------------------------
// Flags
// ---------------------------------------------------------------------------------------------
namespace {

enum class FlagType { value, boolean, optional_value };

struct FlagSpec {
  std::vector<std::string> names;
  FlagType type;
};

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Parsed flags: canonical name (first of names) -> value ("" for booleans).
struct Flags {
  std::map<std::string, std::string> v;
  std::vector<std::string> ignored;
  bool has(const std::string& k) const { return v.count(k) > 0; }
  const std::string& get(const std::string& k) const { return v.at(k); }
};

Flags parse_flags(const std::vector<std::string>& args, const std::vector<FlagSpec>& specs, std::string_view engine,
                  std::string* positional_model) {
  Flags f;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i], val;
    bool has_eq = false;
    if (a.rfind("--", 0) == 0) {
      const auto eq = a.find('=');
      if (eq != std::string::npos) val = a.substr(eq + 1), a = a.substr(0, eq), has_eq = true;
    }
    if (a.empty() || a[0] != '-') {
      if (positional_model && positional_model->empty()) {
        *positional_model = a;
        continue;
      }
      throw InputError::value(std::string(engine) + " command", a, "a flag (unexpected positional argument)");
    }
    const FlagSpec* spec = nullptr;
    for (const auto& s : specs)
      if (std::find(s.names.begin(), s.names.end(), a) != s.names.end()) spec = &s;
    if (!spec) {
      // A near miss of a flag kvplan reads is a typo worth stopping for; others are ignored.
      for (const auto& s : specs)
        for (const auto& n : s.names)
          if (n.size() > 4 && edit_distance(a, n) <= 2)
            throw InputError::unknown(std::string(engine) + " flag", a, n);
      f.ignored.push_back(a);
      if (!has_eq && i + 1 < args.size() && !args[i + 1].empty() && args[i + 1][0] != '-') ++i;  // its value
      continue;
    }
    const std::string& canon = spec->names.front();
    if (spec->type == FlagType::boolean) {
      if (has_eq) f.v[canon] = val; else f.v[canon] = "true";
    } else if (has_eq) {
      f.v[canon] = val;
    } else if (spec->type == FlagType::optional_value) {
      if (i + 1 < args.size() && (args[i + 1] == "on" || args[i + 1] == "off" || args[i + 1] == "auto")) f.v[canon] = args[++i];
      else f.v[canon] = "on";
    } else {
      if (i + 1 >= args.size() || (args[i + 1].rfind("--", 0) == 0))
        throw InputError::value(std::string(engine) + " flag " + a, "", "a value after " + a);
      f.v[canon] = args[++i];
    }
  }
  return f;
}

std::uint64_t flag_uint(const Flags& f, const std::string& k, std::uint64_t def) {
  if (!f.has(k)) return def;
  const std::string& s = f.get(k);
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return parse_tokens(s, k);
  try {
    return std::stoull(s);
  } catch (...) {
    throw InputError::value(k, s, "a non-negative integer");
  }
}

double flag_double(const Flags& f, const std::string& k, double def) {
  if (!f.has(k)) return def;
  const std::string& s = f.get(k);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || !end || *end != '\0' || !(v > 0) || v > 1) throw InputError::value(k, s, "a fraction in (0, 1]");
  return v;
}

bool flag_bool(const Flags& f, const std::string& k) {
  if (!f.has(k)) return false;
  const std::string& s = f.get(k);
  return s == "true" || s == "1" || s == "True" || s == "on";
}

std::uint64_t positive_flag(const Flags& f, const std::string& k, std::uint64_t def) {
  const std::uint64_t v = flag_uint(f, k, def);
  if (v == 0) throw InputError::value(k, "0", "a positive integer");
  return v;
}

// Estimates used where an engine measures at start-up (documented in docs/engines.md).
constexpr std::uint64_t kNonTorchBytes = 512 * MiB;
constexpr std::uint64_t kCudaGraphBytes = 512 * MiB;
constexpr std::uint64_t kCudaContextBytes = 512 * MiB;
constexpr std::uint64_t kSamplerSeqs = 256;

// Activation peak of a profile run over `tokens` tokens on one rank.
std::uint64_t activation_estimate(const ModelSpec& m, std::uint64_t tokens, std::uint64_t tp) {
  std::uint64_t inter = m.dims.intermediate_size;
  if (m.dims.num_experts && m.dims.moe_intermediate_size)
    inter = std::max(inter, m.dims.moe_intermediate_size * std::max<std::uint64_t>(1, m.dims.experts_per_token));
  const std::uint64_t per_token = checked_add(ceil_div(checked_mul(2, inter), tp), checked_mul(4, m.dims.hidden_size));
  return checked_add(checked_product({tokens, per_token, 2}), checked_product({kSamplerSeqs, m.dims.vocab_size, 4}));
}

std::string fmt_ctx(std::uint64_t n) { return format_count(n); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// The verdict
// ---------------------------------------------------------------------------------------------
CheckResult check_deployment(const Deployment& d_in, const CheckOptions& o) {
  Deployment d = d_in;
  CheckResult r;
  r.source = d.source;
  r.name = d.name;
  r.engine = std::string(engine_name(d.engine));
  r.gpu = o.gpu.empty() ? d.gpu : o.gpu;
  if (r.gpu.empty()) throw InputError::value("--gpu", "", "a GPU name (e.g. H100, A100-80GB); see kvplan gpus");
  const auto require_concurrency = o.require_concurrency ? o.require_concurrency : d.require_concurrency;
  const auto require_context = o.require_context ? o.require_context : d.require_context;

  // Engine flags.
  std::vector<FlagSpec> specs;
  std::string model_from_flags;
  switch (d.engine) {
    case EngineKind::vllm:
      specs = {{{"--model"}, FlagType::value},
               {{"--tensor-parallel-size", "-tp"}, FlagType::value},
               {{"--pipeline-parallel-size", "-pp"}, FlagType::value},
               {{"--data-parallel-size", "-dp"}, FlagType::value},
               {{"--max-model-len"}, FlagType::value},
               {{"--block-size"}, FlagType::value},
               {{"--kv-cache-dtype"}, FlagType::value},
               {{"--max-num-batched-tokens"}, FlagType::value},
               {{"--gpu-memory-utilization"}, FlagType::value},
               {{"--kv-cache-memory", "--kv-cache-memory-bytes"}, FlagType::value},
               {{"--enable-prefix-caching"}, FlagType::boolean},
               {{"--no-enable-prefix-caching"}, FlagType::boolean},
               {{"--enforce-eager"}, FlagType::boolean},
               {{"--attention-backend"}, FlagType::value},
               {{"--mamba-cache-mode"}, FlagType::value},
               {{"--mamba-ssm-cache-dtype"}, FlagType::value},
               {{"--disable-hybrid-kv-cache-manager"}, FlagType::boolean},
               {{"--num-gpu-blocks-override"}, FlagType::value},
               {{"--dtype"}, FlagType::value}};
      break;
    case EngineKind::sglang:
      specs = {{{"--model-path", "--model"}, FlagType::value},
               {{"--tp-size", "--tp"}, FlagType::value},
               {{"--pp-size"}, FlagType::value},
               {{"--dp-size", "--dp"}, FlagType::value},
               {{"--enable-dp-attention"}, FlagType::boolean},
               {{"--context-length"}, FlagType::value},
               {{"--mem-fraction-static"}, FlagType::value},
               {{"--page-size"}, FlagType::value},
               {{"--attention-backend"}, FlagType::value},
               {{"--kv-cache-dtype"}, FlagType::value},
               {{"--max-total-tokens"}, FlagType::value},
               {{"--max-running-requests"}, FlagType::value},
               {{"--chunked-prefill-size"}, FlagType::value},
               {{"--cuda-graph-max-bs"}, FlagType::value},
               {{"--disable-radix-cache"}, FlagType::boolean},
               {{"--max-mamba-cache-size"}, FlagType::value},
               {{"--mamba-ssm-dtype"}, FlagType::value},
               {{"--disable-hybrid-swa-memory"}, FlagType::boolean}};
      break;
    case EngineKind::llamacpp:
      specs = {{{"--model", "-m"}, FlagType::value},
               {{"--hf-repo", "-hf", "-hfr"}, FlagType::value},
               {{"--ctx-size", "-c"}, FlagType::value},
               {{"--parallel", "-np"}, FlagType::value},
               {{"--cache-type-k", "-ctk"}, FlagType::value},
               {{"--cache-type-v", "-ctv"}, FlagType::value},
               {{"--batch-size", "-b"}, FlagType::value},
               {{"--ubatch-size", "-ub"}, FlagType::value},
               {{"--kv-unified", "-kvu"}, FlagType::boolean},
               {{"--swa-full"}, FlagType::boolean},
               {{"--flash-attn", "-fa"}, FlagType::optional_value},
               {{"--n-gpu-layers", "-ngl", "--gpu-layers"}, FlagType::value}};
      break;
    case EngineKind::trtllm:
      specs = {{{"--tp_size"}, FlagType::value},
               {{"--pp_size"}, FlagType::value},
               {{"--max_seq_len"}, FlagType::value},
               {{"--max_batch_size"}, FlagType::value},
               {{"--max_num_tokens"}, FlagType::value},
               {{"--kv_cache_free_gpu_memory_fraction"}, FlagType::value},
               {{"--extra_llm_api_options"}, FlagType::value},
               {{"--backend"}, FlagType::value}};
      break;
  }
  const Flags f = parse_flags(d.args, specs, r.engine, d.engine == EngineKind::trtllm && d.model.empty() ? &model_from_flags : nullptr);
  if (!f.ignored.empty()) {
    std::string s;
    for (const auto& x : f.ignored) s += (s.empty() ? "" : ", ") + x;
    r.notes.push_back("flags that do not change the KV cache were ignored: " + s);
  }

  // The model kvplan reads.
  std::string model = o.model.value_or(d.model);
  if (model.empty() && !model_from_flags.empty()) model = model_from_flags;
  if (model.empty() && f.has("--model") && d.engine != EngineKind::llamacpp) model = f.get("--model");
  if (model.empty() && f.has("--model-path")) model = f.get("--model-path");
  if (model.empty())
    throw InputError::value("model", "", d.engine == EngineKind::llamacpp
                                             ? "a Hugging Face config for the GGUF (kvplan check --model ID, or `model:` in the deployment file)"
                                             : "a model in the command (or --model)");
  ModelSpec m = load_model(model);
  r.model = m.name;
  if (d.engine == EngineKind::vllm && f.has("--dtype") && f.get("--dtype") != "auto") m.dtype = parse_dtype(f.get("--dtype"), "--dtype");

  const Accelerator& acc = find_accelerator(r.gpu);
  r.gpu = acc.name;
  r.gpu_memory_bytes = acc.memory_bytes;
  const WeightBytes wb = weight_bytes(m);
  const bool blackwell = acc.name.find("B200") != std::string::npos || acc.name.find("B100") != std::string::npos ||
                         acc.name.find("B300") != std::string::npos;

  std::uint64_t tp = 1, pp = 1, dp = 1;
  auto add_check = [&](std::string name, bool ok, std::string required, std::string actual, std::string message) {
    r.checks.push_back({std::move(name), ok, std::move(required), std::move(actual), message});
    if (!ok) {
      r.passed = false;
      r.reasons.push_back(std::move(message));
    }
  };

  switch (d.engine) {
    case EngineKind::vllm: {
      VllmOptions v;
      tp = positive_flag(f, "--tensor-parallel-size", 1);
      pp = positive_flag(f, "--pipeline-parallel-size", 1);
      dp = positive_flag(f, "--data-parallel-size", 1);
      v.tensor_parallel_size = tp;
      v.pipeline_parallel_size = pp;
      const bool auto_fit = f.has("--max-model-len") && (f.get("--max-model-len") == "-1" || f.get("--max-model-len") == "auto");
      v.max_model_len = auto_fit ? 0 : flag_uint(f, "--max-model-len", 0);
      if (f.has("--block-size")) v.block_size = positive_flag(f, "--block-size", 16);
      if (f.has("--kv-cache-dtype")) v.kv_cache_dtype = f.get("--kv-cache-dtype");
      v.max_num_batched_tokens = positive_flag(f, "--max-num-batched-tokens", 8192);
      v.gpu_memory_utilization = flag_double(f, "--gpu-memory-utilization", 0.9);
      if (f.has("--kv-cache-memory")) v.kv_cache_memory_bytes = parse_bytes(f.get("--kv-cache-memory"), "--kv-cache-memory");
      if (f.has("--attention-backend")) v.attention_backend = f.get("--attention-backend");
      if (f.has("--mamba-cache-mode")) v.mamba_cache_mode = f.get("--mamba-cache-mode");
      if (f.has("--mamba-ssm-cache-dtype")) v.mamba_ssm_cache_dtype = f.get("--mamba-ssm-cache-dtype");
      if (flag_bool(f, "--no-enable-prefix-caching")) v.enable_prefix_caching = false;
      v.disable_hybrid_kv_cache_manager = flag_bool(f, "--disable-hybrid-kv-cache-manager");
      if (f.has("--num-gpu-blocks-override")) v.num_gpu_blocks_override = flag_uint(f, "--num-gpu-blocks-override", 0);
      v.blackwell = blackwell;
      v.gpu_memory_bytes = acc.memory_bytes;
      v.weights_bytes = ceil_div(wb.total, checked_mul(tp, pp, "GPU count (tensor x pipeline parallel size)"));
      v.activation_peak_bytes = activation_estimate(m, v.max_num_batched_tokens, tp);
      v.non_torch_bytes = tp > 1 ? 2 * kNonTorchBytes : kNonTorchBytes;
      v.cudagraph_bytes = flag_bool(f, "--enforce-eager") ? 0 : kCudaGraphBytes;
      if (!v.kv_cache_memory_bytes)
        r.notes.push_back("estimated per GPU: weights " + format_gib(v.weights_bytes) + ", activation peak " +
                          format_gib(v.activation_peak_bytes) + ", non-torch " + format_gib(v.non_torch_bytes) +
                          ", CUDA graphs " + format_gib(v.cudagraph_bytes) + " (vLLM measures these at start-up)");
      VllmResult e = vllm_profile(m, v);
      if (auto_fit && !e.starts && e.max_fitting_len > 0) {
        // --max-model-len -1: vLLM searches the largest length that fits and starts with it.
        const std::uint64_t from = e.max_model_len;
        v.max_model_len = e.max_fitting_len;
        e = vllm_profile(m, v);
        e.log_lines.insert(e.log_lines.begin(), "Auto-fit max_model_len: reduced from " + std::to_string(from) + " to " +
                                                    std::to_string(v.max_model_len));
      }
      r.starts = e.starts;
      r.kv_budget_bytes = e.available_kv_bytes;
      r.kv_cache_tokens = e.kv_cache_tokens;
      r.context = e.max_model_len;
      r.max_concurrency = e.max_concurrency;
      r.max_fitting_context = e.max_fitting_len;
      r.log_lines = e.log_lines;
      for (const auto& n : e.notes) r.notes.push_back(n);
      r.engine_result = to_json(e);
      add_check("starts", e.starts, "one request of max-model-len fits", e.starts ? "fits" : "does not fit",
                e.starts ? "vLLM starts" : "vLLM fails at start-up: " + e.error);
      break;
    }
    case EngineKind::sglang: {
      SglangOptions s;
      tp = positive_flag(f, "--tp-size", 1);
      pp = positive_flag(f, "--pp-size", 1);
      s.tp_size = tp;
      s.pp_size = pp;
      s.dp_size = positive_flag(f, "--dp-size", 1);
      s.enable_dp_attention = flag_bool(f, "--enable-dp-attention");
      if (!s.enable_dp_attention) dp = s.dp_size;
      s.context_length = flag_uint(f, "--context-length", 0);
      if (f.has("--mem-fraction-static")) s.mem_fraction_static = flag_double(f, "--mem-fraction-static", 0.9);
      if (f.has("--page-size")) s.page_size = positive_flag(f, "--page-size", 1);
      if (f.has("--attention-backend")) s.attention_backend = f.get("--attention-backend");
      if (f.has("--kv-cache-dtype")) s.kv_cache_dtype = f.get("--kv-cache-dtype");
      if (f.has("--max-total-tokens")) s.max_total_tokens = positive_flag(f, "--max-total-tokens", 1);
      if (f.has("--max-running-requests")) s.max_running_requests = positive_flag(f, "--max-running-requests", 1);
      if (f.has("--chunked-prefill-size")) s.chunked_prefill_size = flag_uint(f, "--chunked-prefill-size", 0);
      if (f.has("--cuda-graph-max-bs")) s.cuda_graph_max_bs = flag_uint(f, "--cuda-graph-max-bs", 0);
      if (f.has("--max-mamba-cache-size")) s.max_mamba_cache_size = positive_flag(f, "--max-mamba-cache-size", 1);
      if (f.has("--mamba-ssm-dtype")) s.mamba_ssm_dtype = f.get("--mamba-ssm-dtype");
      s.disable_radix_cache = flag_bool(f, "--disable-radix-cache");
      s.disable_hybrid_swa_memory = flag_bool(f, "--disable-hybrid-swa-memory");
      s.blackwell = blackwell;
      s.gpu_memory_bytes = acc.memory_bytes;
      s.free_before_bytes = acc.memory_bytes > kCudaContextBytes ? acc.memory_bytes - kCudaContextBytes : 0;
      s.weights_bytes = ceil_div(wb.total, checked_mul(tp, pp, "GPU count (tensor x pipeline parallel size)"));
      r.notes.push_back("estimated per GPU: free memory before weights " + format_gib(s.free_before_bytes) +
                        " (total less 0.5 GiB CUDA context), weights " + format_gib(s.weights_bytes) + "");
      SglangResult e = sglang_profile(m, s);
      r.starts = e.starts;
      r.kv_budget_bytes = e.rest_bytes;
      r.kv_cache_tokens = e.max_total_num_tokens;
      r.context = e.context_length;
      r.max_concurrency = e.max_concurrency;
      r.max_fitting_context = std::min(e.context_length, e.max_total_num_tokens);
      r.log_lines = e.log_lines;
      for (const auto& n : e.notes) r.notes.push_back(n);
      r.engine_result = to_json(e);
      add_check("starts", e.starts, "a KV pool > 0 tokens", format_count(e.max_total_num_tokens) + " tokens",
                e.starts ? "SGLang starts" : "SGLang fails at start-up: " + e.error);
      if (e.starts && e.max_total_num_tokens < e.context_length)
        r.notes.push_back("the KV pool (" + format_count(e.max_total_num_tokens) + " tokens) is smaller than context_length " +
                          format_count(e.context_length) + ": one full-length request cannot be served");
      break;
    }
    case EngineKind::llamacpp: {
      LlamaCppOptions l;
      l.ctx_size = flag_uint(f, "--ctx-size", 0);
      if (f.has("--parallel")) {
        const std::uint64_t n = flag_uint(f, "--parallel", 1);
        if (n > 0) l.parallel = n;  // -np -1 / 0: the server default
      }
      if (f.has("--cache-type-k")) l.cache_type_k = f.get("--cache-type-k");
      if (f.has("--cache-type-v")) l.cache_type_v = f.get("--cache-type-v");
      l.batch_size = positive_flag(f, "--batch-size", 2048);
      l.ubatch_size = positive_flag(f, "--ubatch-size", 512);
      l.kv_unified = flag_bool(f, "--kv-unified");
      l.swa_full = flag_bool(f, "--swa-full");
      if (f.has("--flash-attn")) l.flash_attn = f.get("--flash-attn");
      LlamaCppResult e = llamacpp_profile(m, l);
      // Layer split over the GPUs: weights + cache + compute buffer must fit on the devices.
      const std::uint64_t compute = checked_add(checked_product({e.n_ubatch, m.dims.vocab_size, 4}), 256 * MiB);
      const std::uint64_t need = checked_add(checked_add(wb.total, e.total_bytes), compute);
      const std::uint64_t n_gpus = o.gpus ? o.gpus : (d.gpus ? d.gpus : 1);
      const std::uint64_t have = checked_mul(n_gpus, acc.memory_bytes > kCudaContextBytes ? acc.memory_bytes - kCudaContextBytes : 0);
      r.kv_budget_bytes = have > checked_add(wb.total, compute) ? (have - wb.total - compute) / n_gpus : 0;
      r.starts = need <= have;
      r.kv_cache_tokens = checked_mul(e.cells, e.n_stream);
      r.context = e.n_ctx_seq;
      r.max_concurrency = e.kv_unified ? static_cast<double>(e.n_ctx / e.n_ctx_seq) : static_cast<double>(e.n_seq_max);
      r.max_fitting_context = e.n_ctx_seq;
      r.log_lines = e.log_lines;
      for (const auto& n : e.notes) r.notes.push_back(n);
      r.notes.push_back("estimated: weights " + format_gib(wb.total) + " + cache " + format_gib(e.total_bytes) +
                        " + compute buffer " + format_gib(compute) + " across " + std::to_string(n_gpus) +
                        " GPU(s) (layer split), 0.5 GiB CUDA context each; --fit is not modelled");
      r.engine_result = to_json(e);
      add_check("starts", r.starts, "weights + cache + compute <= GPU memory", format_gib(need) + " of " + format_gib(have) + "",
                r.starts ? "llama-server fits: " + format_gib(need) + " of " + format_gib(have) + ""
                         : "llama-server does not fit: weights + KV cache + compute buffer need " + format_gib(need) +
                               " but " + std::to_string(n_gpus) + " x " + acc.name + " hold " + format_gib(have) + "");
      tp = 1;
      pp = n_gpus;
      break;
    }
    case EngineKind::trtllm: {
      TrtllmOptions t;
      tp = positive_flag(f, "--tp_size", 1);
      pp = positive_flag(f, "--pp_size", 1);
      t.tp_size = tp;
      t.pp_size = pp;
      t.max_seq_len = flag_uint(f, "--max_seq_len", 0);
      t.max_batch_size = positive_flag(f, "--max_batch_size", 2048);
      const std::uint64_t max_num_tokens = positive_flag(f, "--max_num_tokens", 8192);
      t.free_gpu_memory_fraction = flag_double(f, "--kv_cache_free_gpu_memory_fraction", 0.9);
      if (f.has("--extra_llm_api_options")) {
        std::string path = f.get("--extra_llm_api_options");
        if (!std::filesystem::exists(path) && d.source != "command line")
          path = (std::filesystem::path(d.source).parent_path() / path).string();
        std::ifstream in(path);
        if (!in) throw InputError::value("--extra_llm_api_options", f.get("--extra_llm_api_options"), "a readable YAML file");
        std::stringstream ss;
        ss << in.rdbuf();
        const auto y = parse_yaml_subset(ss.str(), path);
        if (y.contains("kv_cache_config") && y["kv_cache_config"].is_object()) {
          const auto& k = y["kv_cache_config"];
          if (k.contains("free_gpu_memory_fraction") && k["free_gpu_memory_fraction"].is_number())
            t.free_gpu_memory_fraction = k["free_gpu_memory_fraction"].get<double>();
          if (k.contains("max_tokens") && k["max_tokens"].is_number_unsigned()) t.max_tokens = k["max_tokens"].get<std::uint64_t>();
          if (k.contains("dtype") && k["dtype"].is_string()) t.kv_cache_dtype = k["dtype"].get<std::string>();
          if (k.contains("tokens_per_block") && k["tokens_per_block"].is_number_unsigned())
            t.tokens_per_block = k["tokens_per_block"].get<std::uint64_t>();
          if (k.contains("max_attention_window")) {
            // One level of nesting only: a single window or a comma-separated string "128, 131072".
            const auto& w = k["max_attention_window"];
            if (w.is_number_unsigned()) t.max_attention_window.push_back(w.get<std::uint64_t>());
            else if (w.is_string()) {
              std::stringstream ws(w.get<std::string>());
              std::string item;
              while (std::getline(ws, item, ',')) t.max_attention_window.push_back(parse_tokens(trim(item), "max_attention_window"));
            }
          }
        }
        if (y.contains("enable_attention_dp") && y["enable_attention_dp"].is_boolean()) t.enable_attention_dp = y["enable_attention_dp"].get<bool>();
      }
      t.gpu_memory_bytes = acc.memory_bytes;
      const std::uint64_t weights = ceil_div(wb.total, checked_mul(tp, pp, "GPU count (tensor x pipeline parallel size)"));
      t.peak_bytes = checked_add(checked_add(weights, activation_estimate(m, max_num_tokens, tp)), kNonTorchBytes);
      TrtllmResult pre = trtllm_profile(m, t);  // for the Mamba slots
      t.peak_bytes = checked_add(t.peak_bytes, pre.mamba_bytes);
      r.notes.push_back("estimated per GPU: profiled peak " + format_gib(t.peak_bytes) + " (weights " + format_gib(weights) +
                        " + activations + 0.5 GiB non-torch" + (pre.mamba_bytes ? " + Mamba slots" : std::string()) + ")");
      if (t.peak_bytes >= t.gpu_memory_bytes) {
        t.peak_bytes = t.gpu_memory_bytes;
      }
      TrtllmResult e = trtllm_profile(m, t);
      r.starts = e.starts && t.peak_bytes < t.gpu_memory_bytes;
      r.kv_budget_bytes = e.kv_memory_bytes;
      r.kv_cache_tokens = e.max_tokens;
      r.context = e.max_seq_len;
      r.max_concurrency = e.max_concurrency;
      r.max_fitting_context = e.max_seq_len;
      r.log_lines = e.log_lines;
      for (const auto& n : e.notes) r.notes.push_back(n);
      r.engine_result = to_json(e);
      add_check("starts", r.starts, "weights + a KV block fit", r.starts ? "fits" : "does not fit",
                r.starts ? "TensorRT-LLM starts" : "TensorRT-LLM cannot start: the weights and profiled peak leave no KV cache memory");
      break;
    }
  }
  r.tp = tp;
  r.pp = pp;
  r.gpus_needed = checked_product({tp, pp, dp}, "GPU count (tensor x pipeline x data parallel size)");
  r.gpus = o.gpus ? o.gpus : (d.gpus ? d.gpus : r.gpus_needed);
  r.weights_bytes_per_gpu = ceil_div(wb.total, checked_mul(tp, pp, "GPU count (tensor x pipeline parallel size)"));
  if (d.engine != EngineKind::llamacpp)
    add_check("gpus", r.gpus >= r.gpus_needed, std::to_string(r.gpus_needed), std::to_string(r.gpus),
              r.gpus >= r.gpus_needed ? "GPU count suffices"
                                      : "the command needs " + std::to_string(r.gpus_needed) + " GPUs (tp x pp" +
                                            std::string(dp > 1 ? " x dp" : "") + ") but --gpus is " + std::to_string(r.gpus));
  if (require_context) {
    const bool ok = r.starts && r.context >= *require_context && r.max_fitting_context >= *require_context;
    add_check("context", ok, fmt_ctx(*require_context), fmt_ctx(std::min(r.context, r.max_fitting_context)),
              ok ? "context " + fmt_ctx(r.context) + " >= " + fmt_ctx(*require_context)
                 : "required context " + fmt_ctx(*require_context) + " tokens, but the deployment serves at most " +
                       fmt_ctx(r.starts ? std::min(r.context, r.max_fitting_context) : r.max_fitting_context) + " tokens per request");
  }
  if (require_concurrency) {
    const bool ok = r.starts && r.max_concurrency + 1e-9 >= static_cast<double>(*require_concurrency);
    add_check("concurrency", ok, std::to_string(*require_concurrency), format_fixed(r.max_concurrency, 2),
              ok ? "concurrency " + format_fixed(r.max_concurrency, 2) + "x >= " + std::to_string(*require_concurrency)
                 : "required concurrency " + std::to_string(*require_concurrency) + " at " + fmt_ctx(r.context) +
                       " tokens, but the KV cache holds " + format_fixed(r.max_concurrency, 2) + "x");
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------------------------
nlohmann::json to_json(const CheckResult& r) {
  nlohmann::json j;
  j["passed"] = r.passed;
  j["exit_code"] = r.exit_code();
  j["source"] = r.source;
  if (!r.name.empty()) j["name"] = r.name;
  j["engine"] = r.engine;
  j["model"] = r.model;
  j["gpu"] = r.gpu;
  j["gpus"] = r.gpus;
  j["gpus_needed"] = r.gpus_needed;
  j["tp"] = r.tp;
  j["pp"] = r.pp;
  j["starts"] = r.starts;
  j["kv_cache_tokens"] = r.kv_cache_tokens;
  j["context"] = r.context;
  j["max_concurrency"] = r.max_concurrency;
  j["max_fitting_context"] = r.max_fitting_context;
  j["per_gpu"] = {{"memory_bytes", r.gpu_memory_bytes}, {"weights_bytes", r.weights_bytes_per_gpu}, {"kv_budget_bytes", r.kv_budget_bytes}};
  auto& cs = j["checks"] = nlohmann::json::array();
  for (const auto& c : r.checks)
    cs.push_back({{"name", c.name}, {"ok", c.ok}, {"required", c.required}, {"actual", c.actual}, {"message", c.message}});
  j["reasons"] = r.reasons;
  j["reason"] = r.reasons.empty() ? "" : r.reasons.front();
  j["notes"] = r.notes;
  j["log_lines"] = r.log_lines;
  j["engine_result"] = r.engine_result;
  return j;
}

namespace {
std::string headline(const CheckResult& r) {
  std::ostringstream os;
  os << r.engine << " " << r.model << " on " << r.gpus << " x " << r.gpu << " (tp " << r.tp << ", pp " << r.pp << ")";
  return os.str();
}
std::string summary(const CheckResult& r) {
  std::ostringstream os;
  if (!r.starts) os << "does not start";
  else
    os << format_count(r.kv_cache_tokens) << " KV tokens, max concurrency " << format_fixed(r.max_concurrency, 2) << "x at "
       << format_count(r.context) << " tokens";
  return os.str();
}
std::string gh_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '%') o += "%25";
    else if (c == '\r') o += "%0D";
    else if (c == '\n') o += "%0A";
    else o += c;
  }
  return o;
}
std::string gh_prop(const std::string& s) {
  std::string o;
  for (char c : gh_escape(s)) {
    if (c == ':') o += "%3A";
    else if (c == ',') o += "%2C";
    else o += c;
  }
  return o;
}
std::string xml(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default: o += c;
    }
  }
  return o;
}
}  // namespace

std::string format_check_text(const CheckResult& r) {
  std::ostringstream os;
  os << (r.passed ? "PASS" : "FAIL") << ": " << headline(r) << ": " << summary(r) << "\n";
  for (const auto& c : r.checks) os << "  [" << (c.ok ? "ok" : "FAIL") << "] " << c.name << ": " << c.message << "\n";
  if (!r.log_lines.empty()) {
    os << "engine log lines:\n";
    for (const auto& l : r.log_lines) os << "  " << l << "\n";
  }
  for (const auto& n : r.notes) os << "note: " << n << "\n";
  return os.str();
}

std::string format_check_github(const CheckResult& r) {
  std::ostringstream os;
  const std::string file = r.source == "command line" ? "" : "file=" + gh_prop(r.source) + ",";
  for (const auto& c : r.checks)
    if (!c.ok) os << "::error " << file << "title=" << gh_prop("kvplan check: " + c.name) << "::" << gh_escape(c.message) << "\n";
  if (r.passed) os << "::notice " << file << "title=kvplan check passed::" << gh_escape(headline(r) + ": " + summary(r)) << "\n";
  for (const auto& n : r.notes) os << "::debug::" << gh_escape(n) << "\n";
  return os.str();
}

std::string format_check_junit(const CheckResult& r) {
  std::size_t failures = 0;
  for (const auto& c : r.checks) failures += !c.ok;
  std::ostringstream os;
  const std::string suite = "kvplan check " + (r.name.empty() ? r.source : r.name);
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << "<testsuites tests=\"" << r.checks.size() << "\" failures=\"" << failures << "\">\n";
  os << "  <testsuite name=\"" << xml(suite) << "\" tests=\"" << r.checks.size() << "\" failures=\"" << failures
     << "\" errors=\"0\">\n";
  for (const auto& c : r.checks) {
    os << "    <testcase classname=\"kvplan.check." << xml(r.engine) << "\" name=\"" << xml(c.name) << "\"";
    if (c.ok) {
      os << "/>\n";
    } else {
      os << ">\n      <failure message=\"" << xml(c.message) << "\">required " << xml(c.required) << ", actual "
         << xml(c.actual) << "</failure>\n    </testcase>\n";
    }
  }
  os << "    <system-out>" << xml(headline(r) + ": " + summary(r)) << "</system-out>\n";
  os << "  </testsuite>\n</testsuites>\n";
  return os.str();
}

std::string format_check(const CheckResult& r, std::string_view format) {
  if (format == "text") return format_check_text(r);
  if (format == "json") return to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (format == "github") return format_check_github(r);
  if (format == "junit") return format_check_junit(r);
  throw InputError::value("--format", format, "text, json, github or junit");
}

}  // namespace kvplan
