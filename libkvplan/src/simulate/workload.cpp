// Workloads for `kvplan simulate`: trace files (JSONL, the Azure LLM inference trace CSV, BurstGPT
// CSV) and synthetic specs sampled with the simulator's own PRNG (rng.h).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/files.h"
#include "kvplan/simulate.h"
#include "kvplan/units.h"
#include "simulate/rng.h"
#include "util/config_view.h"
#include "util/csv.h"

namespace kvplan {

namespace {

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r')) --b;
  return std::string(s.substr(a, b - a));
}

std::string where(std::string_view source, std::size_t line) { return std::string(source) + ":" + std::to_string(line); }

std::uint64_t csv_uint(std::string_view source, std::size_t line, std::string_view column, const std::string& text) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size())
    throw ConfigError::field(where(source, line), column, "a non-negative integer", "\"" + bounded_echo(text) + "\"", "");
  return v;
}

double csv_double(std::string_view source, std::size_t line, std::string_view column, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0)
    throw ConfigError::field(where(source, line), column, "a non-negative number of seconds", "\"" + bounded_echo(text) + "\"", "");
  return v;
}

// Days from 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// "2023-11-16 18:15:46.6805900" (the Azure trace's TIMESTAMP) -> seconds since the epoch.
double azure_timestamp(std::string_view source, std::size_t line, const std::string& t) {
  int Y = 0, M = 0, D = 0, h = 0, mi = 0;
  double s = 0;
  char tail = 0;
  if (std::sscanf(t.c_str(), "%d-%d-%d%*[ T]%d:%d:%lf%c", &Y, &M, &D, &h, &mi, &s, &tail) < 6 || M < 1 || M > 12 ||
      D < 1 || D > 31 || h > 23 || mi > 59 || s < 0 || s >= 61)
    throw ConfigError::field(where(source, line), "TIMESTAMP", "a date and time like 2023-11-16 18:15:46.6805900",
                             "\"" + bounded_echo(t) + "\"", "");
  return static_cast<double>(days_from_civil(Y, static_cast<unsigned>(M), static_cast<unsigned>(D))) * 86400.0 +
         h * 3600.0 + mi * 60.0 + s;
}

std::uint64_t json_uint(const nlohmann::json& j, std::string_view source, std::size_t line, const char* key, bool required) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (required)
      throw ConfigError::field(where(source, line), std::string("/") + key, "a non-negative integer", "nothing", "");
    return 0;
  }
  if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<std::int64_t>() >= 0))
    throw ConfigError::field(where(source, line), std::string("/") + key, "a non-negative integer", detail::describe_json(*it), "");
  return it->get<std::uint64_t>();
}

// A string session id (BurstGPT's UUIDs, JSONL strings) becomes a stable 64-bit id.
std::uint64_t string_id(std::string_view s) {
  std::uint64_t h = 0x243f6a8885a308d3ULL;
  for (unsigned char c : s) h = detail::hash_mix(h, c);
  return h | 1;  // never 0 (0 = no session)
}

}  // namespace

