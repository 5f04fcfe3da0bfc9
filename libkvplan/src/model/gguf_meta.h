#pragma once
// Internal: one GGUF file's metadata as llama.cpp's loader reads it (keys "<arch>.<name>",
// llama-arch.cpp LLM_KV_*), for model/gguf_config.cpp and the families' GgufArch::translate.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/error.h"
#include "util/config_view.h"

namespace kvplan::detail {

struct GgufMeta {
  const nlohmann::json& md;
  std::string arch;
  std::string source;
  std::uint64_t n_layers = 0;
  std::vector<std::uint64_t> kv_heads;  // attention.head_count_kv per layer (empty when absent)

  const nlohmann::json* get(const std::string& key) const {
    auto it = md.find(arch + "." + key);
    return it == md.end() ? nullptr : &*it;
  }
  [[noreturn]] void bad(const std::string& key, const std::string& expected) const {
    throw ConfigError::field(source, arch + "." + key, expected, get(key) ? detail::describe_json(*get(key)) : "nothing",
                             "gguf:" + arch);
  }
  std::optional<std::uint64_t> uint(const std::string& key) const {
    const nlohmann::json* v = get(key);
    if (!v) return std::nullopt;
    if (v->is_number_unsigned()) return v->get<std::uint64_t>();
    if (v->is_number_integer() && v->get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v->get<std::int64_t>());
    bad(key, "a non-negative integer");
  }
  std::uint64_t require(const std::string& key) const {
    if (auto v = uint(key)) return *v;
    bad(key, "a non-negative integer");
  }
  // A key that is "a scalar or one value per layer" (llama.cpp's get_key_or_arr).
  std::optional<std::vector<std::uint64_t>> per_layer(const std::string& key) const {
    const nlohmann::json* v = get(key);
    if (!v) return std::nullopt;
    if (v->is_array()) {
      if (v->size() != n_layers) bad(key, "one value per layer (" + std::to_string(n_layers) + ")");
      std::vector<std::uint64_t> out;
      for (const auto& e : *v) {
        if (!e.is_number_integer() || e.get<std::int64_t>() < 0) bad(key, "non-negative integers");
        out.push_back(e.get<std::uint64_t>());
      }
      return out;
    }
    return std::vector<std::uint64_t>(n_layers, require(key));
  }
  std::optional<double> number(const std::string& key) const {
    const nlohmann::json* v = get(key);
    return v && v->is_number() ? std::optional<double>(v->get<double>()) : std::nullopt;
  }
};

// Keys of llama.cpp's Mamba-2 block (ssm.inner_size, time_step_rank = heads, group_count,
// state_size, conv_kernel) written into `c` under the config names `names` gives
// {heads, head_dim, groups, state, conv}. Shared by the mamba2 and granitehybrid architectures.
struct Mamba2Keys {
  const char* heads;
  const char* head_dim;
  const char* groups;
  const char* state;
  const char* conv;
};
void gguf_mamba2_fields(const GgufMeta& m, nlohmann::json& c, const Mamba2Keys& names);

}  // namespace kvplan::detail
