// kvplan check's formats: text, JSON, GitHub Actions workflow commands and JUnit XML, for
// results and for errors (a bad command or file is reported in the asked format too).
#include <cmath>
#include <sstream>
#include <variant>

#include "kvplan/check.h"
#include "kvplan/engines.h"
#include "kvplan/error.h"
#include "kvplan/report.h"
#include "kvplan/units.h"

namespace kvplan {

namespace {

using json = nlohmann::json;

// Replaces invalid UTF-8 with U+FFFD so every format stays valid.
std::string valid_utf8(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (std::size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
    if (ok && n == 2) ok = c >= 0xC2;
    if (ok && n == 3) {
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);
    }
    if (ok && n == 4) {
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      ok = c <= 0xF4 && !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
    }
    if (ok) {
      o.append(s.substr(i, n));
      i += n;
    } else {
      o += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return o;
}

std::string dump(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n"; }

std::string headline(const CheckResult& r) {
  std::ostringstream os;
  os << r.engine << " " << r.model << " on " << r.gpus << " x " << r.gpu << " (tp " << r.tp << ", pp " << r.pp << ")";
  return os.str();
}
std::string summary(const CheckResult& r) {
  std::ostringstream os;
  // The `starts` check says whether it fails at every end of the band or only at the unfavourable one.
  bool starts_uncertain = false;
  for (const auto& c : r.checks) starts_uncertain = starts_uncertain || (c.name == "starts" && c.status == Verdict::uncertain);
  if (!r.starts && !starts_uncertain) os << "does not start";
  else if (!r.starts) os << "may not start (KV memory " << format_signed_gib(r.kv_memory_bytes) << " per GPU at the unfavourable end)";
  else
    os << format_count(r.kv_cache_tokens) << " KV tokens, max concurrency " << format_fixed(r.max_concurrency, 2) << "x at "
       << format_count(r.context, "token");
  return os.str();
}

// GitHub workflow commands: data escapes %, CR, LF; properties also : and ,.
std::string gh_escape(std::string_view s) {
  std::string o;
  for (char c : valid_utf8(s)) {
    if (c == '%') o += "%25";
    else if (c == '\r') o += "%0D";
    else if (c == '\n') o += "%0A";
    else o += c;
  }
  return o;
}
std::string gh_prop(std::string_view s) {
  std::string o;
  for (char c : gh_escape(s)) {
    if (c == ':') o += "%3A";
    else if (c == ',') o += "%2C";
    else o += c;
  }
  return o;
}
std::string gh_location(std::string_view file, std::uint64_t line) {
  if (file.empty() || file == "command line") return "";
  std::string s = "file=" + gh_prop(file) + ",";
  if (line) s += "line=" + std::to_string(line) + ",";
  return s;
}

// XML 1.0 text: the five entities escaped; control characters other than tab, LF and CR are
// not allowed in XML 1.0 at all and become U+FFFD; invalid UTF-8 too.
std::string xml(std::string_view s) {
  std::string o;
  for (char c : valid_utf8(s)) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') o += "\xEF\xBF\xBD";
        else o += c;
    }
  }
  return o;
}

json engine_json(const EngineResult& e) {
  return std::visit(
      [](const auto& x) -> json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) return nullptr;
        else return to_json(x);
      },
      e);
}

void junit_cases(std::ostringstream& os, const CheckResult& r) {
  for (const auto& c : r.checks) {
    os << "    <testcase classname=\"kvplan.check." << xml(r.engine) << "\" name=\"" << xml(c.name) << "\"";
    if (c.ok) {
      os << "/>\n";
    } else {
      // UNCERTAIN fails the testcase too (a CI gate only passes what holds at the unfavourable end).
      os << ">\n      <failure message=\"" << xml(c.message) << "\" type=\"" << verdict_name(c.status) << "\">required "
         << xml(c.required) << ", actual " << xml(c.actual) << "</failure>\n    </testcase>\n";
    }
  }
}

std::size_t failures(const CheckResult& r) {
  std::size_t n = 0;
  for (const auto& c : r.checks) n += !c.ok;
  return n;
}

std::string suite_name(const CheckResult& r) {
  return "kvplan check " + (r.where.empty() ? (r.name.empty() ? r.source : r.name) : r.where);
}

json error_json(std::string_view message, std::string_view file, std::uint64_t line, std::string_view label) {
  json j;
  j["passed"] = false;
  j["exit_code"] = 2;
  j["error"] = valid_utf8(message);
  if (!file.empty()) j["file"] = valid_utf8(file);
  if (line) j["line"] = line;
  if (!label.empty()) j["source"] = valid_utf8(label);
  return j;
}

// Sequences that fit whole (the tolerance is check's own comparison against --require-concurrency).
std::uint64_t whole_sequences(double ratio) {
  return ratio > 0 ? static_cast<std::uint64_t>(std::floor(ratio + 1e-9)) : 0;
}

}  // namespace

