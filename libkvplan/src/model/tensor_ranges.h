#pragma once
// Internal: the one validated byte-range model of tensor data, shared by the GGUF and the
// safetensors readers, so no weight is priced from bytes the file does not hold. The rules are
// the readers' own: ggml's gguf_init_from_file_impl (ggml-org/llama.cpp ggml/src/gguf.cpp:
// "duplicate tensor name", and each tensor's offset must equal the padded end of the one before:
// "tensor '%s' has offset %" PRIu64 ", expected %zu") and safetensors' Metadata::validate
// (huggingface/safetensors@45c8c2cb safetensors/src/tensor.rs: sorted by data_offsets, each
// starting where the previous one ended, else InvalidOffset; names are the keys of one JSON
// object). kvplan requires what both imply for pricing: unique names; ranges [begin, end) with
// begin <= end inside the data section; no two ranges overlapping once sorted by begin.
// (Gaps are allowed: they price fewer bytes than the file holds, never more.)
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kvplan::detail {

struct TensorRange {
  std::string_view name;
  std::uint64_t begin = 0;  // from the start of the data section
  std::uint64_t end = 0;    // one past the last byte
};

// Throws FormatError::at(file, format, header_offset, ...) naming the tensor(s) for a duplicate
// name, an end before its begin, a range past `data_bytes`, or two overlapping ranges.
void validate_tensor_ranges(std::vector<TensorRange> ranges, std::uint64_t data_bytes, std::string_view file,
                            std::string_view format, std::uint64_t header_offset);

}  // namespace kvplan::detail
