// llama.cpp profile: docs/engines.md's worked examples and the addendum's rules, derived by hand.
#include "helpers.h"
#include "kvplan/engines.h"

using namespace kvplan;
using kvplan::test::HasMessage;

namespace {
constexpr std::uint64_t MiB_ = 1024 * 1024;
LlamaCppOptions ctx(std::uint64_t c) {
  LlamaCppOptions o;
  o.ctx_size = c;
  return o;
}
LlamaCppOptions np(std::uint64_t c, std::uint64_t n, bool unified = false) {
  LlamaCppOptions o = ctx(c);
  o.parallel = n;
  o.kv_unified = unified;
  return o;
}
ModelSpec llama8b() { return load_model("meta-llama/Llama-3.1-8B"); }
// Llama-3.1-8B: 32 layers, K and V rows of 8 heads x 128 = 1,024 values.
constexpr std::uint64_t kRow = 8 * 128;
}  // namespace

BOOST_AUTO_TEST_SUITE(engine_llamacpp)

BOOST_AUTO_TEST_CASE(llama8b_server_default_f16) {
  auto r = llamacpp_profile(llama8b(), ctx(8192));
  BOOST_TEST(r.n_seq_max == 4u);
  BOOST_TEST(r.n_stream == 1u);
  BOOST_TEST(r.cells == 8192u);
  BOOST_TEST(r.k_bytes == 32u * 8192 * kRow * 2);  // 512 MiB
  BOOST_TEST(r.v_bytes == 32u * 8192 * kRow * 2);
  BOOST_TEST(r.kv_bytes == 1024u * MiB_);
  BOOST_TEST(r.state_bytes == 0u);
  BOOST_REQUIRE(r.log_lines.size() == 1u);
  BOOST_TEST(r.log_lines[0] ==
             "llama_kv_cache: size = 1024.00 MiB (  8192 cells,  32 layers,  4/1 seqs), K (f16):  512.00 MiB, V (f16):  512.00 MiB");
}

BOOST_AUTO_TEST_CASE(llama8b_ctx_zero_and_padding) {
  auto r0 = llamacpp_profile(llama8b(), ctx(0));  // n_ctx_train = 131,072
  BOOST_TEST(r0.cells == 131072u);
  BOOST_TEST(r0.kv_bytes == 16384u * MiB_);       // 32 x 131,072 x 2,048 x 2
  auto r5 = llamacpp_profile(llama8b(), ctx(5000));  // PAD(5000, 256) = 5,120
  BOOST_TEST(r5.cells == 5120u);
  BOOST_TEST(r5.kv_bytes == 640u * MiB_);
  auto r1 = llamacpp_profile(llama8b(), ctx(1));
  BOOST_TEST(r1.cells == 256u);
  auto r257 = llamacpp_profile(llama8b(), ctx(257));
  BOOST_TEST(r257.cells == 512u);
}

BOOST_AUTO_TEST_CASE(llama8b_quantised_caches) {
  auto o = ctx(8192);
  o.cache_type_k = o.cache_type_v = "q8_0";
  auto q8 = llamacpp_profile(llama8b(), o);
  BOOST_TEST(q8.k_bytes == 32u * 8192 * (kRow / 32 * 34));  // rows of 1,088 B: 272 MiB
  BOOST_TEST(q8.kv_bytes == 544u * MiB_);
  BOOST_TEST(q8.log_lines[0] ==
             "llama_kv_cache: size =  544.00 MiB (  8192 cells,  32 layers,  4/1 seqs), K (q8_0):  272.00 MiB, V (q8_0):  272.00 MiB");
  o.cache_type_k = o.cache_type_v = "q4_0";
  auto q4 = llamacpp_profile(llama8b(), o);
  BOOST_TEST(q4.kv_bytes == 2u * 32 * 8192 * (kRow / 32 * 18));  // 288 MiB
  BOOST_TEST(q4.kv_bytes == 288u * MiB_);
  o.cache_type_k = "q8_0";
  o.cache_type_v = "f16";
  auto mixed = llamacpp_profile(llama8b(), o);
  BOOST_TEST(mixed.kv_bytes == 784u * MiB_);  // 272 + 512
  o.cache_type_k = "q5_1";
  o.cache_type_v = "iq4_nl";
  auto odd = llamacpp_profile(llama8b(), o);
  BOOST_TEST(odd.k_bytes == 32u * 8192 * (kRow / 32 * 24));
  BOOST_TEST(odd.v_bytes == 32u * 8192 * (kRow / 32 * 18));
}

BOOST_AUTO_TEST_CASE(quantised_v_needs_flash_attention) {
  auto o = ctx(8192);
  o.cache_type_v = "q8_0";
  o.flash_attn = "off";
  BOOST_CHECK_EXCEPTION(llamacpp_profile(llama8b(), o), InputError, HasMessage({"--cache-type-v", "flash"}));
  o.cache_type_v = "f16";
  o.cache_type_k = "q8_0";  // a quantised K alone is fine without flash attention
  BOOST_TEST(llamacpp_profile(llama8b(), o).k_bytes == 272u * MiB_);
}

