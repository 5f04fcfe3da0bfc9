// kvplan measure: the reference runtime allocates the model's real cache tensors, runs tokens
// through them, and prints the formula's bytes beside the measured bytes, layer by layer.
#include <iostream>
#include <new>

#include "common.h"
#include "kvplan/runtime/measure.h"

namespace kvplan::cli {

namespace {
struct MeasureOptions {
  ModelOptions model;
  DtypeOptions dtypes;
  std::string tokens = "512";
  std::uint64_t run = 4;
  std::uint64_t seed = 0;
  bool scaled = false;
  bool json = false;
};
}  // namespace

static void register_measure(CLI::App& app, Runner& run) {
  auto opt = std::make_shared<MeasureOptions>();
  auto* cmd = app.add_subcommand("measure", "allocate the real cache in the reference runtime and compare with the formula");
  opt->model.add(*cmd);
  cmd->add_option("--tokens,-n", opt->tokens, "cache capacity in tokens (one sequence)")->capture_default_str();
  opt->dtypes.add(*cmd);
  cmd->add_flag("--scaled", opt->scaled,
                "shrink hidden size, vocabulary, FFN and query heads (every cache dimension stays exact)");
  cmd->add_option("--run", opt->run, "tokens to run through the cache (prefill run-1, decode 1; 0 = allocate only)")
      ->capture_default_str();
  cmd->add_option("--seed", opt->seed, "weight seed (0 = the runtime's default)");
  cmd->add_flag("--json", opt->json, "print one JSON object");
  cmd->callback([&run, opt] {
    run = [opt] {
      Workload w;
      w.tokens = parse_tokens(opt->tokens, "--tokens");
      opt->dtypes.apply(w);
      ModelSpec m = opt->model.load();
      runtime::MeasureOptions mo;
      mo.runtime.scaled = opt->scaled;
      if (opt->seed) mo.runtime.seed = opt->seed;
      mo.run_tokens = opt->run;
      runtime::Measurement r;
      try {
        r = runtime::measure(m, w, mo);
      } catch (const std::bad_alloc&) {
        throw InputError::value("--tokens", opt->tokens, "a cache (and weights) that fit in this machine's memory");
      }
      if (opt->json) print_json(runtime::to_json(r));
      else std::cout << runtime::format_measurement_text(r);
      return 0;
    };
  });
}

KVPLAN_VERB(60, register_measure);

}  // namespace kvplan::cli
