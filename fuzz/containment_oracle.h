#pragma once
// The fuzzers' own containment oracle: p lies inside base once both are canonical (symlinks
// resolved). Written apart from the library's contained_path (kvplan/files.h) on purpose, so that a
// bug there is not reproduced by the check that should catch it; shared by fuzz_hf_cache and
// fuzz_ollama.
#include <filesystem>

namespace kvplan_fuzz {

inline bool inside(const std::filesystem::path& base, const std::filesystem::path& p) {
  const std::filesystem::path b = std::filesystem::canonical(base), f = std::filesystem::weakly_canonical(p);
  auto bi = b.begin(), fi = f.begin();
  for (; bi != b.end(); ++bi, ++fi)
    if (fi == f.end() || *bi != *fi) return false;
  return true;
}

}  // namespace kvplan_fuzz
