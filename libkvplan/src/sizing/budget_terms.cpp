// The two budget formulas the planner and the engine profiles share: the pipeline split and the
// activation peak (kvplan/budget_terms.h). One place each, so a plan and a check never disagree.
#include "kvplan/budget_terms.h"

#include <algorithm>

#include "kvplan/checked.h"
#include "kvplan/error.h"

namespace kvplan {

std::vector<std::uint64_t> pipeline_split(std::uint64_t layers, std::uint64_t pp) {
  if (pp == 0) throw InputError::value("pipeline parallel size (--pp)", "0", "a positive integer");
  std::vector<std::uint64_t> parts(pp, layers / pp);
  const std::uint64_t rem = layers % pp;
  for (std::uint64_t i = 2; i < rem + 2; ++i) parts[pp - i] += 1;
  return parts;
}

std::uint64_t activation_peak_bytes(const ModelSpec& m, std::uint64_t tokens, std::uint64_t tp, std::uint64_t sampler_seqs) {
  if (tp == 0) throw InputError::value("tensor parallel size (--tp)", "0", "a positive integer");
  const std::uint64_t mlp =
      std::max(m.dims.intermediate_size, checked_mul(m.dims.experts_per_token, m.dims.moe_intermediate_size));
  const std::uint64_t width = checked_add(checked_mul(4, m.dims.hidden_size), checked_mul(2, ceil_div(mlp, tp)));
  return checked_add(checked_product({tokens, width, 2}, "activation bytes"),
                     checked_product({sampler_seqs, m.dims.vocab_size, 4}, "sampler logits bytes"), "activation peak bytes");
}

}  // namespace kvplan
