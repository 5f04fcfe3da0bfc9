#include "kvplan/generation.h"

#include <string>

#include "kvplan/checked.h"
#include "kvplan/error.h"

namespace kvplan {

std::vector<GenerationStep> generation_steps(const ModelSpec& m, Workload w, std::uint64_t prompt,
                                             std::uint64_t steps) {
  if (prompt == 0) throw InputError::value("prompt tokens", "0", "at least one prompt token");
  if (steps == 0 || steps > kMaxGenerationSteps)
    throw InputError::value("steps", std::to_string(steps), "1 to " + std::to_string(kMaxGenerationSteps) + " steps");
  std::vector<GenerationStep> out;
  out.reserve(steps);
  std::uint64_t with = 0, without = 0;
  for (std::uint64_t n = 0; n < steps; ++n) {
    GenerationStep s;
    s.step = n;
    s.sequence_tokens = checked_add(prompt, n, "sequence tokens");
    s.tokens_computed_with_cache = n == 0 ? prompt : 1;
    s.tokens_computed_without_cache = s.sequence_tokens;
    s.cumulative_with_cache = with = checked_add(with, s.tokens_computed_with_cache, "tokens computed");
    s.cumulative_without_cache = without = checked_add(without, s.tokens_computed_without_cache, "tokens computed");
    w.tokens = s.sequence_tokens;
    s.cache_bytes = cache_size(m, w).total_bytes;
    out.push_back(s);
  }
  return out;
}

nlohmann::json to_json(const GenerationStep& s) {
  return {{"step", s.step},
          {"sequence_tokens", s.sequence_tokens},
          {"tokens_computed_with_cache", s.tokens_computed_with_cache},
          {"tokens_computed_without_cache", s.tokens_computed_without_cache},
          {"cumulative_with_cache", s.cumulative_with_cache},
          {"cumulative_without_cache", s.cumulative_without_cache},
          {"cache_bytes", s.cache_bytes}};
}

}  // namespace kvplan
