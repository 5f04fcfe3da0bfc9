// Engine launch commands and deployment files (YAML via yaml-cpp: manifests, compose, kvplan format; JSON) for `kvplan check`:
// only kvplan::Error may escape the parsers.
#include <cstdint>
#include <string_view>

#include "kvplan/check.h"
#include "kvplan/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto argv = kvplan::split_command_line(text);
    (void)kvplan::parse_launch_command(argv);
  } catch (const kvplan::Error&) {
  }
  try {
    (void)kvplan::parse_deployment(text, "fuzz.yaml");
  } catch (const kvplan::Error&) {
  }
  return 0;
}
