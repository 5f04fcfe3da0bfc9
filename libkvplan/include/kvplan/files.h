#pragma once
// Reading input files safely: regular files only (a FIFO, a device such as /dev/zero or a
// directory is refused before anything is read) and at most `max_bytes` bytes.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kvplan {

// Size caps for the files kvplan reads (docs/reliability.md lists them).
inline constexpr std::uint64_t kMaxConfigFileBytes = 16ull << 20;  // config.json: real ones are < 1 MiB
inline constexpr std::uint64_t kMaxGpuFileBytes = 1ull << 20;      // --gpu-file: one accelerator entry
inline constexpr std::uint64_t kMaxManifestFileBytes = 1ull << 20; // an Ollama manifest (real ones: < 2 KB)
inline constexpr std::uint64_t kMaxTraceFileBytes = 4ull << 30;    // --trace (published traces: < 1 GB)

// Deepest nesting of arrays and objects accepted in any JSON document kvplan reads (config.json,
// GPU files, deployment files, Python dicts); real configs nest 4 levels at most. Deeper input
// is a ConfigError before it is parsed, so nothing later recurses without bound.
inline constexpr std::size_t kMaxJsonDepth = 64;

// The whole content of `path`. Throws InputError naming `what` and the path when the path does
// not exist, is not a regular file (directory, FIFO, device, socket), is larger than
// `max_bytes`, or cannot be read.
std::string read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what);

// The containment rule of every store kvplan reads (Hugging Face cache entries, the Ollama store,
// a checkpoint folder's index.json shards, TensorRT-LLM's --config files): a name taken from a
// file (refs/main, a manifest digest, a weight_map entry, a YAML path) is joined under its base
// folder and kept only when, with every symlink resolved, it still lies inside that folder
// (itself resolved). An absolute name, or one that climbs out with `..` or through a symlink,
// gives nullopt. The path need not exist (its existing prefix is resolved).
std::optional<std::filesystem::path> contained_path(const std::filesystem::path& base, const std::filesystem::path& name);

}  // namespace kvplan
