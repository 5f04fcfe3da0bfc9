#pragma once
// Internal: typed, path-tracking access to a config.json. Every read names the JSON pointer of
// the field so errors say exactly which field was wrong and what was expected.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/error.h"

namespace kvplan::detail {

// Largest value accepted for any single dimension; anything above is "absurd", not a model.
inline constexpr std::uint64_t kMaxDimension = 1ull << 40;

class ConfigView {
 public:
  ConfigView(nlohmann::json root, std::string source);

  const std::string& source() const { return source_; }
  const std::string& model_type() const { return model_type_; }
  const std::string& root_model_type() const { return root_model_type_; }
  const nlohmann::json& root() const { return root_; }
  const nlohmann::json& text() const { return *text_; }
  const std::string& text_pointer() const { return text_pointer_; }

  // Field access on the text config (the nested text_config/llm_config/language_config when
  // present, else the root). `null` counts as absent.
  bool has(std::string_view key) const;
  bool has_root(std::string_view key) const;
  std::string pointer(std::string_view key) const;  // "/text_config/num_key_value_heads"

  std::optional<std::uint64_t> uint(std::string_view key, bool allow_zero = false) const;
  std::uint64_t require_uint(std::string_view key, bool allow_zero = false) const;
  // First present of several spellings.
  std::optional<std::uint64_t> uint_any(std::initializer_list<std::string_view> keys, bool allow_zero = false) const;
  std::uint64_t require_uint_any(std::initializer_list<std::string_view> keys, bool allow_zero = false) const;
  std::optional<double> number(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<std::string> string(std::string_view key) const;
  std::optional<std::vector<std::string>> string_list(std::string_view key) const;
  std::optional<std::vector<std::uint64_t>> uint_list(std::string_view key, bool allow_zero = true) const;
  // A dtype name found on the text config or the root ("torch_dtype" / "dtype").
  std::optional<std::string> dtype_name() const;

  [[noreturn]] void fail(std::string_view key, std::string_view expected, const nlohmann::json* got) const;
  [[noreturn]] void fail_at(std::string_view pointer, std::string_view expected, std::string_view got) const;

 private:
  const nlohmann::json* find(std::string_view key) const;
  nlohmann::json root_;
  const nlohmann::json* text_ = nullptr;
  std::string text_pointer_;
  std::string source_;
  std::string model_type_;
  std::string root_model_type_;
};

// Parses JSON as real configs are written: accepts the bare Infinity/-Infinity/NaN tokens
// Python's json module emits. Throws ConfigError naming `source` on malformed text.
// `nonfinite_as_text` (deployment files): NaN and Infinity become the strings "NaN" and
// "Infinity", so a field given as NaN is an error naming it, not a null read as absent.
nlohmann::json parse_config_text(std::string_view text, std::string_view source, bool nonfinite_as_text = false);

// Throws ConfigError::too_deep naming `source` when arrays/objects in `text` nest deeper than
// kMaxJsonDepth (a scan outside strings; no parsing, no recursion).
void check_json_depth(std::string_view text, std::string_view source);

// "eight" / 3.5 / -1 rendered for messages: at most 60 characters, invalid UTF-8 replaced,
// control characters escaped; iterative, so any nesting depth is safe.
std::string describe_json(const nlohmann::json& v);

}  // namespace kvplan::detail