nlohmann::json to_json(const CheckResult& r) {
  json j;
  j["passed"] = r.passed;
  j["verdict"] = verdict_name(r.verdict);
  j["strict"] = r.strict;
  j["calibrated"] = r.calibrated;
  j["budget_model"] = r.engine_version;
  auto& terms = j["budget"] = json::array();
  for (const auto& t : r.budget)
    terms.push_back({{"name", t.name}, {"low_bytes", t.low}, {"high_bytes", t.high}, {"typical_bytes", typical_of(t)},
                     {"basis", t.basis}, {"source", t.source}});
  j["device_memory"] = {{"low_bytes", r.device_low_bytes}, {"high_bytes", r.device_high_bytes}, {"basis", r.device_basis}};
  j["estimate"] = {{"kv_memory_bytes", r.kv_memory_estimate_bytes}, {"kv_cache_tokens", r.kv_cache_tokens_estimate}};
  j["favourable"] = {{"kv_memory_bytes", r.kv_memory_favourable_bytes}, {"kv_cache_tokens", r.kv_cache_tokens_favourable},
                     {"max_concurrency", whole_sequences(r.max_concurrency_favourable)},
                     {"max_concurrency_ratio", r.max_concurrency_favourable}};
  j["margin_bytes"] = r.margin_bytes;
  j["margin"] = valid_utf8(r.margin);
  j["exit_code"] = r.exit_code();
  j["source"] = valid_utf8(r.source);
  if (!r.where.empty()) j["where"] = valid_utf8(r.where);
  if (r.line) j["line"] = r.line;
  if (!r.name.empty()) j["name"] = valid_utf8(r.name);
  j["engine"] = r.engine;
  j["model"] = valid_utf8(r.model);
  j["gpu"] = r.gpu;
  j["gpus"] = r.gpus;
  j["gpus_needed"] = r.gpus_needed;
  j["tp"] = r.tp;
  j["pp"] = r.pp;
  j["starts"] = r.starts;
  j["kv_cache_tokens"] = r.kv_cache_tokens;
  j["context"] = r.context;
  // Whole sequences, an integer as in plan's JSON; the engine's own fractional figure ("Maximum
  // concurrency for N tokens per request: 3.52x") is max_concurrency_ratio.
  j["max_concurrency"] = whole_sequences(r.max_concurrency);
  j["max_concurrency_ratio"] = r.max_concurrency;
  j["max_fitting_context"] = r.max_fitting_context;
  j["per_gpu"] = {{"memory_bytes", r.gpu_memory_bytes}, {"weights_bytes", r.weights_bytes_per_gpu}, {"kv_budget_bytes", r.kv_budget_bytes},
                  {"kv_memory_bytes", r.kv_memory_bytes}};
  auto& cs = j["checks"] = json::array();
  for (const auto& c : r.checks)
    cs.push_back({{"name", c.name}, {"ok", c.ok}, {"status", verdict_name(c.status)}, {"required", valid_utf8(c.required)},
                  {"actual", valid_utf8(c.actual)}, {"message", valid_utf8(c.message)}});
  j["reasons"] = json::array();
  for (const auto& x : r.reasons) j["reasons"].push_back(valid_utf8(x));
  j["reason"] = r.reasons.empty() ? json(nullptr) : json(valid_utf8(r.reasons.front()));  // null when none, as in plan
  j["notes"] = json::array();
  for (const auto& x : r.notes) j["notes"].push_back(valid_utf8(x));
  j["ignored_flags"] = json::array();
  for (const auto& x : r.ignored_flags) j["ignored_flags"].push_back(valid_utf8(x));
  j["log_lines"] = r.log_lines;
  j["engine_result"] = engine_json(r.engine_result);
  return j;
}

std::string format_check_text(const CheckResult& r) {
  std::ostringstream os;
  os << verdict_name(r.verdict) << ": " << headline(r) << ": " << summary(r) << "\n";
  if (!r.where.empty() && r.where != "command line") os << "  at " << r.where << "\n";
  for (const auto& c : r.checks)
    os << "  [" << (c.status == Verdict::pass ? "ok" : verdict_name(c.status)) << "] " << c.name << ": " << c.message << "\n";
  if (!r.budget.empty()) {  // empty when the engine refused before its profile
    os << "budget per GPU (" << r.engine_version << "): device " << format_gib(r.device_low_bytes) << " to "
       << format_gib(r.device_high_bytes) << " (" << r.device_basis << ")\n";
    for (const auto& t : r.budget)
      os << "  - " << t.name << ": " << (t.low == t.high ? format_gib(t.low) : format_gib(t.low) + " to " + format_gib(t.high)) << " ["
         << t.basis << "]\n";
    os << "  = KV memory " << format_signed_gib(r.kv_memory_bytes) << " (unfavourable) to "
       << format_signed_gib(r.kv_memory_favourable_bytes) << " (favourable); estimate "
       << format_signed_gib(r.kv_memory_estimate_bytes) << " (every term at its typical value)\n";
  }
  if (!r.log_lines.empty()) {
    os << "engine log lines:\n";
    for (const auto& l : r.log_lines) os << "  " << l << "\n";
  }
  for (const auto& n : r.notes) os << "note: " << n << "\n";
  return valid_utf8(os.str());
}

