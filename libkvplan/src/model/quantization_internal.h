#pragma once
// Internal: quantization_config -> WeightQuantization and its byte rule (quantization.cpp).
#include <string>

#include <nlohmann/json.hpp>

#include "kvplan/model.h"
#include "util/config_view.h"

namespace kvplan::detail {
// Reads one quantisation block (`q`, at JSON pointer `ptr`) into m.quantization; `mlx_root` when
// it is mlx-lm's root "quantization" object. An unknown quant_method is UnsupportedArchitecture
// naming it, never a silent 16-bit price.
void read_weight_quantization(const ConfigView& c, const nlohmann::json& q, const std::string& ptr, bool mlx_root,
                              ModelSpec& m);
// Bytes of one rows x cols matrix stored in `q`'s format, scales, zero points and per-matrix
// extras included.
std::uint64_t quantised_matrix_bytes(const WeightQuantization& q, std::uint64_t rows, std::uint64_t cols);
}  // namespace kvplan::detail
