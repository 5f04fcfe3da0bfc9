#pragma once
// The two budget formulas the planner and the engine profiles share, in the sizing layer (below
// both): the pipeline split and the activation peak. One place each, so a plan and a check never
// disagree. kvplan/budget.h (the engines' whole budget) includes this header.
#include <cstdint>
#include <vector>

#include "kvplan/model.h"

namespace kvplan {

// vLLM's get_pp_indices (vllm/distributed/utils.py): layers // pp per stage, the remainder given
// one each to the stages before the last. The planner's default split and the vLLM profile use it.
std::vector<std::uint64_t> pipeline_split(std::uint64_t layers, std::uint64_t pp);

// Activation peak of one forward pass of `tokens` tokens on one tensor-parallel rank:
// tokens x (4 x hidden + 2 x ceil(mlp / tp)) x 2 bytes, with mlp the wider of the dense MLP and
// top-k x the MoE expert width; plus the sampler's fp32 logits for `sampler_seqs` sequences
// (sampler_seqs x vocab x 4 bytes). The planner's reserved memory and every engine budget use it.
std::uint64_t activation_peak_bytes(const ModelSpec& m, std::uint64_t tokens, std::uint64_t tp,
                                    std::uint64_t sampler_seqs = 0);

}  // namespace kvplan
