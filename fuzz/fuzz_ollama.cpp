// Ollama store resolution (`ollama:NAME`) with an arbitrary manifest: the bytes are written as
// manifests/registry.ollama.ai/library/fuzz/latest of a store in a temporary folder
// ($OLLAMA_MODELS), which also holds one real blob, and a GGUF-named file beside the store that an
// escaping digest could reach. Only kvplan::Error may escape, and a resolved blob must lie inside
// the store's blobs/ (symlinks resolved): the containment rule of kvplan/files.h.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "kvplan/checkpoint.h"
#include "containment_oracle.h"
#include "kvplan/error.h"

namespace fs = std::filesystem;

namespace {
fs::path g_store;

using kvplan_fuzz::inside;
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const fs::path root = fs::temp_directory_path() / ("kvplan_fuzz_ollama_" + std::to_string(::getpid()));
  g_store = root / "models";
  fs::create_directories(g_store / "manifests" / "registry.ollama.ai" / "library" / "fuzz");
  fs::create_directories(g_store / "blobs");
  // A blob the corpus's well-formed manifest names, and a file outside the store.
  std::ofstream(g_store / "blobs" / ("sha256-" + std::string(64, 'a'))) << "GGUF";
  std::ofstream(root / "outside.gguf") << "GGUF";
  fs::create_symlink(root / "outside.gguf", g_store / "blobs" / ("sha256-" + std::string(64, 'b')));
  ::setenv("OLLAMA_MODELS", g_store.c_str(), 1);
  std::atexit([] {
    std::error_code ec;
    fs::remove_all(g_store.parent_path(), ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream out(g_store / "manifests" / "registry.ollama.ai" / "library" / "fuzz" / "latest",
                      std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const auto r = kvplan::resolve_model("ollama:fuzz");
    if (r.gguf.empty() || !inside(g_store / "blobs", r.gguf)) __builtin_trap();
  } catch (const kvplan::Error& e) {
    if (std::strlen(e.what()) > kvplan::kMaxMessageBytes + 64) __builtin_trap();
  }
  return 0;
}
