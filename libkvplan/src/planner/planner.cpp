// The planner. Memory is exact: every per-layer figure comes from layer_bytes() (TP head split
// and replication, MLA replication, state split are its rules), compressed into a CacheProfile
// so that plan(), the min-GPU search and the sweep evaluate a (context, concurrency) point with a
// few checked integer operations. Times are roofline estimates.
#include "kvplan/planner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>

#include "kvplan/budget_terms.h"
#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/sizes.h"
#include "kvplan/step_time.h"
#include "kvplan/weights.h"

namespace kvplan {

namespace {

constexpr std::uint64_t kNoCap = std::numeric_limits<std::uint64_t>::max();
// Longest context the max-context search considers; past it the context is not memory-bound.
constexpr std::uint64_t kContextSearchLimit = 1ull << 40;
// Largest deployment the min-GPU search tries.
constexpr std::uint64_t kMinGpuSearchLimit = 4096;
// GPUs one node holds (an HGX/DGX board, an 8-slot server): the widest TP degree the layout
// search prefers before it adds pipeline stages.
constexpr std::uint64_t kGpusPerNode = 8;

std::string num(std::uint64_t v) { return std::to_string(v); }

std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw OverflowError::in("planned cache bytes");
  return r;
}
std::uint64_t add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw OverflowError::in("planned cache bytes");
  return r;
}
std::uint64_t round_up(std::uint64_t n, std::uint64_t block) { return block <= 1 ? n : mul(ceil_div(n, block), block); }

// One mixer of a layer on one TP rank: bytes per cached token, how many tokens it keeps at most,
// and its constant per-sequence state.
struct LayerRow {
  std::uint64_t bytes_per_token = 0, cap = 0, state = 0;
};
// Per layer, one row per mixer.
using LayerRows = std::vector<std::vector<LayerRow>>;

LayerRows layer_rows(const ModelSpec& m, const CacheDtypes& dt, std::uint64_t tp) {
  LayerRows rows;
  rows.reserve(m.layers.size());
  for (const auto& l : m.layers) {
    std::vector<LayerRow> mixers;
    for (const auto& c : l.mixers) {
      LayerRow r;
      const std::uint64_t cap = tokens_held(c, kNoCap);
      // layer_bytes is linear in the tokens it holds: one token's K+V is the per-token row.
      r.bytes_per_token = cap == 0 ? 0 : layer_bytes(c, 1, dt, tp).kv_bytes();
      r.cap = r.bytes_per_token == 0 ? 0 : cap;
      r.state = layer_bytes(c, 0, dt, tp).state_bytes();
      mixers.push_back(r);
    }
    rows.push_back(std::move(mixers));
  }
  return rows;
}

CacheProfile group_rows(const LayerRows& rows, const std::vector<std::uint64_t>& split) {
  CacheProfile p;
  std::size_t first = 0;
  for (std::uint64_t n : split) {
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> groups;
    std::uint64_t state = 0;
    for (std::size_t i = first; i < first + n; ++i)
      for (const LayerRow& r : rows[i]) {
        if (r.bytes_per_token) groups[{r.bytes_per_token, r.cap}] += 1;
        state = checked_add(state, r.state, "state bytes per sequence");
      }
    std::vector<CacheProfile::Group> gs;
    for (const auto& [key, count] : groups)
      gs.push_back({checked_mul(key.first, count, "cache bytes per token"), key.second, count});
    p.stages.push_back(std::move(gs));
    p.state_bytes.push_back(state);
    first += n;
  }
  return p;
}

// One stage's bytes at context L with P shared-prefix tokens and paging block B:
// total(C) = shared + C x per_seq.
struct StageBytes {
  std::uint64_t shared = 0;     // prefix tokens still in every layer's window, stored once
  std::uint64_t per_seq = 0;    // private token cache + state, per sequence
  std::uint64_t state = 0;      // state part of per_seq
  std::uint64_t read_per_seq = 0;  // what one sequence's decode step reads (prefix not deduplicated)
  std::uint64_t total(std::uint64_t c) const { return add(shared, mul(c, per_seq)); }
  std::uint64_t kv(std::uint64_t c) const { return total(c) - mul(c, state); }
};

StageBytes stage_bytes(const std::vector<CacheProfile::Group>& groups, std::uint64_t state, std::uint64_t L,
                       std::uint64_t P, std::uint64_t B) {
  StageBytes s;
  const std::uint64_t prefix = B <= 1 ? std::min(P, L) : std::min(P, L) / B * B;  // only full blocks are shared
  for (const auto& g : groups) {
    const std::uint64_t held = std::min(L, g.cap_tokens);
    const std::uint64_t start = L - held;  // first position still in the window
    const std::uint64_t shared = prefix > start ? prefix - start : 0;
    s.shared = add(s.shared, mul(g.bytes_per_token, shared));
    s.per_seq = add(s.per_seq, mul(g.bytes_per_token, round_up(held - shared, B)));
    s.read_per_seq = add(s.read_per_seq, mul(g.bytes_per_token, round_up(held, B)));
  }
  s.per_seq = add(s.per_seq, state);
  s.read_per_seq = add(s.read_per_seq, state);
  s.state = state;
  return s;
}

std::uint64_t usable_of(const Accelerator& gpu, double utilization) {
  return static_cast<std::uint64_t>(std::floor(static_cast<long double>(gpu.memory_bytes) * utilization));
}

// Memory left for the cache on one GPU of a (tp, pp) group (offload tier included); 0 and
// `weights_short` when weights + reserved do not fit.
struct Budget {
  std::uint64_t usable = 0, weights = 0, reserved = 0, cache = 0;
  bool weights_short = false;
};
Budget budget_for(std::uint64_t usable, std::uint64_t weights_total, std::uint64_t shards, std::uint64_t reserved,
                  std::uint64_t offload) {
  Budget b;
  b.usable = usable;
  b.weights = ceil_div(weights_total, shards);
  b.reserved = reserved;
  const std::uint64_t fixed = add(b.weights, reserved);
  if (fixed > usable) {
    b.weights_short = true;
    return b;
  }
  b.cache = add(usable - fixed, offload);
  return b;
}

