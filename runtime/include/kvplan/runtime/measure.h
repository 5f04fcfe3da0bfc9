#pragma once
// `kvplan measure`: allocate a model's cache in the reference runtime, run tokens through it,
// and set what the buffers hold beside the core library's formula, layer by layer.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/layer.h"
#include "kvplan/model.h"
#include "kvplan/runtime/runtime.h"
#include "kvplan/runtime/tensor.h"
#include "kvplan/sizes.h"

namespace kvplan::runtime {

struct LayerMeasurement {
  std::uint64_t index = 0;
  std::string kind;
  LayerBytes formula;                 // kvplan::layer_bytes for the same tokens and dtypes
  std::uint64_t formula_bytes = 0;    // formula.total_bytes()
  // From the buffers: K (or the MLA latent + rope key + indexer key), V, conv and SSM state.
  std::uint64_t measured_k = 0, measured_v = 0, measured_conv = 0, measured_ssm = 0;
  std::uint64_t measured_bytes = 0;
  std::uint64_t scale_bytes = 0;      // per-tensor scales (fp8/int8/int4) kept beside the buffers
  std::vector<TensorInfo> tensors;
  bool matches() const;               // every component equal
};

struct Measurement {
  std::string model;
  std::uint64_t tokens = 0;           // cache capacity allocated (one sequence)
  std::uint64_t tokens_run = 0;       // tokens actually run through it (prefill + decode)
  CacheDtypes dtypes;
  bool scaled = true;
  RunDims dims;
  std::vector<LayerMeasurement> layers;
  std::uint64_t formula_total_bytes = 0;
  std::uint64_t measured_total_bytes = 0;
  std::uint64_t numbers = 0;          // values held by every tensor (sum of shape products)
  std::uint64_t kv_numbers = 0;       // the same for K and V tensors only (seed S2)
  std::uint64_t scale_bytes = 0;
  bool buffers_stable = true;         // no buffer moved or grew while tokens ran
  bool matches() const;
};

struct MeasureOptions {
  Options runtime;
  // Tokens to run through the allocated cache: a prefill of run_tokens - 1 and one decode step
  // (capped at the capacity). 0 runs nothing (allocation only).
  std::uint64_t run_tokens = 4;
};

// Sets what `cache` holds beside the formula (no tokens are run here).
Measurement measure_cache(const Model& model, const Cache& cache);
// Builds the model, allocates for w.tokens (w.batch must be 1, w.tp 1), runs tokens, measures.
Measurement measure(const ModelSpec& spec, const Workload& w, const MeasureOptions& opt = {});
// Same with a model already built (its weights reused across many measurements).
Measurement measure(const Model& model, const Workload& w, std::uint64_t run_tokens);

nlohmann::json to_json(const Measurement& m);
std::string format_measurement_text(const Measurement& m);

}  // namespace kvplan::runtime
