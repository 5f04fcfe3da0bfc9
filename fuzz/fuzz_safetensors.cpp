// safetensors header parser on arbitrary bytes (the JSON after the 8-byte length): only
// kvplan::Error may escape; per-layer sums never overflow silently.
#include <cstdint>
#include <string_view>

#include "kvplan/kvplan.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto ts = kvplan::parse_safetensors_header(text, "fuzz.safetensors", size * 4096);
    auto w = kvplan::sum_checkpoint_tensors(ts, 1 + size % 64, "fuzz");
    std::uint64_t layers = w.non_layer_bytes;
    for (auto b : w.layer_bytes) layers = kvplan::checked_add(layers, b);
    if (layers != w.total_bytes) __builtin_trap();
  } catch (const kvplan::Error&) {
  }
  return 0;
}