// Largest C with shared + C x per_seq <= cache budget, over every stage.
std::uint64_t max_sequences(const std::vector<StageBytes>& st, std::uint64_t cache_budget) {
  std::uint64_t best = kNoCap;
  for (const auto& s : st) {
    if (s.shared > cache_budget) return 0;
    if (s.per_seq == 0) continue;
    best = std::min(best, (cache_budget - s.shared) / s.per_seq);
  }
  return best;
}

struct WeightsInfo {
  std::uint64_t total = 0, experts = 0, non_experts = 0, active = 0;
  std::string scheme;
  bool overridden = false;
};

WeightsInfo weights_of(const ModelSpec& m, const PlanInput& in) {
  WeightsInfo w;
  if (in.weight_bytes) {
    w.total = w.non_experts = w.active = *in.weight_bytes;
    w.scheme = "given";
    w.overridden = true;
    return w;
  }
  const WeightBytes wb = weight_bytes(m, in.weight_dtype);
  if (!wb.unknown.empty()) throw InputError::unknown_weights(m.name, wb.unknown, "--weights");
  w.total = wb.total;
  w.experts = wb.experts;
  w.non_experts = wb.non_experts;
  w.active = wb.active;
  w.scheme = wb.scheme;
  return w;
}

CacheDtypes dtypes_of(const ModelSpec& m, const PlanInput& in) {
  Workload w;
  w.k_dtype = in.k_dtype;
  w.v_dtype = in.v_dtype;
  w.state_dtype = in.state_dtype;
  return resolve_dtypes(m, w);
}

bool tp_divides_heads(const ModelSpec& m, std::uint64_t tp) {
  return m.dims.num_attention_heads == 0 || m.dims.num_attention_heads % tp == 0;
}

// Resolved, validated shape of the deployment.
struct Shape {
  std::uint64_t gpus = 0, tp = 0, pp = 0, dp = 0;
  std::vector<std::uint64_t> split;
};

Shape resolve_shape(const ModelSpec& m, const PlanInput& in) {
  Shape s;
  const std::uint64_t layers = m.layers.size();
  if (in.pp == 0) throw InputError::value("pipeline parallel size (--pp)", "0", "a positive integer");
  if (in.dp == 0) throw InputError::value("data parallel replicas (--dp)", "0", "a positive integer");
  s.pp = in.pp;
  s.dp = in.dp;
  const std::uint64_t pp_dp = checked_mul(s.pp, s.dp, "GPU count");
  if (in.gpus && *in.gpus == 0) throw InputError::value("gpus (--gpus)", "0", "a positive number of GPUs");
  if (in.tp && *in.tp == 0) throw InputError::value("tensor parallel size (--tp)", "0", "a positive integer");
  if (in.tp) {
    s.tp = *in.tp;
  } else if (in.gpus) {
    if (*in.gpus % pp_dp != 0)
      throw InputError::value("gpus (--gpus)", num(*in.gpus),
                              "a multiple of pp x dp (" + num(pp_dp) + ") so that tp = gpus / (pp x dp) is whole");
    s.tp = *in.gpus / pp_dp;
  } else {
    s.tp = 1;
  }
  s.gpus = checked_mul(s.tp, pp_dp, "GPU count");
  if (in.gpus && *in.gpus != s.gpus)
    throw InputError::value("gpus (--gpus)", num(*in.gpus),
                            "tp x pp x dp = " + num(s.tp) + " x " + num(s.pp) + " x " + num(s.dp) + " = " + num(s.gpus));
  if (!tp_divides_heads(m, s.tp))
    throw InputError::value("tensor parallel size (--tp)", num(s.tp),
                            "a divisor of the model's " + num(m.dims.num_attention_heads) + " attention heads");
  if (s.pp > layers)
    throw InputError::value("pipeline parallel size (--pp)", num(s.pp), "at most the model's " + num(layers) + " layers");
  if (in.pp_layers.empty()) {
    s.split = default_pp_split(layers, s.pp);
  } else {
    std::uint64_t sum = 0;
    for (auto n : in.pp_layers) {
      if (n == 0) throw InputError::value("pipeline layer split (--pp-layers)", "0", "at least one layer per stage");
      sum = checked_add(sum, n, "layer count");
    }
    if (in.pp_layers.size() != s.pp || sum != layers)
      throw InputError::value("pipeline layer split (--pp-layers)",
                              num(in.pp_layers.size()) + " stages, " + num(sum) + " layers",
                              num(s.pp) + " stages summing to the model's " + num(layers) + " layers");
    s.split = in.pp_layers;
  }
  return s;
}

