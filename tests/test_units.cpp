#include "helpers.h"

using namespace kvplan;

BOOST_AUTO_TEST_SUITE(units)

BOOST_AUTO_TEST_CASE(byte_sizes) {
  BOOST_TEST(parse_bytes("123456") == 123456u);
  BOOST_TEST(parse_bytes("1.5GiB") == 1610612736u);
  BOOST_TEST(parse_bytes("80GB") == 80'000'000'000u);
  BOOST_TEST(parse_bytes("512MiB") == 536870912u);
  BOOST_TEST(parse_bytes("2 TB") == 2'000'000'000'000u);
  BOOST_TEST(parse_bytes("1kib") == 1024u);
  BOOST_CHECK_EXCEPTION(parse_bytes("-5GB", "--memory"), InputError, test::HasMessage({"--memory", "-5GB"}));
  BOOST_CHECK_EXCEPTION(parse_bytes("12 parsecs"), InputError, test::HasMessage({"byte count"}));
  BOOST_CHECK_EXCEPTION(parse_bytes("0.3B"), InputError, test::HasMessage({"whole number"}));
  BOOST_CHECK_EXCEPTION(parse_bytes("99999999999999999999"), InputError, test::HasMessage({"99999999999999999999"}));
  BOOST_CHECK_EXCEPTION(parse_bytes("20000000000TiB"), InputError, test::HasMessage({"64 bits"}));
  BOOST_CHECK_THROW(parse_bytes(""), InputError);
}

// A decimal size with a unit that is no whole byte count rounds the conservative way: 21.67 GiB =
// 2167 x 2^30 / 100 = 23,267,985,326.08 bytes (hand-computed); a capacity floors, a cost ceils.
// 1.000000000001 KB = 1,000.000000001 bytes; 0.1 KiB = 102.4 bytes. A fraction of a byte itself stays
// an error (above: 0.3B).
BOOST_AUTO_TEST_CASE(decimal_sizes_round_conservatively) {
  BOOST_TEST(parse_memory_size("21.67GiB", "--gpu-memory") == 23'267'985'326u);
  BOOST_TEST(parse_bytes("21.67GiB", "x", ByteRounding::down) == 23'267'985'326u);
  BOOST_TEST(parse_bytes("21.67GiB", "--weights") == 23'267'985'327u);  // default: up (a cost)
  BOOST_TEST(parse_bytes("14.99GiB", "--weights") == 16'095'389'942u);   // 1499 x 2^30 / 100 = ...941.76
  BOOST_TEST(parse_bytes("0.1KiB", "x", ByteRounding::down) == 102u);
  BOOST_TEST(parse_bytes("0.1KiB", "x", ByteRounding::up) == 103u);
  BOOST_TEST(parse_bytes("1.000000000001KB", "x", ByteRounding::up) == 1001u);
  BOOST_TEST(parse_bytes("1.5GiB", "x", ByteRounding::down) == 1610612736u);  // whole: no rounding either way
  BOOST_CHECK_EXCEPTION(parse_bytes("1.5", "x"), InputError, test::HasMessage({"whole number"}));
}

BOOST_AUTO_TEST_CASE(token_counts) {
  BOOST_TEST(parse_tokens("4096") == 4096u);
  BOOST_TEST(parse_tokens("32k") == 32768u);
  BOOST_TEST(parse_tokens("128K") == 131072u);
  BOOST_TEST(parse_tokens("1M") == 1048576u);
  BOOST_TEST(parse_tokens("1.5k") == 1536u);
  BOOST_CHECK_THROW(parse_tokens("1.0001k"), InputError);
  BOOST_CHECK_THROW(parse_tokens("12q"), InputError);
  BOOST_CHECK_THROW(parse_tokens("-1"), InputError);
}

BOOST_AUTO_TEST_CASE(gb_and_gib_are_not_mixed) {
  // 40 GiB = 42.95 GB: each unit says exactly what it means.
  BOOST_TEST(format_gb(40 * GiB) == "42.95 GB");
  BOOST_TEST(format_gib(40 * GiB) == "40.00 GiB");
  BOOST_TEST(format_bytes(40 * GiB) == "42.95 GB (40.00 GiB)");
  BOOST_TEST(format_bytes(114688) == "114.69 KB (112.00 KiB)");
  BOOST_TEST(format_mib(544 * MiB) == "544.00 MiB");
  BOOST_TEST(format_count(4697620480u) == "4,697,620,480");
}

BOOST_AUTO_TEST_SUITE_END()
