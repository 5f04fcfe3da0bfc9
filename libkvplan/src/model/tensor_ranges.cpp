#include "model/tensor_ranges.h"

#include <algorithm>
#include <unordered_set>

#include "kvplan/error.h"

namespace kvplan::detail {

namespace {
std::string quoted(std::string_view name) { return "tensor \"" + bounded_echo(name) + "\""; }
}  // namespace

void validate_tensor_ranges(std::vector<TensorRange> ranges, std::uint64_t data_bytes, std::string_view file,
                            std::string_view format, std::uint64_t header_offset) {
  const auto fail = [&](const std::string& what) { throw FormatError::at(file, format, header_offset, what); };
  std::unordered_set<std::string_view> names;
  names.reserve(ranges.size());
  for (const auto& r : ranges) {
    if (!names.insert(r.name).second) fail(quoted(r.name) + " is named twice (tensor names are unique)");
    if (r.end < r.begin)
      fail(quoted(r.name) + ": data ends at byte " + std::to_string(r.end) + ", before it begins at " + std::to_string(r.begin));
    if (r.end > data_bytes)
      fail(quoted(r.name) + ": data ends at " + std::to_string(r.end) + ", past the file's " + std::to_string(data_bytes) +
           " data bytes (truncated or a later split shard?)");
  }
  std::sort(ranges.begin(), ranges.end(), [](const TensorRange& a, const TensorRange& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  const TensorRange* reach = nullptr;  // the range, so far, that ends last
  for (const auto& b : ranges) {
    if (b.begin == b.end) continue;  // an empty tensor holds no bytes
    if (reach && b.begin < reach->end)
      fail(quoted(b.name) + " (bytes " + std::to_string(b.begin) + "-" + std::to_string(b.end) + ") overlaps " +
           quoted(reach->name) + " (bytes " + std::to_string(reach->begin) + "-" + std::to_string(reach->end) +
           "): two tensors cannot share data");
    if (!reach || b.end > reach->end) reach = &b;
  }
}

}  // namespace kvplan::detail