void validate(const ModelSpec& m, const PlanInput& in) {
  if (in.gpu.memory_bytes == 0) throw InputError::value("GPU memory (--gpu-memory)", "0", "a positive byte count");
  // A bandwidth of 0 means "not known" (--gpu-memory alone): the plan has no decode-speed figures.
  if (!(in.gpu.bandwidth_bytes_per_s >= 0) || !std::isfinite(in.gpu.bandwidth_bytes_per_s))
    throw InputError::value("GPU bandwidth (--gpu-bandwidth)", std::to_string(in.gpu.bandwidth_bytes_per_s), "a non-negative finite rate (0: not known)");
  // 0 = unknown (no TTFT); NaN, infinite or negative peaks would print a TTFT of 0 or NaN.
  if (!(in.gpu.bf16_flops >= 0) || !std::isfinite(in.gpu.bf16_flops))
    throw InputError::value("GPU BF16 FLOP/s (--gpu-flops)", std::to_string(in.gpu.bf16_flops), "a positive finite rate");
  if (!(in.gpu.fp8_flops >= 0) || !std::isfinite(in.gpu.fp8_flops))
    throw InputError::value("GPU FP8 FLOP/s", std::to_string(in.gpu.fp8_flops), "a positive finite rate");
  if (!(in.utilization > 0 && in.utilization <= 1))
    throw InputError::value("utilization (--utilization)", std::to_string(in.utilization), "a fraction in (0, 1]");
  if (in.context == 0) throw InputError::value("context (--context)", "0", "a positive token count");
  if (in.concurrency == 0) throw InputError::value("concurrency (--concurrency)", "0", "a positive number of sequences");
  if (in.shared_prefix_tokens > in.context)
    throw InputError::value("shared prefix (--shared-prefix)", num(in.shared_prefix_tokens),
                            "at most the context (" + num(in.context) + " tokens)");
  if (in.block_tokens == 0) throw InputError::value("block size (--block-tokens)", "0", "a positive token count");
  if (!(in.prefill_efficiency >= 0 && in.prefill_efficiency <= 1))
    throw InputError::value("prefill efficiency (--prefill-efficiency)", std::to_string(in.prefill_efficiency),
                            "a fraction in (0, 1], or 0 for the calibrated one");
  if ((in.offload_bytes > 0 && !(in.offload_bytes_per_s > 0)) || !(in.offload_bytes_per_s >= 0) ||
      !std::isfinite(in.offload_bytes_per_s))
    throw InputError::value("offload bandwidth (--offload-bandwidth)", std::to_string(in.offload_bytes_per_s),
                            "a positive rate when --offload is given");
  if (m.layers.empty()) throw InputError::value("model " + m.name, "0 layers", "at least one layer");
}

// Everything needed to evaluate (context, concurrency) points for one deployment shape.
struct Evaluator {
  CacheProfile profile;
  Budget budget;
  std::uint64_t prefix = 0, block = 1, dp = 1;

  std::vector<StageBytes> at(std::uint64_t L) const {
    std::vector<StageBytes> out;
    for (std::size_t s = 0; s < profile.stages.size(); ++s)
      out.push_back(stage_bytes(profile.stages[s], profile.state_bytes[s], L, prefix, block));
    return out;
  }
  bool fits(std::uint64_t L, std::uint64_t replica_c) const {
    if (budget.weights_short) return false;
    for (const auto& s : at(L)) {
      std::uint64_t r;
      // Overflow here means "far too big", which is a "does not fit", not an error.
      if (__builtin_mul_overflow(replica_c, s.per_seq, &r) || __builtin_add_overflow(r, s.shared, &r)) return false;
      if (r > budget.cache) return false;
    }
    return true;
  }
};

Evaluator make_evaluator(const ModelSpec& m, const PlanInput& in, const CacheDtypes& dt, std::uint64_t tp,
                         const std::vector<std::uint64_t>& split, std::uint64_t weights_total, std::uint64_t dp) {
  Evaluator e;
  e.profile = group_rows(layer_rows(m, dt, tp), split);
  e.budget = budget_for(usable_of(in.gpu, in.utilization), weights_total, checked_mul(tp, split.size(), "GPU count"),
                        reserved_bytes(m, in.reserved, tp), in.offload_bytes);
  e.prefix = in.shared_prefix_tokens;
  e.block = in.block_tokens;
  e.dp = dp;
  return e;
}

// The layout the min-GPU search recommends (one replica, all sequences) and why.
struct MinGpus {
  std::uint64_t gpus = 0, tp = 0, pp = 0;
  std::string reason;
};
// Teams split a model with tensor parallelism inside a node (its NVLink/PCIe switch) and add
// pipeline stages only across nodes, so the search is not "fewest GPUs at any tp x pp": that
// put DeepSeek-V3 on 8 H200s at tp 2 x pp 3 (6 GPUs is the fewest that hold its weights, and
// 6 does not divide its 128 heads, so tp 2 x pp 3 was the only 6-GPU layout). In order:
//  1. one node: the smallest TP degree (a divisor of the attention heads, accepted by every
//     layer kind, at most kGpusPerNode) that fits, pp 1;
//  2. across nodes: the widest such in-node TP degree, one pipeline stage per node, 2, 3, ...
//     nodes (at most one stage per layer);
//  3. only if no node count works: any tp x pp by GPU count (TP wider than a node).
MinGpus search_min_gpus(const ModelSpec& m, const PlanInput& in, const CacheDtypes& dt, std::uint64_t weights_total) {
  const std::uint64_t layers = m.layers.size();
  std::vector<std::uint64_t> tps;
  const std::uint64_t heads = m.dims.num_attention_heads ? m.dims.num_attention_heads : 64;
  for (std::uint64_t t = 1; t <= heads && t <= kMinGpuSearchLimit; ++t)
    if (heads % t == 0) tps.push_back(t);
  std::map<std::uint64_t, LayerRows> rows;  // per tp
  for (auto t : tps) {
    try {
      rows[t] = layer_rows(m, dt, t);
    } catch (const InputError&) {
      // a TP degree the layer kinds reject (e.g. Mamba-2 groups): not a candidate
    }
  }
  auto fits = [&](std::uint64_t t, std::uint64_t p) {
    Evaluator e;
    e.profile = group_rows(rows.at(t), default_pp_split(layers, p));
    e.budget = budget_for(usable_of(in.gpu, in.utilization), weights_total, checked_mul(t, p, "GPU count"),
                          reserved_bytes(m, in.reserved, t), in.offload_bytes);
    e.prefix = in.shared_prefix_tokens;
    e.block = in.block_tokens;
    return e.fits(in.context, in.concurrency);
  };
  const std::string node = num(kGpusPerNode) + "-GPU node" +
                           (in.gpu.interconnect.empty() ? std::string() : " (" + in.gpu.interconnect + ")");
  std::uint64_t widest = 0;  // widest TP degree within one node
  for (const auto& [t, r] : rows)
    if (t <= kGpusPerNode) widest = t;
  for (const auto& [t, r] : rows) {
    if (t > kGpusPerNode) break;
    if (fits(t, 1))
      return {t, t, 1,
              t == 1 ? "one GPU holds it"
                     : "the smallest tensor-parallel degree that fits within one " + node +
                           "; no pipeline stages inside a node"};
  }
  if (widest)
    for (std::uint64_t p = 2; p <= layers && checked_mul(widest, p, "GPU count") <= kMinGpuSearchLimit; ++p)
      if (fits(widest, p))
        return {widest * p, widest, p,
                "one " + node + " is not enough: tp " + num(widest) +
                    " within each node (the widest in-node degree the model's heads and layers allow), pp " + num(p) +
                    " across " + num(p) + " nodes"};
  for (std::uint64_t n = 1; n <= kMinGpuSearchLimit; ++n)
    for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
      const std::uint64_t t = it->first;
      if (n % t != 0 || n / t > layers) continue;
      if (fits(t, n / t))
        return {n, t, n / t,
                "no in-node tensor-parallel degree with one pipeline stage per node fits: the fewest GPUs at any tp x pp"};
    }
  return {};
}

