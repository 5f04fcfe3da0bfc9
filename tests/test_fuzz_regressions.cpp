// Every input a fuzzer once crashed on (tests/fuzz_regressions/<target>/) goes through the same
// calls as that fuzzer: only kvplan::Error may come out.
#include <filesystem>

#include "helpers.h"
#include "kvplan/check.h"
#include "kvplan/hardware.h"

using namespace kvplan;

namespace {
std::vector<std::pair<std::string, std::string>> inputs(const std::string& target) {
  std::vector<std::pair<std::string, std::string>> out;
  auto dir = test::source_path("tests/fuzz_regressions/" + target);
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out.emplace_back(e.path().filename().string(), ss.str());
  }
  return out;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(fuzz_regressions)

BOOST_AUTO_TEST_CASE(check_parsers) {
  auto cases = inputs("fuzz_check");
  BOOST_TEST(cases.size() >= 1u);
  for (const auto& [name, text] : cases) {
    BOOST_TEST_CONTEXT(name) {
      try {
        (void)parse_launch_command(split_command_line(text));
      } catch (const Error&) {
      }
      try {
        (void)parse_deployment(text, "fuzz.yaml");
      } catch (const Error& e) {
        // The message must itself be printable (it may quote the bad bytes).
        BOOST_TEST(std::string(e.what()).find("fuzz.yaml") != std::string::npos);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(config_parser) {
  for (const auto& [name, text] : inputs("fuzz_config")) {
    BOOST_TEST_CONTEXT(name) {
      try {
        auto m = load_model_from_json(text, "fuzz.json");
        (void)to_json(cache_size(m, Workload{})).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      } catch (const Error&) {
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(gpu_files) {
  // A custom accelerator is either an error naming the file and field, or a usable device.
  auto cases = inputs("fuzz_gpus");
  BOOST_TEST(cases.size() >= 1u);
  for (const auto& [name, text] : cases) {
    BOOST_TEST_CONTEXT(name) {
      try {
        const Accelerator a = accelerator_from_json(text, "fuzz-gpu.json");
        BOOST_TEST(a.memory_bytes > 0u);
        BOOST_TEST(a.bandwidth_bytes_per_s > 0);
      } catch (const Error& e) {
        BOOST_TEST(std::string(e.what()).find("fuzz-gpu.json") != std::string::npos);
      }
    }
  }
  // {"memory_bytes": "00GB"} parsed to 0 and was accepted as a device with no memory.
  BOOST_CHECK_EXCEPTION(accelerator_from_json(R"({"name":"X","memory_bytes":"0GB","bandwidth_bytes_per_s":1e12})", "g.json"),
                        InputError, test::HasMessage({"g.json", "memory_bytes", "positive"}));
}

BOOST_AUTO_TEST_SUITE_END()
