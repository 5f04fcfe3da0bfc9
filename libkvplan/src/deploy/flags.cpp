// The engine flag parser: each engine's own syntax over its flag table (flags_<engine>.cpp).
#include "deploy/flags.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>

#include "deploy/yaml.h"
#include "kvplan/text.h"
#include "kvplan/files.h"

namespace kvplan::detail {

namespace {

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::istringstream in{std::string(s)};
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

bool is_negative_number(const std::string& s) {
  if (s.size() < 2 || s[0] != '-') return false;
  char* end = nullptr;
  (void)std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

// kvplan check's own options: placed after `--` they would be read as engine flags.
const char* const kKvplanOptions[] = {"--require-concurrency", "--require-context", "--gpu", "--gpus", "--format",
                                      "--file", "--strict"};

}  // namespace

EngineFlagTable make_flag_table(std::string engine, std::string provenance, std::string_view text) {
  EngineFlagTable t;
  t.engine = std::move(engine);
  t.provenance = std::move(provenance);
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (const auto h = line.find('#'); h != std::string::npos && (h == 0 || line[h - 1] == ' ')) line = line.substr(0, h);
    if (trim_space(line).empty()) continue;
    std::vector<std::string> cols;
    std::stringstream ls(line);
    std::string c;
    while (std::getline(ls, c, '|')) cols.push_back(trim_space(c));
    FlagDef f;
    f.names = words(cols.at(0));
    // The canonical name (the one check.cpp reads) is the first long spelling.
    std::stable_partition(f.names.begin(), f.names.end(), [](const std::string& n) { return n.rfind("--", 0) == 0; });
    const std::string& ar = cols.at(1);
    f.arity = ar == "0" ? Arity::none : ar == "1" ? Arity::one : ar == "2" ? Arity::two : ar == "?" ? Arity::optional : Arity::many;
    f.effect = cols.at(2) == "memory" ? FlagEffect::memory : cols.at(2) == "unmodelled" ? FlagEffect::unmodelled : FlagEffect::ignored;
    for (std::size_t k = 3; k < cols.size(); ++k) {
      if (cols[k].rfind("env=", 0) == 0) f.env = cols[k].substr(4);
      else if (cols[k].rfind("neg=", 0) == 0) f.negations = words(cols[k].substr(4));
      else if (cols[k].rfind("why=", 0) == 0) f.why = cols[k].substr(4);
    }
    const std::size_t idx = t.flags.size();
    for (const auto& n : f.names) t.by_name.emplace(n, idx);
    for (const auto& n : f.negations) t.by_negation.emplace(n, idx);
    if (!f.env.empty()) t.by_env.emplace(f.env, idx);
    t.flags.push_back(std::move(f));
  }
  return t;
}

const EngineFlagTable& engine_flag_table(EngineKind e) {
  static const EngineFlagTable tables[] = {vllm_flag_table(), llamacpp_flag_table(), sglang_flag_table(), trtllm_flag_table(), ollama_flag_table()};
  switch (e) {
    case EngineKind::vllm: return tables[0];
    case EngineKind::llamacpp: return tables[1];
    case EngineKind::sglang: return tables[2];
    case EngineKind::trtllm: return tables[3];
    case EngineKind::ollama: return tables[4];
  }
  return tables[0];
}

std::string read_command_file(const std::string& path, const std::string& base_dir, std::string_view flag) {
  namespace fs = std::filesystem;
  if (base_dir.empty()) return read_regular_file(path, kMaxCommandFileBytes, flag);  // the user's own command line
  // A deployment file: the shell's path (relative to the working directory) when it exists, else
  // the path beside the file; either way the containment rule of every store (kvplan/files.h)
  // holds: with symlinks resolved, the file lies inside the deployment file's folder.
  std::error_code ec;
  const fs::path given(path);
  fs::path p = given.is_relative() && !fs::exists(given, ec) ? fs::path(base_dir) / given : given;
  const fs::path base_abs = fs::absolute(base_dir, ec);
  const fs::path rel = fs::absolute(p, ec).lexically_normal().lexically_relative(base_abs.lexically_normal());
  if (ec || !contained_path(base_abs, rel))
    throw InputError::value(flag, path,
                            "a file inside the deployment file's folder " + base_dir +
                                " (symlinks resolved; kvplan reads no file a deployment names outside it, the rule of "
                                "docs/reliability.md)");
  return read_regular_file(p.string(), kMaxCommandFileBytes, flag);
}

namespace {

// vLLM --config FILE / SGLang --config FILE: a YAML mapping of flag names (dashes or
// underscores) to values, applied before the command line's own flags (which win).
std::vector<std::string> config_file_args(const std::string& engine, const std::string& path, const std::string& base_dir) {
  const std::string text = read_command_file(path, base_dir, engine + " --config");
  const auto docs = parse_yaml_documents(text, path);
  if (docs.size() != 1 || !docs[0].value.is_object())
    throw ConfigError::field(path, "", "one YAML mapping of " + engine + " flags", docs.empty() ? "nothing" : "another value", "");
  std::vector<std::string> out;
  for (const auto& [k, v] : docs[0].value.items()) {
    std::string name = k;
    std::replace(name.begin(), name.end(), '_', '-');
    const std::string flag = "--" + name;
    if (v.is_boolean()) {
      if (v.get<bool>()) out.push_back(flag);
      else out.push_back("--no-" + name);
    } else if (v.is_array()) {
      out.push_back(flag);
      for (const auto& x : v) out.push_back(x.is_string() ? x.get<std::string>() : x.dump());
    } else if (v.is_null()) {
      continue;
    } else {
      out.push_back(flag);
      out.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    }
  }
  return out;
}

// vLLM's recursive_dict_update: objects merge, lists extend, anything else is replaced.
void merge_dotted(nlohmann::json& into, const nlohmann::json& update) {
  if (!into.is_object()) into = nlohmann::json::object();
  for (const auto& [k, v] : update.items()) {
    if (v.is_object() && into.contains(k) && into[k].is_object()) merge_dotted(into[k], v);
    else if (v.is_array() && into.contains(k) && into[k].is_array()) into[k].insert(into[k].end(), v.begin(), v.end());
    else into[k] = v;
  }
}

[[noreturn]] void unknown_flag(const EngineFlagTable& t, const std::string& given) {
  for (const char* k : kKvplanOptions) {
    const std::string opt(k);
    if (given == opt || given.rfind(opt + "=", 0) == 0)
      throw InputError::value(t.engine + " command", given,
                              "an engine flag; " + opt + " is an option of kvplan check and belongs before `--` "
                              "(kvplan check " + opt + " ... -- " + t.engine + " ...)");
  }
  std::string best;
  const std::size_t near = std::max<std::size_t>(2, given.size() / 3);
  std::size_t best_d = near + 1;
  for (const auto& f : t.flags)
    for (const auto& n : f.names) {
      const std::size_t d = edit_distance(given, n, best_d);
      if (d < best_d) best_d = d, best = n;
    }
  bool close = best_d <= near;
  if (!close)  // a shortened spelling (--kv-cache-memory for --kv-cache-memory-bytes)
    for (const auto& f : t.flags)
      for (const auto& n : f.names)
        if (!close && given.size() > 4 && n.rfind(given, 0) == 0) best = n, close = true;
  // llama.cpp has no --flag=value form: say so rather than "unknown".
  if (!t.equals_values && given.find('=') != std::string::npos && t.by_name.count(given.substr(0, given.find('='))))
    throw InputError::value(t.engine + " flag", given, t.engine + "'s `" + given.substr(0, given.find('=')) + " VALUE` (it has no --flag=value form)");
  throw InputError::unknown(t.engine + " flag (the engine refuses unknown flags)", given, close ? best : "");
}

}  // namespace

ParsedFlags parse_engine_flags(EngineKind e, const std::vector<std::string>& args_in,
                               const std::vector<std::pair<std::string, std::string>>& env, const std::string& base_dir) {
  const EngineFlagTable& t = engine_flag_table(e);
  ParsedFlags out;
  // Environment spellings first (llama.cpp: LLAMA_ARG_*); the command line overrides them.
  for (const auto& [k, v] : env) {
    auto it = t.by_env.find(k);
    if (it == t.by_env.end()) continue;
    const FlagDef& f = t.flags[it->second];
    if (f.arity == Arity::none) out.values[f.names.front()] = flag_truthy(v, k) ? "true" : "false";
    else out.values[f.names.front()] = v;
    if (f.effect == FlagEffect::ignored) out.ignored.push_back(k);
    if (f.effect == FlagEffect::unmodelled) {
      out.unmodelled.push_back(k);
      out.unmodelled_why[k] = unmodelled_reason(f);
    }
  }
  std::vector<std::string> args = args_in;
  // --config FILE (vLLM, SGLang): its flags go first so the command line wins.
  if (e == EngineKind::vllm || e == EngineKind::sglang) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::string a = args[i], val;
      if (a.rfind("--config=", 0) == 0) val = a.substr(9);
      else if (a == "--config" && i + 1 < args.size()) val = args[i + 1];
      else continue;
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(a == "--config" ? i + 2 : i + 1));
      auto extra = config_file_args(t.engine, val, base_dir);
      args.insert(args.begin(), extra.begin(), extra.end());
      break;
    }
  }
  std::map<std::string, nlohmann::json> dotted;  // vLLM --flag.key VALUE, merged per flag
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i], val;
    bool has_eq = false;
    if (a.size() > 1 && a[0] == '-' && !is_negative_number(a)) {
      const auto eq = a.find('=');
      if (eq != std::string::npos && t.equals_values) {
        val = a.substr(eq + 1);
        a = a.substr(0, eq);
        has_eq = true;
      }
      // vLLM: between the leading -- and the first '.' only (a dotted key keeps its underscores).
      if (t.underscores_to_dashes && a.rfind("--", 0) == 0) std::replace(a.begin(), std::find(a.begin(), a.end(), '.'), '_', '-');
    }
    if (a.empty() || a[0] != '-' || a == "-" || is_negative_number(a)) {
      if (t.positional_model && out.positional.empty()) {
        out.positional = a;
        continue;
      }
      throw InputError::value(t.engine + " command", a, "a flag (unexpected positional argument)");
    }
    const FlagDef* f = nullptr;
    bool negated = false;
    if (auto it = t.by_name.find(a); it != t.by_name.end()) f = &t.flags[it->second];
    else if (auto jt = t.by_negation.find(a); jt != t.by_negation.end()) f = &t.flags[jt->second], negated = true;
    else if (t.dotted_keys && a.find('.') != std::string::npos) {
      // vLLM (FlexibleArgumentParser.parse_args): --speculative-config.method mtp sets one key of a
      // JSON flag; keys nest on further dots, `key+ a,b` appends to a list, and the merged object
      // is given after every other flag (so it wins over the flag's own JSON).
      if (auto kt = t.by_name.find(a.substr(0, a.find('.'))); kt != t.by_name.end()) {
        const FlagDef& base = t.flags[kt->second];
        std::string path = a.substr(a.find('.') + 1);
        if (!has_eq) {
          if (i + 1 >= args.size()) throw InputError::value(t.engine + " flag " + a, "", "a value after " + a);
          val = args[++i];
        }
        nlohmann::json v;
        if (!path.empty() && path.back() == '+') {
          path.pop_back();
          v = nlohmann::json::array();
          std::stringstream items(val);
          for (std::string x; std::getline(items, x, ',');) v.push_back(x);
        } else {
          // json.loads, else human_readable_int (80g, 1k), else the text itself.
          v = nlohmann::json::parse(val, nullptr, false);
          if (v.is_discarded()) {
            try {
              v = vllm_int(val, a);
            } catch (const InputError&) {
              v = val;
            }
          }
        }
        std::vector<std::string> keys;
        std::stringstream ks(path);
        for (std::string k; std::getline(ks, k, '.');) keys.push_back(k);
        if (keys.empty() || std::any_of(keys.begin(), keys.end(), [](const std::string& k) { return k.empty(); }))
          throw InputError::value(t.engine + " flag", a, "--flag.key VALUE (a key after each dot)");
        for (auto k = keys.rbegin(); k != keys.rend(); ++k) v = nlohmann::json{{*k, std::move(v)}};
        merge_dotted(dotted[base.names.front()], v);
        if (base.effect == FlagEffect::ignored) out.ignored.push_back(a);
        if (base.effect == FlagEffect::unmodelled) {
          out.unmodelled.push_back(a);
          out.unmodelled_why[a] = unmodelled_reason(base);
        }
        continue;
      }
    }
    if (!f && t.dotted_keys && a.size() > 2 && a[0] == '-' && a[1] == 'O' && std::isdigit(static_cast<unsigned char>(a[2]))) {
      out.ignored.push_back(a);  // vLLM: -O3 is -O 3 (the compilation level)
      continue;
    }
    // kvplan check's own options are named as such, even where they prefix an engine flag (--gpu).
    if (!f && std::any_of(std::begin(kKvplanOptions), std::end(kKvplanOptions), [&](const char* k) { return a == k; })) unknown_flag(t, a);
    if (!f && t.allow_abbrev && a.rfind("--", 0) == 0) {
      // argparse (allow_abbrev): a unique prefix of one option string (its --no-x ones included)
      // names that option; a prefix of several is an error.
      std::size_t found = SIZE_MAX;
      bool ambiguous = false, found_negated = false;
      std::string full;
      auto scan = [&](const std::map<std::string, std::size_t>& names, bool neg) {
        for (auto it = names.lower_bound(a); it != names.end() && it->first.compare(0, a.size(), a) == 0; ++it) {
          if (found != SIZE_MAX && (found != it->second || found_negated != neg)) ambiguous = true;
          found = it->second, found_negated = neg, full = it->first;
        }
      };
      scan(t.by_name, false);
      scan(t.by_negation, true);
      if (ambiguous) throw InputError::value(t.engine + " flag", a, "an unambiguous flag (argparse: ambiguous option)");
      if (found != SIZE_MAX) {
        f = &t.flags[found];
        negated = found_negated;
        out.abbreviations.push_back(a + " = " + full);
      }
    }
    if (!f) unknown_flag(t, a);
    const std::string& canon = f->names.front();
    std::string value;
    if (negated) {
      if (has_eq) throw InputError::value(t.engine + " flag " + a, val, "no value (" + a + " is a switch)");
      value = "false";
    } else if (f->arity == Arity::none) {
      if (has_eq) throw InputError::value(t.engine + " flag " + a, val, "no value (" + a + " is a switch)");
      value = "true";
    } else if (has_eq) {
      value = val;
    } else if (f->arity == Arity::optional) {
      if (i + 1 < args.size() && (args[i + 1].empty() || args[i + 1][0] != '-')) value = args[++i];
      else value = "true";
    } else if (f->arity == Arity::two) {
      if (i + 2 >= args.size()) throw InputError::value(t.engine + " flag " + a, "", "two values after " + a);
      value = args[i + 1] + " " + args[i + 2];
      i += 2;
    } else if (f->arity == Arity::many) {
      while (i + 1 < args.size() && (args[i + 1].empty() || args[i + 1][0] != '-' || is_negative_number(args[i + 1])))
        value += (value.empty() ? "" : " ") + args[++i];
      if (value.empty()) throw InputError::value(t.engine + " flag " + a, "", "at least one value after " + a);
    } else {
      const bool next_is_value = i + 1 < args.size() &&
                                 (args[i + 1].empty() || args[i + 1][0] != '-' || args[i + 1] == "-" ||
                                  (t.negative_numbers_as_values && is_negative_number(args[i + 1])));
      if (!next_is_value) throw InputError::value(t.engine + " flag " + a, "", "a value after " + a);
      value = args[++i];
    }
    out.values[canon] = value;
    if (f->effect == FlagEffect::ignored) out.ignored.push_back(a);
    if (f->effect == FlagEffect::unmodelled && !negated && value != "false") {
      out.unmodelled.push_back(a);
      out.unmodelled_why[a] = unmodelled_reason(*f);
    }
  }
  for (const auto& [flag, obj] : dotted) out.values[flag] = obj.dump();
  return out;
}

