// GGUF header reader + metadata translation + mapping on arbitrary bytes: only kvplan::Error may
// escape, and no input may allocate past the reader's limits (libFuzzer's -rss_limit_mb).
#include <cstdint>
#include <sstream>
#include <string>

#include "kvplan/kvplan.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    std::istringstream in(bytes);
    kvplan::GgufLimits lim;
    lim.max_string_bytes = 1u << 16;  // keep a fuzz input's claims small
    lim.max_array = 1u << 16;
    auto h = kvplan::read_gguf_header(in, size, "fuzz.gguf", lim);
    std::uint64_t sum = 0;
    for (const auto& t : kvplan::gguf_checkpoint_tensors(h)) sum = kvplan::checked_add(sum, t.bytes);
    auto cfg = kvplan::gguf_to_config(h, "fuzz.gguf");
    (void)kvplan::load_model_from_json(cfg.dump(), "fuzz.gguf");
  } catch (const kvplan::Error&) {
  }
  return 0;
}
