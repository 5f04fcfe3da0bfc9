// Hugging Face cache resolution (`org/name[@rev]`) on arbitrary bytes: the input, split at the
// first two NUL bytes, is refs/main's content, the revision asked for (`kvfuzz/model@REV`) and the
// target of a symlink snapshots/link -> TARGET, in a cache entry of a temporary $HF_HUB_CACHE
// whose one real revision holds a config.json; beside the cache lies another config.json an
// escaping ref could reach. Only kvplan::Error may escape, and a resolved config must lie inside
// the entry, symlinks resolved (kvplan/files.h contained_path; huggingface_hub only takes a
// revision listed under snapshots/).
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
fs::path g_entry;

using kvplan_fuzz::inside;
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const fs::path root = fs::temp_directory_path() / ("kvplan_fuzz_hf_" + std::to_string(::getpid()));
  const fs::path hub = root / "hub";
  g_entry = hub / "models--kvfuzz--model";
  const std::string rev = "0123456789abcdef0123456789abcdef01234567";
  fs::create_directories(g_entry / "snapshots" / rev);
  fs::create_directories(g_entry / "refs");
  fs::create_directories(root / "outside");
  const char* cfg = R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 256, "max_position_embeddings": 512})";
  std::ofstream(g_entry / "snapshots" / rev / "config.json") << cfg;
  std::ofstream(root / "outside" / "config.json") << cfg;
  ::setenv("HF_HUB_CACHE", hub.c_str(), 1);
  std::atexit([] {
    std::error_code ec;
    fs::remove_all(g_entry.parent_path().parent_path(), ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const auto a = in.find('\0');
  const auto b = a == std::string::npos ? std::string::npos : in.find('\0', a + 1);
  const std::string ref = in.substr(0, a);
  const std::string rev = a == std::string::npos ? "" : in.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
  const std::string link = b == std::string::npos ? "" : in.substr(b + 1);
  {
    std::ofstream out(g_entry / "refs" / "main", std::ios::binary | std::ios::trunc);
    out << ref;
  }
  std::error_code ec;
  fs::remove(g_entry / "snapshots" / "link", ec);
  if (!link.empty() && link.find('\0') == std::string::npos) fs::create_symlink(link, g_entry / "snapshots" / "link", ec);
  try {
    const auto r = kvplan::resolve_model("kvfuzz/model" + (rev.empty() ? std::string() : "@" + rev));
    const fs::path got = !r.config.empty() ? r.config : r.gguf;
    if (r.how == "hf-cache" && (got.empty() || !inside(g_entry, got))) __builtin_trap();
  } catch (const kvplan::Error& e) {
    if (std::strlen(e.what()) > kvplan::kMaxMessageBytes + 64) __builtin_trap();
  }
  return 0;
}