namespace {
// Byte order marks: a trace is UTF-8 (or ASCII) text without one.
void refuse_byte_order_mark(std::string_view text, std::string_view source) {
  const auto starts = [&](std::string_view m) { return text.substr(0, m.size()) == m; };
  if (starts("\xEF\xBB\xBF"))
    throw ConfigError(bounded_echo(source, kMaxPathEchoBytes) + ": the file starts with a UTF-8 byte order mark (bytes EF BB BF, as Excel and "
                                     "Notepad write); save it as UTF-8 without a BOM");
  if (starts("\xFF\xFE") || starts("\xFE\xFF"))
    throw ConfigError(bounded_echo(source, kMaxPathEchoBytes) + ": the file starts with a UTF-16 byte order mark (bytes " +
                                         std::string(starts("\xFF\xFE") ? "FF FE" : "FE FF") +
                                         "); save it as UTF-8 without a BOM");
}

// prompt + output tokens of one request: the simulator holds them in one sequence.
void check_token_sum(const SimRequest& r, std::string_view source, std::size_t line) {
  std::uint64_t sum = 0;
  if (__builtin_add_overflow(r.prompt_tokens, r.output_tokens, &sum))
    throw ConfigError::field(where(source, line), "prompt + output tokens", "a sum that fits in 64 bits",
                             std::to_string(r.prompt_tokens) + " + " + std::to_string(r.output_tokens), "");
}

void read_jsonl_line(std::string_view l, std::string_view source, std::size_t line, std::vector<SimRequest>& out) {
  // The same bounded JSON reader as config.json: depth checked before parsing (a line nested
  // a million levels deep is one error, not a stack overflow), nlohmann's exceptions mapped.
  const std::string at = where(source, line);
  const nlohmann::json j = detail::parse_config_text(l, at);
  if (!j.is_object()) throw ConfigError::parse(at, "expected one JSON object per line, got " + detail::describe_json(j));
  SimRequest r;
  auto a = j.find("arrival_s");
  if (a == j.end() || !a->is_number() || !(a->get<double>() >= 0) || !std::isfinite(a->get<double>()))
    throw ConfigError::field(at, "/arrival_s", "a non-negative number of seconds",
                             a == j.end() ? "nothing" : detail::describe_json(*a), "");
  r.arrival_s = a->get<double>();
  r.prompt_tokens = json_uint(j, source, line, "prompt_tokens", true);
  r.output_tokens = json_uint(j, source, line, "output_tokens", true);
  r.prefix_tokens = json_uint(j, source, line, "prefix_tokens", false);
  for (const char* key : {"session", "prefix_id"}) {
    auto it = j.find(key);
    std::uint64_t v = 0;
    if (it != j.end() && !it->is_null()) {
      if (it->is_string()) v = string_id(it->get<std::string>());
      else if (it->is_number_unsigned() && it->get<std::uint64_t>() < UINT64_MAX) v = it->get<std::uint64_t>() + 1;  // +1: 0 stays "none"
      else if (it->is_number_integer() && it->get<std::int64_t>() >= 0) v = it->get<std::uint64_t>() + 1;
      else throw ConfigError::field(at, std::string("/") + key, "a string or an integer from 0 to 2^64-2", detail::describe_json(*it), "");
    }
    (std::string_view(key) == "session" ? r.session : r.prefix_id) = v;
  }
  if (r.prefix_tokens && !r.prefix_id)
    throw ConfigError::field(at, "/prefix_tokens", "prefix_id beside it", "prefix_tokens alone", "");
  // The request's priority as vLLM's API takes it (an int, lower first; 0 by default).
  if (auto p = j.find("priority"); p != j.end() && !p->is_null()) {
    if (!p->is_number_integer() || (p->is_number_unsigned() && p->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)))
      throw ConfigError::field(at, "/priority", "an integer (vLLM's request priority: lower runs first)", detail::describe_json(*p), "");
    r.priority = p->get<std::int64_t>();
  }
  // Every key is one the simulator reads: a misspelt "prefix_id" or a field of another trace
  // format would otherwise change nothing, silently.
  static constexpr std::string_view known[] = {"arrival_s", "prompt_tokens", "output_tokens", "session",
                                               "prefix_id", "prefix_tokens", "priority"};
  for (const auto& [key, value] : j.items())
    if (std::find(std::begin(known), std::end(known), key) == std::end(known))
      throw ConfigError::field(at, "/" + bounded_echo(key, 64), "one of arrival_s, prompt_tokens, output_tokens, session, prefix_id, "
                               "prefix_tokens, priority", "an unknown key", "");
  check_token_sum(r, source, line);
  out.push_back(r);
}
}  // namespace

