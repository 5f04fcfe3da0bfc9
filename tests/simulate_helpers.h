#pragma once
// Shared by the simulator suites (test_simulate*.cpp).
#include <cstdint>

#include "kvplan/hardware.h"
#include "kvplan/simulate.h"

namespace kvplan::test {

// Every step takes 1 s: times count steps, as the engines' own scheduler tests count iterations.
inline StepTimeModel unit_steps() {
  StepTimeModel t;
  t.kind = StepTimeModel::Kind::linear;
  t.a = 1;
  return t;
}

inline const Accelerator& h100() { return find_accelerator("H100"); }

// One request arriving at `at` s; `prefix` names a shared prompt stream of `shared` tokens.
inline SimRequest sim_request(std::uint64_t prompt, std::uint64_t output, double at = 0, std::uint64_t prefix = 0,
                              std::uint64_t shared = 0) {
  SimRequest r;
  r.arrival_s = at;
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  r.prefix_id = prefix;
  r.prefix_tokens = shared;
  return r;
}

}  // namespace kvplan::test
