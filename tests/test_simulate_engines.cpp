// kvplan simulate for engines other than vLLM: the engine selector, SGLang's radix cache and
// scheduler, llama-server's slots. Scenarios ported from the engines' own tests cite the test
// (path@commit); docs/simulate.md lists them.
#include <cmath>

#include "helpers.h"
#include "kvplan/engines.h"
#include "kvplan/simulate.h"

using namespace kvplan;
using kvplan::test::HasMessage;

namespace sim_engines_test {  // named: the tests are a unity build
StepTimeModel unit_steps() {  // every step takes 1 s: times count steps
  StepTimeModel t;
  t.kind = StepTimeModel::Kind::linear;
  t.a = 1;
  return t;
}
const Accelerator& h100() { return find_accelerator("H100"); }
}  // namespace sim_engines_test
namespace E = sim_engines_test;

BOOST_AUTO_TEST_SUITE(simulate_engines)

// An engine whose scheduler is not simulated is one clear error naming it, not a vLLM run.
BOOST_AUTO_TEST_CASE(unmodelled_engine_is_refused) {
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  SimOptions o;
  o.step_time = E::unit_steps();
  o.engine_kind = EngineKind::trtllm;
  SimRequest q;
  q.prompt_tokens = 10;
  q.output_tokens = 1;
  BOOST_CHECK_EXCEPTION(kvplan::simulate(m, E::h100(), o, std::vector<SimRequest>{q}), InputError,
                        HasMessage({"--engine", "trtllm"}));
}

BOOST_AUTO_TEST_SUITE_END()