std::vector<SimRequest> parse_trace(std::string_view text, std::string_view source, TraceFormat format) {
  refuse_byte_order_mark(text, source);
  // The first line that is not blank tells the format.
  std::size_t first_line = 1, head_at = 0;
  std::string head;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    head = trim(text.substr(start, end - start));
    if (!head.empty()) {
      head_at = start;
      break;
    }
    start = end + 1;
    ++first_line;
  }
  if (head.empty()) throw ConfigError::parse(source, "the trace has no requests");
  if (format == TraceFormat::automatic) {
    if (head[0] == '{') format = TraceFormat::jsonl;
    else if (head.find("ContextTokens") != std::string::npos) format = TraceFormat::azure_csv;
    else if (head.find("Request tokens") != std::string::npos) format = TraceFormat::burstgpt_csv;
    else
      throw ConfigError::parse(source, "unknown trace format: expected JSONL lines {\"arrival_s\", \"prompt_tokens\", "
                                       "\"output_tokens\"}, an Azure LLM trace CSV (TIMESTAMP,ContextTokens,"
                                       "GeneratedTokens) or a BurstGPT CSV (Timestamp,Model,Request tokens,Response tokens,...)");
  }
  std::vector<SimRequest> out;
  if (format == TraceFormat::jsonl) {
    std::size_t line = first_line;
    for (std::size_t start = head_at; start < text.size(); ++line) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      const std::string l = trim(text.substr(start, end - start));
      start = end + 1;
      if (!l.empty()) read_jsonl_line(l, source, line, out);
    }
  } else {
    detail::CsvReader csv(text.substr(head_at), source);
    std::vector<std::string> cols, f;
    csv.next(cols);
    const std::size_t line0 = first_line - 1;  // the reader counts lines from head_at
    auto col = [&](std::string_view name) -> std::size_t {
      for (std::size_t c = 0; c < cols.size(); ++c)
        if (cols[c] == name) return c;
      throw ConfigError::field(where(source, first_line), "header", "a column named \"" + std::string(name) + "\"",
                               "\"" + bounded_echo(head) + "\"", "");
    };
    const bool azure = format == TraceFormat::azure_csv;
    const std::size_t ct = col(azure ? "TIMESTAMP" : "Timestamp");
    const std::size_t cp = col(azure ? "ContextTokens" : "Request tokens");
    const std::size_t co = col(azure ? "GeneratedTokens" : "Response tokens");
    std::optional<std::size_t> cs;
    for (std::size_t c = 0; c < cols.size(); ++c)
      if (cols[c] == "Session ID") cs = c;
    while (csv.next(f)) {
      const std::size_t line = line0 + csv.line();
      if (f.size() != cols.size())
        throw ConfigError::field(where(source, line), "row", std::to_string(cols.size()) + " columns, as the header",
                                 std::to_string(f.size()), "");
      SimRequest r;
      r.arrival_s = azure ? azure_timestamp(source, line, f[ct]) : csv_double(source, line, cols[ct], f[ct]);
      r.prompt_tokens = csv_uint(source, line, cols[cp], f[cp]);
      r.output_tokens = csv_uint(source, line, cols[co], f[co]);
      if (cs && !f[*cs].empty()) r.session = string_id(f[*cs]);
      check_token_sum(r, source, line);
      out.push_back(r);
    }
  }
  if (out.empty()) throw ConfigError::parse(source, "the trace has no requests");
  // Arrival times are relative to the earliest row (docs/simulate.md "Workloads"): the first row
  // of a trace sorted by time, as published traces are; a row earlier than the first keeps its
  // place before it instead of being clamped to it.
  double t0 = out.front().arrival_s;
  for (const auto& r : out) t0 = std::min(t0, r.arrival_s);
  for (auto& r : out) r.arrival_s -= t0;
  std::stable_sort(out.begin(), out.end(), [](const SimRequest& a, const SimRequest& b) { return a.arrival_s < b.arrival_s; });
  return out;
}

std::vector<SimRequest> load_trace(const std::string& path, TraceFormat format) {
  // Published traces (Azure 2023/2024, BurstGPT) are tens to hundreds of MB.
  return parse_trace(read_regular_file(path, kMaxTraceFileBytes, "trace file (--trace)"), path, format);
}

namespace {
double parse_number(std::string_view text, std::string_view what) {
  std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) throw InputError::value(what, text, "a number");
  return v;
}
std::vector<std::string> split_on(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}
}  // namespace

LengthDist parse_length_dist(std::string_view text, std::string_view what) {
  const std::string expected =
      "fixed:N, uniform:LO:HI, normal:MEAN:SD, lognormal:MEDIAN:SIGMA or histogram:V@W,V@W,...";
  const auto parts = split_on(text, ':');
  LengthDist d;
  const std::string& k = parts[0];
  auto need = [&](std::size_t n) {
    if (parts.size() != n + 1) throw InputError::value(what, text, expected);
  };
  if (k == "fixed" || (parts.size() == 1 && !k.empty() && std::isdigit(static_cast<unsigned char>(k[0])))) {
    d.kind = LengthDist::Kind::fixed;
    d.a = static_cast<double>(parse_tokens(parts.size() == 1 ? parts[0] : (need(1), parts[1]), what));
  } else if (k == "uniform") {
    need(2);
    d.kind = LengthDist::Kind::uniform;
    d.a = static_cast<double>(parse_tokens(parts[1], what));
    d.b = static_cast<double>(parse_tokens(parts[2], what));
    if (d.b < d.a) throw InputError::value(what, text, "uniform:LO:HI with LO <= HI");
  } else if (k == "normal" || k == "lognormal") {
    need(2);
    d.kind = k == "normal" ? LengthDist::Kind::normal : LengthDist::Kind::lognormal;
    d.a = parse_number(parts[1], what);
    d.b = parse_number(parts[2], what);
    if (d.a <= 0 || d.b < 0) throw InputError::value(what, text, k + ":MEAN:SD with MEAN > 0 and SD >= 0");
  } else if (k == "histogram") {
    need(1);
    d.kind = LengthDist::Kind::histogram;
    double total = 0;
    for (const auto& item : split_on(parts[1], ',')) {
      const auto vw = split_on(item, '@');
      if (vw.size() != 2) throw InputError::value(what, text, expected);
      const double w = parse_number(vw[1], what);
      if (!(w > 0)) throw InputError::value(what, text, "positive histogram weights");
      d.bins.emplace_back(parse_tokens(vw[0], what), w);
      total += w;
    }
    if (d.bins.empty() || !(total > 0)) throw InputError::value(what, text, expected);
  } else {
    throw InputError::value(what, text, expected);
  }
  if ((d.kind == LengthDist::Kind::fixed || d.kind == LengthDist::Kind::uniform) && d.a < 1)
    throw InputError::value(what, text, "lengths of at least 1 token");
  return d;
}

