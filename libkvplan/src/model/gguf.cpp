// GGUF header reader. Layout (ggml's docs/gguf.md, v2/v3 little-endian): magic "GGUF", u32 version,
// u64 tensor_count, u64 kv_count; kv_count x (string key, u32 value type, value); tensor_count x
// (string name, u32 n_dims, n_dims x u64 ne, u32 ggml_type, u64 offset); padding to
// general.alignment; tensor data. A string is u64 length + bytes; an array is u32 element type +
// u64 count + elements. Every read is bounded by GgufLimits and by the stream size, so a hostile
// length is an error before any allocation; reading stops where tensor data begins.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <fstream>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/gguf.h"
#include "kvplan/text.h"
#include "model/tensor_ranges.h"

namespace kvplan {

using u64 = std::uint64_t;

namespace {

constexpr std::string_view kGgufFormat = "GGUF";

// ggml's type traits: block size (values) and block bytes per ggml_type id. Source: ggml's
// ggml/include/ggml.h enum ggml_type and gguf-py/gguf/constants.py GGML_QUANT_SIZES (llama.cpp
// repository), which mirror the block structs in ggml/src/ggml-common.h. Ids 4, 5 and 31-33,
// 36-38 were removed from GGUF files; QK_K = 256.
constexpr std::array kTypes = {
    GgmlType{0, "F32", 1, 4},        GgmlType{1, "F16", 1, 2},
    GgmlType{2, "Q4_0", 32, 18},     GgmlType{3, "Q4_1", 32, 20},
    GgmlType{6, "Q5_0", 32, 22},     GgmlType{7, "Q5_1", 32, 24},
    GgmlType{8, "Q8_0", 32, 34},     GgmlType{9, "Q8_1", 32, 36},
    GgmlType{10, "Q2_K", 256, 84},   GgmlType{11, "Q3_K", 256, 110},
    GgmlType{12, "Q4_K", 256, 144},  GgmlType{13, "Q5_K", 256, 176},
    GgmlType{14, "Q6_K", 256, 210},  GgmlType{15, "Q8_K", 256, 292},
    GgmlType{16, "IQ2_XXS", 256, 66}, GgmlType{17, "IQ2_XS", 256, 74},
    GgmlType{18, "IQ3_XXS", 256, 98}, GgmlType{19, "IQ1_S", 256, 50},
    GgmlType{20, "IQ4_NL", 32, 18},  GgmlType{21, "IQ3_S", 256, 110},
    GgmlType{22, "IQ2_S", 256, 82},  GgmlType{23, "IQ4_XS", 256, 136},
    GgmlType{24, "I8", 1, 1},        GgmlType{25, "I16", 1, 2},
    GgmlType{26, "I32", 1, 4},       GgmlType{27, "I64", 1, 8},
    GgmlType{28, "F64", 1, 8},       GgmlType{29, "IQ1_M", 256, 56},
    GgmlType{30, "BF16", 1, 2},      GgmlType{34, "TQ1_0", 256, 54},
    GgmlType{35, "TQ2_0", 256, 66},  GgmlType{39, "MXFP4", 32, 17},
    GgmlType{40, "NVFP4", 64, 36},   GgmlType{41, "Q1_0", 128, 18},
};

// GGUF metadata value types.
enum ValueType : std::uint32_t {
  kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7,
  kString = 8, kArray = 9, kU64 = 10, kI64 = 11, kF64 = 12,
};

u64 scalar_size(std::uint32_t t) {
  switch (t) {
    case kU8: case kI8: case kBool: return 1;
    case kU16: case kI16: return 2;
    case kU32: case kI32: case kF32: return 4;
    case kU64: case kI64: case kF64: return 8;
    default: return 0;
  }
}

class Reader {
 public:
  Reader(std::istream& in, u64 size, std::string_view source, const GgufLimits& lim)
      : in_(in), size_(size), source_(source), lim_(lim) {}

