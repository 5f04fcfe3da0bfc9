#include "helpers.h"

using namespace kvplan;

BOOST_AUTO_TEST_SUITE(dtype)

BOOST_AUTO_TEST_CASE(names_and_aliases) {
  BOOST_TEST(name(parse_dtype("bfloat16")) == "bf16");
  BOOST_TEST(name(parse_dtype("torch.float16")) == "fp16");
  BOOST_TEST(name(parse_dtype("FP8")) == "fp8_e4m3");
  BOOST_TEST(name(parse_dtype("fp8_e5m2")) == "fp8_e5m2");
  for (const char* n : {"fp32", "fp16", "bf16", "fp8", "fp8_e4m3", "fp8_e5m2", "int8", "int4", "nvfp4", "mxfp4", "q8_0",
                        "q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl"})
    BOOST_CHECK_NO_THROW(parse_dtype(n));
  BOOST_CHECK_EXCEPTION(parse_dtype("fp9", "--kv-dtype"), InputError, test::HasMessage({"--kv-dtype", "fp9", "did you mean"}));
  BOOST_CHECK_EXCEPTION(parse_dtype("banana", "--kv-dtype"), InputError, test::HasMessage({"one of", "q8_0"}));
}

BOOST_AUTO_TEST_CASE(ggml_block_sizes) {
  // ggml-common.h block structs: bytes per 32 values.
  BOOST_TEST(row_bytes(Dtype::q8_0, 32) == 34u);
  BOOST_TEST(row_bytes(Dtype::q4_0, 32) == 18u);
  BOOST_TEST(row_bytes(Dtype::q4_1, 32) == 20u);
  BOOST_TEST(row_bytes(Dtype::q5_0, 32) == 22u);
  BOOST_TEST(row_bytes(Dtype::q5_1, 32) == 24u);
  BOOST_TEST(row_bytes(Dtype::iq4_nl, 32) == 18u);
  // A 128-wide head row: 4 blocks.
  BOOST_TEST(row_bytes(Dtype::q8_0, 128) == 4u * 34);
  // Rows round up to whole blocks (a 576-wide MLA row is 18 q8_0 blocks; 80 values need 3).
  BOOST_TEST(row_bytes(Dtype::q8_0, 576) == 18u * 34);
  BOOST_TEST(row_bytes(Dtype::q4_0, 80) == 3u * 18);
  // nvfp4: 16 e2m1 values (8 B) + one fp8 scale; mxfp4: 32 values (16 B) + one e8m0 scale.
  BOOST_TEST(row_bytes(Dtype::nvfp4, 128) == 128u / 2 + 128 / 16);
  BOOST_TEST(row_bytes(Dtype::mxfp4, 64) == 2u * 17);
  BOOST_TEST(row_bytes(Dtype::int4, 3) == 2u);
  BOOST_TEST(row_bytes(Dtype::fp32, 3) == 12u);
  BOOST_TEST(bits_per_value(Dtype::q8_0) == 8.5);
}

BOOST_AUTO_TEST_CASE(block_dtypes_in_the_cache) {
  // llama.cpp's figures (engines.md 2.8): Llama-3.1-8B at 8192 cells, q8_0 K and V = 544 MiB,
  // q4_0 = 288 MiB, q8_0 K with f16 V = 784 MiB.
  auto m = load_model("meta-llama/Llama-3.1-8B");
  Workload w;
  w.tokens = 8192;
  w.k_dtype = w.v_dtype = Dtype::q8_0;
  BOOST_TEST(cache_size(m, w).total_bytes == 544u * MiB);
  w.k_dtype = w.v_dtype = Dtype::q4_0;
  BOOST_TEST(cache_size(m, w).total_bytes == 288u * MiB);
  w.k_dtype = Dtype::q8_0;
  w.v_dtype = Dtype::fp16;
  auto s = cache_size(m, w);
  BOOST_TEST(s.total_bytes == 784u * MiB);
  BOOST_TEST(s.k_bytes == 272u * MiB);
  BOOST_TEST(s.v_bytes == 512u * MiB);
}

BOOST_AUTO_TEST_SUITE_END()
