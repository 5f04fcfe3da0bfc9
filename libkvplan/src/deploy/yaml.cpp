#include "deploy/yaml.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "kvplan/deploy.h"
#include "kvplan/error.h"

#ifdef KVPLAN_HAVE_YAML
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>
#endif

namespace kvplan::detail {

std::uint64_t YamlDocument::line_of(const std::string& pointer) const {
  std::uint64_t best = line;
  std::size_t best_len = 0;
  for (const auto& [p, l] : lines)
    if (p.size() >= best_len && pointer.compare(0, p.size(), p) == 0 &&
        (pointer.size() == p.size() || pointer[p.size()] == '/')) {
      best = l;
      best_len = p.size();
    }
  return best;
}

#ifdef KVPLAN_HAVE_YAML

bool yaml_available() { return true; }

namespace {

std::string escape_pointer(const std::string& k) {
  std::string o;
  for (char c : k) {
    if (c == '~') o += "~0";
    else if (c == '/') o += "~1";
    else o += c;
  }
  return o;
}

// YAML 1.2 core schema for plain scalars.
nlohmann::json plain_scalar(const std::string& v) {
  if (v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL") return nullptr;
  if (v == "true" || v == "True" || v == "TRUE") return true;
  if (v == "false" || v == "False" || v == "FALSE") return false;
  const bool neg = v[0] == '-';
  const std::size_t d = (v[0] == '-' || v[0] == '+') ? 1 : 0;
  if (d < v.size() && std::all_of(v.begin() + static_cast<std::ptrdiff_t>(d), v.end(),
                                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    errno = 0;
    if (neg) {
      const long long x = std::strtoll(v.c_str(), nullptr, 10);
      if (errno == 0) return static_cast<std::int64_t>(x);
    } else {
      const unsigned long long x = std::strtoull(v.c_str() + d, nullptr, 10);
      if (errno == 0) return static_cast<std::uint64_t>(x);
    }
    return v;  // out of range: kept as text, the reader reports it
  }
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (end && *end == '\0' && (std::isdigit(static_cast<unsigned char>(v[d])) || v[d] == '.') && v.find_first_of("xXpP") == std::string::npos)
    return x;
  return v;
}

struct Converter {
  std::string_view source;
  YamlDocument* doc;
  std::uint64_t visited = 0;

  nlohmann::json convert(const YAML::Node& n, const std::string& pointer, std::uint64_t depth) {
    if (++visited > kMaxYamlNodes)
      throw DeploymentError::at(source, n.Mark().line + 1,
                                "more than " + std::to_string(kMaxYamlNodes) + " YAML nodes after alias expansion (refused)");
    if (depth > kMaxYamlDepth)
      throw DeploymentError::at(source, n.Mark().line + 1,
                                "YAML nested deeper than " + std::to_string(kMaxYamlDepth) + " levels (refused)");
    switch (n.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null: return nullptr;
      case YAML::NodeType::Scalar: return n.Tag() == "!" ? nlohmann::json(n.Scalar()) : plain_scalar(n.Scalar());
      case YAML::NodeType::Sequence: {
        nlohmann::json a = nlohmann::json::array();
        std::size_t i = 0;
        for (const auto& x : n) {
          const std::string p = pointer + "/" + std::to_string(i++);
          doc->lines.emplace_back(p, x.Mark().line + 1);
          a.push_back(convert(x, p, depth + 1));
        }
        return a;
      }
      case YAML::NodeType::Map: {
        nlohmann::json o = nlohmann::json::object();
        for (const auto& kv : n) {
          if (!kv.first.IsScalar())
            throw DeploymentError::at(source, kv.first.Mark().line + 1, "a mapping key that is not a scalar");
          const std::string k = kv.first.Scalar();
          if (o.contains(k)) throw DeploymentError::at(source, kv.first.Mark().line + 1, "duplicate key \"" + k + "\"");
          const std::string p = pointer + "/" + escape_pointer(k);
          doc->lines.emplace_back(p, kv.first.Mark().line + 1);
          o[k] = convert(kv.second, p, depth + 1);
        }
        return o;
      }
    }
    return nullptr;
  }
};

// yaml-cpp 0.7's LoadAll never returns (and allocates without bound) on a stream where a document
// starts on a token no node can begin with, e.g. a ',' outside [ ] or { }: the parser reports a
// null document there without consuming the token, again and again (jbeder/yaml-cpp#1040, fixed
// upstream by #1319 after 0.8.0). An event pass first finds a document that starts where the last
// one did.
class ProgressProbe : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> start;
  void OnDocumentStart(const YAML::Mark& m) override { start = m; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

void refuse_stuck_streams(const std::string& text, std::string_view source) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  ProgressProbe probe;
  std::optional<int> last_pos;
  std::uint64_t documents = 0;
  while (parser.HandleNextDocument(probe)) {
    const int pos = probe.start ? probe.start->pos : -1;
    // Every real document consumes at least one byte, so more documents than bytes is the loop too.
    if ((last_pos && pos == *last_pos) || ++documents > text.size() + 1) {
      const std::uint64_t line = probe.start ? static_cast<std::uint64_t>(probe.start->line) + 1 : 0;
      const std::size_t at = pos >= 0 ? static_cast<std::size_t>(pos) : text.size();
      throw DeploymentError::at(source, line,
                                "not valid YAML: no value can start with \"" + text.substr(at, 1) +
                                    "\" here (a ',' or other indicator outside [ ] or { } must be quoted)");
    }
    last_pos = pos;
  }
}

}  // namespace

std::vector<YamlDocument> parse_yaml_documents(std::string_view text, std::string_view source) {
  if (text.size() > kMaxDeploymentFileBytes)
    throw DeploymentError::at(source, 0, "YAML text of " + std::to_string(text.size()) + " bytes (at most " +
                                             std::to_string(kMaxDeploymentFileBytes) + ")");
  std::vector<YAML::Node> nodes;
  const std::string owned(text);
  try {
    refuse_stuck_streams(owned, source);
    nodes = YAML::LoadAll(owned);
  } catch (const YAML::Exception& e) {
    const std::uint64_t line = e.mark.is_null() ? 0 : static_cast<std::uint64_t>(e.mark.line) + 1;
    throw DeploymentError::at(source, line, "not valid YAML: " + e.msg);
  }
  std::vector<YamlDocument> out;
  std::uint64_t visited = 0;
  for (const auto& n : nodes) {
    YamlDocument d;
    d.line = n.Mark().is_null() ? 1 : static_cast<std::uint64_t>(n.Mark().line) + 1;
    Converter c{source, &d, visited};
    try {
      d.value = c.convert(n, "", 0);
    } catch (const YAML::Exception& e) {
      throw DeploymentError::at(source, e.mark.is_null() ? 0 : e.mark.line + 1, "not valid YAML: " + e.msg);
    }
    visited = c.visited;
    if (!d.value.is_null()) out.push_back(std::move(d));
  }
  return out;
}

#else

bool yaml_available() { return false; }

std::vector<YamlDocument> parse_yaml_documents(std::string_view, std::string_view source) {
  throw DeploymentError::at(source, 0, "YAML is not available in this build (no yaml-cpp); give JSON");
}

#endif

}  // namespace kvplan::detail
