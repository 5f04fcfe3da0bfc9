// Malformed configs (tests/bad_configs/*.json) each give a kvplan::Error whose one-line
// message names the field and what was expected; tests/cli/test_bad_input.py checks exit 2.
#include <filesystem>

#include "helpers.h"

using namespace kvplan;

BOOST_AUTO_TEST_SUITE(bad_input)

BOOST_AUTO_TEST_CASE(every_bad_config_is_a_clear_error) {
  const auto expected = test::read_json("tests/bad_configs/expected.json");
  std::size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_path("tests/bad_configs"))) {
    const auto file = entry.path().filename().string();
    if (file == "expected.json") continue;
    BOOST_TEST_CONTEXT(file) {
      BOOST_REQUIRE(expected.contains(file));
      std::vector<std::string> frags = expected[file];
      frags.push_back(file);  // the message names the file
      bool threw = false;
      try {
        auto m = load_model(entry.path().string());
        (void)cache_size(m, Workload{});
      } catch (const Error& e) {
        threw = true;
        std::string what = e.what();
        BOOST_TEST(what.find('\n') == std::string::npos);
        for (const auto& f : frags) BOOST_TEST(what.find(f) != std::string::npos, "\"" << what << "\" lacks \"" << f << "\"");
      }
      BOOST_TEST(threw);
      ++checked;
    }
  }
  BOOST_TEST(checked >= 30u);
  BOOST_TEST(checked == expected.size());
}

BOOST_AUTO_TEST_CASE(overflow_is_an_error_not_a_wrapped_number) {
  auto m = load_model("meta-llama/Llama-3.1-70B");
  Workload w;
  w.tokens = 1ull << 40;
  w.batch = 1ull << 20;
  BOOST_CHECK_EXCEPTION(cache_size(m, w), OverflowError, test::HasMessage({"overflow", "64 bits"}));
  BOOST_CHECK_THROW(checked_mul(1ull << 32, 1ull << 32), OverflowError);
  BOOST_CHECK_THROW(checked_add(UINT64_MAX, 1), OverflowError);
  BOOST_TEST(checked_mul(1ull << 31, 1ull << 32) == 1ull << 63);
}

// The layer cap is a boundary, not a guess: kMaxLayers layers load and size linearly (one
// LayerSpec each), one more is an error naming the field. Deeper files used to be accepted up to
// 2^20 layers and took minutes per report under the sanitizers (the fuzz smoke timed out).
BOOST_AUTO_TEST_CASE(layer_count_cap_is_exact) {
  auto config = [](std::uint64_t layers) {
    return R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
               "intermediate_size": 128, "vocab_size": 256, "torch_dtype": "bfloat16", "num_hidden_layers": )" +
           std::to_string(layers) + "}";
  };
  auto m = load_model_from_json(config(kMaxLayers), "deep.json");
  BOOST_TEST(m.num_layers() == kMaxLayers);
  Workload w;
  w.tokens = 1000;
  // 2 (K and V) x 2 KV heads x 16 head dim x 2 bytes (bf16) x tokens x layers
  BOOST_TEST(cache_size(m, w).total_bytes == 2ull * 2 * 16 * 2 * 1000 * kMaxLayers);
  BOOST_TEST(to_json(m)["layer_counts"]["full_attention"].get<std::uint64_t>() == kMaxLayers);
  BOOST_CHECK_EXCEPTION(load_model_from_json(config(kMaxLayers + 1), "deep.json"), ConfigError,
                        test::HasMessage({"deep.json", "num_hidden_layers", "at most 16,384", "16385"}));
}

BOOST_AUTO_TEST_CASE(bad_workloads) {
  auto m = load_model("Qwen/Qwen3-0.6B");
  Workload w;
  w.batch = 0;
  BOOST_CHECK_EXCEPTION(cache_size(m, w), InputError, test::HasMessage({"batch"}));
  w.batch = 1;
  w.tp = 0;
  BOOST_CHECK_EXCEPTION(cache_size(m, w), InputError, test::HasMessage({"tensor parallel"}));
}

BOOST_AUTO_TEST_CASE(missing_file_and_directory) {
  BOOST_CHECK_EXCEPTION(load_model("/nonexistent/dir/config.json"), InputError, test::HasMessage({"unknown model"}));
  // A directory is read through its config.json.
  auto dir = std::filesystem::temp_directory_path() / "kvplan-test-model-dir";
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir / "config.json");
    out << find_bundled("Qwen/Qwen3-0.6B")->json;
  }
  BOOST_TEST(load_model(dir.string()).num_layers() == 28u);
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
