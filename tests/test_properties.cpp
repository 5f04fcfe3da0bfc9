// Property tests over randomly generated (valid) architectures: thousands of configs of every
// family, each checked for the invariants the byte formulas must keep.
#include <random>

#include "helpers.h"
#include "random_arch.h"
#include "kvplan/engines.h"
#include "kvplan/planner.h"

using namespace kvplan;

namespace {

using nlohmann::json;
using Gen = test::RandomArch;

Workload wl(std::uint64_t tokens, std::uint64_t batch, Dtype d, std::uint64_t tp = 1) {
  Workload w;
  w.tokens = tokens;
  w.batch = batch;
  w.k_dtype = w.v_dtype = d;
  w.tp = tp;
  return w;
}

bool splits_exactly(const LayerCache& c, std::uint64_t tp) {
  if (auto* a = std::get_if<Attention>(&c)) return a->kv_heads % tp == 0;
  if (std::holds_alternative<Mla>(c)) return false;
  return true;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(properties)

BOOST_AUTO_TEST_CASE(random_architectures_keep_the_invariants) {
  Gen g{std::mt19937_64(20261129)};
  const Dtype dtypes[] = {Dtype::bf16, Dtype::fp8_e4m3, Dtype::q8_0, Dtype::q4_0, Dtype::fp32, Dtype::nvfp4};
  std::size_t checked = 0, failures = 0;
  for (int n = 0; n < 5000; ++n) {
    const json cfg = g.config();
    ModelSpec m;
    try {
      m = load_model_from_json(cfg.dump(), "random.json");
    } catch (const Error& e) {
      BOOST_ERROR("generated config rejected: " << e.what() << "\n" << cfg.dump());
      continue;
    }
    const Dtype d = dtypes[g.range(0, 5)];
    const std::uint64_t t1 = g.range(0, 20000), t2 = t1 + g.range(0, 20000);
    const std::uint64_t b = g.range(1, 64);
    const auto s1 = cache_size(m, wl(t1, b, d)), s2 = cache_size(m, wl(t2, b, d));
    const auto sb = cache_size(m, wl(t1, b + 1, d));
    bool ok = s1.total_bytes <= s2.total_bytes && s1.total_bytes <= sb.total_bytes;  // monotonic
    ok = ok && s1.total_bytes == s1.kv_bytes + s1.state_bytes;
    ok = ok && s1.total_bytes == cache_size(m, wl(t1, 1, d)).total_bytes * b;        // linear in batch
    for (std::size_t i = 0; i < m.layers.size(); ++i) {
      const auto& c = m.layers[i].cache();
      const auto& l1 = s1.layers[i];
      // tokens held: sliding/chunked cap at their window/chunk, full/MLA grow, state and shared
      // kinds hold none.
      std::uint64_t window = 0;
      if (auto* a = std::get_if<Attention>(&c)) window = span_tokens(a->span);
      if (window) {
        ok = ok && l1.per_sequence.tokens_held == std::min(t1, window);
        ok = ok && layer_bytes(c, window, s1.dtypes).kv_bytes() == layer_bytes(c, window + t2, s1.dtypes).kv_bytes();
      } else if (l1.kind == "full_attention" || l1.kind == "mla") {
        ok = ok && l1.per_sequence.tokens_held == t1;
      } else {
        ok = ok && l1.per_sequence.tokens_held == 0 && l1.kv_bytes == 0;
        ok = ok && layer_bytes(c, t1, s1.dtypes).state_bytes() == layer_bytes(c, t2, s1.dtypes).state_bytes();
      }
      // KV bytes are tokens held x the per-token row.
      ok = ok && l1.per_sequence.kv_bytes() == l1.per_sequence.tokens_held * bytes_per_token(c, s1.dtypes);
      // TP: per-rank bytes x tp >= total, with equality exactly when nothing is replicated.
      for (std::uint64_t tp : {2u, 4u, 8u}) {
        const auto st1 = layer_bytes(c, t1, s1.dtypes, 1).state_bytes();
        try {
          ok = ok && layer_bytes(c, t1, s1.dtypes, tp).state_bytes() * tp >= st1;  // state splits by heads
        } catch (const InputError&) {
          // Mamba-2 groups that a TP degree cannot split are an input error, not a wrong size.
          ok = ok && std::holds_alternative<Mamba2>(c);
        }
        // Mamba-2 per-rank shapes, stated independently after vLLM's
        // MambaStateShapeCalculator.mamba2_state_shape (model_executor/layers/mamba/mamba_utils.py):
        // groups that do not divide tp are extended by extra_groups_for_head_shards to tp, the
        // conv channels d_inner + 2 x groups x d_state and the heads split by tp. An equality, so
        // a per-rank group count that forgets the replication fails here.
        if (auto* mb = std::get_if<Mamba2>(&c); mb && (mb->n_groups % tp == 0 || tp > mb->n_groups)) {
          const std::uint64_t groups = mb->n_groups % tp == 0 ? mb->n_groups : tp;
          const StateShape sh = state_shape(c, tp);
          ok = ok && sh.conv_rows == mb->conv_kernel - 1;
          ok = ok && sh.conv_cols == ceil_div(mb->d_inner() + 2 * groups * mb->d_state, tp);
          ok = ok && sh.ssm_a == ceil_div(mb->n_heads, tp) && sh.ssm_b == mb->head_dim && sh.ssm_c == mb->d_state;
        }
        auto one = layer_bytes(c, t1, s1.dtypes, 1).kv_bytes();
        auto per = layer_bytes(c, t1, s1.dtypes, tp).kv_bytes();
        if (one == 0) continue;
        ok = ok && per * tp >= one;
        ok = ok && ((per * tp == one) == splits_exactly(c, tp));
        if (std::holds_alternative<Mla>(c)) ok = ok && per == one;  // MLA never splits
      }
    }
    if (!ok && failures++ < 5) BOOST_ERROR("invariant broken for " << cfg.dump() << " tokens " << t1 << "/" << t2);
    ++checked;
  }
  BOOST_TEST(failures == 0u);
  BOOST_TEST(checked == 5000u);
}

BOOST_AUTO_TEST_CASE(size_plan_and_engine_agree_on_random_architectures) {
  // The same inputs through cache_size, plan and the vLLM profile give the same bytes.
  Gen g{std::mt19937_64(42)};
  const Accelerator big = find_accelerator("MI300X");
  std::size_t checked = 0;
  for (int n = 0; n < 2000; ++n) {
    const json cfg = g.config();
    const auto m = load_model_from_json(cfg.dump(), "random.json");
    const std::uint64_t heads = m.dims.num_attention_heads;
    std::uint64_t tp = g.pick({1, 2, 4});
    if (heads % tp) tp = 1;
    bool mamba_groups_ok = true;
    for (const auto& l : m.layers)
      if (auto* mb = std::get_if<Mamba2>(&l.cache()); mb && mb->n_groups % tp && tp < mb->n_groups)
        mamba_groups_ok = false;
    if (!mamba_groups_ok) tp = 1;
    const std::uint64_t context = g.range(1, 50000), conc = g.range(1, 16);
    Workload w;
    w.tokens = context;
    w.batch = conc;
    w.tp = tp;
    const auto s = cache_size(m, w);

    PlanInput in;
    in.gpu = big;
    in.tp = tp;
    in.gpus = tp;
    in.context = context;
    in.concurrency = conc;
    in.weight_bytes = 1;  // the weights do not matter here
    const auto p = plan(m, in);
    BOOST_TEST_CONTEXT(cfg.dump() << " tp " << tp << " context " << context << " x " << conc) {
      BOOST_TEST(p.per_gpu.kv_bytes == s.kv_bytes);
      BOOST_TEST(p.per_gpu.state_bytes == s.state_bytes);
      BOOST_TEST(p.cache_bytes_per_token == s.bytes_per_token);
      // vLLM's page for plain full attention is block x the same per-token bytes.
      if (m.count_kind("full_attention") == m.num_layers() && m.num_layers() > 0) {
        VllmOptions o;
        o.tensor_parallel_size = tp;
        o.max_model_len = 4096;
        o.available_kv_bytes = 64 * GiB;
        const auto v = vllm_profile(m, o);
        BOOST_TEST(v.bytes_per_token == s.bytes_per_token);
        BOOST_TEST(v.page_bytes * m.num_layers() == v.block_size * s.bytes_per_token);
      }
    }
    ++checked;
  }
  BOOST_TEST(checked == 2000u);
}

BOOST_AUTO_TEST_CASE(overflow_sized_inputs_are_errors) {
  Gen g{std::mt19937_64(7)};
  for (int n = 0; n < 500; ++n) {
    auto cfg = g.config();
    auto m = load_model_from_json(cfg.dump(), "random.json");
    Workload w = wl(std::uint64_t{1} << g.range(40, 63), std::uint64_t{1} << g.range(20, 40), Dtype::fp32);
    bool has_tokens = m.has_kind("full_attention") || m.has_kind("mla") || m.has_kind("sliding_attention") ||
                      m.has_kind("chunked_attention");
    if (!has_tokens) continue;
    try {
      auto s = cache_size(m, w);
      // If it did not throw, the result must be the exact (non-wrapped) product.
      unsigned __int128 exact = static_cast<unsigned __int128>(cache_size(m, wl(w.tokens, 1, Dtype::fp32)).total_bytes) * w.batch;
      BOOST_TEST((exact == s.total_bytes));
    } catch (const OverflowError& e) {
      BOOST_TEST(std::string(e.what()).find("random.json") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
