#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/layer.h"
#include "kvplan/model.h"

namespace kvplan {

// What is being sized: B sequences of N tokens each, stored in the given dtypes, on one rank
// of a TP group of size tp.
struct Workload {
  std::uint64_t tokens = 4096;
  std::uint64_t batch = 1;
  std::optional<Dtype> k_dtype;     // nullopt = "auto" = the model dtype
  std::optional<Dtype> v_dtype;
  std::optional<Dtype> state_dtype; // overrides conv and ssm state dtypes
  std::uint64_t tp = 1;
  // `tokens` was not given: the default context (4,096) applies. Reported (size's JSON
  // "context_default", "(default)" in its text), never a different rule; set by the request parser.
  bool context_default = false;
};

// The dtypes a workload resolves to for a model ("auto" and config-named state dtypes).
CacheDtypes resolve_dtypes(const ModelSpec& m, const Workload& w);

struct LayerSize {
  std::uint64_t index = 0;
  std::string kind;                      // the first mixer's kind
  std::vector<std::string> mixer_kinds;  // every mixer's kind, in order
  LayerBytes per_sequence;        // one sequence (every mixer)
  std::uint64_t bytes = 0;        // all B sequences (kv + state)
  std::uint64_t kv_bytes = 0;     // all B sequences
  std::uint64_t state_bytes = 0;  // all B sequences
};

struct CacheSize {
  std::string model;
  Workload workload;
  CacheDtypes dtypes;
  std::uint64_t total_bytes = 0;
  std::uint64_t kv_bytes = 0;
  std::uint64_t k_bytes = 0;
  std::uint64_t v_bytes = 0;
  std::uint64_t state_bytes = 0;
  std::uint64_t bytes_per_token = 0;  // one more token, one sequence, no window full
  std::vector<LayerSize> layers;
};

// Exact bytes held, layer by layer (layers of a shared_kv kind hold 0).
CacheSize cache_size(const ModelSpec& m, const Workload& w);

// Shorthand: total bytes (kv + state) for the workload.
std::uint64_t total_cache_bytes(const ModelSpec& m, const Workload& w);

}  // namespace kvplan
