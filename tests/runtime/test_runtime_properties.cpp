// The reference runtime on randomly generated architectures (tests/random_arch.h: every family
// kvplan maps): the bytes its buffers actually hold equal the core library's formula for every
// layer, and `size` (cache_size), `plan` and (for plain attention) the vLLM profile report those
// same bytes for the same inputs.
#include <random>
#include <set>

#include "helpers.h"
#include "kvplan/engines.h"
#include "kvplan/planner.h"
#include "kvplan/runtime/measure.h"
#include "random_arch.h"

using namespace kvplan;

namespace {
// The token counts that matter for a model: around its smallest window or chunk, else random.
std::uint64_t interesting_tokens(const ModelSpec& m, test::RandomArch& g) {
  const std::uint64_t w = test::smallest_window(m);
  if (w && w <= 600 && g.coin()) return std::max<std::uint64_t>(1, w - 1 + g.range(0, 2));  // window-1 .. window+1
  return g.range(1, 600);
}
}  // namespace

BOOST_AUTO_TEST_SUITE(runtime_properties)

BOOST_AUTO_TEST_CASE(runtime_size_and_plan_agree_on_random_architectures) {
  test::RandomArch g{std::mt19937_64(20261129)};
  const Dtype dtypes[] = {Dtype::bf16, Dtype::fp16, Dtype::fp32, Dtype::fp8_e4m3, Dtype::int8,
                          Dtype::q8_0, Dtype::q4_0, Dtype::q5_1, Dtype::iq4_nl, Dtype::nvfp4};
  const Accelerator big = find_accelerator("MI300X");
  std::size_t checked = 0, vllm_checked = 0;
  std::set<std::string> kinds;
  for (int n = 0; n < 500; ++n) {
    const nlohmann::json cfg = g.config();
    const ModelSpec m = load_model_from_json(cfg.dump(), "random.json");
    Workload w = test::workload(interesting_tokens(m, g), 1, dtypes[g.range(0, std::size(dtypes) - 1)]);
    // Allocate for w.tokens, then prefill 3 tokens and decode 1 through the cache (running the
    // full context past every window is runtime_decode's job; this suite is about the bytes).
    const runtime::Measurement r = runtime::measure(m, w, runtime::MeasureOptions{runtime::Options{}, 4});
    const CacheSize s = cache_size(m, w);
    PlanInput in;
    in.gpu = big;
    in.gpus = 1;
    in.context = w.tokens;
    in.concurrency = 1;
    in.k_dtype = w.k_dtype;
    in.v_dtype = w.v_dtype;
    in.weight_bytes = 1;  // the weights do not matter here
    const Plan p = plan(m, in);
    BOOST_TEST_CONTEXT(cfg.dump() << "\ntokens " << w.tokens << " kv dtype " << name(*w.k_dtype)) {
      BOOST_REQUIRE_EQUAL(r.layers.size(), m.layers.size());
      for (const auto& l : r.layers) {
        BOOST_TEST_CONTEXT("layer " << l.index << " (" << l.kind << ")") {
          BOOST_TEST(l.matches());
          BOOST_TEST(l.measured_bytes == s.layers.at(l.index).bytes);
        }
        kinds.insert(l.kind);
      }
      BOOST_TEST(r.buffers_stable);
      BOOST_TEST(r.measured_total_bytes == s.total_bytes);
      BOOST_TEST(p.per_gpu.kv_bytes + p.per_gpu.state_bytes == r.measured_total_bytes);
      // vLLM's per-token page bytes for plain full attention, in the dtypes vLLM can store.
      const Dtype d = *w.k_dtype;
      if (m.count_kind("full_attention") == m.num_layers() &&
          (d == Dtype::bf16 || d == Dtype::fp16 || d == Dtype::fp32 || d == Dtype::fp8_e4m3)) {
        VllmOptions o;
        o.kv_cache_dtype = d == Dtype::fp8_e4m3 ? "fp8_e4m3" : std::string(name(d));
        o.max_model_len = w.tokens;
        o.available_kv_bytes = 64 * GiB;
        BOOST_TEST(vllm_profile(m, o).bytes_per_token * w.tokens == r.measured_total_bytes);
        ++vllm_checked;
      }
    }
    ++checked;
  }
  BOOST_TEST(checked == 500u);
  BOOST_TEST(vllm_checked > 20u);
  // Every layer kind the generator can produce went through the runtime.
  for (const char* k : {"full_attention", "sliding_attention", "chunked_attention", "mla", "mamba",
                        "linear_attention", "short_conv", "shared_kv", "none"}) {
    BOOST_TEST_CONTEXT(k) { BOOST_TEST(kinds.count(k) == 1u); }
  }
}

BOOST_AUTO_TEST_SUITE_END()
