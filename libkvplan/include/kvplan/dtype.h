#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kvplan {

// Storage formats for cache elements (and weights). Block formats store `block_values`
// numbers in `block_bytes` bytes (ggml's q8_0 = 32 values in 34 bytes; nvfp4 = 16 fp4 values
// plus one fp8 scale = 9 bytes).
enum class Dtype {
  fp32, fp16, bf16, fp8_e4m3, fp8_e5m2, int8, int4, nvfp4, mxfp4,
  q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl,
};

struct DtypeInfo {
  Dtype dtype;
  std::string_view name;        // canonical name, e.g. "bf16", "q8_0"
  std::uint32_t block_values;   // numbers per block
  std::uint32_t block_bytes;    // bytes per block
  std::string_view description;
};

const DtypeInfo& info(Dtype d);
std::span<const DtypeInfo> all_dtypes();
inline std::string_view name(Dtype d) { return info(d).name; }

// Accepts the canonical names plus common aliases ("fp8" = fp8_e4m3, "float16", "bfloat16",
// "f16", "half", "float32", "float"). Throws InputError naming `what` for anything else.
Dtype parse_dtype(std::string_view text, std::string_view what = "dtype");

// Bytes for one row of `values` numbers: whole blocks, rounded up (ggml's row size rule).
std::uint64_t row_bytes(Dtype d, std::uint64_t values);

// Bits per value, for display only.
double bits_per_value(Dtype d);

// One spelling of an engine flag's dtype value and the element it stores.
struct DtypeSpelling {
  std::string_view name;
  Dtype dtype;
};
// vLLM's --kv-cache-dtype values other than "auto" (the serving dtype) and "fp8_ds_mla" (fp8
// with DeepSeek-V3.2's own 656-byte layout), as engines/engine_vllm.cpp reads them: the one list
// the vLLM profile parses and the planner's `--engine vllm` advice (EnginePreset::kv_dtypes) offers.
inline constexpr std::array<DtypeSpelling, 12> kVllmKvCacheDtypes{{
    {"fp8", Dtype::fp8_e4m3}, {"fp8_e4m3", Dtype::fp8_e4m3}, {"fp8_e5m2", Dtype::fp8_e5m2}, {"nvfp4", Dtype::nvfp4},
    {"bf16", Dtype::bf16}, {"bfloat16", Dtype::bf16}, {"fp16", Dtype::fp16}, {"float16", Dtype::fp16},
    {"half", Dtype::fp16}, {"fp32", Dtype::fp32}, {"float32", Dtype::fp32}, {"float", Dtype::fp32},
}};

}  // namespace kvplan
