// kvplan check: launch-command / deployment-file parsing, the memory each engine budgets on the
// named GPU, and the verdict. The engine math lives in engine_*.cpp; this file only maps flags
// onto the engines' options structs and compares the results with the requirements.
#include "util/config_view.h"
#include "kvplan/check.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <variant>
#include <sstream>

#include "kvplan/budget.h"
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
  if (v.is_number_unsigned() || v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
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

std::string fmt_ctx(std::uint64_t n) { return format_count(n); }

// Bytes per element of the model dtype above fp8's one (bf16/fp16: 1, fp32: 3).
std::uint64_t dtype_bytes_minus_fp8(Dtype d) {
  const std::uint64_t b = row_bytes(d, 1024) / 1024;
  return b > 1 ? b - 1 : 0;
}

// "-55.86 GiB" for a budget the fixed terms overran.
std::string format_signed_gib(std::int64_t b) {
  return b < 0 ? "-" + format_gib(static_cast<std::uint64_t>(-(b + 1)) + 1) : format_gib(static_cast<std::uint64_t>(b));
}

// A byte value inside an engine command, as the engine reads it: vLLM's --kv-cache-memory takes
// "3.81GiB" (a fraction of a unit, floored to whole bytes) as well as "4096000000".
std::uint64_t engine_byte_value(const std::string& s, const char* flag) {
  try {
    return parse_bytes(s, flag);
  } catch (const InputError&) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (!end || end == s.c_str() || !(v >= 0)) throw;
    const std::uint64_t unit = parse_bytes(std::string("1") + end, flag);
    const double bytes = std::floor(v * static_cast<double>(unit));
    if (!(bytes < 1.8e19)) throw;
    return static_cast<std::uint64_t>(bytes);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The verdict
// ---------------------------------------------------------------------------------------------
CheckResult check_deployment(const Deployment& d_in, const CheckOptions& o) {
  Deployment d = d_in;
  CheckResult r;
  r.source = d.source;
  r.name = d.name;
  r.strict = o.strict;
  r.engine = std::string(engine_name(d.engine));
  r.gpu = o.gpu.empty() ? d.gpu : o.gpu;
  if (r.gpu.empty() && !o.device)
    throw InputError::value("--gpu", "", "a GPU name (e.g. H100, A100-80GB; see kvplan gpus), --gpu-memory or --gpu-file");
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
               {{"--max-num-seqs"}, FlagType::value},
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
               {{"--cpu-offload-gb"}, FlagType::value},
               {{"--enable-expert-parallel", "-ep"}, FlagType::boolean},
               {{"--speculative-config"}, FlagType::value},
               {{"--quantization", "-q"}, FlagType::value},
               {{"--enable-lora"}, FlagType::boolean},
               {{"--max-loras"}, FlagType::value},
               {{"--max-lora-rank"}, FlagType::value},
               {{"--max-cpu-loras"}, FlagType::value},
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
               {{"--disable-hybrid-swa-memory"}, FlagType::boolean},
               {{"--quantization"}, FlagType::value}};
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
    r.notes.push_back("flags kvplan does not model were ignored: " + s);
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

  const Accelerator acc = o.device ? *o.device : find_accelerator(r.gpu);
  r.gpu = acc.name;
  r.gpu_memory_bytes = acc.memory_bytes;
  // --quantization: fp8 quantizes a 16-bit checkpoint's weights when it loads (vLLM Fp8LinearMethod,
  // SGLang the same); other methods name the checkpoint's own format, which weight_bytes reads
  // from its quantization_config.
  std::optional<Dtype> weight_override;
  if ((d.engine == EngineKind::vllm || d.engine == EngineKind::sglang) && f.has("--quantization")) {
    const std::string q = f.get("--quantization");
    if (q == "fp8") {
      weight_override = Dtype::fp8_e4m3;
      r.notes.push_back("--quantization fp8: weights stored in fp8 when loaded");
    } else if (!m.quantization) {
      throw InputError::value("--quantization", q, "fp8, or a method the checkpoint's quantization_config names (" + m.name +
                                                       " has none, so its weights are not " + q + ")");
    }
  }
  WeightBytes wb = weight_bytes(m, weight_override);
  if (weight_override) {
    // The embedding and the LM head stay in the model dtype (vLLM's Fp8LinearMethod quantizes
    // linear layers only): add back what the fp8 count took off them.
    const std::uint64_t tables = m.dims.tie_word_embeddings ? 1 : 2;
    const std::uint64_t extra = checked_product({tables, m.dims.vocab_size, m.dims.hidden_size, dtype_bytes_minus_fp8(m.dtype)});
    wb.total = checked_add(wb.total, extra);
    wb.non_experts = checked_add(wb.non_experts, extra);
  }
  const bool blackwell = acc.name.find("B200") != std::string::npos || acc.name.find("B100") != std::string::npos ||
                         acc.name.find("B300") != std::string::npos;

  // The engine's own measurements, when a start-up log is given.
  std::optional<EngineLogFigures> logf;
  if (o.engine_log) {
    logf = read_engine_log(*o.engine_log, d.engine, o.engine_log_source);
    r.calibrated = true;
    for (const auto& l : logf->lines_used) r.notes.push_back("engine log: " + l);
  }

  // The budget's terms (kvplan/budget.h) and the device total as the runtime sees it.
  const MemoryBand band = runtime_memory_band(acc);
  BudgetInput bin;
  bin.engine = d.engine;
  bin.device = {band.low, band.high};
  bin.vllm_version = d.engine == EngineKind::vllm ? parse_vllm_version(o.engine_version) : VllmBudgetVersion::v1_graphs;

  std::uint64_t tp = 1, pp = 1, dp = 1;

  // One evaluation of the engine at one end of the band. The unfavourable end (least memory for
  // the KV cache) decides PASS; the favourable end decides FAIL.
  struct Outcome {
    bool starts = true;
    std::int64_t kv_memory = 0;       // signed: negative when the fixed terms exceed the budget
    std::uint64_t kv_tokens = 0, context = 0, max_fitting_context = 0;
    std::uint64_t request_bytes = 0;  // one full-length request (vLLM), for the margin
    double max_concurrency = 0;
    std::string error;
    bool weights_exceed = false;
    std::vector<std::string> log_lines, notes;
    nlohmann::json engine_result;
  };
  EngineBudget budget;
  auto pick = [](const ByteBand& b, bool fav) { return fav ? b.low : b.high; };  // terms: low is favourable
  auto device_at = [&](bool fav) { return fav ? budget.device.high : budget.device.low; };
  auto term_at = [&](std::string_view name, bool fav) -> std::uint64_t {
    if (BudgetTerm* t = budget.find(name)) return fav ? t->low : t->high;
    return 0;
  };
  auto measured = [&](std::string_view name, const std::optional<ByteBand>& b) {
    if (!b) return;
    if (BudgetTerm* t = budget.find(name)) *t = {t->name, b->low, b->high, "measured (engine log)", t->source};
  };
  auto signed_of = [](std::uint64_t a, std::uint64_t b) {
    return a >= b ? static_cast<std::int64_t>(a - b) : -static_cast<std::int64_t>(b - a);
  };
  std::function<Outcome(bool)> evaluate;
  std::uint64_t weights_per_gpu = 0;

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
      if (f.has("--kv-cache-memory")) v.kv_cache_memory_bytes = engine_byte_value(f.get("--kv-cache-memory"), "--kv-cache-memory");
      if (f.has("--attention-backend")) v.attention_backend = f.get("--attention-backend");
      {
        // FlashMLA (64-token blocks) runs on SM90/SM100 only; elsewhere vLLM's CUDA platform picks
        // TRITON_MLA, whose block stays 16 (vllm/platforms/cuda.py get_attn_backend_cls).
        bool mla = false, sparse = false;
        for (const auto& l : m.layers)
          if (const auto* x = std::get_if<Mla>(&l.cache)) mla = true, sparse = sparse || x->index_head_dim > 0;
        const bool sm90 = acc.name.rfind("H100", 0) == 0 || acc.name.rfind("H200", 0) == 0 || acc.name.rfind("H20-", 0) == 0 ||
                          acc.name.rfind("H800", 0) == 0 || acc.name.rfind("GH200", 0) == 0;
        const bool sm100 = blackwell || acc.name.rfind("GB200", 0) == 0;
        if (mla && !sparse && v.attention_backend.empty() && !sm90 && !sm100) {
          v.attention_backend = "TRITON_MLA";
          r.notes.push_back("MLA on " + acc.name + ": FlashMLA needs SM90/SM100, so vLLM uses TRITON_MLA (block size 16)");
        }
      }
      if (f.has("--mamba-cache-mode")) v.mamba_cache_mode = f.get("--mamba-cache-mode");
      if (f.has("--mamba-ssm-cache-dtype")) v.mamba_ssm_cache_dtype = f.get("--mamba-ssm-cache-dtype");
      if (flag_bool(f, "--no-enable-prefix-caching")) v.enable_prefix_caching = false;
      v.disable_hybrid_kv_cache_manager = flag_bool(f, "--disable-hybrid-kv-cache-manager");
      if (f.has("--num-gpu-blocks-override")) v.num_gpu_blocks_override = flag_uint(f, "--num-gpu-blocks-override", 0);
      v.blackwell = blackwell;
      // Expert parallelism (vLLM FusedMoE with --enable-expert-parallel): the routed experts are split
      // over EP = tp x dp ranks; everything else is split over tp (and replicated per DP rank).
      const bool ep = flag_bool(f, "--enable-expert-parallel");
      weights_per_gpu = ep ? checked_add(ceil_div(wb.non_experts, tp * pp), ceil_div(wb.experts, tp * pp * dp))
                           : ceil_div(wb.total, tp * pp);
      if (ep && dp > 1) r.notes.push_back("--enable-expert-parallel: routed experts split over " + std::to_string(tp * dp) + " ranks");
      // Speculative decoding: MTP / EAGLE draft layers hold weights and KV pages in the same pool.
      std::uint64_t draft_layers = 0;
      if (f.has("--speculative-config")) {
        nlohmann::json sc;
        try {
          sc = nlohmann::json::parse(f.get("--speculative-config"));
        } catch (const nlohmann::json::exception&) {
          throw InputError::value("--speculative-config", f.get("--speculative-config").substr(0, 60), "a JSON object such as {\"method\": \"mtp\", \"num_speculative_tokens\": 1}");
        }
        if (!sc.is_object()) throw InputError::value("--speculative-config", f.get("--speculative-config").substr(0, 60), "a JSON object");
        const std::string method = sc.contains("method") && sc["method"].is_string() ? sc["method"].get<std::string>() : "";
        if (sc.contains("num_speculative_tokens") && sc["num_speculative_tokens"].is_number_unsigned())
          v.num_speculative_tokens = sc["num_speculative_tokens"].get<std::uint64_t>();
        if (method.find("mtp") != std::string::npos) {
          if (wb.mtp == 0) throw InputError::value("--speculative-config method", method, "a model with MTP layers (num_nextn_predict_layers)");
          weights_per_gpu = checked_add(weights_per_gpu, ceil_div(wb.mtp, tp));
          draft_layers = 1;
          r.notes.push_back("speculative " + method + ": MTP weights " + format_gib(ceil_div(wb.mtp, tp)) +
                            " per GPU and one draft layer's KV pages (vLLM's MTP proposer)");
        } else if (sc.contains("model") && sc["model"].is_string()) {
          // A draft model (EAGLE head or a small model): its own weights, and its layers' KV in the pool.
          const ModelSpec draft = load_model(sc["model"].get<std::string>());
          weights_per_gpu = checked_add(weights_per_gpu, ceil_div(weight_bytes(draft).total, tp));
          draft_layers = method.find("eagle") != std::string::npos ? 1 : draft.layers.size();
          r.notes.push_back("speculative draft " + draft.name + ": weights " + format_gib(ceil_div(weight_bytes(draft).total, tp)) +
                            " per GPU and " + std::to_string(draft_layers) + " draft layer(s) of KV pages, counted at the target's page size");
        } else if (!method.empty() && method != "ngram" && method != "suffix") {
          throw InputError::value("--speculative-config", f.get("--speculative-config").substr(0, 60),
                                  "a \"model\" for the draft (EAGLE/EAGLE-3/draft model), or an MTP or ngram method");
        }
      }
      if (f.has("--cpu-offload-gb")) {
        // vLLM keeps --cpu-offload-gb GiB of each GPU's weights in host memory (vllm/model_executor/models/utils.py
        // maybe_offload_to_cpu: cpu_offload_gb * 1024**3 bytes).
        const double gb = std::strtod(f.get("--cpu-offload-gb").c_str(), nullptr);
        if (!(gb >= 0)) throw InputError::value("--cpu-offload-gb", f.get("--cpu-offload-gb"), "a non-negative number of GiB");
        const auto off = static_cast<std::uint64_t>(gb * static_cast<double>(GiB));
        r.notes.push_back("--cpu-offload-gb: " + format_gib(std::min(off, weights_per_gpu)) + " of each GPU's weights stay in host memory");
        weights_per_gpu = off >= weights_per_gpu ? 0 : weights_per_gpu - off;
      }
      bin.weights_bytes = weights_per_gpu;
      bin.tp = tp;
      bin.max_num_batched_tokens = v.max_num_batched_tokens;
      if (bin.vllm_version == VllmBudgetVersion::v0 && !f.has("--max-num-batched-tokens")) {
        // V0's SchedulerConfig: without chunked prefill the profile batch is max(max_model_len, 2048)
        // tokens; chunked prefill (on by default past 32K) uses 512 (vllm/config.py, V0).
        const std::uint64_t mml = v.max_model_len ? v.max_model_len : m.dims.max_position_embeddings;
        bin.max_num_batched_tokens = mml > 32768 ? 512 : std::max<std::uint64_t>(mml, 2048);
      }
      bin.sampler_seqs = std::min<std::uint64_t>(flag_uint(f, "--max-num-seqs", 256), v.max_num_batched_tokens);
      bin.enforce_eager = flag_bool(f, "--enforce-eager");
      budget = engine_budget(m, bin);
      if (flag_bool(f, "--enable-lora")) {
        // vLLM preallocates max_loras adapter slots of rank max_lora_rank on the GPU for every
        // linear layer (vllm/lora/layers: lora_a_stacked / lora_b_stacked, in the model dtype):
        // r x (in + out) per module; per layer q, k, v, o, gate, up, down sum to 7h + 2 q_dim + 2 kv_dim
        // + 3 I with q_dim, kv_dim <= h. Band: kv_dim 0 and split over tp .. kv_dim = h, not split.
        // --max-cpu-loras are host memory.
        const std::uint64_t loras = positive_flag(f, "--max-loras", 1), rank = positive_flag(f, "--max-lora-rank", 16);
        const std::uint64_t h = m.dims.hidden_size, inter = std::max(m.dims.intermediate_size, m.dims.moe_intermediate_size);
        const std::uint64_t per = checked_product({loras, rank, row_bytes(m.dtype, 1024) / 1024, m.num_layers()}, "LoRA bytes");
        const std::uint64_t low = ceil_div(checked_mul(per, checked_add(checked_mul(9, h), checked_mul(3, inter))), tp * pp);
        const std::uint64_t high = checked_mul(per, checked_add(checked_mul(11, h), checked_mul(3, inter)));
        budget.terms.push_back({"LoRA adapter slots", low, high, "estimate",
                                "vllm/lora/layers BaseLinearLayerWithLoRA.create_lora_weights (max_loras x max_lora_rank)"});
        if (m.dims.num_experts) r.notes.push_back("LoRA on routed experts is not counted (dense modules only)");
      }
      if (logf) {
        measured("weights", logf->weights_bytes);
        measured("CUDA graphs", logf->cudagraph_bytes);
        measured("activation peak", logf->activation_bytes);
        if (logf->total_bytes) budget.device = *logf->total_bytes, budget.device_basis = "measured (engine log)";
      }
      evaluate = [&, v, auto_fit, draft_layers](bool fav) {
        VllmOptions x = v;
        x.gpu_memory_bytes = device_at(fav);
        x.weights_bytes = checked_add(term_at("weights", fav), term_at("LoRA adapter slots", fav));
        x.activation_peak_bytes = term_at("activation peak", fav);
        x.non_torch_bytes = term_at(budget.terms.size() > 2 ? budget.terms[2].name : "", fav);
        x.cudagraph_bytes = term_at("CUDA graphs", fav);
        if (logf && logf->available_kv_bytes && !x.kv_cache_memory_bytes) x.available_kv_bytes = fav ? logf->available_kv_bytes->high : logf->available_kv_bytes->low;
        if (logf && logf->gpu_blocks) x.num_gpu_blocks_override = logf->gpu_blocks;  // the exact count beats the rounded GiB
        // A log with only "GPU KV cache size: N tokens" (no KV memory line): the block count that
        // logs N tokens in kvplan's layout, used only if sizing with it gives back exactly N.
        std::optional<std::uint64_t> from_tokens;
        if (logf && logf->vllm_kv_tokens && !logf->gpu_blocks && !logf->available_kv_bytes) {
          const VllmResult probe = vllm_profile(m, x);
          if (probe.block_size && probe.num_groups && *logf->vllm_kv_tokens % probe.block_size == 0)
            x.num_gpu_blocks_override = from_tokens = checked_mul(*logf->vllm_kv_tokens / probe.block_size, probe.num_groups);
        }
        VllmResult e = vllm_profile(m, x);
        if (logf && logf->vllm_kv_tokens && !logf->gpu_blocks && !logf->available_kv_bytes && (!from_tokens || e.kv_cache_tokens != *logf->vllm_kv_tokens))
          throw InputError::value(o.engine_log_source + " (--engine-log)", "GPU KV cache size: " + format_count(*logf->vllm_kv_tokens) + " tokens",
                                  "a token count kvplan's block layout for this model gives (whole blocks of " +
                                      std::to_string(e.block_size) + " tokens per group); add the log's \"Available KV cache memory\" line");
        if (draft_layers && !x.num_gpu_blocks_override && e.budget_bytes > 0 && m.num_layers() > 0) {
          // The draft's layers take pages from the same pool: the target keeps L / (L + d) of it.
          const std::uint64_t pool = x.available_kv_bytes ? *x.available_kv_bytes : x.kv_cache_memory_bytes ? *x.kv_cache_memory_bytes
                                                                                 : static_cast<std::uint64_t>(e.budget_bytes);
          x.available_kv_bytes = pool / (m.num_layers() + draft_layers) * m.num_layers();
          x.kv_cache_memory_bytes.reset();
          e = vllm_profile(m, x);
        }
        if (auto_fit && !e.starts && e.max_fitting_len > 0) {
          // --max-model-len -1: vLLM searches the largest length that fits and starts with it.
          const std::uint64_t from = e.max_model_len;
          x.max_model_len = e.max_fitting_len;
          e = vllm_profile(m, x);
          e.log_lines.insert(e.log_lines.begin(), "Auto-fit max_model_len: reduced from " + std::to_string(from) + " to " +
                                                      std::to_string(x.max_model_len));
        }
        Outcome out;
        out.starts = e.starts;
        out.kv_memory = x.available_kv_bytes || x.kv_cache_memory_bytes ? static_cast<std::int64_t>(e.available_kv_bytes)
                        : from_tokens && e.page_bytes ? static_cast<std::int64_t>(checked_product({e.num_blocks, e.page_bytes, e.group_size}))
                                      : e.budget_bytes;
        out.kv_tokens = e.kv_cache_tokens;
        out.context = e.max_model_len;
        out.max_concurrency = e.max_concurrency;
        out.max_fitting_context = e.max_fitting_len;
        out.request_bytes = e.request_bytes;
        const std::uint64_t usable = static_cast<std::uint64_t>(std::ceil(x.gpu_memory_utilization * static_cast<double>(x.gpu_memory_bytes)));
        out.weights_exceed = !x.available_kv_bytes && !x.kv_cache_memory_bytes && x.weights_bytes >= usable;
        out.error = e.error;
        out.log_lines = e.log_lines;
        out.notes = e.notes;
        out.engine_result = to_json(e);
        return out;
      };
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
      weights_per_gpu = ceil_div(wb.total, tp * pp);
      bin.weights_bytes = weights_per_gpu;
      bin.tp = tp;
      budget = engine_budget(m, bin);
      if (logf) measured("weights", logf->weights_bytes);
      evaluate = [&, s](bool fav) {
        SglangOptions x = s;
        x.gpu_memory_bytes = device_at(fav);
        const std::uint64_t before = checked_add(term_at("CUDA context", fav), term_at("NCCL buffers", fav));
        x.free_before_bytes = x.gpu_memory_bytes > before ? x.gpu_memory_bytes - before : 0;
        x.weights_bytes = term_at("weights", fav);
        if (logf && logf->kv_tokens) {
          // The pool the engine allocated: "max_total_num_tokens=N" exactly, or "#tokens: N" which may
          // include the one padding page (so N - page .. N).
          SglangOptions probe = x;
          probe.rest_bytes = GiB;
          const SglangResult p = sglang_profile(m, probe);
          const bool rows = logf->lines_used.end() == std::find_if(logf->lines_used.begin(), logf->lines_used.end(), [](const std::string& l) {
                              return l.find("max_total_num_tokens=") != std::string::npos;
                            });
          const std::uint64_t tokens = rows && !fav && *logf->kv_tokens > p.page_size ? *logf->kv_tokens - p.page_size : *logf->kv_tokens;
          x.max_total_tokens = tokens;
          x.rest_bytes = checked_mul(checked_add(tokens, p.page_size), std::max<std::uint64_t>(p.cell_size, 1));
        }
        SglangResult e = sglang_profile(m, x);
        Outcome out;
        out.starts = e.starts;
        const std::uint64_t usable_after = static_cast<std::uint64_t>(static_cast<double>(x.free_before_bytes) * e.mem_fraction_static);
        out.kv_memory = x.rest_bytes ? static_cast<std::int64_t>(*x.rest_bytes) : signed_of(usable_after, x.weights_bytes);
        out.weights_exceed = !x.rest_bytes && x.weights_bytes >= usable_after;
        out.kv_tokens = e.max_total_num_tokens;
        out.context = e.context_length;
        out.max_concurrency = e.max_concurrency;
        out.max_fitting_context = std::min(e.context_length, e.max_total_num_tokens);
        out.error = e.error;
        out.log_lines = e.log_lines;
        out.notes = e.notes;
        if (e.starts && e.max_total_num_tokens < e.context_length)
          out.notes.push_back("the KV pool (" + format_count(e.max_total_num_tokens) + " tokens) is smaller than context_length " +
                              format_count(e.context_length) + ": one full-length request cannot be served");
        out.engine_result = to_json(e);
        return out;
      };
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
      const std::uint64_t n_gpus = o.gpus ? o.gpus : (d.gpus ? d.gpus : 1);
      weights_per_gpu = ceil_div(wb.total, n_gpus);
      const LlamaCppResult e = llamacpp_profile(m, l);
      bin.weights_bytes = weights_per_gpu;
      bin.ubatch = e.n_ubatch;
      bin.llama_ctx = e.n_ctx;
      bin.llama_flash_attn = l.flash_attn;
      budget = engine_budget(m, bin);
      // The layer split spreads weights, cache and compute over the GPUs: compared in total.
      if (logf) {
        if (logf->llama_model_bytes) measured("weights", ByteBand{logf->llama_model_bytes->low / n_gpus, ceil_div(logf->llama_model_bytes->high, n_gpus)});
        if (logf->llama_compute_bytes) measured("compute buffer", ByteBand{logf->llama_compute_bytes->low / n_gpus, ceil_div(logf->llama_compute_bytes->high, n_gpus)});
      }
      evaluate = [&, e, n_gpus](bool fav) {
        Outcome out;
        std::uint64_t cache = e.total_bytes;
        if (logf && logf->llama_kv_bytes) cache = fav ? logf->llama_kv_bytes->low : logf->llama_kv_bytes->high;
        const std::uint64_t fixed = checked_mul(n_gpus, checked_add(checked_add(term_at("weights", fav), term_at("compute buffer", fav)),
                                                                     term_at("CUDA context", fav)));
        const std::uint64_t have = checked_mul(n_gpus, device_at(fav));
        const std::uint64_t need = checked_add(fixed, cache);
        out.starts = need <= have;
        out.kv_memory = signed_of(have / n_gpus, fixed / n_gpus);
        out.weights_exceed = term_at("weights", fav) >= device_at(fav);
        out.kv_tokens = checked_mul(e.cells, e.n_stream);
        out.context = e.n_ctx_seq;
        out.max_concurrency = e.kv_unified ? static_cast<double>(e.n_ctx / e.n_ctx_seq) : static_cast<double>(e.n_seq_max);
        out.max_fitting_context = e.n_ctx_seq;
        out.request_bytes = need > have ? need - have : 0;
        out.log_lines = e.log_lines;
        out.notes = e.notes;
        if (!out.starts)
          out.error = "weights + KV cache + compute buffer need " + format_gib(need) + " but " + std::to_string(n_gpus) + " x " +
                      acc.name + " hold " + format_gib(have);
        out.engine_result = to_json(e);
        return out;
      };
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
      weights_per_gpu = ceil_div(wb.total, tp * pp);
      bin.weights_bytes = weights_per_gpu;
      bin.tp = tp;
      bin.max_num_batched_tokens = max_num_tokens;
      budget = engine_budget(m, bin);
      if (logf) measured("weights", logf->weights_bytes);
      evaluate = [&, t](bool fav) {
        TrtllmOptions x = t;
        x.gpu_memory_bytes = device_at(fav);
        std::uint64_t peak = 0;
        for (const auto& term : budget.terms) peak = checked_add(peak, fav ? term.low : term.high);
        TrtllmResult pre = trtllm_profile(m, x);  // for the Mamba slots
        peak = checked_add(peak, pre.mamba_bytes);
        const bool fits = peak < x.gpu_memory_bytes;
        x.peak_bytes = std::min(peak, x.gpu_memory_bytes);
        if (logf && logf->kv_tokens) {
          TrtllmOptions probe = x;
          probe.kv_memory_bytes = GiB;
          const TrtllmResult p = trtllm_profile(m, probe);
          x.max_tokens = *logf->kv_tokens;
          x.kv_memory_bytes = checked_mul(checked_add(*logf->kv_tokens, x.tokens_per_block), std::max<std::uint64_t>(p.bytes_per_token, 1));
        }
        TrtllmResult e = trtllm_profile(m, x);
        Outcome out;
        out.starts = e.starts && (fits || x.kv_memory_bytes.has_value());
        out.kv_memory = x.kv_memory_bytes ? static_cast<std::int64_t>(e.kv_memory_bytes) : signed_of(x.gpu_memory_bytes, peak);
        out.weights_exceed = !x.kv_memory_bytes && term_at("weights", fav) >= x.gpu_memory_bytes;
        out.kv_tokens = e.max_tokens;
        out.context = e.max_seq_len;
        out.max_concurrency = e.max_concurrency;
        out.max_fitting_context = e.max_seq_len;
        out.error = out.starts ? "" : (e.error.empty() ? "the weights and profiled peak leave no KV cache memory" : e.error);
        out.log_lines = e.log_lines;
        out.notes = e.notes;
        out.engine_result = to_json(e);
        return out;
      };
      break;
    }
  }
  if (budget.device_basis.empty()) budget.device_basis = band.basis;

  Outcome worst = evaluate(false), best = evaluate(true);
  if (logf && logf->failure) {
    // The engine said it did not start: no end of any band makes it start.
    for (Outcome* x : {&worst, &best}) {
      x->starts = false;
      x->error = "the engine log says it did not start: " + *logf->failure;
    }
  }

  r.tp = tp;
  r.pp = pp;
  r.gpus_needed = tp * pp * dp;
  r.gpus = o.gpus ? o.gpus : (d.gpus ? d.gpus : r.gpus_needed);
  r.weights_bytes_per_gpu = weights_per_gpu;
  r.starts = worst.starts;
  r.kv_memory_bytes = worst.kv_memory;
  r.kv_memory_favourable_bytes = best.kv_memory;
  r.kv_budget_bytes = worst.kv_memory > 0 ? static_cast<std::uint64_t>(worst.kv_memory) : 0;
  r.kv_cache_tokens = worst.kv_tokens;
  r.kv_cache_tokens_favourable = best.kv_tokens;
  r.context = worst.context;
  r.max_concurrency = worst.max_concurrency;
  r.max_concurrency_favourable = best.max_concurrency;
  r.max_fitting_context = worst.max_fitting_context;
  r.log_lines = worst.log_lines;
  for (const auto& n : worst.notes) r.notes.push_back(n);
  for (const auto& n : budget.notes) r.notes.push_back(n);
  r.engine_result = worst.engine_result;
  r.device_low_bytes = budget.device.low;
  r.device_high_bytes = budget.device.high;
  r.device_basis = budget.device_basis;
  r.budget = budget.terms;
  r.engine_version = d.engine == EngineKind::vllm ? std::string(vllm_version_name(bin.vllm_version)) : r.engine;

  // A check holds at both ends (PASS), at neither (FAIL), or only at the favourable end (UNCERTAIN).
  auto add_check = [&](std::string name, bool ok_worst, bool ok_best, std::string required, std::string actual, std::string message) {
    const Verdict v = ok_worst ? Verdict::pass : (ok_best ? Verdict::uncertain : Verdict::fail);
    r.checks.push_back({std::move(name), ok_worst, std::move(required), std::move(actual), message, v});
    if (v == Verdict::fail) r.verdict = Verdict::fail;
    else if (v == Verdict::uncertain && r.verdict == Verdict::pass) r.verdict = Verdict::uncertain;
    if (v != Verdict::pass) r.reasons.push_back(std::move(message));
  };

  // Starts.
  {
    const std::string eng = d.engine == EngineKind::vllm ? "vLLM" : d.engine == EngineKind::sglang ? "SGLang"
                            : d.engine == EngineKind::trtllm ? "TensorRT-LLM" : "llama-server";
    std::string msg;
    if (worst.starts) {
      msg = eng + " starts";
    } else if (best.weights_exceed) {
      // Weights alone exceed what the engine may use: more memory fraction cannot help.
      // Room for weights per GPU at the favourable end: what the KV cache got plus the weights.
      const std::uint64_t per_gpu_room =
          best.kv_memory + static_cast<std::int64_t>(weights_per_gpu) > 0 ? static_cast<std::uint64_t>(best.kv_memory + static_cast<std::int64_t>(weights_per_gpu)) : 0;
      const std::uint64_t need_shards = per_gpu_room ? ceil_div(wb.total, per_gpu_room) : 0;
      std::uint64_t shards = 1;
      while (shards < need_shards) shards *= 2;
      msg = eng + " cannot start: the weights alone (" + format_gib(weights_per_gpu) + " per GPU) exceed the memory it may use on " +
            acc.name + " (KV memory " + format_signed_gib(best.kv_memory) + " per GPU); use more GPUs (about " +
            std::to_string(shards) + "-way tensor/pipeline parallel) or quantized weights (fp8, int4)";
    } else if (!best.starts) {
      msg = eng + " fails at start-up: " + best.error;
    } else {
      msg = eng + " may fail at start-up (it starts at the favourable end of the memory band only): " + worst.error;
    }
    add_check("starts", worst.starts, best.starts, "starts",
              worst.starts ? "starts" : best.starts ? "uncertain" : "does not start", msg);
  }
  if (d.engine != EngineKind::llamacpp) {
    const bool ok = r.gpus >= r.gpus_needed;
    add_check("gpus", ok, ok, std::to_string(r.gpus_needed), std::to_string(r.gpus),
              ok ? "GPU count suffices"
                 : "the command needs " + std::to_string(r.gpus_needed) + " GPUs (tp x pp" + std::string(dp > 1 ? " x dp" : "") +
                       ") but --gpus is " + std::to_string(r.gpus));
  }
  if (require_context) {
    auto holds = [&](const Outcome& x) {
      return x.starts && x.context >= *require_context && x.max_fitting_context >= *require_context;
    };
    const bool ok = holds(worst);
    add_check("context", ok, holds(best), fmt_ctx(*require_context), fmt_ctx(std::min(worst.context, worst.max_fitting_context)),
              ok ? "context " + fmt_ctx(worst.context) + " >= " + fmt_ctx(*require_context)
                 : "required context " + fmt_ctx(*require_context) + " tokens, but the deployment serves at most " +
                       fmt_ctx(worst.starts ? std::min(worst.context, worst.max_fitting_context) : worst.max_fitting_context) +
                       " tokens per request" + (holds(best) ? " at the unfavourable end of the memory band" : ""));
  }
  if (require_concurrency) {
    auto holds = [&](const Outcome& x) { return x.starts && x.max_concurrency + 1e-9 >= static_cast<double>(*require_concurrency); };
    const bool ok = holds(worst);
    add_check("concurrency", ok, holds(best), std::to_string(*require_concurrency), format_fixed(worst.max_concurrency, 2),
              ok ? "concurrency " + format_fixed(worst.max_concurrency, 2) + "x >= " + std::to_string(*require_concurrency)
                 : "required concurrency " + std::to_string(*require_concurrency) + " at " + fmt_ctx(worst.context) +
                       " tokens, but the KV cache holds " + format_fixed(worst.max_concurrency, 2) + "x" +
                       (holds(best) ? " at the unfavourable end (" + format_fixed(best.max_concurrency, 2) + "x at the favourable end)" : ""));
    if (!ok && worst.starts && worst.max_concurrency > 0 && worst.kv_memory > 0) {
      const double need = static_cast<double>(worst.kv_memory) * (static_cast<double>(*require_concurrency) / worst.max_concurrency);
      r.margin_bytes = std::max(r.margin_bytes, static_cast<std::uint64_t>(std::ceil(need)) - static_cast<std::uint64_t>(worst.kv_memory));
    }
  }
  if (!worst.starts && best.starts && worst.request_bytes && d.engine == EngineKind::vllm)
    r.margin_bytes = std::max(r.margin_bytes, worst.kv_memory < 0 ? worst.request_bytes + static_cast<std::uint64_t>(-worst.kv_memory)
                                                                   : worst.request_bytes - std::min<std::uint64_t>(worst.request_bytes, static_cast<std::uint64_t>(worst.kv_memory)));
  if (r.verdict == Verdict::uncertain) {
    r.margin = "certain to pass with " + (r.margin_bytes ? format_gib(r.margin_bytes) + " more" : std::string("more")) +
               " KV memory per GPU at the unfavourable end of the band (the band spans " +
               format_gib(budget.high() - budget.low() + (budget.device.high - budget.device.low)) +
               " per GPU); give --engine-log with the engine's start-up log to measure it, or fix the KV memory in the command";
    r.notes.push_back(r.margin);
  }
  r.passed = r.verdict == Verdict::pass;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------------------------
