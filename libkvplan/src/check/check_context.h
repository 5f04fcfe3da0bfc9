#pragma once
// What the steps of check_deployment (check.cpp) and each engine's evaluation
// (evaluate_<engine>.cpp) share: the deployment read once (flags, model, GPU, weights, the
// budget's inputs), the result being built, and the evaluation of the engine at one end of the
// memory band. Private to the check layer.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deploy/flags.h"
#include "kvplan/budget.h"
#include "kvplan/check.h"
#include "kvplan/weights.h"

namespace kvplan::detail {

// Flag values as each engine's parser reads them (errors name the flag).
std::uint64_t int_flag(const ParsedFlags& f, const std::string& k, std::uint64_t def);
std::uint64_t vllm_int_flag(const ParsedFlags& f, const std::string& k, std::uint64_t def);
std::uint64_t positive(std::uint64_t v, const std::string& k);
double fraction_flag(const ParsedFlags& f, const std::string& k, double def);  // in (0, 1]
bool bool_flag(const ParsedFlags& f, const std::string& k);
bool env_set(const Deployment& d, const std::string& name);  // 1, true or True

// The model a command names: positional, then --model (not llama-server's -m, a GGUF), --model-path.
std::string command_model(std::string model, const Deployment& d, const ParsedFlags& f);
// --dtype (vLLM, SGLang): the model's compute dtype, "auto" keeping the config's.
void apply_dtype_flag(ModelSpec& m, const ParsedFlags& f, EngineKind e);

inline constexpr const char* kTpPp = "GPU count (tensor x pipeline parallel size)";
// tp x pp x dp, each product checked with the name of what overflowed (absurd degrees are an
// error, never a wrapped count).
std::uint64_t gpu_count(std::uint64_t tp, std::uint64_t pp, std::uint64_t dp);
// a - b, signed (negative when b exceeds a).
std::int64_t signed_of(std::uint64_t a, std::uint64_t b);

// One evaluation of the engine at one end of the band. The unfavourable end (least memory for
// the KV cache) decides PASS; the favourable end decides FAIL.
struct BandOutcome {
  bool starts = true;
  std::int64_t kv_memory = 0;       // signed: negative when the fixed terms exceed the budget
  std::uint64_t kv_tokens = 0, context = 0, max_fitting_context = 0;
  std::uint64_t request_bytes = 0;  // one full-length request (vLLM), for the margin
  double max_concurrency = 0;
  std::string error;
  bool weights_exceed = false;
  std::vector<std::string> log_lines, notes;
  EngineResult engine_result;
};
// A scheduler cap on running sequences (vLLM --max-num-seqs, TRT-LLM max_batch_size).
void cap_concurrency(BandOutcome& out, std::uint64_t cap, const char* flag);

// vLLM: memory the process and others need beyond gpu_memory_utilization x total.
struct VllmHeadroom {
  ByteBand need;
  std::string what;
  double utilization = 0;
};

struct CheckContext {
  // Reads the engine flags as the engine reads them (deploy/flags*.cpp) and notes the ignored
  // and abbreviated ones in r.
  CheckContext(const Deployment& d, const CheckOptions& o, CheckResult& r);

  const Deployment& d;
  const CheckOptions& o;
  CheckResult& r;
  const ParsedFlags f;
  std::vector<std::string> unmodelled;  // flags and terms that may change memory kvplan does not count
  std::map<std::string, std::string> unmodelled_why;
  ModelSpec m;
  Accelerator acc;
  std::optional<Dtype> weight_override;  // --quantization fp8
  WeightBytes wb;
  MemoryBand others;                     // other processes on each GPU
  std::optional<EngineLogFigures> logf;  // the engine's own measurements (--engine-log)
  MemoryBand band;                       // the device total as the runtime sees it
  BudgetInput bin;
  std::uint64_t tp = 1, pp = 1, dp = 1;
  EngineBudget budget;
  std::uint64_t weights_per_gpu = 0;
  // typical_point: evaluate at every term's typical value (kvplan's point estimate, never a verdict).
  bool typical_point = false;
  std::optional<VllmHeadroom> headroom;  // vLLM without --kv-cache-memory
  std::string headroom_fix;              // the utilization at which the headroom check holds
  // The engine at one end of the band (true: favourable), set by the engine's evaluation.
  std::function<BandOutcome(bool)> evaluate;

  // A check holds at both ends (PASS), at neither (FAIL), or only at the favourable end (UNCERTAIN).
  void add_check(std::string name, bool ok_worst, bool ok_best, std::string required, std::string actual, std::string message);
  // The engine's own start-up validation: where it refuses to start, the verdict says so (FAIL at
  // every end of the band) and this returns true.
  bool refused(std::uint64_t context);
  // --gpu-used as a term of the budget, where the engine's own accounting takes it from the KV
  // cache (`source` says how); a term the evaluations read by name ("other processes").
  void push_others(const std::string& source);
  std::uint64_t device_at(bool fav) const;
  std::uint64_t term_at(std::string_view name, bool fav);
  // A term the engine log measured replaces kvplan's band.
  void measured(std::string_view name, const std::optional<ByteBand>& b);
};

// Each engine's evaluation: its flags as the engine's options, its budget, and c.evaluate. False
// when the engine refuses to start (c.r then holds that verdict).
bool evaluate_vllm(CheckContext& c);      // evaluate_vllm.cpp
bool evaluate_sglang(CheckContext& c);    // evaluate_sglang.cpp
bool evaluate_llamacpp(CheckContext& c);  // evaluate_llamacpp.cpp
bool evaluate_trtllm(CheckContext& c);    // evaluate_trtllm.cpp
// vLLM's own check of what runs outside the --gpu-memory-utilization budget (evaluate_vllm.cpp).
void check_vllm_headroom(CheckContext& c, const BandOutcome& best);

}  // namespace kvplan::detail