SglangChunkedPrefill sglang_chunked_prefill(const ParsedFlags& f) {
  SglangChunkedPrefill out;
  if (!f.has("--chunked-prefill-size")) return out;
  const std::int64_t c = plain_int(f.get("--chunked-prefill-size"), "--chunked-prefill-size");
  if (c < -1) throw InputError::value("--chunked-prefill-size", f.get("--chunked-prefill-size"), "a positive integer, or -1 (or 0) to turn it off");
  if (c > 0) out.size = static_cast<std::uint64_t>(c);
  else out.off = true;
  return out;
}

std::string unmodelled_reason(const FlagDef& f) {
  return f.why.empty() ? "it takes GPU memory (or changes the model) in a way kvplan does not count" : f.why;
}

std::uint64_t vllm_int(const std::string& text, std::string_view flag) {
  const std::string v = trim_space(text);
  const char* expected = "an integer as vLLM reads it (4096; 32k = 32,000; 32K = 32,768)";
  std::size_t i = 0;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
  if (i == 0) throw InputError::value(flag, text, expected);
  std::size_t frac_end = i;
  if (frac_end < v.size() && v[frac_end] == '.') {
    ++frac_end;
    const std::size_t fs = frac_end;
    while (frac_end < v.size() && std::isdigit(static_cast<unsigned char>(v[frac_end]))) ++frac_end;
    if (frac_end == fs) throw InputError::value(flag, text, expected);
  }
  const std::string number = v.substr(0, frac_end), suffix = v.substr(frac_end);
  const bool decimal = number.find('.') != std::string::npos;
  if (suffix.size() > 1) throw InputError::value(flag, text, expected);
  long double mult = 1;
  bool binary = false;
  if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'k': mult = 1e3L; break;
      case 'm': mult = 1e6L; break;
      case 'g': mult = 1e9L; break;
      case 't': mult = 1e12L; break;
      case 'K': mult = 1024.0L, binary = true; break;
      case 'M': mult = 1048576.0L, binary = true; break;
      case 'G': mult = 1073741824.0L, binary = true; break;
      case 'T': mult = 1099511627776.0L, binary = true; break;
      default: throw InputError::value(flag, text, expected);
    }
  }
  if (decimal && (binary || suffix.empty()))
    throw InputError::value(flag, text, "a whole number (vLLM allows decimals only with k, m, g, t)");
  if (!decimal) {
    errno = 0;
    const unsigned long long n = std::strtoull(number.c_str(), nullptr, 10);
    if (errno == ERANGE) throw InputError::value(flag, text, "a number below 2^64");
    std::uint64_t r = 0;
    if (__builtin_mul_overflow(static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(mult), &r))
      throw InputError::value(flag, text, "a number below 2^64");
    return r;
  }
  // int(float(number) * mult): Python multiplies doubles and truncates toward zero.
  const double x = std::strtod(number.c_str(), nullptr) * static_cast<double>(mult);
  if (!(x < 1.8e19)) throw InputError::value(flag, text, "a number below 2^64");
  return static_cast<std::uint64_t>(x);
}

