#pragma once
#include <cstddef>
#include <string_view>

namespace kvplan {

// Case-insensitive edit distance used for "did you mean" everywhere (models, GPUs, dtypes, flags).
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace kvplan
