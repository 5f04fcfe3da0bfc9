// kvplan simulate: the vLLM V1 block pool, KV cache managers and scheduler against scenarios
// ported from vLLM's own tests (each case names the test it comes from; docs/simulate.md
// "Conformance with vLLM's own tests" lists them), consistency with kvplan's engine profile,
// Little's law, determinism, and the workload readers.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "helpers.h"
#include "simulate_helpers.h"
#include "kvplan/check.h"
#include "kvplan/engines.h"
#include "kvplan/simulate.h"
#include "simulate/vllm_sim.h"

using namespace kvplan;
using kvplan::test::HasMessage;
using Ids = std::vector<std::uint32_t>;

namespace {

// vLLM's tests build a KVCacheConfig by hand (make_kv_cache_config and friends); this is the
// same: groups with a block size and window, a pool of num_blocks.
VllmResult config(std::uint64_t num_blocks, std::vector<VllmGroup> groups, std::uint64_t max_model_len = 8192) {
  VllmResult r;
  r.num_blocks = num_blocks;
  r.groups = std::move(groups);
  r.block_size = r.groups.front().block_size;
  r.max_model_len = max_model_len;
  r.num_groups = r.groups.size();
  r.starts = true;
  return r;
}
VllmGroup group(VllmGroupKind kind, std::uint64_t block, std::uint64_t window = 0) {
  VllmGroup g;
  g.kind = kind;
  g.block_size = block;
  g.window = window;
  g.layers = {0};
  return g;
}
using kvplan::test::unit_steps;
SimOptions options(bool caching, std::uint64_t batched = 8192, std::uint64_t seqs = 256) {
  SimOptions o;
  o.engine.enable_prefix_caching = caching;
  o.engine.max_num_batched_tokens = batched;
  o.scheduler.max_num_seqs = seqs;
  o.step_time = unit_steps();
  return o;
}

// Puts one request in the waiting queue and returns it (the scheduler's add_request).
detail::Req& add(detail::Simulator& s, SimRequest r) {
  if (s.reqs_.capacity() < 64) s.reqs_.reserve(64);  // references handed out stay valid
  detail::Source src(std::vector<SimRequest>{r});
  SimResult res;
  double first = 0;
  bool started = false;
  s.admit(src, res, first, started);
  BOOST_REQUIRE(!s.waiting_.empty());
  return s.reqs_[s.waiting_.back()];
}
// remove_skipped_blocks at `computed` tokens (vLLM's remove_skipped_blocks): the first `nulls`
// blocks of group 0's table become the null block, the rest stay as allocated (`original`).
void expect_nulled(detail::Simulator& s, detail::Req& r, const Ids& original, std::uint64_t computed, std::size_t nulls) {
  BOOST_TEST_CONTEXT("computed " << computed) {
    s.remove_skipped(0, r, computed);
    Ids want = original;
    for (std::size_t i = 0; i < nulls; ++i) want[i] = 0;
    BOOST_TEST(r.tables[0] == want, boost::test_tools::per_element());
  }
}

// A prompt whose first `shared` tokens are the shared stream `prefix` (vLLM's tests write the
// same token ids into each request).
SimRequest prompt(std::uint64_t tokens, std::uint64_t prefix = 0, std::uint64_t shared = 0, std::uint64_t output = 1) {
  SimRequest r;
  r.prompt_tokens = tokens;
  r.output_tokens = output;
  r.prefix_id = prefix;
  r.prefix_tokens = shared;
  return r;
}

using kvplan::test::h100;

using Scheduled = std::vector<std::pair<std::uint32_t, std::uint64_t>>;

std::uint32_t id_of(detail::Simulator& s, const detail::Req& r) {
  return static_cast<std::uint32_t>(&r - s.reqs_.data());
}

// One Scheduler.schedule() and its update_from_output, the way Simulator::run steps (without the
// clock): each scheduled request advances by its tokens; one that reaches its length samples a
// token; one with max_tokens sampled finishes and frees its blocks. Returns the preemptions.
std::uint64_t step(detail::Simulator& s, Scheduled& out) {
  std::uint64_t preempted = 0;
  s.schedule(out, preempted);
  for (auto [id, n] : out) {
    detail::Req& q = s.reqs_[id];
    q.computed += n;
    if (q.computed < q.num_tokens()) continue;
    ++q.generated;
    if (q.generated >= q.in.output_tokens) {
      q.state = detail::State::done;
      s.free_request(q);
    }
  }
  s.running_.erase(std::remove_if(s.running_.begin(), s.running_.end(),
                                  [&](std::uint32_t id) { return s.reqs_[id].state == detail::State::done; }),
                   s.running_.end());
  return preempted;
}
std::uint64_t scheduled_tokens(const Scheduled& out, std::uint32_t id) {
  for (auto [i, n] : out)
    if (i == id) return n;
  return 0;
}

// _test_partial_request_hit's trick (tests/v1/core/test_prefix_caching.py): take some
// (block hash, group) entries out of the prefix-cache map, and put them back afterwards.
struct Uncached {
  detail::BlockPool& pool;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> saved;
  Uncached(detail::BlockPool& p, const std::vector<std::uint64_t>& keys) : pool(p) {
    for (std::uint64_t k : keys) {
      std::uint32_t* v = pool.map_.slot(k);
      BOOST_REQUIRE(v != nullptr);
      saved.emplace_back(k, *v);
      pool.map_.erase_at(v);
    }
  }
  ~Uncached() {
    for (auto [k, v] : saved) {
      bool inserted = false;
      pool.map_.emplace(k, v, inserted);
    }
  }
};

SimOptions llama_options(std::uint64_t max_len) {
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  SimOptions o;
  o.engine.max_model_len = max_len;
  o.engine.available_kv_bytes = 40ull * GiB;  // docs/engines.md's worked budget
  o.scheduler.max_num_seqs = 1024;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(simulate)

// tests/v1/core/test_prefix_caching.py::test_prefill: 11 blocks of 16 tokens, a 3-block common
// prefix. Block ids, hits, ref counts and the free-queue (eviction) order after each call.
BOOST_AUTO_TEST_CASE(vllm_test_prefill) {
  detail::Simulator s(config(11, {group(VllmGroupKind::full_attention, 16)}), options(true), detail::StepTimer(unit_steps()));
  std::vector<Ids> hits;
  detail::Req& r0 = add(s, prompt(55, 7, 48));
  BOOST_TEST(s.get_computed_blocks(r0, hits) == 0u);
  BOOST_TEST(hits[0].empty());
  BOOST_TEST(s.allocate_slots(r0, 55, &hits, 0));
  BOOST_TEST(r0.tables[0] == (Ids{1, 2, 3, 4}), boost::test_tools::per_element());
  for (std::uint32_t b : {1u, 2u, 3u}) BOOST_TEST(s.pool_->has_hash(b));  // full blocks are cached
  BOOST_TEST(!s.pool_->has_hash(4));                                     // the partial one is not
  for (std::uint32_t b : {1u, 2u, 3u, 4u}) BOOST_TEST(s.pool_->ref(b) == 1u);

  // Cache hit in the common prefix while the original blocks are in use.
  detail::Req& r1 = add(s, prompt(53, 7, 48));
  BOOST_TEST(s.get_computed_blocks(r1, hits) == 48u);
  BOOST_TEST(hits[0] == (Ids{1, 2, 3}), boost::test_tools::per_element());
  BOOST_TEST(s.allocate_slots(r1, 53 - 48, &hits, 48));
  BOOST_TEST(r1.tables[0] == (Ids{1, 2, 3, 5}), boost::test_tools::per_element());
  for (std::uint32_t b : {1u, 2u, 3u}) BOOST_TEST(s.pool_->ref(b) == 2u);
  BOOST_TEST(s.pool_->num_free() == 5u);

  s.free_request(r0);
  s.free_request(r1);
  BOOST_TEST(s.pool_->num_free() == 10u);
  // [partial blocks without hashes (5, 4), prepended] [never used (6..10)] [common (3, 2, 1)]
  BOOST_TEST(s.pool_->free_queue() == (Ids{5, 4, 6, 7, 8, 9, 10, 3, 2, 1}), boost::test_tools::per_element());

  // Cache hit when the original blocks are already free.
  detail::Req& r2 = add(s, prompt(54, 7, 48));
  BOOST_TEST(s.get_computed_blocks(r2, hits) == 48u);
  BOOST_TEST(hits[0] == (Ids{1, 2, 3}), boost::test_tools::per_element());
  BOOST_TEST(s.allocate_slots(r2, 53 - 48, &hits, 48));
  BOOST_TEST(r2.tables[0].back() == 5u);  // reuses the partial block 5
  BOOST_TEST(s.pool_->num_free() == 6u);
  s.free_request(r2);

  // Cache miss and eviction: the new blocks come in eviction order.
  detail::Req& r3 = add(s, prompt(160));
  BOOST_TEST(s.get_computed_blocks(r3, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r3, 160, &hits, 0));
  BOOST_TEST(r3.tables[0] == (Ids{5, 4, 6, 7, 8, 9, 10, 3, 2, 1}), boost::test_tools::per_element());
  BOOST_TEST(s.pool_->num_free() == 0u);
}

// tests/v1/core/test_prefix_caching.py::test_prefill_hybrid_model: one full-attention group and
// two sliding-window groups (window 2 blocks), 21 blocks: per-group block tables, and the
// sliding groups' hits with the block outside the window left null.
BOOST_AUTO_TEST_CASE(vllm_test_prefill_hybrid_model) {
  detail::Simulator s(config(21, {group(VllmGroupKind::full_attention, 16), group(VllmGroupKind::sliding_window, 16, 32), group(VllmGroupKind::sliding_window, 16, 32)}),
                      options(true), detail::StepTimer(unit_steps()));
  std::vector<Ids> hits;
  detail::Req& r0 = add(s, prompt(55, 7, 48));
  BOOST_TEST(s.get_computed_blocks(r0, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r0, 55, &hits, 0));
  BOOST_TEST(r0.tables[0] == (Ids{1, 2, 3, 4}), boost::test_tools::per_element());
  BOOST_TEST(r0.tables[1] == (Ids{5, 6, 7, 8}), boost::test_tools::per_element());
  BOOST_TEST(r0.tables[2] == (Ids{9, 10, 11, 12}), boost::test_tools::per_element());
  detail::Req& r1 = add(s, prompt(53, 7, 48));
  BOOST_TEST(s.get_computed_blocks(r1, hits) == 48u);
  BOOST_TEST(hits[0] == (Ids{1, 2, 3}), boost::test_tools::per_element());
  BOOST_TEST(hits[1] == (Ids{0, 6, 7}), boost::test_tools::per_element());
  BOOST_TEST(hits[2] == (Ids{0, 10, 11}), boost::test_tools::per_element());
  BOOST_TEST(s.allocate_slots(r1, 5, &hits, 48));
  BOOST_TEST(r1.tables[0].back() == 13u);
  BOOST_TEST(r1.tables[1].back() == 14u);
  BOOST_TEST(r1.tables[2].back() == 15u);
  for (std::uint32_t b : {1u, 2u, 3u, 6u, 7u, 10u, 11u}) BOOST_TEST(s.pool_->ref(b) == 2u);

  // The same test's _test_partial_request_hit cases, after both requests are freed: which
  // (block, group) entries leave the cache, and the hit length (in blocks) that remains.
  const std::vector<std::uint64_t> h = r1.hashes[0];
  s.free_request(r0);
  s.free_request(r1);
  auto key = [&](std::size_t block, std::size_t grp) { return detail::hash_mix(h[block], grp); };
  auto hit_blocks = [&](const std::vector<std::uint64_t>& evict) {
    Uncached u(*s.pool_, evict);
    detail::Req& r = add(s, prompt(53, 7, 48));
    const std::uint64_t len = s.get_computed_blocks(r, hits);
    for (const auto& g : hits) BOOST_TEST(g.size() == len / 16);
    return len / 16;
  };
  BOOST_TEST(hit_blocks({key(0, 1), key(0, 2)}) == 3u);          // outside the window: no effect
  BOOST_TEST(hit_blocks({key(0, 0)}) == 0u);                      // first full block: total miss
  BOOST_TEST(hit_blocks({key(2, 0), key(2, 1), key(2, 2)}) == 2u);
  BOOST_TEST(hit_blocks({key(2, 0)}) == 2u);
  BOOST_TEST(hit_blocks({key(2, 1)}) == 2u);
  BOOST_TEST(hit_blocks({key(2, 2)}) == 2u);
  BOOST_TEST(hit_blocks({key(2, 0), key(0, 1), key(0, 2)}) == 0u);  // full hits 1, sliding 2: miss
}

// tests/v1/core/test_prefix_caching.py::test_evict: 11 blocks of 16. Freeing a request puts its
// partial (unhashed) block at the head of the free queue and its full blocks, tail first, at the
// back (LRU); a later hit takes its blocks out of the queue and new blocks come from the head.
BOOST_AUTO_TEST_CASE(vllm_test_evict) {
  detail::Simulator s(config(11, {group(VllmGroupKind::full_attention, 16)}), options(true), detail::StepTimer(unit_steps()));
  std::vector<Ids> hits;
  detail::Req& r0 = add(s, prompt(5 * 16 + 7, 1));  // tokens 0..86 (the stream named 1)
  BOOST_TEST(s.get_computed_blocks(r0, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r0, 5 * 16 + 7, &hits, 0));
  BOOST_TEST(r0.tables[0].size() == 6u);  // 5 full + 1 partial
  detail::Req& r1 = add(s, prompt(3 * 16));  // other tokens
  BOOST_TEST(s.get_computed_blocks(r1, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r1, 3 * 16, &hits, 0));
  BOOST_TEST(r1.tables[0].size() == 3u);
  BOOST_TEST(s.pool_->num_free() == 1u);  // 10 - (6 + 3)
  s.free_request(r0);
  BOOST_TEST(s.pool_->free_queue() == (Ids{6, 10, 5, 4, 3, 2, 1}), boost::test_tools::per_element());
  s.free_request(r1);
  BOOST_TEST(s.pool_->num_free() == 10u);
  BOOST_TEST(s.pool_->free_queue() == (Ids{6, 10, 5, 4, 3, 2, 1, 9, 8, 7}), boost::test_tools::per_element());
  // Touch the first 2 blocks.
  detail::Req& r2 = add(s, prompt(2 * 16 + 3, 1));
  BOOST_TEST(s.get_computed_blocks(r2, hits) == 32u);
  BOOST_TEST(hits[0] == (Ids{1, 2}), boost::test_tools::per_element());
  BOOST_TEST(s.allocate_slots(r2, 3, &hits, 32));
  BOOST_TEST(r2.tables[0] == (Ids{1, 2, 6}), boost::test_tools::per_element());
  BOOST_TEST(s.pool_->num_free() == 7u);
}

// tests/v1/core/test_prefix_caching.py::test_computed_blocks_not_evicted: 3 blocks (2 usable).
// A hit on the first cached block takes the second cached block, not the hit one, for the new
// tokens.
BOOST_AUTO_TEST_CASE(vllm_test_computed_blocks_not_evicted) {
  detail::Simulator s(config(3, {group(VllmGroupKind::full_attention, 16)}), options(true), detail::StepTimer(unit_steps()));
  std::vector<Ids> hits;
  detail::Req& r0 = add(s, prompt(16, 1));  // tokens 0..15
  BOOST_TEST(s.get_computed_blocks(r0, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r0, 16, &hits, 0));
  BOOST_TEST(r0.tables[0] == (Ids{1}), boost::test_tools::per_element());
  detail::Req& r1 = add(s, prompt(16));  // tokens 16..31 (another chain)
  BOOST_TEST(s.get_computed_blocks(r1, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r1, 16, &hits, 0));
  BOOST_TEST(r1.tables[0] == (Ids{2}), boost::test_tools::per_element());
  s.free_request(r0);
  s.free_request(r1);
  detail::Req& r2 = add(s, prompt(32, 1));  // tokens 0..31
  BOOST_TEST(s.get_computed_blocks(r2, hits) == 16u);
  BOOST_TEST(hits[0] == (Ids{1}), boost::test_tools::per_element());
  BOOST_TEST(s.allocate_slots(r2, 16, &hits, 16));
  BOOST_TEST(r2.tables[0] == (Ids{1, 2}), boost::test_tools::per_element());
}

// tests/v1/core/test_prefix_caching.py::test_hash_block_correct_reuse: a cached block reused as a
// new block for a partial block loses its hash.
BOOST_AUTO_TEST_CASE(vllm_test_hash_block_correct_reuse) {
  detail::Simulator s(config(2, {group(VllmGroupKind::full_attention, 16)}), options(true), detail::StepTimer(unit_steps()));
  std::vector<Ids> hits;
  detail::Req& r0 = add(s, prompt(16, 1));
  BOOST_TEST(s.get_computed_blocks(r0, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r0, 16, &hits, 0));
  BOOST_TEST(r0.tables[0].size() == 1u);
  BOOST_TEST(s.pool_->has_hash(1));
  s.free_request(r0);
  detail::Req& r1 = add(s, prompt(15, 1));
  BOOST_TEST(s.get_computed_blocks(r1, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r1, 15, &hits, 0));
  BOOST_TEST(r1.tables[0] == (Ids{1}), boost::test_tools::per_element());
  BOOST_TEST(!s.pool_->has_hash(1));
  BOOST_TEST(s.pool_->get_cached(detail::hash_mix(r0.hashes[0][0], 0)) == detail::kNone);  // entry dropped
}

// tests/v1/core/test_prefix_caching.py::test_basic_prefix_caching_disabled: block size 4, 5
// blocks, caching off: no hits for a shared prefix, and a request that does not fit gets nothing.
BOOST_AUTO_TEST_CASE(vllm_test_basic_prefix_caching_disabled) {
  detail::Simulator s(config(5, {group(VllmGroupKind::full_attention, 4)}), options(false), detail::StepTimer(unit_steps()));
  std::vector<Ids> hits;
  detail::Req& r1 = add(s, prompt(10, 1));
  BOOST_TEST(s.get_computed_blocks(r1, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r1, 10, &hits, 0));
  BOOST_TEST(r1.tables[0].size() == 3u);
  s.free_request(r1);
  detail::Req& r2 = add(s, prompt(16, 1));  // shares r1's 10 tokens
  BOOST_TEST(s.get_computed_blocks(r2, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r2, 16, &hits, 0));
  BOOST_TEST(r2.tables[0].size() == 4u);
  detail::Req& r3 = add(s, prompt(4));
  BOOST_TEST(s.get_computed_blocks(r3, hits) == 0u);
  BOOST_TEST(!s.allocate_slots(r3, 4, &hits, 0));
  BOOST_TEST(r3.tables[0].empty());
}

// tests/v1/core/test_prefix_caching.py::test_prefill_not_enough_free_blocks_with_computed_blocks:
// a request whose hit blocks sit in the free queue is refused when the free queue cannot cover
// its new blocks plus those hit blocks, and the hit blocks' ref counts are left untouched.
BOOST_AUTO_TEST_CASE(vllm_test_prefill_not_enough_free_blocks_with_computed_blocks) {
  detail::Simulator s(config(11, {group(VllmGroupKind::full_attention, 16)}), options(true), detail::StepTimer(unit_steps()));
  std::vector<Ids> hits;
  detail::Req& r0 = add(s, prompt(48, 1));  // | Common-0 | Common-1 | Common-2 |
  BOOST_TEST(s.get_computed_blocks(r0, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r0, 48, &hits, 0));
  const Ids part0 = r0.tables[0];
  detail::Req& r1 = add(s, prompt(96, 1));  // the common blocks and 3 more
  BOOST_TEST(s.get_computed_blocks(r1, hits) == 48u);
  BOOST_TEST(hits[0] == part0, boost::test_tools::per_element());
  BOOST_TEST(s.allocate_slots(r1, 48, &hits, 48));
  const Ids part1 = r1.tables[0];
  s.free_request(r1);
  for (std::size_t i = 0; i < 6; ++i) BOOST_TEST(s.pool_->ref(part1[i]) == (i < 3 ? 1u : 0u));
  detail::Req& r2 = add(s, prompt(32));
  BOOST_TEST(s.get_computed_blocks(r2, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r2, 32, &hits, 0));
  BOOST_TEST(s.pool_->num_free() == 5u);
  detail::Req& r3 = add(s, prompt(144, 1));  // r1's 6 blocks hit, 3 more needed
  BOOST_TEST(s.get_computed_blocks(r3, hits) == 96u);
  BOOST_TEST(hits[0] == part1, boost::test_tools::per_element());
  BOOST_TEST(!s.allocate_slots(r3, 48, &hits, 96));
  for (std::size_t i = 0; i < 6; ++i) BOOST_TEST(s.pool_->ref(part1[i]) == (i < 3 ? 1u : 0u));
}

// tests/v1/core/test_prefix_caching.py::test_decode: decode tokens that fit in the last block
// allocate nothing and leave it unhashed; filling it caches it and the next block is new.
BOOST_AUTO_TEST_CASE(vllm_test_decode) {
  detail::Simulator s(config(11, {group(VllmGroupKind::full_attention, 16)}), options(true), detail::StepTimer(unit_steps()));
  std::vector<Ids> hits;
  detail::Req& r0 = add(s, prompt(55, 0, 0, 64));
  BOOST_TEST(s.get_computed_blocks(r0, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r0, 55, &hits, 0));
  BOOST_TEST(r0.tables[0] == (Ids{1, 2, 3, 4}), boost::test_tools::per_element());
  r0.computed = 55;
  r0.generated = 4;  // 4 output tokens appended
  BOOST_TEST(s.allocate_slots(r0, 4, nullptr, 0));
  BOOST_TEST(r0.tables[0].size() == 4u);  // no new block
  BOOST_TEST(!s.pool_->has_hash(r0.tables[0].back()));
  r0.computed = 59;
  r0.generated = 4 + 9 + 10;  // 9 tokens fill block 4, 10 go to a new block
  BOOST_TEST(s.allocate_slots(r0, 19, nullptr, 0));
  BOOST_TEST(r0.tables[0].size() == 5u);  // one new block
  BOOST_TEST(s.pool_->has_hash(r0.tables[0][3]));
  BOOST_TEST(!s.pool_->has_hash(r0.tables[0][4]));
}

// tests/v1/core/test_prefix_caching.py::test_different_block_size: a full-attention group of
// 32-token blocks and a sliding-window group (window 32) of 16-token blocks, 100 blocks. The hit
// is the longest length both groups reach, a multiple of 32.
BOOST_AUTO_TEST_CASE(vllm_test_different_block_size) {
  detail::Simulator s(config(100, {group(VllmGroupKind::full_attention, 32), group(VllmGroupKind::sliding_window, 16, 32)}), options(true),
                      detail::StepTimer(unit_steps()));
  std::vector<Ids> hits;
  detail::Req& r0 = add(s, prompt(160, 1));  // 10 blocks of 16 tokens
  BOOST_TEST(s.get_computed_blocks(r0, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r0, 7 * 16, &hits, 0));
  BOOST_TEST(r0.tables[0] == (Ids{1, 2, 3, 4}), boost::test_tools::per_element());
  BOOST_TEST(r0.tables[1] == (Ids{5, 6, 7, 8, 9, 10, 11}), boost::test_tools::per_element());
  detail::Req& r1 = add(s, prompt(7 * 16 + 1, 1));
  BOOST_TEST(s.get_computed_blocks(r1, hits) == 6u * 16u);
  BOOST_TEST(hits[0].size() == 3u);
  BOOST_TEST(hits[1].size() == 6u);
  detail::Req& r2 = add(s, prompt(6 * 16 + 1, 1));
  BOOST_TEST(s.get_computed_blocks(r2, hits) == 6u * 16u);
  BOOST_TEST(hits[0].size() == 3u);
  BOOST_TEST(hits[1].size() == 6u);
  // Evict the sliding group's blocks 6 and 5: its hit would be 5 x 16 tokens, but the full group
  // needs a multiple of 32, so 4 x 16.
  const std::size_t slot16 = s.groups_[1].slot;
  s.ensure_hashes(r1, slot16, 7);  // vLLM hashes every full block of a request when it arrives
  Uncached u(*s.pool_, {detail::hash_mix(r1.hashes[slot16][6], 1), detail::hash_mix(r1.hashes[slot16][5], 1)});
  BOOST_TEST(s.get_computed_blocks(r1, hits) == 4u * 16u);
  BOOST_TEST(hits[0].size() == 2u);
  BOOST_TEST(hits[1].size() == 4u);
}

// tests/v1/core/test_single_type_kv_cache_manager.py::test_sliding_window_remove_skipped_blocks:
// window 4, block 2, 11 blocks; which blocks each remove_skipped_blocks call nulls and frees
// (vLLM's ids 1000..1010 are 1..11 here), and the tail block is freed first.
BOOST_AUTO_TEST_CASE(vllm_test_sliding_window_remove_skipped_blocks) {
  detail::Simulator s(config(2000, {group(VllmGroupKind::sliding_window, 2, 4)}), options(true), detail::StepTimer(unit_steps()));
  std::vector<Ids> hits;
  detail::Req& r = add(s, prompt(22));
  BOOST_TEST(s.get_computed_blocks(r, hits) == 0u);
  BOOST_TEST(s.allocate_slots(r, 22, &hits, 0));
  const Ids original{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  BOOST_TEST(r.tables[0] == original, boost::test_tools::per_element());
  auto expect = [&](std::uint64_t computed, std::size_t nulls) { expect_nulled(s, r, original, computed, nulls); };
  expect(0, 0);
  expect(4, 0);   // token 0 is out of the window but block 1 also holds token 1
  expect(5, 1);   // tokens 0-1 out: block 1 freed
  expect(6, 1);
  expect(7, 2);   // tokens 0-3 out
  expect(11, 4);  // tokens 0-7 out: blocks 4 then 3 freed (the longer prefix first)
  const Ids q = s.pool_->free_queue();
  BOOST_TEST((Ids(q.end() - 4, q.end())) == (Ids{1, 2, 4, 3}), boost::test_tools::per_element());
}

// tests/v1/core/test_single_type_kv_cache_manager.py::test_chunked_local_attention_remove_skipped_blocks:
// chunk 4, block 2: the blocks of the chunks before the current one are nulled and freed.
BOOST_AUTO_TEST_CASE(vllm_test_chunked_local_attention_remove_skipped_blocks) {
  detail::Simulator s(config(2000, {group(VllmGroupKind::chunked_local, 2, 4)}), options(true), detail::StepTimer(unit_steps()));
  detail::Req& r = add(s, prompt(22));
  BOOST_TEST(s.allocate_slots(r, 22, nullptr, 0));  // (vLLM's test sets the block table directly)
  const Ids original{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  BOOST_TEST(r.tables[0] == original, boost::test_tools::per_element());
  auto expect = [&](std::uint64_t computed, std::size_t nulls) { expect_nulled(s, r, original, computed, nulls); };
  expect(0, 0);
  expect(4, 2);   // token 4 starts the second chunk: tokens 0-3 are out
  expect(6, 2);
  expect(12, 6);  // tokens 0-11 are out
  BOOST_TEST(s.pool_->num_free() == 1999u - 11u + 6u);
}

// tests/v1/core/test_single_type_kv_cache_manager.py::test_sliding_window_possible_cached_prefix:
// window 4, block 2 (a hit needs cdiv(4 - 1, 2) = 2 contiguous blocks, searched right to left).
// Which blocks are cached -> the hit's length; the blocks before the last two are null.
BOOST_AUTO_TEST_CASE(vllm_test_sliding_window_possible_cached_prefix) {
  auto run_one_case = [](const std::vector<bool>& cached, std::size_t expect) {
    detail::Simulator s(config(100, {group(VllmGroupKind::sliding_window, 2, 4)}), options(true), detail::StepTimer(unit_steps()));
    detail::Req& r = add(s, prompt(2 * cached.size() + 1));
    s.ensure_hashes(r, 0, cached.size());
    for (std::size_t i = 0; i < cached.size(); ++i)  // block i + 10 cached under the request's hash i
      if (cached[i]) s.pool_->cache(static_cast<std::uint32_t>(i + 10), detail::hash_mix(r.hashes[0][i], 0));
    Ids out;
    s.find_hit(0, r, 2 * cached.size(), out);
    BOOST_TEST(out.size() == expect);
    for (std::size_t i = 0; i + 2 < expect; ++i) BOOST_TEST(out[i] == 0u);
    for (std::size_t i = 0; i < 2 && i < expect; ++i) BOOST_TEST(out[expect - i - 1] == expect - i - 1 + 10);
  };
  run_one_case(std::vector<bool>(10, false), 0);
  run_one_case({true}, 1);
  run_one_case({true, false}, 1);
  run_one_case({true, true}, 2);
  run_one_case({true, true, false}, 2);
  run_one_case({true, true, true}, 3);
  run_one_case({true, true, true, false}, 3);
  run_one_case({true, true, false, true, false, false, true, true, false, true, true, true}, 12);
  run_one_case({true, true, false, true, false, false, true, true, false, false, false}, 8);
  run_one_case({true, true, false, true, false, false, true, true, false, false, false, true}, 8);
}

// tests/v1/core/test_single_type_kv_cache_manager.py::test_chunked_local_attention_possible_cached_prefix:
// chunk 4, block 2: the blocks before the chunk holding max_length are null (computed), then the
// cached blocks of the current chunk left to right. vLLM's cases with random.choice([True,
// False]) * 8 are run with both values.
BOOST_AUTO_TEST_CASE(vllm_test_chunked_local_attention_possible_cached_prefix) {
  auto run_one_case = [](const std::vector<bool>& cached, std::uint64_t tail_token, std::size_t expect) {
    detail::Simulator s(config(100, {group(VllmGroupKind::chunked_local, 2, 4)}), options(true), detail::StepTimer(unit_steps()));
    detail::Req& r = add(s, prompt(2 * cached.size() + 2));
    s.ensure_hashes(r, 0, cached.size());
    for (std::size_t i = 0; i < cached.size(); ++i)
      if (cached[i]) s.pool_->cache(static_cast<std::uint32_t>(i + 10), detail::hash_mix(r.hashes[0][i], 0));
    Ids out;
    s.find_hit(0, r, 2 * cached.size() + tail_token, out);
    BOOST_TEST(out.size() == expect);
    for (std::size_t i = 0; i < (expect - 1) / 2 && i < out.size(); ++i) BOOST_TEST(out[i] == 0u);
  };
  run_one_case({true}, 0, 1);
  run_one_case({true}, 1, 1);
  run_one_case({true, false}, 0, 2);
  run_one_case({true, false}, 1, 2);
  run_one_case({true, true}, 0, 2);
  run_one_case({true, true}, 1, 2);
  run_one_case({true, true, false}, 0, 2);
  run_one_case({true, true, false}, 1, 2);
  run_one_case({true, true, true}, 0, 3);
  run_one_case({true, true, true}, 1, 3);
  run_one_case({true, true, true, false}, 0, 4);
  run_one_case({true, true, true, false}, 1, 4);
  for (bool first8 : {true, false}) {
    auto with = [first8](std::vector<bool> tail) {
      std::vector<bool> v(8, first8);
      v.insert(v.end(), tail.begin(), tail.end());
      return v;
    };
    run_one_case(with({true}), 1, 9);
    run_one_case(with({false}), 1, 8);
    run_one_case(with({true, true}), 1, 10);
    run_one_case(with({true, false}), 0, 10);
    run_one_case(with({true, false}), 1, 10);
    run_one_case(with({false, true}), 0, 10);
    run_one_case(with({false, true}), 1, 10);
    run_one_case(with({false, false}), 0, 10);
    run_one_case(with({false, false}), 1, 10);
  }
}

// tests/v1/core/test_single_type_kv_cache_manager.py::test_get_num_blocks_to_allocate (sliding
// window), ::test_chunked_local_attention_get_num_blocks_to_allocate and
// ::test_evictable_cached_blocks_not_double_allocated: the blocks a request lacks plus every
// hit block in the free queue (ref count 0); null hit blocks cost nothing.
BOOST_AUTO_TEST_CASE(vllm_test_get_num_blocks_to_allocate) {
  for (const VllmGroupKind kind : {VllmGroupKind::sliding_window, VllmGroupKind::chunked_local}) {
    detail::Simulator s(config(100, {group(kind, 2, 4)}), options(true), detail::StepTimer(unit_steps()));
    detail::Req& r = add(s, prompt(40));
    const std::vector<Ids> cached_1{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}};
    const std::vector<Ids> cached_2{{0, 0, 0, 0, 0, 1, 2, 3, 4, 5}};
    BOOST_TEST(s.num_blocks_to_allocate(r, 20 * 2, &cached_1) == 20u);
    BOOST_TEST(s.num_blocks_to_allocate(r, 20 * 2, &cached_2) == 15u);
  }
  detail::Simulator s(config(100, {group(VllmGroupKind::sliding_window, 2, 4)}), options(true), detail::StepTimer(unit_steps()));
  detail::Req& r = add(s, prompt(4));
  const std::vector<Ids> evictable{{1}};
  BOOST_TEST(s.num_blocks_to_allocate(r, 2 * 2, &evictable) == 2u);
  std::vector<Ids> hits = evictable;
  BOOST_TEST(s.allocate_slots(r, 2, &hits, 2));
  BOOST_TEST(r.tables[0].size() == 2u);  // the hit block and one new block
  BOOST_TEST(r.tables[0][0] == 1u);
}

// Scheduler.schedule (sched/scheduler.py): when allocate_slots fails for a running request the
// LAST running request is preempted (freed, num_computed_tokens = 0, front of the waiting queue)
// and nothing new is admitted that step. Two requests of 4-token prompts, 4-token blocks,
// 4 usable blocks: both decode until each needs a third block.
BOOST_AUTO_TEST_CASE(preempts_the_last_running_request) {
  detail::Simulator s(config(5, {group(VllmGroupKind::full_attention, 4)}), options(false), detail::StepTimer(unit_steps()));
  const std::uint32_t a = static_cast<std::uint32_t>(&add(s, prompt(4, 0, 0, 8)) - s.reqs_.data());
  const std::uint32_t b = static_cast<std::uint32_t>(&add(s, prompt(4, 0, 0, 8)) - s.reqs_.data());
  std::vector<std::pair<std::uint32_t, std::uint64_t>> out;
  auto step = [&] {
    std::uint64_t pre = 0;
    s.schedule(out, pre);
    for (auto [id, n] : out) {  // update_from_output: a finished prefill or decode samples a token
      auto& q = s.reqs_[id];
      q.computed += n;
      if (q.computed == q.num_tokens()) ++q.generated;
    }
    return pre;
  };
  BOOST_TEST(step() == 0u);  // both prefills: 1 block each
  BOOST_TEST(s.pool_->used() == 2u);
  BOOST_TEST(step() == 0u);  // 5 tokens each: 2 blocks each
  BOOST_TEST(s.pool_->used() == 4u);
  for (int i = 0; i < 3; ++i) BOOST_TEST(step() == 0u);  // tokens 6..8 fit
  BOOST_TEST(s.pool_->used() == 4u);
  BOOST_TEST(step() == 1u);  // 9 tokens: A needs a third block; B (last) is preempted
  BOOST_TEST(s.running_ == (Ids{a}), boost::test_tools::per_element());
  BOOST_TEST(s.waiting_.front() == b);
  BOOST_TEST(s.reqs_[b].computed == 0u);
  BOOST_TEST(s.pool_->used() == 3u);
  BOOST_TEST(out.size() == 1u);  // nothing admitted in a step that preempted
}

// tests/v1/core/test_prefix_caching.py::test_can_fit_full_sequence_swa_cap_admits_long_prompt and
// ::test_can_fit_full_sequence_full_attention_still_gates_oversized: the full-sequence admission
// check (allocate_slots(full_sequence_must_fit=True)) counts a sliding-window group at its
// per-request cap, cdiv(window - 1 + max_num_batched_tokens, block) + 1 = cdiv(191, 16) + 1 = 13
// blocks (window 64, 128 batched tokens), and a full-attention group at the whole sequence.
BOOST_AUTO_TEST_CASE(vllm_test_can_fit_full_sequence) {
  auto groups = [] {
    VllmGroup full = group(VllmGroupKind::full_attention, 16), swa = group(VllmGroupKind::sliding_window, 16, 64);
    full.blocks_per_request = 64;  // cdiv(max_model_len 1024, 16)
    swa.blocks_per_request = 13;
    return std::vector<VllmGroup>{full, swa};
  };
  std::vector<Ids> hits;
  {  // 32 + 13 = 45 blocks <= 77 usable: the 512-token prompt is admitted
    detail::Simulator s(config(64 + 13 + 1, groups(), 1024), options(true, 128), detail::StepTimer(unit_steps()));
    detail::Req& r = add(s, prompt(32 * 16));
    BOOST_TEST(s.get_computed_blocks(r, hits) == 0u);
    BOOST_TEST(s.num_blocks_to_allocate(r, 32 * 16, &hits, true) == 32u + 13u);
    BOOST_TEST(s.num_blocks_to_allocate(r, 32 * 16, &hits, false) == 32u + 32u);
    BOOST_TEST(s.allocate_slots(r, 16, &hits, 0, true));
  }
  {  // 16 full-attention blocks alone exceed a 5-block pool
    detail::Simulator s(config(5, groups(), 1024), options(true, 128), detail::StepTimer(unit_steps()));
    detail::Req& r = add(s, prompt(16 * 16));
    BOOST_TEST(s.get_computed_blocks(r, hits) == 0u);
    BOOST_TEST(!s.allocate_slots(r, 16, &hits, 0, true));
    BOOST_TEST(s.allocate_slots(r, 16, &hits, 0, false));  // its first chunk alone would fit
  }
}

// The scheduler tests below follow tests/v1/core/test_scheduler.py, whose create_scheduler() gives
// a single full-attention group of 16-token blocks, 10,000 blocks, max_num_seqs 16,
// max_num_batched_tokens 8192 and max_model_len = max_num_batched_tokens, and whose
// create_requests() gives request i the prompt [i] * num_tokens (10 by default) and max_tokens 16.
namespace {
detail::Simulator vllm_test_scheduler(bool caching, std::uint64_t batched = 8192, std::uint64_t seqs = 16,
                                      std::uint64_t num_blocks = 10000, std::uint64_t block = 16,
                                      std::uint64_t long_prefill = 0, bool chunked = true) {
  SimOptions o = options(caching, batched, seqs);
  o.scheduler.long_prefill_token_threshold = long_prefill;
  o.scheduler.chunked_prefill = chunked;
  return detail::Simulator(config(num_blocks, {group(VllmGroupKind::full_attention, block)}, batched), o,
                           detail::StepTimer(unit_steps()));
}
std::vector<std::uint32_t> vllm_test_requests(detail::Simulator& s, std::size_t n, std::uint64_t tokens = 10,
                                              std::uint64_t max_tokens = 16) {
  std::vector<std::uint32_t> ids;
  for (std::size_t i = 0; i < n; ++i) ids.push_back(id_of(s, add(s, prompt(tokens, 0, 0, max_tokens))));
  return ids;
}
}  // namespace

// tests/v1/core/test_scheduler.py::test_schedule (both parametrisations): 10 requests of 10 tokens
// are all scheduled in one step, each with its whole prompt, and run in arrival order.
BOOST_AUTO_TEST_CASE(vllm_test_schedule) {
  for (bool caching : {false, true}) {
    detail::Simulator s = vllm_test_scheduler(caching);
    const auto ids = vllm_test_requests(s, 10);
    Scheduled out;
    std::uint64_t preempted = 0;
    s.schedule(out, preempted);
    BOOST_TEST(out.size() == 10u);
    for (auto [id, n] : out) BOOST_TEST(n == 10u);
    BOOST_TEST(s.waiting_.empty());
    BOOST_TEST(s.running_ == ids, boost::test_tools::per_element());
  }
}

// tests/v1/core/test_scheduler.py::test_schedule_concurrent_partial_requests (both
// parametrisations): max_num_batched_tokens 1024, long_prefill_token_threshold 400, three
// 800-token prompts: 400 + 400 + 224, again 400 + 400 + 224, then 1 + 1 + 352.
BOOST_AUTO_TEST_CASE(vllm_test_schedule_concurrent_partial_requests) {
  for (bool caching : {true, false}) {
    detail::Simulator s = vllm_test_scheduler(caching, 1024, 16, 10000, 16, 400);
    const auto ids = vllm_test_requests(s, 3, 800);
    Scheduled out;
    BOOST_TEST(step(s, out) == 0u);
    BOOST_TEST(out.size() == 3u);
    BOOST_TEST(scheduled_tokens(out, ids[0]) == 400u);
    BOOST_TEST(scheduled_tokens(out, ids[1]) == 400u);
    BOOST_TEST(scheduled_tokens(out, ids[2]) == 224u);
    BOOST_TEST(step(s, out) == 0u);
    BOOST_TEST(s.running_.size() == 3u);
    BOOST_TEST(scheduled_tokens(out, ids[0]) == 400u);
    BOOST_TEST(scheduled_tokens(out, ids[1]) == 400u);
    BOOST_TEST(scheduled_tokens(out, ids[2]) == 224u);
    BOOST_TEST(step(s, out) == 0u);  // the first two are decoding
    BOOST_TEST(s.running_.size() == 3u);
    BOOST_TEST(scheduled_tokens(out, ids[0]) == 1u);
    BOOST_TEST(scheduled_tokens(out, ids[1]) == 1u);
    BOOST_TEST(scheduled_tokens(out, ids[2]) == 800u - 224u - 224u);
  }
}

// tests/v1/core/test_scheduler.py::test_schedule_order: max_num_batched_tokens 1024,
// max_num_seqs 3, two 800-token then two 10-token prompts. With chunked prefill the second long
// prompt is chunked into the remaining 224 tokens (2 new requests); without it the scheduler
// stops at the long request rather than skip ahead to the short ones (1 new request).
BOOST_AUTO_TEST_CASE(vllm_test_schedule_order) {
  for (bool chunked : {true, false}) {
    detail::Simulator s = vllm_test_scheduler(false, 1024, 3, 10000, 16, 0, chunked);
    vllm_test_requests(s, 2, 800);
    vllm_test_requests(s, 2, 10);
    Scheduled out;
    std::uint64_t preempted = 0;
    s.schedule(out, preempted);
    BOOST_TEST(out.size() == (chunked ? 2u : 1u));
  }
}

// tests/v1/core/test_scheduler.py::test_memory_leak: five 10-token requests (max_tokens 10) added
// one per step, run until nothing runs: every block is back in the free queue (all but the null
// block) with ref count 0.
BOOST_AUTO_TEST_CASE(vllm_test_memory_leak) {
  detail::Simulator s = vllm_test_scheduler(true);
  Scheduled out;
  for (int i = 0; i < 5; ++i) {
    vllm_test_requests(s, 1, 10, 10);
    step(s, out);
  }
  while (true) {
    step(s, out);
    if (s.running_.empty()) break;
  }
  BOOST_TEST(s.waiting_.empty());
  BOOST_TEST(s.pool_->num_free() == 10000u - 1u);
  for (std::uint32_t b = 1; b < 10000; ++b)
    if (s.pool_->ref(b) != 0) BOOST_FAIL("block " << b << " still referenced");
}

// tests/v1/core/test_scheduler.py::test_ec_connector_unable_to_allocate[use_kv_connector=False]
// (the KV cache side; the encoder-cache side is not modelled): block size 4, 10 blocks, two
// 24-token requests with max_tokens 2. One runs, the other waits until it has finished and freed
// all 9 usable blocks, then runs alone.
BOOST_AUTO_TEST_CASE(vllm_test_unable_to_allocate) {
  detail::Simulator s = vllm_test_scheduler(true, 8192, 16, 10, 4);
  const auto ids = vllm_test_requests(s, 2, (10 / 2 + 1) * 4, 2);
  Scheduled out;
  step(s, out);
  BOOST_TEST(scheduled_tokens(out, ids[0]) == 24u);
  BOOST_TEST(s.running_.size() == 1u);
  BOOST_TEST(s.waiting_.size() == 1u);
  while (!s.running_.empty()) {  // _step_until_done: decode steps of 1 token
    step(s, out);
    for (auto [id, n] : out) BOOST_TEST(n == 1u);
  }
  BOOST_TEST(s.pool_->num_free() == 10u - 1u);
  BOOST_TEST(s.waiting_.size() == 1u);
  step(s, out);
  BOOST_TEST(scheduled_tokens(out, ids[1]) == 24u);
  BOOST_TEST(s.running_.size() == 1u);
  BOOST_TEST(s.waiting_.empty());
  while (!s.running_.empty()) step(s, out);
  BOOST_TEST(s.pool_->num_free() == 10u - 1u);
}

// tests/v1/core/test_scheduler.py::test_kv_connector_handles_preemption, without the KV
// connector: block size 2, 7 blocks (6 usable), two 5-token prompts with max_tokens 4, prefix
// caching on. Both run for two steps; the third step's new block preempts the second request;
// the first finishes and frees everything; the second resumes with a local prefix hit of 2 blocks
// (its third block was evicted for the first request's new block; vLLM's test adds 2 tokens from
// the connector on top of these and so schedules 1 token where kvplan schedules 3) and finishes.
BOOST_AUTO_TEST_CASE(vllm_test_handles_preemption) {
  detail::Simulator s = vllm_test_scheduler(true, 8192, 16, 7, 2);
  const auto ids = vllm_test_requests(s, 2, 2 * 2 + 1, 2 * 2);
  Scheduled out;
  BOOST_TEST(step(s, out) == 0u);  // 1st token
  BOOST_TEST(s.running_.size() == 2u);
  BOOST_TEST(step(s, out) == 0u);  // 2nd token
  BOOST_TEST(s.running_.size() == 2u);
  BOOST_TEST(scheduled_tokens(out, ids[0]) == 1u);
  BOOST_TEST(scheduled_tokens(out, ids[1]) == 1u);
  BOOST_TEST(step(s, out) == 1u);  // 3rd token: a new block, the second request preempted
  BOOST_TEST(out.size() == 1u);
  BOOST_TEST(scheduled_tokens(out, ids[0]) == 1u);
  BOOST_TEST(s.running_ == (Ids{ids[0]}), boost::test_tools::per_element());
  BOOST_TEST(s.waiting_.size() == 1u);
  BOOST_TEST(step(s, out) == 0u);  // 4th and last token of the first request
  BOOST_TEST(out.size() == 1u);
  BOOST_TEST(s.running_.empty());
  BOOST_TEST(s.waiting_.size() == 1u);
  BOOST_TEST(s.pool_->num_free() == 7u - 1u);
  const std::uint64_t hits_before = s.preempted_hit_, new_hits = s.prefix_hit_;
  BOOST_TEST(step(s, out) == 0u);  // the preempted request resumes: 5 prompt + 2 output tokens
  BOOST_TEST(s.preempted_hit_ - hits_before == 2u * 2u);  // PrefixCacheStats' preempted counters
  BOOST_TEST(s.prefix_hit_ == new_hits);
  BOOST_TEST(scheduled_tokens(out, ids[1]) == 7u - 4u);
  BOOST_TEST(s.running_.size() == 1u);
  BOOST_TEST(s.waiting_.empty());
  BOOST_TEST(step(s, out) == 0u);  // its 4th and last token
  BOOST_TEST(scheduled_tokens(out, ids[1]) == 1u);
  BOOST_TEST(s.running_.empty());
  BOOST_TEST(s.pool_->num_free() == 7u - 1u);
}

// tests/v1/core/test_scheduler.py@619e4b31da7791a6ea4f6724fe45b54556b5a8fa
// ::test_prefix_cache_stats_not_recorded_when_caching_disabled: prefix caching off, two requests
// admitted: (queries, hits) == (0, 0). A whole run with a shared system prompt reports no lookups
// either, where the same run with caching on reports them.
BOOST_AUTO_TEST_CASE(vllm_test_prefix_cache_stats_not_recorded_when_caching_disabled) {
  detail::Simulator s = vllm_test_scheduler(false);
  vllm_test_requests(s, 2);
  Scheduled out;
  BOOST_TEST(step(s, out) == 0u);
  BOOST_TEST(out.size() == 2u);
  BOOST_TEST(s.prefix_query_ == 0u);
  BOOST_TEST(s.prefix_hit_ == 0u);
  BOOST_TEST(s.preempted_query_ == 0u);
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  SimOptions o = llama_options(4096);
  const WorkloadSpec w = parse_workload_spec("rate=5 requests=40 prompt=fixed:300 output=fixed:20 system_prompt=256 seed=1");
  const SimResult on = kvplan::simulate(m, h100(), o, w);
  BOOST_TEST(on.prefix_query_tokens == 40u * 556u);
  BOOST_TEST(on.prefix_hit_tokens == 39u * 256u);  // all but the first hit the system prompt's 16 blocks
  o.engine.enable_prefix_caching = false;
  const SimResult off = kvplan::simulate(m, h100(), o, w);
  BOOST_TEST(off.prefix_query_tokens == 0u);
  BOOST_TEST(off.prefix_hit_tokens == 0u);
  BOOST_TEST(off.prefix_preempted_query_tokens == 0u);
  BOOST_TEST(off.prefix_hit_rate == 0.0);
}

// tests/v1/core/test_scheduler.py@619e4b31da7791a6ea4f6724fe45b54556b5a8fa
// ::test_preemption_re_records_prefix_cache_query: one request admitted, (requests, preempted) =
// (1, 0); preempted (_preempt_request) and scheduled again, its lookup is counted in the preempted
// counters (vllm/v1/metrics/stats.py PrefixCacheStats.record) and the new-request counters stay.
// Here the request sampled one token before the preemption (kvplan's step applies the output), so
// the re-admission looks up 10 + 1 tokens; none hits (less than one 16-token block).
BOOST_AUTO_TEST_CASE(vllm_test_preemption_re_records_prefix_cache_query) {
  detail::Simulator s = vllm_test_scheduler(true);
  const auto ids = vllm_test_requests(s, 1);
  Scheduled out;
  step(s, out);
  BOOST_TEST(s.prefix_query_ == 10u);
  BOOST_TEST(s.preempted_query_ == 0u);
  s.running_.erase(std::find(s.running_.begin(), s.running_.end(), ids[0]));
  s.preempt_request(ids[0]);
  BOOST_TEST(s.reqs_[ids[0]].num_preemptions == 1u);
  step(s, out);
  BOOST_TEST((s.reqs_[ids[0]].state == detail::State::running));
  BOOST_TEST(scheduled_tokens(out, ids[0]) == 11u);
  BOOST_TEST(s.preempted_query_ == 11u);
  BOOST_TEST(s.preempted_hit_ == 0u);
  BOOST_TEST(s.prefix_query_ == 10u);
}

// --scheduling-policy priority (vllm/v1/core/sched/request_queue.py PriorityRequestQueue).
// tests/v1/core/test_scheduler.py@619e4b31da7791a6ea4f6724fe45b54556b5a8fa
// ::test_priority_scheduling_mixed_priority_and_arrival: priorities [2, 1, 1, 0], arrival times
// [1, 3, 2, 4]: all four are scheduled, in the order 3, 2, 1, 0 (priority, then arrival).
BOOST_AUTO_TEST_CASE(vllm_test_priority_scheduling_mixed_priority_and_arrival) {
  detail::Simulator s = vllm_test_scheduler(false);
  s.o_.scheduler.policy = SimSchedulerOptions::Policy::priority;
  const std::int64_t priorities[] = {2, 1, 1, 0};
  const double arrivals[] = {1, 3, 2, 4};
  Ids ids;
  for (int k = 0; k < 4; ++k) {
    SimRequest r = prompt(10, 0, 0, 16);
    r.priority = priorities[k];
    r.arrival_s = arrivals[k];
    ids.push_back(id_of(s, add(s, r)));
  }
  Scheduled out;
  std::uint64_t preempted = 0;
  s.schedule(out, preempted);
  Ids order;
  for (auto [id, n] : out) order.push_back(id);
  BOOST_TEST(order == (Ids{ids[3], ids[2], ids[1], ids[0]}), boost::test_tools::per_element());
}

// tests/v1/core/test_scheduler.py::test_priority_scheduling_preemption (its docstring's block
// math, vLLM main): block size 16, 6 blocks (5 usable), max_num_seqs 3, 200 batched tokens. lo1
// (priority 5, 32 tokens) takes 2 blocks and decodes; hi1 (priority 0, 32 tokens) arrives and is
// admitted beside lo1's third block: 5 blocks used. When hi1 needs its third block, the running
// request with the largest (priority, arrival) -- lo1, already scheduled in this step -- is
// preempted and gives its token back; hi1 keeps running. Under FCFS the last running request (hi1)
// would be preempted instead. (reserve_full_isl off: the test's requests are admitted on their
// first chunk.)
BOOST_AUTO_TEST_CASE(vllm_test_priority_scheduling_preemption) {
  for (bool by_priority : {true, false}) {
    BOOST_TEST_CONTEXT("priority " << by_priority) {
      detail::Simulator s = vllm_test_scheduler(false, 200, 3, 6, 16);
      s.o_.scheduler.reserve_full_isl = false;
      if (by_priority) s.o_.scheduler.policy = SimSchedulerOptions::Policy::priority;
      SimRequest lo = prompt(32, 0, 0, 16), hi = prompt(32, 0, 0, 16);
      lo.priority = 5;
      lo.arrival_s = 1;
      hi.priority = 0;
      hi.arrival_s = 2;
      const std::uint32_t lo1 = id_of(s, add(s, lo));
      Scheduled out;
      BOOST_TEST(step(s, out) == 0u);
      BOOST_TEST(scheduled_tokens(out, lo1) == 32u);
      const std::uint32_t hi1 = id_of(s, add(s, hi));
      BOOST_TEST(step(s, out) == 0u);
      BOOST_TEST(scheduled_tokens(out, lo1) == 1u);
      BOOST_TEST(scheduled_tokens(out, hi1) == 32u);
      BOOST_TEST(s.pool_->num_free() == 0u);
      BOOST_TEST(step(s, out) == 1u);
      const std::uint32_t kept = by_priority ? hi1 : lo1, gone = by_priority ? lo1 : hi1;
      BOOST_TEST(out.size() == 1u);
      BOOST_TEST(scheduled_tokens(out, kept) == 1u);
      BOOST_TEST(s.running_ == (Ids{kept}), boost::test_tools::per_element());
      BOOST_TEST(s.waiting_.size() == 1u);
      BOOST_TEST(s.waiting_.front() == gone);
    }
  }
}

// Scheduler.schedule passes full_sequence_must_fit=scheduler_reserve_full_isl (default True) for
// waiting requests only: with 6 blocks free and a 64-token budget, a 160-token prompt (10 blocks)
// waits although its first 64-token chunk (4 blocks) would fit; with the flag off it is admitted
// and chunked. A running request's next chunk is never gated this way.
BOOST_AUTO_TEST_CASE(reserve_full_isl_gates_waiting_requests_only) {
  for (bool reserve : {true, false}) {
    SimOptions o = options(false, 64);
    o.scheduler.reserve_full_isl = reserve;
    detail::Simulator s(config(11, {group(VllmGroupKind::full_attention, 16)}), o, detail::StepTimer(unit_steps()));
    const std::uint32_t a = id_of(s, add(s, prompt(64, 0, 0, 100)));
    Scheduled out;
    step(s, out);  // A: 4 blocks
    const std::uint32_t b = id_of(s, add(s, prompt(160, 0, 0, 1)));
    step(s, out);
    BOOST_TEST(scheduled_tokens(out, a) == 1u);
    BOOST_TEST(scheduled_tokens(out, b) == (reserve ? 0u : 63u));
    BOOST_TEST(s.waiting_.size() == (reserve ? 1u : 0u));
  }
}

// N identical requests of max_model_len - 1 prompt tokens arriving together: the scheduler
// admits exactly floor((num_blocks - 1) / blocks per request) of them (block 0 is the null
// block), which is at most vLLM's "Maximum concurrency" figure, and never holds more blocks
// than the pool.
BOOST_AUTO_TEST_CASE(identical_requests_reach_the_engine_concurrency) {
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  SimOptions o = llama_options(2048);
  o.engine.max_num_batched_tokens = 1u << 24;
  o.scheduler.max_num_seqs = 1u << 20;
  const VllmResult prof = vllm_profile(m, o.engine);
  const std::uint64_t per_req = 2048 / 16;
  const std::uint64_t expect = (prof.num_blocks - 1) / per_req;
  std::vector<SimRequest> reqs(expect * 2, prompt(2047));
  const SimResult r = kvplan::simulate(m, h100(), o, reqs);
  BOOST_TEST(r.num_blocks == prof.num_blocks);
  BOOST_TEST(r.peak_running == expect);
  BOOST_TEST(static_cast<double>(r.peak_running) <= prof.max_concurrency);
  BOOST_TEST(static_cast<double>(r.peak_running) > prof.max_concurrency - 1.0 - 1e-9);
  BOOST_TEST(r.peak_blocks == expect * per_req);
  BOOST_TEST(r.peak_blocks <= r.num_blocks - 1);
  BOOST_TEST(r.finished == reqs.size());
  BOOST_TEST(r.preemptions == 0u);
}

// Little's law L = lambda x W over a long steady run (time-averaged requests in the system
// against throughput x mean latency): within 1 %.
BOOST_AUTO_TEST_CASE(littles_law_on_a_steady_run) {
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  SimOptions o = llama_options(4096);
  const WorkloadSpec w = parse_workload_spec("rate=8 requests=4000 prompt=lognormal:512:0.6 output=lognormal:128:0.6 seed=3");
  const SimResult r = kvplan::simulate(m, h100(), o, w);
  BOOST_TEST(r.finished + r.rejected == 4000u);
  const double lambda_w = r.arrival_rate_per_s * r.e2e_s.mean;
  BOOST_TEST(std::fabs(r.mean_in_system - lambda_w) / lambda_w < 0.01);
  BOOST_TEST(r.peak_blocks <= r.num_blocks - 1);
}

// The same spec and seed give the same run; another seed gives another.
BOOST_AUTO_TEST_CASE(deterministic_for_a_seed) {
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  SimOptions o = llama_options(4096);
  const std::string spec = "rate=20 requests=500 prompt=uniform:100:2000 output=normal:200:50 system_prompt=300 turns=2 think=1";
  const auto a = to_json(kvplan::simulate(m, h100(), o, parse_workload_spec(spec + " seed=1")));
  const auto b = to_json(kvplan::simulate(m, h100(), o, parse_workload_spec(spec + " seed=1")));
  const auto c = to_json(kvplan::simulate(m, h100(), o, parse_workload_spec(spec + " seed=2")));
  BOOST_TEST(a.dump() == b.dump());
  BOOST_TEST(a.dump() != c.dump());
  const std::uint64_t hit = a["prefix_cache"]["hit_tokens"].get<std::uint64_t>();
  BOOST_TEST(hit > 0u);  // the system prompt and earlier turns hit
}

// The PRNG is xoshiro256** seeded by SplitMix64: the first output for seed 0 is fixed by the
// algorithm (reference value from the authors' C code: splitmix64 state 0 then xoshiro256**).
BOOST_AUTO_TEST_CASE(prng_is_xoshiro256starstar) {
  std::uint64_t x = 0;
  BOOST_TEST(detail::splitmix64(x) == 0xe220a8397b1dcdafULL);  // SplitMix64's first output for seed 0
  detail::SimRng a(5), b(5);
  for (int i = 0; i < 100; ++i) BOOST_TEST(a.next() == b.next());
}

// A sliding-window model frees blocks outside the window while decoding: the sliding group's
// blocks stay bounded by the window, the full group's grow with the context.
BOOST_AUTO_TEST_CASE(sliding_window_blocks_stay_bounded) {
  detail::Simulator s(config(1000, {group(VllmGroupKind::full_attention, 16), group(VllmGroupKind::sliding_window, 16, 64)}), options(false),
                      detail::StepTimer(unit_steps()));
  std::vector<SimRequest> reqs{prompt(512, 0, 0, 200)};
  detail::Source src(reqs);
  const SimResult r = s.run(src);
  BOOST_TEST(r.finished == 1u);
  BOOST_TEST(r.groups[0].peak_blocks == (512u + 200u - 1u + 15u) / 16u);  // all 711 computed tokens
  // Window 64: at most cdiv(64 - 1 + chunk, 16) + 1 blocks after a prefill of 512 in one chunk;
  // while decoding, 64 tokens span at most 5 blocks.
  BOOST_TEST(r.groups[1].peak_blocks == 32u);  // the prefill chunk allocates all 32 before freeing
  BOOST_TEST(s.pool_->group_used()[1] == 0u);
}

BOOST_AUTO_TEST_CASE(trace_formats) {
  const auto j = parse_trace("{\"arrival_s\": 0.5, \"prompt_tokens\": 100, \"output_tokens\": 20, \"session\": \"a\"}\n"
                             "{\"arrival_s\": 0, \"prompt_tokens\": 7, \"output_tokens\": 1, \"prefix_id\": 3}\n",
                             "t.jsonl");
  BOOST_TEST(j.size() == 2u);
  BOOST_TEST(j[0].arrival_s == 0.0);  // sorted by arrival
  BOOST_TEST(j[0].prefix_id != 0u);
  BOOST_TEST(j[1].prompt_tokens == 100u);
  BOOST_TEST(j[1].session != 0u);
  // Azure LLM inference trace rows as published (AzureLLMInferenceTrace_conv.csv).
  const auto az = parse_trace("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n"
                              "2023-11-16 18:15:50.9951690,396,109\n",
                              "azure.csv");
  BOOST_TEST(az.size() == 2u);
  BOOST_TEST(std::fabs(az[1].arrival_s - 4.314579) < 1e-6);
  BOOST_TEST(az[1].prompt_tokens == 396u);
  BOOST_TEST(az[1].output_tokens == 109u);
  // BurstGPT (HPMLL/BurstGPT, BurstGPT_1.csv header).
  const auto bg = parse_trace("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                              "5,ChatGPT,472,18,490,Conversation log\n45,ChatGPT,1087,230,1317,Conversation log\n",
                              "burst.csv");
  BOOST_TEST(bg[1].arrival_s == 40.0);
  BOOST_TEST(bg[1].prompt_tokens == 1087u);
  BOOST_TEST(bg[1].output_tokens == 230u);
  // Arrivals are shifted to the earliest row, not the first (docs/simulate.md "Workloads"): rows at
  // 5, 2 and 9 s arrive at 3, 0 and 7 s, in arrival order; Unix-epoch seconds (1.7e15) start at 0.
  const auto shifted = parse_trace("{\"arrival_s\": 5, \"prompt_tokens\": 1, \"output_tokens\": 1}\n"
                                   "{\"arrival_s\": 2, \"prompt_tokens\": 2, \"output_tokens\": 1}\n"
                                   "{\"arrival_s\": 9, \"prompt_tokens\": 3, \"output_tokens\": 1}\n",
                                   "s.jsonl");
  BOOST_TEST(shifted.at(0).arrival_s == 0.0);
  BOOST_TEST(shifted.at(0).prompt_tokens == 2u);
  BOOST_TEST(shifted.at(1).arrival_s == 3.0);
  BOOST_TEST(shifted.at(2).arrival_s == 7.0);
  const auto epoch = parse_trace("{\"arrival_s\": 1.7e15, \"prompt_tokens\": 1, \"output_tokens\": 1}\n"
                                 "{\"arrival_s\": 1700000000000002, \"prompt_tokens\": 1, \"output_tokens\": 1}\n",
                                 "e.jsonl");
  BOOST_TEST(epoch.at(0).arrival_s == 0.0);
  BOOST_TEST(epoch.at(1).arrival_s == 2.0);
  BOOST_CHECK_EXCEPTION(parse_trace("{\"arrival_s\": 1, \"prompt_tokens\": -3, \"output_tokens\": 1}\n", "bad.jsonl"),
                        ConfigError, HasMessage({"bad.jsonl:1", "/prompt_tokens", "non-negative integer"}));
  BOOST_CHECK_EXCEPTION(parse_trace("a,b\n1,2\n", "x.csv"), ConfigError, HasMessage({"x.csv", "unknown trace format"}));
  BOOST_CHECK_EXCEPTION(parse_trace("TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,1,2\n", "az.csv"), ConfigError,
                        HasMessage({"az.csv:2", "TIMESTAMP"}));
}

// A request's priority in a JSONL trace is vLLM's API field (an int, lower first; 0 by default);
// a key the simulator does not read is an error, not a silently ignored field.
BOOST_AUTO_TEST_CASE(trace_priority_and_unknown_keys) {
  const auto j = parse_trace("{\"arrival_s\": 0, \"prompt_tokens\": 10, \"output_tokens\": 2, \"priority\": -3}\n"
                             "{\"arrival_s\": 1, \"prompt_tokens\": 10, \"output_tokens\": 2}\n",
                             "p.jsonl");
  BOOST_TEST(j[0].priority == -3);
  BOOST_TEST(j[1].priority == 0);
  BOOST_CHECK_EXCEPTION(parse_trace("{\"arrival_s\": 0, \"prompt_tokens\": 10, \"output_tokens\": 2, \"priority\": \"high\"}\n", "p.jsonl"),
                        ConfigError, HasMessage({"p.jsonl:1", "/priority", "an integer"}));
  BOOST_CHECK_EXCEPTION(parse_trace("{\"arrival_s\": 0, \"prompt_tokens\": 10, \"output_tokens\": 2, \"prefixid\": 3}\n", "p.jsonl"),
                        ConfigError, HasMessage({"p.jsonl:1", "/prefixid", "unknown key"}));
}

// --scheduling-policy in a launch command reaches the simulator (SchedulerConfig.policy,
// vllm/config/scheduler.py: Literal["fcfs", "priority"]). Three requests, one slot
// (--max-num-seqs 1): a (t=0) runs first; b (t=0.001, priority 5, 100 tokens out) and c (t=0.002,
// priority 0, 2 tokens out) wait. FCFS serves b before c; priority serves c before b, so c's
// queue time drops by b's 100 decode steps and b's grows by c's 2: the mean TTFT falls.
BOOST_AUTO_TEST_CASE(scheduling_policy_from_launch_command) {
  const auto cmd = [](const std::string& extra) {
    return parse_launch_command(split_command_line("vllm serve meta-llama/Llama-3.1-8B --max-model-len 4096 --max-num-seqs 1" + extra));
  };
  BOOST_TEST(read_vllm_launch(cmd(" --scheduling-policy priority"), h100()).priority_scheduling);
  BOOST_TEST(!read_vllm_launch(cmd(""), h100()).priority_scheduling);
  BOOST_TEST(!read_vllm_launch(cmd(" --scheduling-policy fcfs"), h100()).priority_scheduling);
  BOOST_CHECK_EXCEPTION(read_vllm_launch(cmd(" --scheduling-policy lifo"), h100()), InputError,
                        HasMessage({"--scheduling-policy", "lifo", "fcfs or priority"}));
  CheckOptions co;
  co.gpu = "H100";
  const std::vector<SimRequest> reqs = [] {
    std::vector<SimRequest> v(3);
    v[0] = {0.0, 500, 50};
    v[1] = {0.001, 500, 100};
    v[1].priority = 5;
    v[2] = {0.002, 500, 2};
    return v;
  }();
  double mean_ttft[2] = {0, 0};
  for (int priority : {0, 1}) {
    const SimDeployment p = prepare_simulation(cmd(priority ? " --scheduling-policy priority" : ""), co);
    BOOST_TEST((p.options.scheduler.policy ==
                (priority ? SimSchedulerOptions::Policy::priority : SimSchedulerOptions::Policy::fcfs)));
    const SimResult r = kvplan::simulate(p.model, find_accelerator("H100"), p.options, reqs);
    BOOST_TEST(r.finished == 3u);
    mean_ttft[priority] = r.ttft_s.mean;
    const bool noted = std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) {
      return n.find(priority ? "--scheduling-policy priority" : "1 requests carry a priority, which FCFS ignores") != std::string::npos;
    });
    BOOST_TEST(noted);
  }
  BOOST_TEST(mean_ttft[1] < mean_ttft[0]);
}

// Settings that change vLLM's scheduling but are not simulated are errors naming them; their
// no-op values pass (SchedulerConfig defaults: async_scheduling off, max_num_partial_prefills 1,
// num_lookahead_slots 0). LoRA is memory (check's pool) plus a note.
BOOST_AUTO_TEST_CASE(unsimulated_vllm_settings_are_refused) {
  CheckOptions co;
  co.gpu = "H100";
  const auto prep = [&](const std::string& extra) {
    return prepare_simulation(parse_launch_command(split_command_line("vllm serve meta-llama/Llama-3.1-8B --max-model-len 4096 " + extra)), co);
  };
  for (const char* bad : {"--async-scheduling", "--max-num-partial-prefills 2", "--num-lookahead-slots 4", "--scheduler-cls my.Sched",
                          "--speculative-config {\"method\":\"ngram\",\"num_speculative_tokens\":3}"}) {
    BOOST_TEST_CONTEXT(bad) {
      const std::string flag = std::string(bad).substr(0, std::string(bad).find(' '));
      BOOST_CHECK_EXCEPTION(prep(bad), InputError, HasMessage({flag, "does not simulate"}));
    }
  }
  for (const char* ok : {"--no-async-scheduling", "--max-num-partial-prefills 1", "--num-lookahead-slots 0"})
    BOOST_TEST_CONTEXT(ok) { BOOST_CHECK_NO_THROW(prep(ok)); }
  const SimDeployment lora = prep("--enable-lora --max-loras 2");
  BOOST_TEST(lora.notes.size() == 1u);
  BOOST_TEST(lora.notes[0].find("--enable-lora") != std::string::npos);
  // Any engine: a flag check counts as "not modelled" (its verdict UNCERTAIN) leaves the pool
  // unproven; SGLang's speculative decoding and its priority scheduling are not simulated.
  const auto sglang = [&](const std::string& extra) {
    return prepare_simulation(parse_launch_command(split_command_line(
                                  "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B " + extra)),
                              co);
  };
  BOOST_CHECK_EXCEPTION(sglang("--speculative-algorithm EAGLE"), InputError, HasMessage({"--speculative-algorithm", "not modelled"}));
  BOOST_CHECK_EXCEPTION(sglang("--enable-priority-scheduling"), InputError,
                        HasMessage({"--enable-priority-scheduling", "does not simulate"}));
  BOOST_CHECK_NO_THROW(sglang("--chunked-prefill-size 4096"));
}

BOOST_AUTO_TEST_CASE(workload_specs) {
  const auto w = parse_workload_spec("arrivals=bursty rate=4 cv=3 requests=10 prompt=histogram:128@1,512@3 output=fixed:64 seed=9");
  BOOST_TEST(w.rate == 4.0);
  BOOST_TEST(w.prompt.bins.size() == 2u);
  const auto reqs = generate_requests(w);
  BOOST_TEST(reqs.size() == 10u);
  for (const auto& r : reqs) {
    BOOST_TEST((r.prompt_tokens == 128u || r.prompt_tokens == 512u));
    BOOST_TEST(r.output_tokens == 64u);
  }
  BOOST_CHECK_EXCEPTION(parse_workload_spec("rate=fast"), InputError, HasMessage({"workload rate", "fast"}));
  BOOST_CHECK_EXCEPTION(parse_workload_spec("colour=red"), InputError, HasMessage({"unknown workload key", "colour"}));
  BOOST_CHECK_EXCEPTION(parse_workload_spec("prompt=zipf:3"), InputError, HasMessage({"lognormal:MEDIAN:SIGMA"}));
}

// Least squares recovers exact coefficients from noiseless steps.
BOOST_AUTO_TEST_CASE(calibration_fit) {
  std::string csv = "seconds,prefill_tokens,decode_tokens,kv_tokens_read\n";
  for (int p : {0, 512, 2048, 8192})
    for (int d : {1, 64, 256})
      for (int kv : {1000, 50000}) {
        const double t = 0.004 + 2e-5 * p + 1e-5 * d + 3e-8 * kv;
        char buf[128];
        std::snprintf(buf, sizeof buf, "%.12g,%d,%d,%d\n", t, p, d, kv);
        csv += buf;
      }
  const StepTimeModel t = fit_step_time(csv, "steps.csv");
  BOOST_TEST(std::fabs(t.a - 0.004) < 1e-9);
  BOOST_TEST(std::fabs(t.b - 2e-5) < 1e-12);
  BOOST_TEST(std::fabs(t.c - 1e-5) < 1e-12);
  BOOST_TEST(std::fabs(t.d - 3e-8) < 1e-14);
  BOOST_TEST(t.samples == 24u);
  BOOST_CHECK_EXCEPTION(fit_step_time("seconds,prefill_tokens\n1,2\n", "s.csv"), ConfigError,
                        HasMessage({"s.csv", "decode_tokens"}));
}

// The engine not starting is a clear error, not a simulation of nothing.
BOOST_AUTO_TEST_CASE(engine_that_does_not_start) {
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  SimOptions o = llama_options(131072);
  o.engine.available_kv_bytes = 1ull * GiB;
  BOOST_CHECK_EXCEPTION(kvplan::simulate(m, h100(), o, std::vector<SimRequest>{prompt(10)}), InputError,
                        HasMessage({"vLLM settings", "max seq len"}));
}

// A regression pin, not an independent derivation: a digest of every per-step row (all fields,
// doubles by their bits) and of the JSON summary of fixed seeded runs, recorded from the
// implementation before the speed work (issue 16, branch simspeed). Optimisations must leave every
// simulated step bit-identical; a deliberate change of the model updates these digests. The runs
// cover prefix caching with a shared system prompt and multi-turn sessions, preemption (a small
// pool), caching off, and a hybrid sliding-window model (gpt-oss-20b).
namespace {
struct Digest {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, 64-bit
  void u(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3ULL;
  }
  void d(double v) {
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    u(b);
  }
  void s(const std::string& t) {
    for (unsigned char c : t) h = (h ^ c) * 0x100000001b3ULL;
  }
};
std::pair<std::uint64_t, std::uint64_t> run_digest(const std::string& model, std::uint64_t kv_gib, bool caching,
                                                   const std::string& spec) {
  const ModelSpec m = load_model(model);
  SimOptions o = llama_options(4096);
  o.engine.available_kv_bytes = kv_gib * GiB;
  o.engine.enable_prefix_caching = caching;
  o.scheduler.max_num_seqs = 256;
  // The constants the pins were recorded with (the bare roofline: full bandwidth, half the peak, no
  // overheads): step_time() gives the same bits with them, so the per-step digests still prove the
  // scheduler unchanged (issue 30's calibrated constants are data/step_time.json's default).
  o.step_time.calibration = StepCalibration{};
  o.step_time.calibration.compute_fraction = o.step_time.calibration.compute_fraction_fp4 = 0.5;
  Digest steps;
  o.on_step = [&steps](const SimStep& st) {
    for (std::uint64_t v : {st.index, st.running, st.waiting, st.scheduled_requests, st.prefill_tokens, st.decode_tokens,
                            st.kv_tokens_read, st.blocks_used, st.cached_free_blocks, st.preemptions, st.finished})
      steps.u(v);
    for (std::uint64_t v : st.group_blocks) steps.u(v);
    steps.d(st.start_s);
    steps.d(st.duration_s);
  };
  const SimResult r = kvplan::simulate(m, h100(), o, parse_workload_spec(spec));
  Digest summary;
  summary.s(to_json(r).dump());
  return {steps.h, summary.h};
}
}  // namespace

// The summary digests changed twice: with issue 30's step_time_band and step-model description in
// the JSON (the per-step digests did not: the runs pin the old constants), and with issue 33's prefix-cache statistics (JSON prefix_cache
// gains preempted_query_tokens / preempted_hit_tokens; caching off records no lookups; a preempted
// request's re-admission is kept out of the hit rate); the per-step digests did not.
BOOST_AUTO_TEST_CASE(pinned_seeded_runs) {
  const std::string shared = "rate=40 requests=1500 prompt=lognormal:400:1 output=lognormal:150:1 system_prompt=256 turns=3 think=2 seed=11";
  const std::string plain = "rate=30 requests=1500 prompt=lognormal:300:1 output=lognormal:200:1 seed=5";
  const auto a = run_digest("meta-llama/Llama-3.1-8B", 2, true, shared);   // caching, preemption
  const auto b = run_digest("meta-llama/Llama-3.1-8B", 40, false, plain);  // caching off
  const auto c = run_digest("openai/gpt-oss-20b", 4, true, shared);        // sliding window + full
  BOOST_TEST_MESSAGE(std::hex << a.first << " " << a.second << " " << b.first << " " << b.second << " " << c.first << " "
                              << c.second);
  BOOST_TEST(a.first == 0x58ac3d5de6ee5d6ULL);
  BOOST_TEST(a.second == 0xd172d5fdca52544fULL);
  BOOST_TEST(b.first == 0x98dcf1a912b1dc80ULL);
  BOOST_TEST(b.second == 0x9a0746a68dc73521ULL);
  BOOST_TEST(c.first == 0x70b25b129499061eULL);
  BOOST_TEST(c.second == 0x6d17a42c9a12b71cULL);
}

// One reading of a launch command (read_vllm_launch, the check layer's) gives simulate its engine
// options and scheduler flags: the values below are the command's own.
BOOST_AUTO_TEST_CASE(launch_command_read_by_the_check_layer) {
  const Deployment d = parse_launch_command(split_command_line(
      "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192 -tp 2 --max-num-seqs 64 --long-prefill-token-threshold 512 "
      "--no-enable-chunked-prefill --kv-cache-dtype fp8 --no-enable-prefix-caching --block-size 32 "
      "--no-scheduler-reserve-full-isl"));
  const VllmLaunch l = read_vllm_launch(d, h100());
  BOOST_TEST(l.model_ref == "meta-llama/Llama-3.1-8B");
  BOOST_TEST(l.model.name == load_model("meta-llama/Llama-3.1-8B").name);
  BOOST_TEST(l.options.max_model_len == 8192u);
  BOOST_TEST(l.options.tensor_parallel_size == 2u);
  BOOST_TEST(l.options.kv_cache_dtype == "fp8");
  BOOST_TEST(!l.options.enable_prefix_caching);
  BOOST_TEST(l.options.block_size.value_or(0) == 32u);
  BOOST_TEST(l.max_num_seqs == 64u);
  BOOST_TEST(l.long_prefill_token_threshold == 512u);
  BOOST_TEST(!l.chunked_prefill);
  BOOST_TEST(!l.reserve_full_isl);
  BOOST_TEST(read_vllm_launch(parse_launch_command(split_command_line("vllm serve meta-llama/Llama-3.1-8B")), h100())
                 .reserve_full_isl);  // SchedulerConfig's default
  BOOST_TEST(!l.max_num_batched_tokens_given);
  BOOST_TEST(!l.options.blackwell);
  // DeepSeek-V3's MLA off SM90/SM100: vLLM picks TRITON_MLA (vllm/platforms/cuda.py), as check does.
  const Deployment ds = parse_launch_command(split_command_line("vllm serve deepseek-ai/DeepSeek-V3"));
  BOOST_TEST(read_vllm_launch(ds, find_accelerator("A100-80GB")).options.attention_backend == "TRITON_MLA");
  BOOST_TEST(read_vllm_launch(ds, h100()).options.attention_backend.empty());
  BOOST_TEST(read_vllm_launch(ds, find_accelerator("B200")).options.blackwell);
  BOOST_CHECK_EXCEPTION(read_vllm_launch(parse_launch_command(split_command_line("llama-server -m x.gguf")), h100()),
                        InputError, HasMessage({"a vllm serve command"}));
}

// The Blackwell rule (engines' platform defaults) by name, whatever the case.
BOOST_AUTO_TEST_CASE(blackwell_by_name) {
  BOOST_TEST(is_blackwell(find_accelerator("B200")));
  BOOST_TEST(is_blackwell(find_accelerator("GB200")));
  BOOST_TEST(!is_blackwell(h100()));
  Accelerator custom;
  custom.name = "b300-custom";
  BOOST_TEST(is_blackwell(custom));
  BOOST_TEST(vllm_serve_batch_defaults(find_accelerator("B200")).blackwell);
}

BOOST_AUTO_TEST_SUITE_END()