// 2 x active params x new tokens + each attention layer's attention_cost.
// One decode token for each of `batch` sequences of `context` tokens: the linear layers' FLOPs
// and each attention layer's min(context, window) pairs (as the simulator's StepTimer::add counts).
double decode_flops(const ModelSpec& m, std::uint64_t context, std::uint64_t batch) {
  double per_token = 2.0 * static_cast<double>(m.params.active);
  for (const auto& l : m.layers) {
    const AttentionCost a = attention_cost(m, l);
    if (a.flops_per_pair > 0) per_token += a.flops_per_pair * static_cast<double>(std::min(context, a.max_keys));
  }
  return per_token * static_cast<double>(batch);
}

double prefill_flops(const ModelSpec& m, std::uint64_t from, std::uint64_t to) {
  double flops = 2.0 * static_cast<double>(m.params.active) * static_cast<double>(to - from);
  for (const auto& l : m.layers) {
    const AttentionCost a = attention_cost(m, l);
    if (a.flops_per_pair > 0) flops += a.flops_per_pair * attended_pairs(from, to, a.max_keys);
  }
  return flops;
}

// The step-time device of a plan: --weight-dtype replaces the checkpoint's quantised dtype (a
// preset without a plain dtype prices its matrices as bf16 GEMMs).
StepDevice plan_step_device(const ModelSpec& m, const PlanInput& in, std::uint64_t tp) {
  const std::optional<Dtype> weights =
      in.weight_dtype ? std::optional<Dtype>(in.weight_dtype->dtype.value_or(Dtype::bf16)) : std::nullopt;
  return step_device(m, in.gpu, tp, weights);
}

std::string gb(std::uint64_t b) { return format_gb(b); }

}  // namespace

double attended_pairs(std::uint64_t from, std::uint64_t to, std::uint64_t cap) {
  if (to < (std::uint64_t{1} << 31)) {
    // Exact in 64-bit integers (every term below 2^62), the same value the long double sum gives.
    auto upto = [cap](std::uint64_t n) {
      const std::uint64_t c = std::min(n, cap);
      return c * (c + 1) / 2 + (n - c) * c;
    };
    return static_cast<double>(upto(to) - upto(from));
  }
  auto upto = [cap](std::uint64_t n) {
    const long double c = static_cast<long double>(std::min(n, cap));
    const long double nn = static_cast<long double>(n);
    return c * (c + 1) / 2 + (nn - c) * c;
  };
  return static_cast<double>(upto(to) - upto(from));
}

AttentionCost attention_cost(const ModelSpec& m, const LayerSpec& l) {
  // A layer with several mixers (at most one of them attention in every mapped family): the
  // attention FLOPs add up and the widest span counts (an upper bound if spans ever differed).
  AttentionCost sum;
  bool any = false;
  for (const auto& c : l.mixers) {
    const AttentionCost a = attention_cost(m, c);
    if (a.flops_per_pair <= 0) continue;
    sum.max_keys = any ? std::max(sum.max_keys, a.max_keys) : a.max_keys;
    sum.flops_per_pair += a.flops_per_pair;
    any = true;
  }
  return sum;
}

AttentionCost attention_cost(const ModelSpec& m, const LayerCache& c) {
  double dims = 0;
  std::uint64_t cap = kNoCap;
  std::visit(
      [&](const auto& k) {
        using T = std::decay_t<decltype(k)>;
        if constexpr (std::is_same_v<T, Attention>) {
          dims = static_cast<double>(k.k_head_dim + k.v_head_dim);
          if (!std::holds_alternative<Attention::All>(k.span)) cap = span_tokens(k.span);
        } else if constexpr (std::is_same_v<T, Mla>) {
          dims = static_cast<double>(m.dims.q_head_dim + m.dims.mla_v_head_dim);
        } else if constexpr (std::is_same_v<T, SharedKv>) {
          if (m.dims.q_head_dim) dims = 2.0 * static_cast<double>(m.dims.q_head_dim);
        } else if constexpr (std::is_same_v<T, Mamba1> || std::is_same_v<T, Mamba2> || std::is_same_v<T, LinearAttention> ||
                             std::is_same_v<T, ShortConv> || std::is_same_v<T, NoCache>) {
          // no attention scores: the linear FLOPs cover them
        } else {
          static_assert(unhandled_kind<T>, "planner: a layer kind without an attention FLOPs rule");
        }
      },
      c);
  if (dims <= 0) return {};
  const double heads = static_cast<double>(m.dims.num_attention_heads);
  return {2.0 * heads * dims, cap};
}

