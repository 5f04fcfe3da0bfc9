#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/text.h"

namespace kvplan {

// The configs bundled into the binary (model_configs/), looked up by Hugging Face id.
struct BundledModel {
  std::string id;         // "Qwen/Qwen3-0.6B"
  std::string file_name;  // "Qwen__Qwen3-0.6B.json"
  std::string_view json;  // verbatim config text
};

std::vector<BundledModel> bundled_models();
// Case-insensitive match on the id (or the file name); nullopt when not bundled.
std::optional<BundledModel> find_bundled(std::string_view id);
// Closest ids, for "did you mean".
std::vector<std::string> suggest_bundled(std::string_view id, std::size_t max = 3);

}  // namespace kvplan
