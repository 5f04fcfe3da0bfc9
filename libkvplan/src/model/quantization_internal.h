#pragma once
// Internal: quantization_config -> WeightQuantization and its byte rule (quantization.cpp).
#include <regex>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kvplan/model.h"
#include "kvplan/parameters.h"
#include "util/config_view.h"

namespace kvplan::detail {
// Reads one quantisation block (`q`, at JSON pointer `ptr`) into m.quantization; `mlx_root` when
// it is mlx-lm's root "quantization" object. An unknown quant_method is UnsupportedArchitecture
// naming it, never a silent 16-bit price.
void read_weight_quantization(const ConfigView& c, const nlohmann::json& q, const std::string& ptr, bool mlx_root,
                              ModelSpec& m);
// A module-list entry "re:PATTERN" (compressed-tensors `ignore`) is a regular expression on module
// names; `module_regex` compiles its pattern (ECMAScript; throws std::regex_error for one std::regex
// cannot read, which read_weight_quantization reports as a ConfigError naming the entry).
inline bool is_module_regex(std::string_view entry) { return entry.substr(0, 3) == "re:"; }
std::regex module_regex(std::string_view entry);
// Bytes of one rows x cols matrix stored in `q`'s format, scales, zero points and per-matrix
// extras included.
std::uint64_t quantised_matrix_bytes(const WeightQuantization& q, std::uint64_t rows, std::uint64_t cols);

// --weight-dtype presets. `weight_preset_name` gives the canonical name for `text` (any case) or
// empty; `weight_preset` builds the preset's WeightQuantization for model `m` through the same
// reader a checkpoint's quantization_config goes through (GGUF file types: method "gguf",
// describe = the file type).
struct WeightPresetInfo {
  std::string_view name;
  std::string_view summary;  // for listings: "AutoAWQ GEMM int4, group 128, zero points"
};
std::span<const WeightPresetInfo> weight_presets();
std::string weight_preset_name(std::string_view text);
WeightQuantization weight_preset(std::string_view name, const ModelSpec& m);

// Facts of a model that llama-quantize's type choice reads (llama-quant.cpp): GQA ratio, expert
// count, layer count, and the running index over attn_v-like tensors.
struct GgufQuantContext {
  std::uint64_t n_gqa = 1;
  std::uint64_t n_expert = 0;
  std::uint64_t n_layer = 0;
  std::uint64_t n_attention_wv = 0;  // attn_v / attn_qkv / attn_kv_b tensors in the model
  std::uint64_t i_attention_wv = 0;  // advanced by gguf_preset_tensor_bytes
};
bool gguf_attn_v_like(const WeightTensor& t);
// Bytes of all `t.count` copies of one inventory tensor group in the GGUF file type q.describe;
// `types` gets the ggml type names used, for the scheme line.
std::uint64_t gguf_preset_tensor_bytes(const WeightQuantization& q, const WeightTensor& t, GgufQuantContext& ctx,
                                       std::set<std::string>& types);
}  // namespace kvplan::detail