BOOST_AUTO_TEST_CASE(multi_sequence_streams) {
  // -np 3 -c 4096, not unified: PAD(4096 / 3, 256) = 1,536 cells x 3 streams.
  auto r = llamacpp_profile(llama8b(), np(4096, 3));
  BOOST_TEST(r.cells == 1536u);
  BOOST_TEST(r.n_stream == 3u);
  BOOST_TEST(r.n_ctx == 4608u);
  BOOST_TEST(r.kv_bytes == 32u * 1536 * 3 * kRow * 2 * 2);  // 576 MiB
  BOOST_TEST(r.kv_bytes == 576u * MiB_);
  BOOST_TEST(r.log_lines[0] ==
             "llama_kv_cache: size =  576.00 MiB (  1536 cells,  32 layers,  3/3 seqs), K (f16):  288.00 MiB, V (f16):  288.00 MiB");
  auto r10 = llamacpp_profile(llama8b(), np(4096, 10));  // 512 x 10
  BOOST_TEST(r10.cells == 512u);
  BOOST_TEST(r10.n_ctx == 5120u);
  auto r4 = llamacpp_profile(llama8b(), np(512, 4));     // 4 x 256 = 1,024 cells
  BOOST_TEST(r4.n_ctx == 1024u);
  auto r3 = llamacpp_profile(llama8b(), np(10000, 3));   // PAD(10240 / 3, 256) = 3,584; x 3 = 10,752
  BOOST_TEST(r3.cells == 3584u);
  BOOST_TEST(r3.n_ctx == 10752u);
  auto u = llamacpp_profile(llama8b(), np(4096, 3, true));  // unified: one stream of 4,096
  BOOST_TEST(u.cells == 4096u);
  BOOST_TEST(u.n_stream == 1u);
  BOOST_TEST(u.kv_bytes == 512u * MiB_);
  BOOST_CHECK_EXCEPTION(llamacpp_profile(llama8b(), np(4096, 300)), InputError, HasMessage({"--parallel", "300"}));
}

BOOST_AUTO_TEST_CASE(gpt_oss_iswa_server_default) {
  auto m = load_model(test::source_path("tests/data/engine_cases/gpt-oss-120b-like.json"));
  auto r = llamacpp_profile(m, ctx(0));  // 131,072 cells, 4 unified slots
  BOOST_TEST(r.cells == 131072u);
  BOOST_TEST(r.swa_cells == 1024u);  // PAD(min(131,072, 128 x 4 + 512), 256)
  BOOST_REQUIRE(r.caches.size() == 2u);
  BOOST_TEST(r.caches[0].k_bytes + r.caches[0].v_bytes == 18ull * 131072 * (8 * 64 * 2 * 2));  // 4,608 MiB
  BOOST_TEST(r.caches[0].k_bytes + r.caches[0].v_bytes == 4608u * MiB_);
  BOOST_TEST(r.caches[1].k_bytes + r.caches[1].v_bytes == 36u * MiB_);  // 18 x 1,024 x 2,048
  BOOST_REQUIRE(r.log_lines.size() == 4u);
  BOOST_TEST(r.log_lines[0] == "llama_kv_cache_iswa: creating non-SWA KV cache, size = 131072 cells");
  BOOST_TEST(r.log_lines[1] ==
             "llama_kv_cache: size = 4608.00 MiB (131072 cells,  18 layers,  4/1 seqs), K (f16): 2304.00 MiB, V (f16): 2304.00 MiB");
  BOOST_TEST(r.log_lines[2] == "llama_kv_cache_iswa: creating     SWA KV cache, size = 1024 cells");
  BOOST_TEST(r.log_lines[3] ==
             "llama_kv_cache: size =   36.00 MiB (  1024 cells,  18 layers,  4/1 seqs), K (f16):   18.00 MiB, V (f16):   18.00 MiB");
}

BOOST_AUTO_TEST_CASE(swa_full_and_per_stream_window) {
  auto m = load_model(test::source_path("tests/data/engine_cases/gpt-oss-120b-like.json"));
  auto o = ctx(0);
  o.swa_full = true;
  BOOST_TEST(llamacpp_profile(m, o).swa_cells == 131072u);
  // -np 2 -c 8192, not unified: 4,096 cells per stream; SWA PAD(min(4,096, 128 x 1 + 512), 256) = 768.
  auto r = llamacpp_profile(m, np(8192, 2));
  BOOST_TEST(r.cells == 4096u);
  BOOST_TEST(r.swa_cells == 768u);
  BOOST_TEST(r.kv_bytes == 18u * 2 * 2048 * (4096 + 768));
  // A small ubatch: -ub 128 with 4 unified slots -> PAD(128 x 4 + 128, 256) = 768.
  auto s = ctx(8192);
  s.ubatch_size = 128;
  BOOST_TEST(llamacpp_profile(m, s).swa_cells == 768u);
}

