// Trace reader (--trace: JSONL lines, Azure and BurstGPT CSV) on arbitrary bytes: only
// kvplan::Error may escape, a message stays within kMaxMessageBytes (plus the cut marker), and
// every request read is one the simulator can run: arrivals finite, >= 0 and sorted (shifted to
// the earliest row), prompt + output tokens not wrapping 64 bits.
#include <cstdint>
#include <cmath>
#include <cstring>
#include <string_view>

#include "kvplan/error.h"
#include "kvplan/simulate.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto reqs = kvplan::parse_trace(text, "fuzz.jsonl");
    double prev = 0;
    for (const auto& r : reqs) {
      if (!std::isfinite(r.arrival_s) || r.arrival_s < 0 || r.arrival_s < prev) __builtin_trap();
      if (r.prompt_tokens + r.output_tokens < r.prompt_tokens) __builtin_trap();
      prev = r.arrival_s;
    }
    if (!reqs.empty() && reqs.front().arrival_s != 0) __builtin_trap();
  } catch (const kvplan::Error& e) {
    if (std::strlen(e.what()) > kvplan::kMaxMessageBytes + 64) __builtin_trap();
  }
  return 0;
}