  [[noreturn]] void fail(const std::string& what) const { throw FormatError::at(source_, kGgufFormat, pos_, what); }

  void need(u64 n, const char* what) {
    if (n > size_ - pos_) fail(std::string("truncated: ") + what + " needs " + std::to_string(n) + " bytes, " +
                               std::to_string(size_ - pos_) + " left");
    if (pos_ + n > lim_.max_header_bytes)
      fail("header larger than the " + std::to_string(lim_.max_header_bytes) + "-byte limit");
  }
  void bytes(void* dst, u64 n, const char* what) {
    need(n, what);
    if (!in_.read(static_cast<char*>(dst), static_cast<std::streamsize>(n))) fail(std::string("read failed: ") + what);
    pos_ += n;
  }
  void skip(u64 n, const char* what) {
    need(n, what);
    // Short skips go through the stream's buffer (a seek would drop it and re-read a whole buffer
    // for every vocabulary string); long ones seek.
    if (n < (64u << 10)) {
      if (!in_.ignore(static_cast<std::streamsize>(n))) fail(std::string("read failed: ") + what);
    } else if (!in_.seekg(static_cast<std::streamoff>(n), std::ios::cur)) {
      fail(std::string("seek failed: ") + what);
    }
    pos_ += n;
  }
  template <class T>
  T num(const char* what) {
    unsigned char b[sizeof(T)];
    bytes(b, sizeof(T), what);
    u64 v = 0;
    for (int i = static_cast<int>(sizeof(T)) - 1; i >= 0; --i) v = (v << 8) | b[i];
    T out;
    if constexpr (sizeof(T) == 8) {
      std::memcpy(&out, &v, 8);
    } else {
      auto narrow = static_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t,
                                                   std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint8_t>>>(v);
      std::memcpy(&out, &narrow, sizeof(T));
    }
    return out;
  }
  u64 string_length(const char* what) {
    const u64 n = num<u64>(what);
    if (n > lim_.max_string_bytes)
      fail(std::string(what) + " length " + std::to_string(n) + " over the " + std::to_string(lim_.max_string_bytes) +
           "-byte limit");
    return n;
  }
  // GGUF strings are UTF-8 (ggml's docs/gguf.md, gguf_string_t): a kept string that is not is
  // refused here, so no later message or JSON document meets invalid bytes.
  std::string str(const char* what) {
    const u64 at = pos_;
    const u64 n = string_length(what);
    need(n, what);
    std::string s(static_cast<std::size_t>(n), '\0');
    bytes(s.data(), n, what);
    if (!is_valid_utf8(s)) {
      pos_ = at;
      fail(std::string(what) + " is not valid UTF-8 (GGUF strings are UTF-8)");
    }
    return s;
  }
  u64 pos() const { return pos_; }
  const GgufLimits& limits() const { return lim_; }