std::string format_check_github(const CheckResult& r) {
  std::ostringstream os;
  const std::string loc = gh_location(r.source, r.line);
  for (const auto& c : r.checks)
    if (c.status == Verdict::uncertain)
      os << "::warning " << loc << "title=" << gh_prop("kvplan check uncertain: " + c.name) << "::" << gh_escape(c.message) << "\n";
    else if (!c.ok)
      os << "::error " << loc << "title=" << gh_prop("kvplan check: " + c.name) << "::" << gh_escape(c.message) << "\n";
  if (r.passed) os << "::notice " << loc << "title=kvplan check passed::" << gh_escape(headline(r) + ": " + summary(r)) << "\n";
  for (const auto& n : r.notes) os << "::debug::" << gh_escape(n) << "\n";
  return os.str();
}

std::string format_check_junit(const CheckResult& r) {
  CheckOutcome o;
  o.result = r;
  return format_check_outcomes({o}, "junit");
}

std::string format_check(const CheckResult& r, std::string_view format) {
  if (format == "text") return format_check_text(r);
  if (format == "json") return dump(with_schema("check", to_json(r)));
  if (format == "github") return format_check_github(r);
  if (format == "junit") return format_check_junit(r);
  throw InputError::value("--format", format, "text, json, github or junit");
}

std::string format_check_outcomes(const std::vector<CheckOutcome>& outs, std::string_view format) {
  if (format != "text" && format != "json" && format != "github" && format != "junit")
    throw InputError::value("--format", format, "text, json, github or junit");
  if (format == "json") {
    auto one = [](const CheckOutcome& o) { return o.result ? to_json(*o.result) : error_json(o.error, o.file, o.line, o.label); };
    // One document either way, tagged "kvplan.check/1": one deployment's result (or error), or
    // {"exit_code", "passed", "results": [...]} for several.
    if (outs.size() == 1) return dump(with_schema("check", one(outs[0])));
    json j;
    j["exit_code"] = check_exit_code(outs);
    j["passed"] = j["exit_code"] == 0;
    j["results"] = json::array();
    for (const auto& o : outs) j["results"].push_back(one(o));
    return dump(with_schema("check", std::move(j)));
  }
  std::ostringstream os;
  if (format == "text") {
    for (const auto& o : outs)
      if (o.result) os << format_check_text(*o.result);  // errors go to stderr
    return os.str();
  }
  if (format == "github") {
    for (const auto& o : outs) {
      if (o.result) os << format_check_github(*o.result);
      else os << "::error " << gh_location(o.file, o.line) << "title=" << gh_prop("kvplan check: error") << "::" << gh_escape(o.error) << "\n";
    }
    return os.str();
  }
  // JUnit: one document, one testsuite per deployment; an error is a failing testcase.
  std::size_t tests = 0, fails = 0, errors = 0;
  for (const auto& o : outs) {
    if (o.result) tests += o.result->checks.size(), fails += failures(*o.result);
    else ++tests, ++errors;
  }
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << "<testsuites tests=\"" << tests << "\" failures=\"" << fails + errors << "\">\n";
  for (const auto& o : outs) {
    if (o.result) {
      const CheckResult& r = *o.result;
      os << "  <testsuite name=\"" << xml(suite_name(r)) << "\" tests=\"" << r.checks.size() << "\" failures=\"" << failures(r)
         << "\" errors=\"0\">\n";
      junit_cases(os, r);
      os << "    <system-out>" << xml(headline(r) + ": " + summary(r)) << "</system-out>\n";
      os << "  </testsuite>\n";
    } else {
      const std::string label = o.label.empty() ? (o.file.empty() ? std::string("command line") : o.file) : o.label;
      os << "  <testsuite name=\"" << xml("kvplan check " + label) << "\" tests=\"1\" failures=\"1\" errors=\"0\">\n";
      os << "    <testcase classname=\"kvplan.check\" name=\"input\"";
      if (!o.file.empty()) os << " file=\"" << xml(o.file) << "\"";
      if (o.line) os << " line=\"" << o.line << "\"";
      os << ">\n      <failure message=\"" << xml(o.error) << "\">" << xml(o.error) << "</failure>\n    </testcase>\n";
      os << "  </testsuite>\n";
    }
  }
  os << "</testsuites>\n";
  return os.str();
}

std::string format_check_error(std::string_view message, std::string_view file, std::uint64_t line, std::string_view format) {
  CheckOutcome o;
  o.error = std::string(message);
  o.file = std::string(file);
  o.line = line;
  o.label = file.empty() ? "command line" : std::string(file);
  return format_check_outcomes({o}, format);
}

}  // namespace kvplan
