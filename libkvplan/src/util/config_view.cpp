#include "util/config_view.h"

#include <cmath>
#include <limits>
#include <utility>

#include "kvplan/files.h"

namespace kvplan::detail {

namespace {
const char* const kNested[] = {"text_config", "llm_config", "language_config"};
}

namespace {
constexpr std::size_t kDescribeCap = 60;

void put_scalar(std::string& out, const nlohmann::json& x) {
  if (x.is_string() && x.get_ref<const std::string&>().size() > kDescribeCap) {
    // Only the head is shown: do not dump a megabyte to keep 60 characters of it.
    const nlohmann::json head = x.get_ref<const std::string&>().substr(0, kDescribeCap);
    out += head.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return;
  }
  out += x.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
}  // namespace

std::string describe_json(const nlohmann::json& v) {
  // An explicit stack instead of dump()'s recursion; stops as soon as the cap is passed.
  std::string s;
  std::vector<std::pair<const nlohmann::json*, nlohmann::json::const_iterator>> stack;
  const nlohmann::json* next = &v;
  while (s.size() <= kDescribeCap) {
    if (next) {
      const nlohmann::json& x = *next;
      next = nullptr;
      if (x.is_object() || x.is_array()) {
        s += x.is_object() ? '{' : '[';
        stack.emplace_back(&x, x.cbegin());
      } else {
        put_scalar(s, x);
      }
      continue;
    }
    if (stack.empty()) break;
    auto& [c, it] = stack.back();
    if (it == c->cend()) {
      s += c->is_object() ? '}' : ']';
      stack.pop_back();
      continue;
    }
    if (it != c->cbegin()) s += ',';
    if (c->is_object()) {
      put_scalar(s, nlohmann::json(it.key()));
      s += ':';
    }
    next = &*it;
    ++it;
  }
  if (s.size() > kDescribeCap) s = s.substr(0, kDescribeCap - 3) + "...";
  return s;
}

void check_json_depth(std::string_view text, std::string_view source) {
  std::size_t depth = 0;
  bool in_string = false, escape = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escape) escape = false;
      else if (c == '\\') escape = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) throw ConfigError::too_deep(source, kMaxJsonDepth, i);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

nlohmann::json parse_config_text(std::string_view text, std::string_view source, bool nonfinite_as_text) {
  check_json_depth(text, source);
  // Replace bare Infinity / NaN tokens outside strings. Infinity becomes the largest double
  // (no KV-relevant field is infinite); NaN becomes null.
  std::string cleaned;
  cleaned.reserve(text.size());
  bool in_string = false, escape = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      cleaned += c;
      if (escape) escape = false;
      else if (c == '\\') escape = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      cleaned += c;
      continue;
    }
    auto word_at = [&](std::string_view w) { return text.substr(i, w.size()) == w; };
    if (word_at("Infinity")) {
      cleaned += nonfinite_as_text ? "\"Infinity\"" : "1.7976931348623157e308";
      i += 7;
      continue;
    }
    if (word_at("NaN")) {
      cleaned += nonfinite_as_text ? "\"NaN\"" : "null";
      i += 2;
      continue;
    }
    cleaned += c;
  }
  try {
    return nlohmann::json::parse(cleaned);
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix.
    if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    throw ConfigError::parse(source, what);
  }
}

ConfigView::ConfigView(nlohmann::json root, std::string source) : root_(std::move(root)), source_(std::move(source)) {
  if (!root_.is_object()) fail_at("", "a JSON object", describe_json(root_));
  text_ = &root_;
  for (const char* key : kNested) {
    auto it = root_.find(key);
    if (it != root_.end() && !it->is_null()) {
      if (!it->is_object()) fail_at(std::string("/") + key, "an object", describe_json(*it));
      text_ = &*it;
      text_pointer_ = std::string("/") + key;
      break;
    }
  }
  auto mt = [&](const nlohmann::json& j, const std::string& ptr) -> std::string {
    auto it = j.find("model_type");
    if (it == j.end() || it->is_null()) return {};
    if (!it->is_string()) fail_at(ptr + "/model_type", "a string", describe_json(*it));
    return it->get<std::string>();
  };
  root_model_type_ = mt(root_, "");
  model_type_ = text_ == &root_ ? root_model_type_ : mt(*text_, text_pointer_);
  if (model_type_.empty()) model_type_ = root_model_type_;
}

const nlohmann::json* ConfigView::find(std::string_view key) const {
  auto it = text_->find(key);
  if (it == text_->end() || it->is_null()) return nullptr;
  return &*it;
}

bool ConfigView::has(std::string_view key) const { return find(key) != nullptr; }
bool ConfigView::has_root(std::string_view key) const {
  auto it = root_.find(key);
  return it != root_.end() && !it->is_null();
}