std::uint64_t reserved_bytes(const ModelSpec& m, const ReservedMemory& r, std::uint64_t tp) {
  if (r.override_bytes) return *r.override_bytes;
  return checked_add(r.runtime_bytes, activation_peak_bytes(m, r.prefill_chunk_tokens, tp), "reserved bytes");
}

std::vector<std::uint64_t> default_pp_split(std::uint64_t layers, std::uint64_t pp) {
  return pipeline_split(layers, pp);
}

EnginePreset engine_preset(std::string_view engine) {
  if (engine.empty() || engine == "none") return {1, 0.9, {}};
  // The dtypes vLLM's --kv-cache-dtype names (kVllmKvCacheDtypes, the list the vLLM profile parses).
  if (engine == "vllm") {
    EnginePreset p{16, 0.9, {}};
    for (const auto& s : kVllmKvCacheDtypes)
      if (std::find(p.kv_dtypes.begin(), p.kv_dtypes.end(), s.dtype) == p.kv_dtypes.end()) p.kv_dtypes.push_back(s.dtype);
    return p;
  }
  throw InputError::value("engine (--engine)", engine, "none or vllm (exact engine figures: kvplan engine)");
}

std::vector<Dtype> kv_dtype_ladder(const ModelSpec& m, std::span<const Dtype> offered) {
  std::vector<Dtype> ladder{m.dtype};
  for (Dtype d : {Dtype::q8_0, Dtype::fp8_e4m3, Dtype::q4_0, Dtype::int4})
    if (row_bytes(d, 1024) < row_bytes(ladder.back(), 1024) &&
        (offered.empty() || std::find(offered.begin(), offered.end(), d) != offered.end()))
      ladder.push_back(d);
  return ladder;
}

double weight_bytes_read(std::uint64_t active_bytes, std::uint64_t expert_bytes, std::uint64_t experts,
                         std::uint64_t experts_per_token, std::uint64_t batch) {
  if (experts == 0 || expert_bytes == 0 || experts_per_token >= experts) return static_cast<double>(active_bytes);
  const double k_over_e = static_cast<double>(experts_per_token) / static_cast<double>(experts);
  const double touched = 1.0 - std::pow(1.0 - k_over_e, static_cast<double>(batch));
  const double base = static_cast<double>(active_bytes) - static_cast<double>(expert_bytes) * k_over_e;
  return std::max(0.0, base) + static_cast<double>(expert_bytes) * touched;
}

std::uint64_t SweepResult::memory_bytes(std::size_t k) const {
  return checked_add(checked_add(weights_bytes, reserved_bytes, "sweep memory bytes"), cache_bytes.at(k), "sweep memory bytes");
}

CacheProfile cache_profile(const ModelSpec& m, const PlanInput& in) {
  validate(m, in);
  const Shape s = resolve_shape(m, in);
  return group_rows(layer_rows(m, dtypes_of(m, in), s.tp), s.split);
}

