#pragma once
// Test-only writers for checkpoint files: a GGUF v3 writer following ggml's docs/gguf.md byte
// layout (independent of kvplan's reader), and a safetensors writer (8-byte length + JSON).
// Files are made sparse: the header is written and the file is extended to its full size with
// ftruncate, so a multi-GB checkpoint costs no disk and any read of tensor data returns zeros.
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvplan::test {

class GgufWriter {
 public:
  void u32(const std::string& k, std::uint32_t v) { key(k, 4); put(v); }
  void u64(const std::string& k, std::uint64_t v) { key(k, 10); put(v); }
  void f32(const std::string& k, float v) { key(k, 6); put(v); }
  void boolean(const std::string& k, bool v) { key(k, 7); put<std::uint8_t>(v ? 1 : 0); }
  void str(const std::string& k, const std::string& v) { key(k, 8); put_str(v); }
  void u32_array(const std::string& k, const std::vector<std::uint32_t>& v) {
    key(k, 9);
    put<std::uint32_t>(4);
    put<std::uint64_t>(v.size());
    for (auto x : v) put(x);
  }
  void str_array(const std::string& k, std::uint64_t n, const std::string& prefix) {
    key(k, 9);
    put<std::uint32_t>(8);
    put<std::uint64_t>(n);
    for (std::uint64_t i = 0; i < n; ++i) put_str(prefix + std::to_string(i));
  }
  // ne0 (innermost) first, as GGUF stores dims; `bytes` from the caller's own block arithmetic.
  void tensor(const std::string& name, std::vector<std::uint64_t> ne, std::uint32_t type, std::uint64_t bytes) {
    tensors_.push_back({name, std::move(ne), type, bytes});
  }
  // Writes the file; returns the data offset. `extra_data` adds bytes past the last tensor.
  std::uint64_t write(const std::filesystem::path& p, std::uint32_t version = 3, bool sparse_data = true) {
    std::string out;
    out += "GGUF";
    append(out, version);
    append<std::uint64_t>(out, tensors_.size());
    append<std::uint64_t>(out, n_kv_);
    out += kv_;
    std::uint64_t offset = 0;
    for (const auto& t : tensors_) {
      append<std::uint64_t>(out, t.name.size());
      out += t.name;
      append<std::uint32_t>(out, static_cast<std::uint32_t>(t.ne.size()));
      for (auto d : t.ne) append(out, d);
      append(out, t.type);
      append(out, offset);
      offset += (t.bytes + 31) / 32 * 32;
    }
    const std::uint64_t data_offset = (out.size() + 31) / 32 * 32;
    out.resize(data_offset, '\0');
    {
      std::ofstream f(p, std::ios::binary | std::ios::trunc);
      f.write(out.data(), static_cast<std::streamsize>(out.size()));
    }
    if (sparse_data) std::filesystem::resize_file(p, data_offset + offset);
    return data_offset;
  }
  std::uint64_t tensor_bytes() const {
    std::uint64_t s = 0;
    for (const auto& t : tensors_) s += t.bytes;
    return s;
  }

 private:
  struct T {
    std::string name;
    std::vector<std::uint64_t> ne;
    std::uint32_t type;
    std::uint64_t bytes;
  };
  template <class V>
  static void append(std::string& s, V v) {
    char b[sizeof(V)];
    std::memcpy(b, &v, sizeof(V));  // little-endian host (x86-64, aarch64)
    s.append(b, sizeof(V));
  }
  template <class V>
  void put(V v) { append(kv_, v); }
  void put_str(const std::string& s) {
    put<std::uint64_t>(s.size());
    kv_ += s;
  }
  void key(const std::string& k, std::uint32_t type) {
    ++n_kv_;
    put_str(k);
    put(type);
  }
  std::string kv_;
  std::uint64_t n_kv_ = 0;
  std::vector<T> tensors_;
};

// One safetensors file: tensors laid out back to back; the data part is sparse.
struct StTensor {
  std::string name, dtype;
  std::vector<std::uint64_t> shape;
  std::uint64_t bytes;
};
inline std::uint64_t write_safetensors(const std::filesystem::path& p, const std::vector<StTensor>& ts) {
  nlohmann::json h = nlohmann::json::object();
  h["__metadata__"] = {{"format", "pt"}};
  std::uint64_t off = 0;
  for (const auto& t : ts) {
    h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {off, off + t.bytes}}};
    off += t.bytes;
  }
  std::string js = h.dump();
  std::string out(8, '\0');
  std::uint64_t n = js.size();
  std::memcpy(out.data(), &n, 8);
  out += js;
  {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f.write(out.data(), static_cast<std::streamsize>(out.size()));
  }
  std::filesystem::resize_file(p, out.size() + off);
  return 8 + js.size();
}

// A fresh temporary folder, removed when the test ends.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kvplan_test_XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// Sets (or unsets, with nullptr) an environment variable for one scope.
struct EnvVar {
  std::string name;
  std::string old;
  bool had;
  EnvVar(const char* n, const char* value) : name(n) {
    const char* o = std::getenv(n);
    had = o != nullptr;
    if (o) old = o;
    if (value) ::setenv(n, value, 1);
    else ::unsetenv(n);
  }
  ~EnvVar() {
    if (had) ::setenv(name.c_str(), old.c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};

}  // namespace kvplan::test