std::int64_t plain_int(const std::string& text, std::string_view flag) {
  const std::string v = trim_space(text);
  std::size_t d = (!v.empty() && (v[0] == '-' || v[0] == '+')) ? 1 : 0;
  if (d >= v.size() || !std::all_of(v.begin() + static_cast<std::ptrdiff_t>(d), v.end(),
                                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    throw InputError::value(flag, text, "an integer");
  errno = 0;
  const long long x = std::strtoll(v.c_str(), nullptr, 10);
  if (errno == ERANGE) throw InputError::value(flag, text, "an integer in 64-bit range");
  return x;
}

std::uint64_t plain_uint(const std::string& text, std::string_view flag) {
  const std::int64_t x = plain_int(text, flag);
  if (x < 0) throw InputError::value(flag, text, "a non-negative integer");
  return static_cast<std::uint64_t>(x);
}

double plain_float(const std::string& text, std::string_view flag) {
  const std::string v = trim_space(text);
  char* end = nullptr;
  // strtod also reads C99 hex floats ("0x1p-1"); the engines parse with Python's float(), which
  // refuses them (ValueError: could not convert string to float), so kvplan does too.
  if (v.find_first_of("xX") != std::string::npos) throw InputError::value(flag, text, "a finite decimal number (Python's float() refuses hex)");
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || !end || *end != '\0' || !std::isfinite(x)) throw InputError::value(flag, text, "a finite number");
  return x;
}

bool flag_truthy(const std::string& text, std::string_view flag) {
  const std::string v = ascii_lower(trim_space(text));
  if (v == "true" || v == "1" || v == "yes" || v == "on" || v == "enabled") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off" || v == "disabled") return false;
  throw InputError::value(flag, text, "true or false");
}

}  // namespace kvplan::detail

namespace kvplan {

EngineFlagClass classify_engine_flag(EngineKind e, std::string_view flag) {
  const auto& t = detail::engine_flag_table(e);
  const std::string f(flag);
  const detail::FlagDef* d = nullptr;
  if (auto it = t.by_name.find(f); it != t.by_name.end()) d = &t.flags[it->second];
  else if (auto jt = t.by_negation.find(f); jt != t.by_negation.end()) d = &t.flags[jt->second];
  else if (auto kt = t.by_env.find(f); kt != t.by_env.end()) d = &t.flags[kt->second];
  if (!d) return EngineFlagClass::unknown;
  switch (d->effect) {
    case detail::FlagEffect::memory: return EngineFlagClass::memory;
    case detail::FlagEffect::ignored: return EngineFlagClass::ignored;
    case detail::FlagEffect::unmodelled: return EngineFlagClass::unmodelled;
  }
  return EngineFlagClass::unknown;
}

std::string engine_flag_source(EngineKind e) { return detail::engine_flag_table(e).provenance; }

}  // namespace kvplan
