#pragma once
// Seed S13, the generation loop: a prompt of P tokens, then one new token per step. With a KV
// cache, step 0 (prefill) computes the P prompt tokens and every later step computes 1; without
// one, step n recomputes all P + n tokens. The cache held after step n is cache_size for the
// P + n tokens run so far. The reference runtime's ForwardStats counts the same tokens
// (tests/runtime), and the web page's generation panel draws these rows.
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/model.h"
#include "kvplan/sizes.h"

namespace kvplan {

struct GenerationStep {
  std::uint64_t step = 0;
  std::uint64_t sequence_tokens = 0;                // P + step: tokens in the sequence after it
  std::uint64_t tokens_computed_with_cache = 0;     // P at step 0, then 1
  std::uint64_t tokens_computed_without_cache = 0;  // P + step
  std::uint64_t cumulative_with_cache = 0;
  std::uint64_t cumulative_without_cache = 0;
  std::uint64_t cache_bytes = 0;                    // cache_size(m, w with P + step tokens).total_bytes
};

inline constexpr std::uint64_t kMaxGenerationSteps = 1u << 16;

// `steps` steps (1 .. kMaxGenerationSteps) after a prompt of `prompt` tokens (>= 1); `w` gives
// batch, dtypes and TP (its token count is replaced at each step). InputError on bad counts,
// OverflowError where a count or a byte total would not fit.
std::vector<GenerationStep> generation_steps(const ModelSpec& m, Workload w, std::uint64_t prompt,
                                             std::uint64_t steps);

nlohmann::json to_json(const GenerationStep& s);

}  // namespace kvplan