 private:
  std::istream& in_;
  u64 size_;
  u64 pos_ = 0;
  std::string source_;
  const GgufLimits& lim_;
};

nlohmann::json scalar(Reader& r, std::uint32_t t, const std::string& key) {
  switch (t) {
    case kU8: return r.num<std::uint8_t>("u8");
    case kI8: return r.num<std::int8_t>("i8");
    case kU16: return r.num<std::uint16_t>("u16");
    case kI16: return r.num<std::int16_t>("i16");
    case kU32: return r.num<std::uint32_t>("u32");
    case kI32: return r.num<std::int32_t>("i32");
    case kF32: return static_cast<double>(r.num<float>("f32"));
    case kU64: return r.num<std::uint64_t>("u64");
    case kI64: return r.num<std::int64_t>("i64");
    case kF64: return r.num<double>("f64");
    case kBool: {
      const auto b = r.num<std::uint8_t>("bool");
      if (b > 1) r.fail("key \"" + bounded_echo(key) + "\": bool value " + std::to_string(b) + " is neither 0 nor 1");
      return b == 1;
    }
    case kString: return r.str("string value");
    default: r.fail("key \"" + bounded_echo(key) + "\": unknown value type " + std::to_string(t));
  }
}

nlohmann::json value(Reader& r, std::uint32_t t, const std::string& key) {
  if (t != kArray) return scalar(r, t, key);
  const auto et = r.num<std::uint32_t>("array element type");
  const u64 n = r.num<u64>("array length");
  if (et == kArray) r.fail("key \"" + bounded_echo(key) + "\": nested arrays are not supported");
  if (et != kString && scalar_size(et) == 0) r.fail("key \"" + bounded_echo(key) + "\": unknown array element type " + std::to_string(et));
  if (n > r.limits().max_array)
    r.fail("key \"" + bounded_echo(key) + "\": array length " + std::to_string(n) + " over the " +
           std::to_string(r.limits().max_array) + "-element limit");
  if (n > r.limits().max_kept_array) {
    // Count it, keep only its length: vocabularies and merges are not needed for sizing.
    if (et == kString) {
      for (u64 i = 0; i < n; ++i) r.skip(r.string_length("array string"), "array string");
    } else {
      r.skip(checked_mul(n, scalar_size(et), "GGUF array bytes"), "array data");
    }
    return {{"gguf_array_type", et}, {"length", n}};
  }
  if (et != kString) r.need(checked_mul(n, scalar_size(et), "GGUF array bytes"), "array data");
  nlohmann::json a = nlohmann::json::array();
  for (u64 i = 0; i < n; ++i) a.push_back(scalar(r, et, key));
  return a;
}

}  // namespace

const GgmlType* ggml_type(std::uint32_t id) {
  for (const auto& t : kTypes)
    if (t.id == id) return &t;
  return nullptr;
}

const GgmlType* ggml_type(std::string_view name) {
  for (const auto& t : kTypes) {
    if (t.name.size() != name.size()) continue;
    if (std::equal(name.begin(), name.end(), t.name.begin(),
                   [](char a, char b) { return std::toupper(static_cast<unsigned char>(a)) == b; }))
      return &t;
  }
  return nullptr;
}

u64 ggml_row_bytes(const GgmlType& t, u64 values) {
  return checked_mul(values / t.block_values, t.block_bytes, "GGUF row bytes");
}

GgufHeader read_gguf_header(std::istream& in, u64 stream_bytes, std::string_view source, const GgufLimits& limits) {
  Reader r(in, stream_bytes, source, limits);
  GgufHeader h;
  char magic[4];
  r.bytes(magic, 4, "magic");
  if (std::memcmp(magic, "GGUF", 4) != 0) r.fail("wrong magic (not a GGUF file)");
  h.version = r.num<std::uint32_t>("version");
  if (h.version == 1) r.fail("GGUF version 1 is not supported (llama.cpp reads versions 2 and 3)");
  if (h.version != 2 && h.version != 3) {
    // A big-endian file stores 2 or 3 as 0x02000000 / 0x03000000: low 16 bits zero, high ones not.
    if (h.version != 0 && (h.version & 0xFFFFu) == 0) r.fail("big-endian GGUF files are not supported");
    r.fail("unsupported GGUF version " + std::to_string(h.version));
  }
  const u64 n_tensors = r.num<u64>("tensor count");
  const u64 n_kv = r.num<u64>("metadata count");
  if (n_tensors > limits.max_tensors)
    r.fail("tensor count " + std::to_string(n_tensors) + " over the " + std::to_string(limits.max_tensors) + " limit");
  if (n_kv > limits.max_kv)
    r.fail("metadata count " + std::to_string(n_kv) + " over the " + std::to_string(limits.max_kv) + " limit");
  for (u64 i = 0; i < n_kv; ++i) {
    std::string key = r.str("key");
    const auto t = r.num<std::uint32_t>("value type");
    if (h.metadata.contains(key)) r.fail("duplicate key \"" + bounded_echo(key) + "\"");
    h.metadata[key] = value(r, t, key);
  }
  if (h.metadata.contains("general.alignment")) {
    const auto& a = h.metadata["general.alignment"];
    if (!a.is_number_unsigned() || a.get<u64>() == 0 || (a.get<u64>() & (a.get<u64>() - 1)) != 0 ||
        a.get<u64>() > (1u << 20))
      r.fail("general.alignment must be a power of two up to 2^20");
    h.alignment = a.get<u64>();
  }
  h.tensors.reserve(static_cast<std::size_t>(std::min<u64>(n_tensors, 1u << 16)));
  for (u64 i = 0; i < n_tensors; ++i) {
    GgufTensorInfo t;
    t.name = r.str("tensor name");
    const auto n_dims = r.num<std::uint32_t>("tensor dims");
    if (n_dims == 0 || n_dims > 4) r.fail("tensor \"" + bounded_echo(t.name) + "\": " + std::to_string(n_dims) + " dims (1 to 4 allowed)");
    u64 elements = 1;
    for (std::uint32_t d = 0; d < n_dims; ++d) {
      const u64 ne = r.num<u64>("tensor dim");
      if (ne == 0 || ne > (1ull << 40)) r.fail("tensor \"" + bounded_echo(t.name) + "\": dimension " + std::to_string(ne) + " out of range");
      t.dims.push_back(ne);
      elements = checked_mul(elements, ne, "GGUF tensor elements");
    }
    t.type = r.num<std::uint32_t>("tensor type");
    const GgmlType* gt = ggml_type(t.type);
    if (!gt) r.fail("tensor \"" + bounded_echo(t.name) + "\": unknown ggml type " + std::to_string(t.type));
    if (t.dims[0] % gt->block_values != 0)
      r.fail("tensor \"" + bounded_echo(t.name) + "\": row of " + std::to_string(t.dims[0]) + " values is not a whole number of " +
             std::string(gt->name) + " blocks (" + std::to_string(gt->block_values) + ")");
    t.bytes = checked_mul(elements / t.dims[0], ggml_row_bytes(*gt, t.dims[0]), "GGUF tensor bytes");
    t.offset = r.num<u64>("tensor offset");
    if (t.offset % h.alignment != 0) r.fail("tensor \"" + bounded_echo(t.name) + "\": offset not aligned to " + std::to_string(h.alignment));
    h.tensors.push_back(std::move(t));
  }
  h.data_offset = ceil_div(r.pos(), h.alignment) * h.alignment;
  const u64 data_bytes = stream_bytes >= h.data_offset ? stream_bytes - h.data_offset : 0;
  std::vector<detail::TensorRange> ranges;
  ranges.reserve(h.tensors.size());
  for (const auto& t : h.tensors) ranges.push_back({t.name, t.offset, checked_add(t.offset, t.bytes, "GGUF tensor end")});
  detail::validate_tensor_ranges(std::move(ranges), data_bytes, source, kGgufFormat, r.pos());
  h.bytes_read = r.pos();
  return h;
}

GgufHeader read_gguf_header(const std::filesystem::path& file, const GgufLimits& limits) {
  std::ifstream in(file, std::ios::binary);
  std::error_code ec;
  const u64 size = std::filesystem::file_size(file, ec);
  if (!in || ec) throw InputError::value("model", file.string(), "a readable GGUF file");
  return read_gguf_header(in, size, file.string(), limits);
}

std::vector<CheckpointTensor> gguf_checkpoint_tensors(const GgufHeader& h) {
  std::vector<CheckpointTensor> out;
  out.reserve(h.tensors.size());
  for (const auto& t : h.tensors) {
    CheckpointTensor c;
    c.name = t.name;
    c.dtype = std::string(ggml_type(t.type)->name);
    c.shape.assign(t.dims.rbegin(), t.dims.rend());  // outermost first, as safetensors writes shapes
    c.bytes = t.bytes;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace kvplan
