#pragma once
#include <string_view>
#include <vector>

namespace kvplan::detail {
struct BundledConfig {
  std::string_view id;
  std::string_view file_name;
  std::string_view json;
};
const std::vector<BundledConfig>& bundled_configs();
}  // namespace kvplan::detail
