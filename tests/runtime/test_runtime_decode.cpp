// Decoding through the cache gives the logits of recomputing everything without one.
// For every layer kind: prefill a prompt, decode token by token through the real cache
// tensors, and compare each step's logits with Model::reference, which recomputes the whole
// sequence from scratch in fp32 (attention over fresh K/V with masks, MLA through the naive
// decompressed K/V, Mamba and Lightning through their quadratic dual form).
//
// Error measure: max |cached - reference| / max |reference| over every compared logit.
// Tolerances per storage dtype: fp32 keeps the computation exact up to summation order
// (1e-4); fp16/bf16 round each stored number to 11/8 significant bits, q8_0/int8 to 8 bits
// (per 32-number block / per tensor), fp8 to 4 (e4m3) or 3 (e5m2) bits, q5 to 5 and q4/iq4_nl
// to 4 bits per block. Observed errors (docs/runtime.md) sit 3-10x below each bound.
#include <algorithm>
#include <cmath>

#include "helpers.h"
#include "kvplan/runtime/measure.h"
#include "kvplan/runtime/runtime.h"

using namespace kvplan;
using namespace kvplan::runtime;

namespace {

double tolerance(Dtype d) {
  switch (d) {
    case Dtype::fp32: return 1e-4;
    case Dtype::fp16: return 1e-3;
    case Dtype::bf16: return 1e-2;
    case Dtype::q8_0:
    case Dtype::int8: return 2e-2;
    case Dtype::fp8_e4m3:
    case Dtype::fp8_e5m2:
    case Dtype::q5_0:
    case Dtype::q5_1: return 6e-2;
    case Dtype::q4_0:
    case Dtype::q4_1:
    case Dtype::iq4_nl: return 0.15;
    default: return 0.2;
  }
}

// Step-by-step decode and one prefill store the same numbers up to fp32 summation order
// (GEMV vs GEMM); a quantised format can turn such a 1e-7 difference into one rounding step
// where a value sits on a rounding boundary, so the bound there is a tenth of the format's.
double prefill_tolerance(Dtype d) { return d == Dtype::fp32 ? 1e-4 : tolerance(d) / 10; }

struct Run {
  double error = 0;           // vs reference
  double error_prefill = 0;   // step-by-step vs one prefill of everything (same cache dtype)
};

// Prefill `prompt` tokens, then decode the rest one by one; compare every decode step's logits.
Run compare(const Model& m, std::uint64_t total, std::uint64_t prompt, const CacheDtypes& dt) {
  const auto toks = sample_tokens(total, m.dims().vocab, 11);
  const auto ref = m.reference(toks);
  const std::size_t V = m.dims().vocab;
  Cache c = m.allocate(total, dt);
  std::vector<float> steps;
  auto first = m.forward(std::span(toks).first(prompt), c);
  steps.insert(steps.end(), first.begin(), first.end());
  for (std::uint64_t t = prompt; t < total; ++t) {
    auto l = m.forward(std::span(toks).subspan(t, 1), c);
    steps.insert(steps.end(), l.begin(), l.end());
  }
  BOOST_REQUIRE_EQUAL(c.position(), total);
  // One prefill of every token through a fresh cache of the same dtype.
  Cache c2 = m.allocate(total, dt);
  const auto all = m.forward(toks, c2, true);
  Run r;
  double scale = 0, err = 0, err2 = 0;
  for (std::uint64_t s = 0; s + prompt <= total; ++s) {
    const std::uint64_t pos = prompt - 1 + s;  // the position whose logits step s produced
    for (std::size_t v = 0; v < V; ++v) {
      const double x = steps[s * V + v], y = ref[pos * V + v];
      scale = std::max(scale, std::fabs(y));
      err = std::max(err, std::fabs(x - y));
      err2 = std::max(err2, std::fabs(x - all[pos * V + v]));
    }
  }
  r.error = err / scale;
  r.error_prefill = err2 / scale;
  return r;
}

CacheDtypes uniform(Dtype kv, Dtype state = Dtype::fp32) { return CacheDtypes{kv, kv, state, state}; }

void check_model(const ModelSpec& spec, std::uint64_t total, std::uint64_t prompt,
                 std::initializer_list<Dtype> kv_dtypes, Options opt = {}) {
  Model m(spec, opt);
  for (Dtype d : kv_dtypes) {
    BOOST_TEST_CONTEXT(spec.name << " K/V " << name(d)) {
      Run r = compare(m, total, prompt, uniform(d));
      BOOST_TEST_MESSAGE(spec.name << " " << name(d) << ": error vs reference " << r.error << ", vs prefill "
                                   << r.error_prefill);
      BOOST_TEST(r.error <= tolerance(d));
      BOOST_TEST(r.error_prefill <= prefill_tolerance(d));
    }
  }
}

ModelSpec synthetic(std::string name, std::vector<LayerCache> layers, std::uint64_t heads = 8) {
  ModelSpec s;
  s.name = std::move(name);
  s.dims.num_attention_heads = heads;
  s.dims.rope_theta = 10000.0;
  s.dims.mla_qk_nope_head_dim = 32;
  s.dims.mla_v_head_dim = 32;
  for (std::size_t i = 0; i < layers.size(); ++i) s.layers.push_back({i, {layers[i]}});
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(runtime_decode)

BOOST_AUTO_TEST_CASE(full_attention_gqa) {
  check_model(load_model("Qwen/Qwen3-0.6B"), 24, 8,
              {Dtype::fp32, Dtype::fp16, Dtype::bf16, Dtype::q8_0, Dtype::fp8_e4m3, Dtype::q4_0});
}

BOOST_AUTO_TEST_CASE(more_storage_formats) {
  // Every remaining format through one small model.
  auto spec = synthetic("full", {Attention{2, 64, 64}, Attention{2, 64, 64}}, 4);
  check_model(spec, 12, 4, {Dtype::fp8_e5m2, Dtype::int8, Dtype::q4_1, Dtype::q5_0, Dtype::q5_1, Dtype::iq4_nl});
}

// The window is 8 and the sequence 29 tokens: the ring is overwritten three times over, and
// decoding continues past the window through the prefill boundary as well.
BOOST_AUTO_TEST_CASE(sliding_window_ring_buffer) {
  auto spec = synthetic("sliding", {Attention{2, 32, 32, Attention::Window{8}}, Attention{2, 32, 32}, Attention{2, 32, 32, Attention::Window{8}}}, 4);
  check_model(spec, 29, 11, {Dtype::fp32, Dtype::bf16, Dtype::q8_0});
  // A prompt longer than the window, written into the ring in one call.
  check_model(spec, 29, 20, {Dtype::fp32});
  // gpt-oss's real 128-token window, decoded past it.
  check_model(load_model("openai/gpt-oss-20b"), 134, 120, {Dtype::fp32});
}

BOOST_AUTO_TEST_CASE(chunked_attention) {
  auto spec = synthetic("chunked", {Attention{2, 32, 32, Attention::Chunk{8}}, Attention{2, 32, 32}}, 4);
  check_model(spec, 27, 5, {Dtype::fp32, Dtype::bf16});
  check_model(spec, 27, 13, {Dtype::fp32});
}

// MLA: the cached path attends in latent space with W_UK absorbed into the queries; the
// reference decompresses every token's latent into per-head K and V.
BOOST_AUTO_TEST_CASE(mla_absorbed_equals_naive) {
  check_model(load_model("deepseek-ai/DeepSeek-V3"), 16, 6, {Dtype::fp32, Dtype::bf16, Dtype::q8_0});
}

// DeepSeek-V3.2's indexer with a top-k of 5, so most queries attend sparsely.
BOOST_AUTO_TEST_CASE(mla_with_sparse_indexer) {
  Options o;
  o.index_topk = 5;
  check_model(load_model("deepseek-ai/DeepSeek-V3.2"), 16, 6, {Dtype::fp32}, o);
}

BOOST_AUTO_TEST_CASE(mamba1_step_equals_scan) {
  check_model(load_model("ArthurZ/mamba-2.8b"), 12, 4, {Dtype::fp32});
}

BOOST_AUTO_TEST_CASE(mamba2_step_equals_scan) {
  Mamba2 m2;
  m2.n_heads = 8, m2.head_dim = 16, m2.n_groups = 2, m2.d_state = 32, m2.conv_kernel = 4;
  auto spec = synthetic("mamba2", {m2, Attention{2, 32, 32}, m2, NoCache{}});
  check_model(spec, 14, 5, {Dtype::fp32});
}

// Attention and Mamba-2 in the same layer, run side by side (Falcon-H1's parallel hybrid).
BOOST_AUTO_TEST_CASE(attention_and_mamba2_in_one_layer) {
  Mamba2 m2;
  m2.n_heads = 8, m2.head_dim = 16, m2.n_groups = 2, m2.d_state = 32, m2.conv_kernel = 4;
  auto spec = synthetic("parallel", {Attention{2, 32, 32}, m2, Attention{2, 32, 32, Attention::Window{6}}});
  spec.layers[0].mixers.push_back(m2);
  spec.layers[2].mixers.push_back(m2);
  check_model(spec, 14, 5, {Dtype::fp32});
}

BOOST_AUTO_TEST_CASE(jamba_hybrid) { check_model(load_model("ai21labs/Jamba-v0.1"), 10, 4, {Dtype::fp32}); }

BOOST_AUTO_TEST_CASE(gated_delta_net) {
  check_model(load_model("Qwen/Qwen3-Next-80B-A3B-Thinking"), 12, 4, {Dtype::fp32, Dtype::bf16});
}

BOOST_AUTO_TEST_CASE(lightning_and_kda) {
  LinearAttention light{LinearAttention::Variant::lightning, 4, 4, 32, 32, 0};
  LinearAttention kda{LinearAttention::Variant::kda, 2, 4, 32, 32, 4};
  auto spec = synthetic("linear", {light, Attention{2, 32, 32}, kda});
  check_model(spec, 14, 5, {Dtype::fp32});
}

BOOST_AUTO_TEST_CASE(short_conv) { check_model(load_model("LiquidAI/LFM2-700M"), 12, 4, {Dtype::fp32, Dtype::bf16}); }

// Layers 2 and 3 own no cache: they read layer 0's (full) and layer 1's (sliding) K/V.
BOOST_AUTO_TEST_CASE(shared_kv_reads_source_cache) {
  auto spec = synthetic("shared", {Attention{2, 32, 32}, Attention{2, 32, 32, Attention::Window{6}}, SharedKv{0}, SharedKv{1}}, 4);
  check_model(spec, 17, 5, {Dtype::fp32, Dtype::q8_0});
  Model m(spec);
  Cache c = m.allocate(17, uniform(Dtype::fp32));
  BOOST_TEST(c.layers()[2].empty());
  BOOST_TEST(c.layers()[3].empty());
}

// Recurrent state stored in bf16 is rounded once per call: decode rounds it every token.
BOOST_AUTO_TEST_CASE(bf16_recurrent_state) {
  Model m(load_model("LiquidAI/LFM2-700M"));
  Run r = compare(m, 12, 4, uniform(Dtype::fp32, Dtype::bf16));
  BOOST_TEST(r.error <= tolerance(Dtype::bf16));
}

// S13: with the cache a decode step computes one token; without it, step n recomputes n.
BOOST_AUTO_TEST_CASE(tokens_computed_per_step) {
  Model m(load_model("Qwen/Qwen3-0.6B"));
  const auto toks = sample_tokens(10, m.dims().vocab);
  Cache c = m.allocate(10, uniform(Dtype::fp32));
  ForwardStats with;
  m.forward(std::span(toks).first(4), c, false, &with);
  for (std::size_t t = 4; t < 10; ++t) {
    ForwardStats step;
    m.forward(std::span(toks).subspan(t, 1), c, false, &step);
    BOOST_TEST(step.tokens_computed == 1u);
  }
  ForwardStats without;
  for (std::size_t n = 5; n <= 10; ++n) {
    Cache fresh = m.allocate(n, uniform(Dtype::fp32));
    m.forward(std::span(toks).first(n), fresh, false, &without);
  }
  BOOST_TEST(without.tokens_computed == 5u + 6 + 7 + 8 + 9 + 10);
}

// S13 as the library states it (generation_steps: the web page's panel and Python's
// kvplan.generation) against what the runtime computes and holds at every step.
BOOST_AUTO_TEST_CASE(generation_steps_match_the_runtime) {
  const ModelSpec spec = load_model("Qwen/Qwen3-0.6B");
  Model m(spec);
  const std::uint64_t P = 5, steps = 6;
  const auto rows = generation_steps(spec, test::workload(1, 1, Dtype::fp32), P, steps);
  const auto toks = sample_tokens(P + steps, m.dims().vocab);
  Cache c = m.allocate(P + steps - 1, uniform(Dtype::fp32));
  std::uint64_t with_total = 0, without_total = 0;
  for (std::uint64_t n = 0; n < steps; ++n) {
    ForwardStats with;
    if (n == 0) m.forward(std::span(toks).first(P), c, false, &with);
    else m.forward(std::span(toks).subspan(P + n - 1, 1), c, false, &with);
    ForwardStats without;
    Cache fresh = m.allocate(P + n, uniform(Dtype::fp32));
    m.forward(std::span(toks).first(P + n), fresh, false, &without);
    BOOST_TEST_CONTEXT("step " << n) {
      BOOST_TEST(with.tokens_computed == rows[n].tokens_computed_with_cache);
      BOOST_TEST(without.tokens_computed == rows[n].tokens_computed_without_cache);
      // The bytes a cache of exactly the sequence so far holds, measured from its buffers.
      BOOST_TEST(measure_cache(m, fresh).measured_total_bytes == rows[n].cache_bytes);
    }
    with_total += with.tokens_computed;
    without_total += without.tokens_computed;
  }
  BOOST_TEST(rows.back().cumulative_with_cache == with_total);
  BOOST_TEST(rows.back().cumulative_without_cache == without_total);
}

BOOST_AUTO_TEST_SUITE_END()
