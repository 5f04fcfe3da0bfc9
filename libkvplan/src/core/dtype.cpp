#include "kvplan/dtype.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/text.h"

namespace kvplan {

namespace {
// Block sizes follow ggml-common.h (q*/iq4_nl), OCP MX (mxfp4: 32 e2m1 + 1 e8m0 scale) and
// NVIDIA NVFP4 (16 e2m1 + 1 fp8 scale), vLLM's fp8/int8 (1 byte, per-tensor scale).
constexpr std::array<DtypeInfo, 15> kTable{{
    {Dtype::fp32, "fp32", 1, 4, "IEEE float32"},
    {Dtype::fp16, "fp16", 1, 2, "IEEE float16"},
    {Dtype::bf16, "bf16", 1, 2, "bfloat16"},
    {Dtype::fp8_e4m3, "fp8_e4m3", 1, 1, "FP8 E4M3 (per-tensor scale)"},
    {Dtype::fp8_e5m2, "fp8_e5m2", 1, 1, "FP8 E5M2 (per-tensor scale)"},
    {Dtype::int8, "int8", 1, 1, "8-bit integer (per-tensor scale)"},
    {Dtype::int4, "int4", 2, 1, "4-bit integer, two per byte"},
    {Dtype::nvfp4, "nvfp4", 16, 9, "NVFP4: 16 x e2m1 + one fp8 scale"},
    {Dtype::mxfp4, "mxfp4", 32, 17, "MXFP4: 32 x e2m1 + one e8m0 scale"},
    {Dtype::q8_0, "q8_0", 32, 34, "ggml q8_0: 32 x int8 + fp16 scale"},
    {Dtype::q4_0, "q4_0", 32, 18, "ggml q4_0: 32 x 4 bit + fp16 scale"},
    {Dtype::q4_1, "q4_1", 32, 20, "ggml q4_1: 32 x 4 bit + fp16 scale and min"},
    {Dtype::q5_0, "q5_0", 32, 22, "ggml q5_0: 32 x 5 bit + fp16 scale"},
    {Dtype::q5_1, "q5_1", 32, 24, "ggml q5_1: 32 x 5 bit + fp16 scale and min"},
    {Dtype::iq4_nl, "iq4_nl", 32, 18, "ggml iq4_nl: 32 x 4 bit non-linear + fp16 scale"},
}};

struct Alias {
  std::string_view alias;
  Dtype dtype;
};
constexpr std::array<Alias, 16> kAliases{{
    {"float32", Dtype::fp32}, {"float", Dtype::fp32}, {"f32", Dtype::fp32},
    {"float16", Dtype::fp16}, {"half", Dtype::fp16}, {"f16", Dtype::fp16},
    {"bfloat16", Dtype::bf16}, {"fp8", Dtype::fp8_e4m3}, {"float8_e4m3fn", Dtype::fp8_e4m3},
    {"fp8_e4m3fn", Dtype::fp8_e4m3}, {"float8_e5m2", Dtype::fp8_e5m2}, {"e4m3", Dtype::fp8_e4m3},
    {"e5m2", Dtype::fp8_e5m2}, {"uint8", Dtype::int8}, {"fp4", Dtype::nvfp4}, {"q8", Dtype::q8_0},
}};

}  // namespace

const DtypeInfo& info(Dtype d) { return kTable[static_cast<std::size_t>(d)]; }

std::span<const DtypeInfo> all_dtypes() { return kTable; }

Dtype parse_dtype(std::string_view text, std::string_view what) {
  std::string key = ascii_lower(text);
  if (key.starts_with("torch.")) key = key.substr(6);
  for (const auto& d : kTable)
    if (d.name == key) return d.dtype;
  for (const auto& a : kAliases)
    if (a.alias == key) return a.dtype;
  std::string best;
  std::size_t best_d = 3;
  for (const auto& d : kTable) {
    auto dist = edit_distance(key, d.name, best_d);
    if (dist < best_d) best_d = dist, best = d.name;
  }
  std::string names;
  for (const auto& d : kTable) {
    if (!names.empty()) names += ' ';
    names += d.name;
  }
  if (!best.empty()) throw InputError::unknown(what, text, best);
  throw InputError::value(what, text, "one of: " + names + " (or auto)");
}

std::uint64_t row_bytes(Dtype d, std::uint64_t values) {
  const auto& i = info(d);
  return checked_mul(ceil_div(values, i.block_values), i.block_bytes, "row bytes");
}

double bits_per_value(Dtype d) {
  const auto& i = info(d);
  return 8.0 * i.block_bytes / i.block_values;
}

}  // namespace kvplan