WorkloadSpec parse_workload_spec(std::string_view text) {
  WorkloadSpec w;
  std::string s(text);
  for (auto& c : s)
    if (c == ',' || c == ';' || c == '\n' || c == '\t') c = ' ';
  // Histogram bins use commas too: re-join "histogram:..." items split above.
  std::vector<std::string> items;
  {
    std::istringstream is(s);
    std::string tok;
    while (is >> tok) {
      if (tok.find('=') == std::string::npos && !items.empty() && items.back().find("histogram:") != std::string::npos)
        items.back() += "," + tok;
      else
        items.push_back(tok);
    }
  }
  if (items.empty()) throw InputError::value("workload (--workload)", text, "key=value items such as \"rate=10 requests=1000\"");
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw InputError::value("workload (--workload)", item, "key=value");
    const std::string key = item.substr(0, eq), val = item.substr(eq + 1);
    const std::string what = "workload " + key;
    auto positive = [&](double v) {
      if (!(v > 0)) throw InputError::value(what, val, "a positive number");
      return v;
    };
    if (key == "arrivals") {
      if (val == "poisson") w.arrivals = WorkloadSpec::Arrivals::poisson;
      else if (val == "bursty") w.arrivals = WorkloadSpec::Arrivals::bursty;
      else if (val == "closed") w.arrivals = WorkloadSpec::Arrivals::closed;
      else if (val == "at-once" || val == "at_once") w.arrivals = WorkloadSpec::Arrivals::at_once;
      else throw InputError::value(what, val, "poisson, bursty, closed or at-once");
    } else if (key == "rate") w.rate = positive(parse_number(val, what));
    else if (key == "cv") w.burstiness_cv = positive(parse_number(val, what));
    else if (key == "users") w.users = parse_tokens(val, what);
    else if (key == "think") {
      w.think_s = parse_number(val, what);
      if (w.think_s < 0) throw InputError::value(what, val, "a non-negative number of seconds");
    } else if (key == "requests" || key == "n") w.requests = parse_tokens(val, what);
    else if (key == "prompt") w.prompt = parse_length_dist(val, what);
    else if (key == "output") w.output = parse_length_dist(val, what);
    else if (key == "system_prompt") w.system_prompt_tokens = parse_tokens(val, what);
    else if (key == "turns") w.turns = parse_tokens(val, what);
    else if (key == "seed") w.seed = parse_tokens(val, what);
    else if (key == "max_prompt") w.prompt.max = parse_tokens(val, what);
    else if (key == "max_output") w.output.max = parse_tokens(val, what);
    else
      throw InputError::unknown("workload key", key,
                                "arrivals, rate, cv, users, think, requests, prompt, output, system_prompt, turns, seed, "
                                "max_prompt or max_output");
  }
  if (w.requests == 0) throw InputError::value("workload requests", "0", "at least one request");
  if (w.turns == 0) throw InputError::value("workload turns", "0", "at least one turn");
  if (w.arrivals == WorkloadSpec::Arrivals::closed && w.users == 0)
    throw InputError::value("workload users", "0", "at least one user for a closed loop");
  return w;
}