Plan plan(const ModelSpec& m, const PlanInput& in) {
  validate(m, in);
  const Shape shape = resolve_shape(m, in);
  Plan p;
  p.model = m.name;
  p.gpu = in.gpu.name;
  p.gpus = shape.gpus;
  p.tp = shape.tp;
  p.pp = shape.pp;
  p.dp = shape.dp;
  p.pp_layers = shape.split;
  p.context = in.context;
  p.context_default = in.context_default;
  p.concurrency = in.concurrency;
  p.shared_prefix_tokens = in.shared_prefix_tokens;
  p.dtypes = dtypes_of(m, in);

  const WeightsInfo w = weights_of(m, in);
  p.weights_total_bytes = w.total;
  if (w.total == 0) p.notes.push_back("weight bytes are 0 (no weight count for this model): memory is cache only");
  if (!w.overridden && !w.scheme.empty()) p.notes.push_back("weights: " + w.scheme);

  const Evaluator ev = make_evaluator(m, in, p.dtypes, shape.tp, shape.split, w.total, shape.dp);
  const std::uint64_t replica_c = ceil_div(in.concurrency, shape.dp);
  const std::vector<StageBytes> st = ev.at(in.context);

  // The busiest stage decides what one GPU must hold.
  std::uint64_t busiest = 0;
  for (std::size_t i = 1; i < st.size(); ++i)
    if (st[i].total(replica_c) > st[busiest].total(replica_c)) busiest = i;
  p.busiest_stage = busiest;
  const Budget& b = ev.budget;
  p.per_gpu.memory_bytes = in.gpu.memory_bytes;
  p.per_gpu.usable_bytes = b.usable;
  p.per_gpu.weights_bytes = b.weights;
  p.per_gpu.reserved_bytes = b.reserved;
  p.per_gpu.state_bytes = mul(replica_c, st[busiest].state);
  p.per_gpu.kv_bytes = st[busiest].kv(replica_c);
  const std::uint64_t need = add(add(b.weights, b.reserved), st[busiest].total(replica_c));
  if (need <= b.usable) {
    p.per_gpu.free_bytes = b.usable - need;
  } else {
    const std::uint64_t over = need - b.usable;
    const bool cache_only_over = !b.weights_short && st[busiest].total(replica_c) > 0;
    if (cache_only_over && over <= in.offload_bytes) p.per_gpu.offloaded_bytes = over;
    else p.per_gpu.shortfall_bytes = over - std::min(over, cache_only_over ? in.offload_bytes : 0);
  }
  p.fits = ev.fits(in.context, replica_c);

  for (const auto& g : ev.profile.stages[busiest]) p.cache_bytes_per_token = add(p.cache_bytes_per_token, g.bytes_per_token);

  // Capacity at this shape.
  if (!b.weights_short) {
    const std::uint64_t per_replica = max_sequences(st, b.cache);
    p.max_concurrency = per_replica == kNoCap ? kNoCap : mul(per_replica, shape.dp);
    std::uint64_t tokens = kNoCap;
    const std::uint64_t fixed = add(b.weights, b.reserved);
    const std::uint64_t cache_budget = b.usable - fixed + in.offload_bytes;
    for (const auto& stage : ev.profile.stages) {
      std::uint64_t row = 0;
      for (const auto& g : stage) row = add(row, g.bytes_per_token);
      if (row) tokens = std::min(tokens, cache_budget / row);
    }
    p.kv_capacity_tokens = tokens == kNoCap ? 0 : mul(tokens, shape.dp);
    if (ev.fits(kContextSearchLimit, replica_c)) {
      p.max_context_unbounded = true;
      p.max_context = m.dims.max_position_embeddings;
      p.notes.push_back("memory does not bound the context (no growing token cache): max_context is the model's "
                        "max_position_embeddings");
    } else if (ev.fits(1, replica_c)) {
      std::uint64_t lo = 1, hi = kContextSearchLimit;  // fits(lo), !fits(hi)
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (ev.fits(mid, replica_c) ? lo : hi) = mid;
      }
      p.max_context = lo;
    }
  }

  const MinGpus mg = search_min_gpus(m, in, p.dtypes, w.total);
  p.min_gpus = mg.gpus;
  p.min_gpus_tp = mg.tp;
  p.min_gpus_pp = mg.pp;
  p.min_gpus_reason = mg.reason;

  // The least lossy KV dtype that makes this load fit on this shape.
  for (Dtype d : kv_dtype_ladder(m, in.kv_dtypes)) {
    PlanInput alt = in;
    alt.k_dtype = alt.v_dtype = d;
    const Evaluator e2 = make_evaluator(m, alt, dtypes_of(m, alt), shape.tp, shape.split, w.total, shape.dp);
    if (e2.fits(in.context, replica_c)) {
      p.kv_dtype_to_fit = d;
      break;
    }
  }

  // Seeds S12: the whole deployment's cache against whole devices.
  Workload all;
  all.tokens = in.context;
  all.batch = in.concurrency;
  all.k_dtype = p.dtypes.k;
  all.v_dtype = p.dtypes.v;
  all.state_dtype = in.state_dtype;
  p.cache_total_bytes = total_cache_bytes(m, all);
  p.cache_only_gpus_marketing = gpus_to_hold(p.cache_total_bytes, in.gpu, CapacityBasis::marketing);
  p.cache_only_gpus_device = gpus_to_hold(p.cache_total_bytes, in.gpu, CapacityBasis::device);

  // Roofline decode: every stage reads its weights once per step and each sequence's cache.
  const double w_read = weight_bytes_read(w.active, w.experts, m.dims.num_experts, m.dims.experts_per_token, replica_c) /
                        static_cast<double>(shape.tp);
  p.weight_bytes_read_per_step = static_cast<std::uint64_t>(std::ceil(w_read / static_cast<double>(shape.pp)));
  std::uint64_t kv_read = 0;
  for (const auto& s : st) kv_read = add(kv_read, mul(replica_c, s.read_per_seq));
  p.kv_bytes_read_per_step = kv_read;
  // The decode step and TTFT are kvplan/step_time.h's step_time(), the function `simulate` times
  // every scheduler step with: one decode token for each of the replica's sequences.
  const StepDevice dev = plan_step_device(m, in, shape.tp);
  const StepCalibration cal = with_compute_fraction(default_step_calibration(), in.prefill_efficiency);
  const double compute_fraction = dev.fp4 ? cal.compute_fraction_fp4 : cal.compute_fraction;
  p.step_time_model = describe_step_time(dev, cal);
  const double bw = in.gpu.bandwidth_bytes_per_s;
  if (!(bw > 0)) {
    p.notes.push_back("no memory bandwidth for " + in.gpu.name + " (give --gpu-bandwidth): no decode-speed figures");
  } else {
    StepWork work;
    work.weight_bytes = w_read;
    work.kv_bytes = static_cast<double>(kv_read);
    work.flops = decode_flops(m, in.context, replica_c) / static_cast<double>(shape.tp);
    set_batch(work, dev, replica_c, replica_c);
    if (!(dev.peak_flops > 0)) {
      work.flops = 0;  // memory and overheads only; said below
      p.notes.push_back("no " + dev.peak_name + " FLOP/s figure (" + dev.peak_field + ") for " + in.gpu.name +
                        ": the decode step leaves out its compute term");
    }
    const StepTime t = step_time(work, dev, cal);
    p.decode_weight_seconds = t.weights_s;
    p.decode_kv_seconds = t.kv_s;
    p.decode_compute_seconds = t.compute_s;
    p.decode_overhead_seconds = t.overhead_s + t.comm_s;
    double step = t.seconds;
    if (p.per_gpu.offloaded_bytes) {
      p.decode_offload_seconds =
          static_cast<double>(p.per_gpu.offloaded_bytes) * static_cast<double>(shape.pp) / in.offload_bytes_per_s;
      step += p.decode_offload_seconds;
      p.notes.push_back("offloaded cache is read over the host link every step (busiest stage's spill x pp stages)");
    }
    p.decode_step_seconds = step;
    p.decode_step_seconds_fast = step * cal.fast_factor;
    p.decode_step_seconds_slow = step * cal.slow_factor;
    p.decode_tokens_per_second = 1.0 / step;
    p.decode_tokens_per_second_aggregate = static_cast<double>(in.concurrency) / step;
  }
  // Cache reads outweigh weight reads once batch x context exceeds this many tokens.
  const std::uint64_t per_token_all_stages = [&] {
    std::uint64_t t = 0;
    for (const auto& stage : ev.profile.stages)
      for (const auto& g : stage) t = add(t, g.bytes_per_token);
    return t;
  }();
  if (per_token_all_stages)
    p.crossover_tokens = static_cast<std::uint64_t>(std::ceil(w_read / static_cast<double>(per_token_all_stages)));
  std::uint64_t read_one = 0;
  for (const auto& s : st) read_one = add(read_one, s.read_per_seq);
  if (read_one) p.crossover_concurrency = static_cast<std::uint64_t>(std::ceil(w_read / static_cast<double>(read_one)));

  // TTFT: one prompt's uncached tokens (the shared prefix is a cache hit), spread over tp GPUs;
  // pipeline stages run one after another for a single prompt.
  p.prefill_flops = prefill_flops(m, in.shared_prefix_tokens, in.context);
  if (m.params.active == 0) p.notes.push_back("active parameter count unknown: prefill FLOPs count attention only");
  if (!(dev.peak_flops > 0)) {
    p.ttft_known = false;
    p.notes.push_back("TTFT unknown: no dense " + dev.peak_name + " FLOP/s figure (" + dev.peak_field + ") for " +
                      in.gpu.name + " (give --gpu-flops)");
  } else if (bw > 0) {
    // One prompt's uncached tokens in one step (no chunking), spread over tp GPUs; pipeline stages
    // run one after another.
    StepWork work;
    const std::uint64_t prompt = in.context - in.shared_prefix_tokens;
    work.weight_bytes = weight_bytes_read(w.active, w.experts, m.dims.num_experts, m.dims.experts_per_token, prompt) /
                        static_cast<double>(shape.tp);
    work.flops = p.prefill_flops / static_cast<double>(shape.tp);
    set_batch(work, dev, prompt, 1);
    p.ttft_seconds = step_time(work, dev, cal).seconds;
    p.ttft_known = true;
  } else {
    p.ttft_seconds = p.prefill_flops / (static_cast<double>(shape.tp) * dev.peak_flops * compute_fraction);
    p.ttft_known = true;
  }
  p.ttft_seconds_fast = p.ttft_seconds * cal.fast_factor;
  p.ttft_seconds_slow = p.ttft_seconds * cal.slow_factor;
  p.notes.push_back("times use the calibrated step model (" + cal.source + "): " + std::to_string(std::lround(compute_fraction * 100)) +
                    "% of the " + dev.peak_name + " dense peak, " + std::to_string(std::lround(cal.bandwidth_fraction * 100)) +
                    "% of the bandwidth; the band (fast/slow) is the held-out error of its fit");
  if (in.reserved.override_bytes) p.notes.push_back("reserved memory given: " + gb(b.reserved) + " per GPU");
  else
    p.notes.push_back("reserved memory estimated: " + format_gib(in.reserved.runtime_bytes) + " runtime + " +
                      format_count(in.reserved.prefill_chunk_tokens) + "-token activations = " + gb(b.reserved) +
                      " per GPU");
  if (m.dims.max_position_embeddings && in.context > m.dims.max_position_embeddings)
    p.notes.push_back("context " + format_count(in.context) + " exceeds the model's max_position_embeddings (" +
                      format_count(m.dims.max_position_embeddings) + ")");

  if (!p.fits) {
    const std::string on = " on " + in.gpu.name;
    if (b.weights_short) {
      const std::uint64_t fixed = add(b.weights, b.reserved);
      if (b.reserved >= b.usable) {
        p.reason = "reserved memory alone needs " + gb(b.reserved) + " > " + gb(b.usable) + " usable" + on;
      } else {
        const std::uint64_t room = b.usable - b.reserved;
        const std::uint64_t at_least = ceil_div(w.total, room);
        p.reason = "weights alone need " + gb(b.weights) + (p.gpus > 1 ? " per GPU" : "") + " > " + gb(room) +
                   " usable" + on + " (" + gb(fixed - b.weights) + " reserved)" + ": use at least " + format_count(at_least, "GPU");
      }
    } else {
      p.reason = "the cache for " + format_count(in.concurrency, "sequence") + " of " +
                 format_count(in.context, "token") + " needs " + gb(st[busiest].total(replica_c)) +
                 " per GPU but " + gb(b.cache) + " is free after weights and reserved memory" + on + ": at most " +
                 format_count(p.max_concurrency, "sequence") + (p.max_concurrency == 1 ? " fits" : " fit") + " at this context" +
                 (p.max_context ? ", or " + format_count(p.max_context, "token") + " at this concurrency" : "");
    }
    if (p.min_gpus)
      p.reason += "; it fits on " + format_count(p.min_gpus, "GPU") + " (tp " + num(p.min_gpus_tp) + ", pp " + num(p.min_gpus_pp) + ")";
    else
      p.reason += "; no tp x pp split up to " + num(kMinGpuSearchLimit) + " GPUs fits";
  }
  return p;
}

