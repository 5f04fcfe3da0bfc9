// Storage formats of the reference runtime, checked against the format definitions:
// OCP FP8 (E4M3: bias 7, max 448, no infinities; E5M2: bias 15, max 57344) and ggml's
// block layouts (ggml-common.h).
#include <cmath>
#include <cstring>

#include "helpers.h"
#include "kvplan/runtime/tensor.h"

using namespace kvplan;
using namespace kvplan::runtime;

BOOST_AUTO_TEST_SUITE(runtime_storage)

BOOST_AUTO_TEST_CASE(fp8_e4m3_codes) {
  BOOST_TEST(fp8_e4m3_from_float(1.0f) == 0x38);        // exponent 7 (bias 7) << 3
  BOOST_TEST(fp8_e4m3_to_float(0x7E) == 448.0f);        // 1.75 * 2^8, the largest finite
  BOOST_TEST(fp8_e4m3_from_float(1000.0f) == 0x7E);     // saturates
  BOOST_TEST(fp8_e4m3_from_float(-2.0f) == 0xC0);       // sign | exponent 8 << 3
  BOOST_TEST(fp8_e4m3_to_float(0x01) == std::ldexp(1.0f, -9));  // smallest subnormal: 1/8 * 2^-6
  BOOST_TEST(fp8_e4m3_from_float(1.0625f) == 0x38);     // halfway 1 and 1.125: ties to even (1.0)
  BOOST_TEST(fp8_e4m3_from_float(1.1875f) == 0x3A);     // halfway 1.125 and 1.25: even is 1.25
}

BOOST_AUTO_TEST_CASE(fp8_e5m2_codes) {
  BOOST_TEST(fp8_e5m2_from_float(1.0f) == 0x3C);        // exponent 15 << 2
  BOOST_TEST(fp8_e5m2_to_float(0x7B) == 57344.0f);      // 1.75 * 2^15
  BOOST_TEST(fp8_e5m2_from_float(1e6f) == 0x7B);
}

BOOST_AUTO_TEST_CASE(ggml_block_sizes) {
  // d (fp16) + 32 int8; d + 16 nibble bytes; d, m + 16; d + 4 high-bit bytes + 16; d, m + 4 + 16.
  BOOST_TEST(sizeof(block_q8_0) == 2u + 32);
  BOOST_TEST(sizeof(block_q4_0) == 2u + 16);
  BOOST_TEST(sizeof(block_q4_1) == 2u + 2 + 16);
  BOOST_TEST(sizeof(block_q5_0) == 2u + 4 + 16);
  BOOST_TEST(sizeof(block_q5_1) == 2u + 2 + 4 + 16);
  BOOST_TEST(sizeof(block_iq4_nl) == 2u + 16);
}

BOOST_AUTO_TEST_CASE(q8_0_block_by_hand) {
  // x_j = j - 16 for j < 32: amax 16, d = 16/127, q_j = round((j - 16) * 127 / 16).
  float x[32], y[32];
  for (int j = 0; j < 32; ++j) x[j] = static_cast<float>(j - 16);
  block_q8_0 b;
  quantize_block(Dtype::q8_0, x, &b);
  BOOST_TEST(b.qs[0] == -127);
  BOOST_TEST(b.qs[16] == 0);
  BOOST_TEST(b.qs[20] == 32);  // 4 * 127 / 16 = 31.75 -> 32
  dequantize_block(Dtype::q8_0, &b, y);
  for (int j = 0; j < 32; ++j) BOOST_TEST(std::fabs(y[j] - x[j]) <= 16.0f / 127 / 2 + 1e-2f);
}

BOOST_AUTO_TEST_CASE(q4_0_block_by_hand) {
  // Largest magnitude -8 (x_0): d = -8 / -8 = 1; q = x/d + 8.5 truncated, clamped to 15.
  float x[32] = {}, y[32];
  x[0] = -8, x[1] = 3, x[16] = 7, x[17] = -1;
  block_q4_0 b;
  quantize_block(Dtype::q4_0, x, &b);
  BOOST_TEST(b.qs[0] == ((15 << 4) | 0));  // x_0 -> 0, x_16 -> 15
  BOOST_TEST(b.qs[1] == ((7 << 4) | 11));  // x_1 -> 11, x_17 -> 7
  dequantize_block(Dtype::q4_0, &b, y);
  BOOST_TEST(y[0] == -8.0f);
  BOOST_TEST(y[1] == 3.0f);
  BOOST_TEST(y[16] == 7.0f);
  BOOST_TEST(y[17] == -1.0f);
}

BOOST_AUTO_TEST_CASE(block_formats_round_trip) {
  float x[32], y[32];
  for (int j = 0; j < 32; ++j) x[j] = std::sin(0.7f * j) * 3.0f;
  // Worst-case step for 4-bit formats: range / 15 (asymmetric) or amax / 8 (symmetric).
  for (Dtype d : {Dtype::q4_0, Dtype::q4_1, Dtype::q5_0, Dtype::q5_1, Dtype::iq4_nl, Dtype::q8_0}) {
    alignas(8) unsigned char buf[64];
    quantize_block(d, x, buf);
    dequantize_block(d, buf, y);
    double err = 0;
    for (int j = 0; j < 32; ++j) err = std::max(err, std::fabs(double(y[j]) - x[j]));
    BOOST_TEST_CONTEXT(name(d)) { BOOST_TEST(err <= 3.0 / 8 + 1e-3); }
  }
}

BOOST_AUTO_TEST_CASE(tensor_rows_and_bytes) {
  // A K tensor [1, 2 heads, 5 slots, 40]: q8_0 rows of 40 need 2 blocks.
  Tensor t("k", Dtype::q8_0, {1, 2, 5, 40});
  BOOST_TEST(t.rows() == 10u);
  auto i = t.info();
  BOOST_TEST(i.numbers == 2u * 5 * 40);
  BOOST_TEST(i.element_count == 10u * 2);
  BOOST_TEST(i.bytes == 10u * 2 * 34);
  std::vector<float> row(40), back(40);
  for (int j = 0; j < 40; ++j) row[j] = 0.25f * j - 3;
  t.write_row(7, row.data());
  t.read_row(7, back.data());
  for (int j = 0; j < 40; ++j) BOOST_TEST(std::fabs(back[j] - row[j]) <= 0.05f);
  Tensor b("v", Dtype::bf16, {1, 3, 4});
  BOOST_TEST(b.info().bytes == 3u * 4 * 2);
  BOOST_CHECK_EXCEPTION(Tensor("x", Dtype::q8_0, {}), InputError, test::HasMessage({"shape"}));
}

BOOST_AUTO_TEST_SUITE_END()
