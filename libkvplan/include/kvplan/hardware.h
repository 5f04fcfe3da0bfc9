#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvplan {

// One accelerator from the bundled catalog (data/gpus.json, embedded) or a custom one.
struct Accelerator {
  std::string name;                    // canonical, e.g. "H100-SXM-80GB"
  std::vector<std::string> aliases;    // "H100", "h100-sxm", ...
  std::string vendor;                  // NVIDIA, AMD, Intel, Google, Apple
  std::uint64_t memory_bytes = 0;      // as the device reports it (e.g. 85,520,809,984 for an H100 80GB)
  std::string memory_marketing;        // "80 GB"
  double bandwidth_bytes_per_s = 0;    // datasheet memory bandwidth
  double bf16_flops = 0;               // dense BF16 peak
  double fp8_flops = 0;                // dense FP8 peak (0: not supported)
  std::string interconnect;            // "NVLink 4, 900 GB/s"
  double interconnect_bytes_per_s = 0;
  std::string source;                  // where the figures come from
};

const std::vector<Accelerator>& accelerator_catalog();
// Case-insensitive on name and aliases; throws InputError with "did you mean" when unknown.
const Accelerator& find_accelerator(std::string_view name);
// A custom device from a JSON object with the same keys as the catalog entries.
Accelerator accelerator_from_json(std::string_view json_text, std::string_view source);

}  // namespace kvplan