namespace {
const char* arrivals_name(WorkloadSpec::Arrivals a) {
  switch (a) {
    case WorkloadSpec::Arrivals::poisson: return "poisson";
    case WorkloadSpec::Arrivals::bursty: return "bursty";
    case WorkloadSpec::Arrivals::closed: return "closed";
    case WorkloadSpec::Arrivals::at_once: return "at-once";
  }
  return "";
}
std::string dist_text(const LengthDist& d) {
  std::ostringstream os;
  switch (d.kind) {
    case LengthDist::Kind::fixed: os << "fixed:" << static_cast<std::uint64_t>(d.a); break;
    case LengthDist::Kind::uniform: os << "uniform:" << static_cast<std::uint64_t>(d.a) << ":" << static_cast<std::uint64_t>(d.b); break;
    case LengthDist::Kind::normal: os << "normal:" << d.a << ":" << d.b; break;
    case LengthDist::Kind::lognormal: os << "lognormal:" << d.a << ":" << d.b; break;
    case LengthDist::Kind::histogram:
      os << "histogram:";
      for (std::size_t i = 0; i < d.bins.size(); ++i) os << (i ? "," : "") << d.bins[i].first << "@" << d.bins[i].second;
      break;
  }
  return os.str();
}
}  // namespace

nlohmann::json to_json(const WorkloadSpec& w) {
  return {{"arrivals", arrivals_name(w.arrivals)}, {"rate", w.rate}, {"cv", w.burstiness_cv}, {"users", w.users},
          {"think_s", w.think_s}, {"requests", w.requests}, {"prompt", dist_text(w.prompt)},
          {"output", dist_text(w.output)}, {"system_prompt_tokens", w.system_prompt_tokens}, {"turns", w.turns},
          {"seed", w.seed}};
}

namespace detail {

std::uint64_t sample_length(const LengthDist& d, SimRng& rng) {
  double v = 0;
  switch (d.kind) {
    case LengthDist::Kind::fixed: v = d.a; break;
    case LengthDist::Kind::uniform: v = d.a + std::floor(rng.uniform() * (d.b - d.a + 1)); break;
    case LengthDist::Kind::normal: v = d.a + d.b * rng.normal(); break;
    case LengthDist::Kind::lognormal: v = d.a * std::exp(d.b * rng.normal()); break;
    case LengthDist::Kind::histogram: {
      double total = 0;
      for (const auto& b : d.bins) total += b.second;
      double u = rng.uniform() * total;
      v = static_cast<double>(d.bins.back().first);
      for (const auto& b : d.bins) {
        if (u < b.second) {
          v = static_cast<double>(b.first);
          break;
        }
        u -= b.second;
      }
      break;
    }
  }
  v = std::round(v);
  const double lo = static_cast<double>(std::max<std::uint64_t>(1, d.min)), hi = static_cast<double>(d.max);
  v = std::clamp(v, lo, hi);
  return static_cast<std::uint64_t>(v);
}

double sample_gap(const WorkloadSpec& w, SimRng& rng) {
  switch (w.arrivals) {
    case WorkloadSpec::Arrivals::poisson: return rng.exponential(1.0 / w.rate);
    case WorkloadSpec::Arrivals::bursty: {
      // Gamma inter-arrivals with mean 1/rate and CV cv: shape 1/cv^2, scale cv^2/rate.
      const double shape = 1.0 / (w.burstiness_cv * w.burstiness_cv);
      return rng.gamma(shape) / (shape * w.rate);
    }
    case WorkloadSpec::Arrivals::closed:
    case WorkloadSpec::Arrivals::at_once: return 0;
  }
  return 0;
}

}  // namespace detail

std::vector<SimRequest> generate_requests(const WorkloadSpec& w) {
  if (w.arrivals == WorkloadSpec::Arrivals::closed || w.turns > 1)
    throw InputError::value("workload", "closed loop or multi-turn", "an open-loop, single-turn spec (the others are generated during the simulation)");
  detail::SimRng rng(w.seed);
  std::vector<SimRequest> out;
  out.reserve(w.requests);
  double t = 0;
  for (std::uint64_t i = 0; i < w.requests; ++i) {
    if (i > 0) t += detail::sample_gap(w, rng);
    SimRequest r;
    r.arrival_s = t;
    const std::uint64_t p = detail::sample_length(w.prompt, rng);
    r.prompt_tokens = checked_add(p, w.system_prompt_tokens, "prompt tokens");
    r.output_tokens = detail::sample_length(w.output, rng);
    if (w.system_prompt_tokens) {
      r.prefix_id = 1;
      r.prefix_tokens = w.system_prompt_tokens;
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace kvplan