BOOST_AUTO_TEST_CASE(gemma3_pattern_iswa) {
  // gemma-3-1b: 26 layers, pattern 6 -> layers 5, 11, 17, 23 full (4), 22 sliding (window 512),
  // 1 KV head x 256 -> 1,024 B per token per layer in f16.
  auto r = llamacpp_profile(load_model("google/gemma-3-1b-it"), ctx(8192));
  BOOST_TEST(r.caches[0].layers == 4u);
  BOOST_TEST(r.caches[1].layers == 22u);
  BOOST_TEST(r.swa_cells == 2560u);  // PAD(min(8,192, 512 x 4 + 512), 256)
  BOOST_TEST(r.kv_bytes == 4u * 8192 * 1024 + 22u * 2560 * 1024);
}

BOOST_AUTO_TEST_CASE(deepseek_v3_mla_k_only) {
  auto m = load_model("deepseek-ai/DeepSeek-V3");
  auto r = llamacpp_profile(m, ctx(163840));
  BOOST_TEST(r.k_bytes == 61ull * 163840 * 576 * 2);  // 10,980 MiB
  BOOST_TEST(r.k_bytes == 10980u * MiB_);
  BOOST_TEST(r.v_bytes == 0u);
  BOOST_TEST(r.log_lines[0] ==
             "llama_kv_cache: size = 10980.00 MiB (163840 cells,  61 layers,  4/1 seqs), K (f16): 10980.00 MiB, V (f16):    0.00 MiB");
  auto o = ctx(163840);
  o.mla_v_less = false;  // before PR #19067: V holds the 512-wide latent again
  BOOST_TEST(llamacpp_profile(m, o).kv_bytes == 20740u * MiB_);
  o = ctx(163840);
  o.cache_type_k = o.cache_type_v = "q8_0";
  auto q = llamacpp_profile(m, o);
  BOOST_TEST(q.k_bytes == 61ull * 163840 * (576 / 32 * 34));  // 612 B rows: 6,116,474,880 B = 5,833.125 MiB
  // printf("%7.2f") of the exact tie 5833.125 rounds to even under glibc: 5833.12.
  BOOST_TEST(q.log_lines[0].find("K (q8_0): 5833.12 MiB, V (q8_0):    0.00 MiB") != std::string::npos);
  o.cache_type_v = "f16";
  BOOST_CHECK_EXCEPTION(llamacpp_profile(m, o), InputError, HasMessage({"--cache-type-v", "same type"}));
}

BOOST_AUTO_TEST_CASE(mamba_recurrent_state_f32) {
  // mamba-2.8b: 64 layers, d_inner 2 x 2,560 = 5,120, d_state 16, d_conv 4; one sequence.
  LlamaCppOptions o = np(4096, 1);
  o.cache_type_k = o.cache_type_v = "q8_0";  // ignored: recurrent state is always f32
  auto r = llamacpp_profile(load_model("ArthurZ/mamba-2.8b"), o);
  BOOST_TEST(r.r_bytes == 64u * 3 * 5120 * 4);   // 3.75 MiB
  BOOST_TEST(r.s_bytes == 64u * 16 * 5120 * 4);  // 20 MiB
  BOOST_TEST(r.kv_bytes == 0u);
  BOOST_TEST(r.log_lines.back() ==
             "llama_memory_recurrent: size =   23.75 MiB (     1 cells,  64 layers,  1 seqs), R (f32):    3.75 MiB, S (f32):   20.00 MiB");
  // Independent of n_ctx; scales with max(1, n_seq).
  auto r8 = llamacpp_profile(load_model("ArthurZ/mamba-2.8b"), np(65536, 8));
  BOOST_TEST(r8.state_bytes == 8u * 64 * (3 * 5120 + 16 * 5120) * 4);
}

BOOST_AUTO_TEST_CASE(qwen3_next_hybrid) {
  // 36 GDN layers: n_embd_r = 3 x (4,096 + 2 x 16 x 128) = 24,576, n_embd_s = 128 x 4,096 = 524,288 (f32);
  // 12 attention layers of 2 heads x 256. Server default: 4 slots, unified, -c 4096.
  auto r = llamacpp_profile(load_model("Qwen/Qwen3-Next-80B-A3B-Thinking"), ctx(4096));
  BOOST_TEST(r.state_bytes == 4u * 36 * (24576 + 524288) * 4);  // 4 x 36 x 2,195,456
  BOOST_TEST(r.kv_bytes == 12u * 4096 * (2 * 256 * 2) * 2);
  BOOST_TEST(r.caches.back().layers == 48u);  // the recurrent line prints hparams.n_layer
  BOOST_TEST(r.caches.front().layers == 12u);
  BOOST_TEST(r.total_bytes == r.kv_bytes + r.state_bytes);
}

BOOST_AUTO_TEST_CASE(bad_options) {
  auto o = ctx(4096);
  o.cache_type_k = "q3_k";
  BOOST_CHECK_EXCEPTION(llamacpp_profile(llama8b(), o), InputError, HasMessage({"--cache-type-k", "q3_k"}));
  o = ctx(4096);
  o.flash_attn = "maybe";
  BOOST_CHECK_EXCEPTION(llamacpp_profile(llama8b(), o), InputError, HasMessage({"--flash-attn"}));
}

BOOST_AUTO_TEST_SUITE_END()
