#pragma once
// Reading an input file named by the user: only a regular file (never a FIFO, a device such as
// /dev/zero, or a directory), and never more than `max_bytes` (checked before reading).
#include <cstdint>
#include <string>
#include <string_view>

namespace kvplan::detail {

// The whole file. InputError naming `what` and the path when it is missing, not a regular file,
// larger than max_bytes or unreadable.
std::string read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what);

}  // namespace kvplan::detail