std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::uncertain: return "UNCERTAIN";
    case Verdict::fail: return "FAIL";
  }
  return "FAIL";
}

nlohmann::json to_json(const CheckResult& r) {
  nlohmann::json j;
  j["passed"] = r.passed;
  j["verdict"] = verdict_name(r.verdict);
  j["strict"] = r.strict;
  j["calibrated"] = r.calibrated;
  j["budget_model"] = r.engine_version;
  auto& terms = j["budget"] = nlohmann::json::array();
  for (const auto& t : r.budget)
    terms.push_back({{"name", t.name}, {"low_bytes", t.low}, {"high_bytes", t.high}, {"basis", t.basis}, {"source", t.source}});
  j["device_memory"] = {{"low_bytes", r.device_low_bytes}, {"high_bytes", r.device_high_bytes}, {"basis", r.device_basis}};
  j["favourable"] = {{"kv_memory_bytes", r.kv_memory_favourable_bytes}, {"kv_cache_tokens", r.kv_cache_tokens_favourable},
                     {"max_concurrency", r.max_concurrency_favourable}};
  j["margin_bytes"] = r.margin_bytes;
  j["margin"] = r.margin;
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
  j["per_gpu"] = {{"memory_bytes", r.gpu_memory_bytes}, {"weights_bytes", r.weights_bytes_per_gpu}, {"kv_budget_bytes", r.kv_budget_bytes},
                  {"kv_memory_bytes", r.kv_memory_bytes}};
  auto& cs = j["checks"] = nlohmann::json::array();
  for (const auto& c : r.checks)
    cs.push_back({{"name", c.name}, {"ok", c.ok}, {"status", verdict_name(c.status)}, {"required", c.required}, {"actual", c.actual},
                  {"message", c.message}});
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
  if (!r.starts && r.verdict == Verdict::fail) os << "does not start";
  else if (!r.starts) os << "may not start (KV memory " << format_signed_gib(r.kv_memory_bytes) << " per GPU at the unfavourable end)";
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
  os << verdict_name(r.verdict) << ": " << headline(r) << ": " << summary(r) << "\n";
  for (const auto& c : r.checks)
    os << "  [" << (c.status == Verdict::pass ? "ok" : c.status == Verdict::fail ? "FAIL" : "UNCERTAIN") << "] " << c.name << ": "
       << c.message << "\n";
  os << "budget per GPU (" << r.engine_version << "): device " << format_gib(r.device_low_bytes) << " to "
     << format_gib(r.device_high_bytes) << " (" << r.device_basis << ")\n";
  for (const auto& t : r.budget)
    os << "  - " << t.name << ": " << (t.low == t.high ? format_gib(t.low) : format_gib(t.low) + " to " + format_gib(t.high)) << " ["
       << t.basis << "]\n";
  os << "  = KV memory " << format_signed_gib(r.kv_memory_bytes) << " (unfavourable) to " << format_signed_gib(r.kv_memory_favourable_bytes)
     << " (favourable)\n";
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
    if (c.status == Verdict::uncertain) os << "::warning " << file << "title=" << gh_prop("kvplan check uncertain: " + c.name) << "::" << gh_escape(c.message) << "\n";
    else if (!c.ok) os << "::error " << file << "title=" << gh_prop("kvplan check: " + c.name) << "::" << gh_escape(c.message) << "\n";
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
  if (format == "json") return to_json(r).dump(2) + "\n";
  if (format == "github") return format_check_github(r);
  if (format == "junit") return format_check_junit(r);
  throw InputError::value("--format", format, "text, json, github or junit");
}

}  // namespace kvplan