std::string ConfigView::pointer(std::string_view key) const { return text_pointer_ + "/" + std::string(key); }

void ConfigView::fail(std::string_view key, std::string_view expected, const nlohmann::json* got) const {
  fail_at(pointer(key), expected, got ? describe_json(*got) : "nothing (field missing)");
}

void ConfigView::fail_at(std::string_view ptr, std::string_view expected, std::string_view got) const {
  throw ConfigError::field(source_, ptr, expected, got, model_type_);
}

std::optional<std::uint64_t> ConfigView::uint(std::string_view key, bool allow_zero) const {
  const auto* v = find(key);
  if (!v) return std::nullopt;
  const char* expected = allow_zero ? "a non-negative integer" : "a positive integer";
  std::uint64_t out = 0;
  if (v->is_number_unsigned()) {
    out = v->get<std::uint64_t>();
  } else if (v->is_number_integer()) {
    if (v->get<std::int64_t>() < 0) fail(key, expected, v);
    out = static_cast<std::uint64_t>(v->get<std::int64_t>());
  } else if (v->is_number_float()) {
    double d = v->get<double>();
    // Some configs write integers as 4096.0; accept those, reject real fractions.
    if (!std::isfinite(d) || d < 0 || d != std::floor(d) || d > static_cast<double>(kMaxDimension)) fail(key, expected, v);
    out = static_cast<std::uint64_t>(d);
  } else {
    fail(key, expected, v);
  }
  if (out == 0 && !allow_zero) fail(key, expected, v);
  if (out > kMaxDimension) fail(key, "a value of at most 2^40 (larger is not a real model)", v);
  return out;
}

std::uint64_t ConfigView::require_uint(std::string_view key, bool allow_zero) const {
  auto v = uint(key, allow_zero);
  if (!v) fail(key, allow_zero ? "a non-negative integer" : "a positive integer", nullptr);
  return *v;
}

std::optional<std::uint64_t> ConfigView::uint_any(std::initializer_list<std::string_view> keys, bool allow_zero) const {
  for (auto k : keys)
    if (has(k)) return uint(k, allow_zero);
  return std::nullopt;
}

std::uint64_t ConfigView::require_uint_any(std::initializer_list<std::string_view> keys, bool allow_zero) const {
  auto v = uint_any(keys, allow_zero);
  if (!v) {
    std::string names;
    for (auto k : keys) names += (names.empty() ? "" : " or ") + std::string(k);
    fail_at(pointer(*keys.begin()), std::string("a positive integer (field ") + names + ")", "nothing (field missing)");
  }
  return *v;
}

std::optional<double> ConfigView::number(std::string_view key) const {
  const auto* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_number()) fail(key, "a number", v);
  return v->get<double>();
}

std::optional<bool> ConfigView::boolean(std::string_view key) const {
  const auto* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) fail(key, "true or false", v);
  return v->get<bool>();
}

std::optional<std::string> ConfigView::string(std::string_view key) const {
  const auto* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_string()) fail(key, "a string", v);
  return v->get<std::string>();
}

std::optional<std::vector<std::string>> ConfigView::string_list(std::string_view key) const {
  const auto* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_array()) fail(key, "an array of strings", v);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const auto& e = (*v)[i];
    if (!e.is_string()) fail_at(pointer(key) + "/" + std::to_string(i), "a string", describe_json(e));
    out.push_back(e.get<std::string>());
  }
  return out;
}

std::optional<std::vector<std::uint64_t>> ConfigView::uint_list(std::string_view key, bool allow_zero) const {
  const auto* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_array()) fail(key, "an array of integers", v);
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const auto& e = (*v)[i];
    bool ok = e.is_number_unsigned() || (e.is_number_integer() && e.get<std::int64_t>() >= 0);
    if (!ok || (!allow_zero && e.get<std::int64_t>() == 0) || (ok && e.get<std::uint64_t>() > kMaxDimension))
      fail_at(pointer(key) + "/" + std::to_string(i), allow_zero ? "a non-negative integer" : "a positive integer",
              describe_json(e));
    out.push_back(e.get<std::uint64_t>());
  }
  return out;
}

std::optional<std::string> ConfigView::dtype_name() const {
  for (const nlohmann::json* j : {text_, &root_}) {
    for (const char* key : {"torch_dtype", "dtype"}) {
      auto it = j->find(key);
      if (it != j->end() && !it->is_null()) {
        if (!it->is_string())
          fail_at((j == &root_ ? std::string() : text_pointer_) + "/" + key, "a dtype name string", describe_json(*it));
        return it->get<std::string>();
      }
    }
  }
  return std::nullopt;
}

}  // namespace kvplan::detail