SweepResult sweep(const ModelSpec& m, const PlanInput& base, std::span<const std::uint64_t> contexts,
                  std::span<const std::uint64_t> concurrency) {
  // The lists first: base.context is contexts[0], and validate() would blame --context.
  for (auto c : contexts)
    if (c == 0) throw InputError::value("contexts (--contexts)", "0", "positive token counts");
  for (auto c : concurrency)
    if (c == 0) throw InputError::value("concurrency (--concurrency)", "0", "positive numbers of sequences");
  if (contexts.empty() || concurrency.empty() ||
      contexts.size() > kMaxSweepCells / concurrency.size())
    throw InputError::value("sweep grid (--contexts x --concurrency)",
                            num(contexts.size()) + " x " + num(concurrency.size()) + " cells",
                            "between 1 and " + num(kMaxSweepCells) + " cells");
  validate(m, base);
  const Shape shape = resolve_shape(m, base);
  const WeightsInfo w = weights_of(m, base);
  const Evaluator ev = make_evaluator(m, base, dtypes_of(m, base), shape.tp, shape.split, w.total, shape.dp);
  SweepResult r;
  r.contexts.assign(contexts.begin(), contexts.end());
  r.concurrency.assign(concurrency.begin(), concurrency.end());
  r.weights_bytes = ev.budget.weights;
  r.reserved_bytes = ev.budget.reserved;
  r.usable_bytes = ev.budget.usable;
  const std::size_t nc = concurrency.size();
  const std::size_t cells = checked_mul(contexts.size(), nc, "sweep cells");
  r.cache_bytes.resize(cells);
  r.fits.resize(cells);
  r.decode_step_seconds.resize(cells);

  // Per column: replica sequences and the weights one step reads (MoE depends on the batch).
  std::vector<std::uint64_t> replica(nc);
  std::vector<double> w_read(nc);
  // No bandwidth known: decode times are 0 (not computed), like the plan's. Each cell's step is
  // step_time(), as plan's decode step (a GPU with no FLOP/s figure: no compute term, as there).
  const bool timed = base.gpu.bandwidth_bytes_per_s > 0;
  const StepDevice dev = plan_step_device(m, base, shape.tp);
  const StepCalibration cal = with_compute_fraction(default_step_calibration(), base.prefill_efficiency);
  for (std::size_t j = 0; j < nc; ++j) {
    replica[j] = ceil_div(concurrency[j], shape.dp);
    w_read[j] = weight_bytes_read(w.active, w.experts, m.dims.num_experts, m.dims.experts_per_token, replica[j]) /
                static_cast<double>(shape.tp);
  }
  auto cell_step = [&](std::size_t j, std::uint64_t context, std::uint64_t read_one) {
    if (!timed) return 0.0;
    StepWork work;
    work.weight_bytes = w_read[j];
    work.kv_bytes = static_cast<double>(replica[j]) * static_cast<double>(read_one);
    if (dev.peak_flops > 0) work.flops = decode_flops(m, context, replica[j]) / static_cast<double>(shape.tp);
    set_batch(work, dev, replica[j], replica[j]);
    return step_time(work, dev, cal).seconds;
  };
  const std::uint64_t max_replica = nc ? *std::max_element(replica.begin(), replica.end()) : 0;
  const bool weights_short = ev.budget.weights_short;
  const std::uint64_t cache_budget = ev.budget.cache;
  const std::size_t n_stages = ev.profile.stages.size();
  std::vector<StageBytes> st(n_stages);
  for (std::size_t i = 0; i < contexts.size(); ++i) {
    std::uint64_t read_one = 0;
    for (std::size_t s = 0; s < n_stages; ++s) {
      st[s] = stage_bytes(ev.profile.stages[s], ev.profile.state_bytes[s], contexts[i], ev.prefix, ev.block);
      read_one = add(read_one, st[s].read_per_seq);
    }
    std::uint64_t* out = r.cache_bytes.data() + i * nc;
    std::uint8_t* fit = r.fits.data() + i * nc;
    double* step = r.decode_step_seconds.data() + i * nc;
    if (n_stages == 1) {
      // Checked once per row: shared + C x per grows with C, so if the largest C does not
      // overflow no cell in the row does, and the inner loop is plain (vectorisable) arithmetic.
      const std::uint64_t shared = st[0].shared, per = st[0].per_seq;
      std::uint64_t top;
      if (__builtin_mul_overflow(max_replica, per, &top) || __builtin_add_overflow(top, shared, &top))
        throw OverflowError::in("sweep cache bytes");
      const std::uint64_t limit = weights_short ? 0 : cache_budget;
      const bool none_fit = weights_short;
      for (std::size_t j = 0; j < nc; ++j) {
        const std::uint64_t v = replica[j] * per + shared;
        out[j] = v;
        fit[j] = static_cast<std::uint8_t>(!none_fit & (v <= limit));
        step[j] = cell_step(j, contexts[i], read_one);
      }
    } else {
      for (std::size_t j = 0; j < nc; ++j) {
        std::uint64_t worst = 0;
        for (const auto& s : st) worst = std::max(worst, s.total(replica[j]));
        out[j] = worst;
        fit[j] = !weights_short && worst <= cache_budget;
        step[j] = cell_step(j, contexts[i], read_one);
      }
    }
  }
  return r;
}

CompareRow compare_row(const ModelSpec& m, std::uint64_t tokens, std::optional<Dtype> kv_dtype,
                       std::optional<WeightFormat> weight_dtype) {
  if (tokens == 0) throw InputError::value("tokens (--tokens)", "0", "a positive token count");
  Workload wl;
  wl.tokens = tokens;
  wl.k_dtype = kv_dtype;
  wl.v_dtype = kv_dtype;
  const CacheSize cs = cache_size(m, wl);
  CompareRow r;
  r.model = m.name;
  r.layers = m.layers.size();
  std::map<std::string, std::uint64_t> kinds;
  std::vector<std::string> order;
  for (const auto& l : cs.layers) {
    if (!kinds.count(l.kind)) order.push_back(l.kind);
    kinds[l.kind] += 1;
  }
  for (const auto& k : order) r.kinds += (r.kinds.empty() ? "" : " + ") + num(kinds[k]) + " " + k;
  r.bytes_per_token = cs.bytes_per_token;
  r.tokens = tokens;
  r.cache_bytes = cs.total_bytes;
  r.weights_bytes = weight_bytes(m, weight_dtype).total;
  r.share_of_weights = r.weights_bytes ? static_cast<double>(r.cache_bytes) / static_cast<double>(r.weights_bytes) : 0.0;
  return r;
}

}  // namespace kvplan
