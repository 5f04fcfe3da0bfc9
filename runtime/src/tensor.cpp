#include "kvplan/runtime/tensor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

#include <Eigen/Core>

#include "kvplan/checked.h"
#include "kvplan/error.h"

namespace kvplan::runtime {

static_assert(sizeof(block_q8_0) == 34 && sizeof(block_q4_0) == 18 && sizeof(block_q4_1) == 20);
static_assert(sizeof(block_q5_0) == 22 && sizeof(block_q5_1) == 24 && sizeof(block_iq4_nl) == 18);
static_assert(sizeof(block_mxfp4) == 17 && sizeof(block_nvfp4) == 9);
static_assert(sizeof(Eigen::half) == 2 && sizeof(Eigen::bfloat16) == 2);

namespace {

std::uint16_t fp16_bits(float x) {
  Eigen::half h(x);
  std::uint16_t b;
  std::memcpy(&b, static_cast<const void*>(&h), 2);
  return b;
}
float fp16_value(std::uint16_t b) {
  Eigen::half h;
  std::memcpy(static_cast<void*>(&h), &b, 2);
  return static_cast<float>(h);
}

// Sorted magnitudes of every finite non-negative code of an 8-bit float format.
template <int ExpBits, int ManBits, int Bias, bool FnStyle>
struct Fp8Table {
  std::array<float, 128> value{};  // by code 0..127
  int finite = 0;                  // codes 0..finite-1 are finite
  Fp8Table() {
    for (int c = 0; c < 128; ++c) {
      const int e = c >> ManBits, m = c & ((1 << ManBits) - 1);
      const bool top = e == (1 << ExpBits) - 1;
      if (FnStyle ? (top && m == (1 << ManBits) - 1) : top) break;
      value[c] = e == 0 ? std::ldexp(static_cast<float>(m) / (1 << ManBits), 1 - Bias)
                        : std::ldexp(1.0f + static_cast<float>(m) / (1 << ManBits), e - Bias);
      finite = c + 1;
    }
  }
  std::uint8_t encode(float x) const {
    if (std::isnan(x)) return FnStyle ? 0x7F : 0x7E;
    const std::uint8_t sign = std::signbit(x) ? 0x80 : 0;
    const float a = std::fabs(x);
    const float* first = value.data();
    const float* last = first + finite;
    const float* it = std::lower_bound(first, last, a);  // first >= a
    int code;
    if (it == last) code = finite - 1;  // saturate
    else if (it == first) code = 0;
    else {
      const int hi = static_cast<int>(it - first), lo = hi - 1;
      const float dl = a - value[lo], dh = value[hi] - a;
      code = dl < dh ? lo : dh < dl ? hi : ((lo & 1) == 0 ? lo : hi);  // ties to even
    }
    return static_cast<std::uint8_t>(sign | code);
  }
  float decode(std::uint8_t b) const {
    const int c = b & 0x7F;
    if (c >= finite) return std::numeric_limits<float>::quiet_NaN();
    return (b & 0x80) ? -value[c] : value[c];
  }
};
const Fp8Table<4, 3, 7, true>& e4m3() {
  static const Fp8Table<4, 3, 7, true> t;
  return t;
}
const Fp8Table<5, 2, 15, false>& e5m2() {
  static const Fp8Table<5, 2, 15, false> t;
  return t;
}

constexpr std::array<std::int8_t, 16> kIq4nl = {-127, -104, -83, -65, -49, -35, -22, -10,
                                                1,    13,   25,  38,  53,  69,  89,  113};
constexpr std::array<float, 8> kE2m1 = {0.f, 0.5f, 1.f, 1.5f, 2.f, 3.f, 4.f, 6.f};

std::uint8_t e2m1_code(float x) {  // nearest magnitude, sign in bit 3
  const float a = std::fabs(x);
  int best = 0;
  for (int i = 1; i < 8; ++i)
    if (std::fabs(kE2m1[i] - a) < std::fabs(kE2m1[best] - a)) best = i;
  return static_cast<std::uint8_t>((x < 0 && best ? 8 : 0) | best);
}
float e2m1_value(std::uint8_t c) { return (c & 8) ? -kE2m1[c & 7] : kE2m1[c & 7]; }

void signed_absmax(const float* x, int n, float& amax, float& max) {
  amax = 0, max = 0;
  for (int j = 0; j < n; ++j)
    if (amax < std::fabs(x[j])) amax = std::fabs(x[j]), max = x[j];
}

}  // namespace

std::uint8_t fp8_e4m3_from_float(float x) { return e4m3().encode(x); }
float fp8_e4m3_to_float(std::uint8_t b) { return e4m3().decode(b); }
std::uint8_t fp8_e5m2_from_float(float x) { return e5m2().encode(x); }
float fp8_e5m2_to_float(std::uint8_t b) { return e5m2().decode(b); }

// ggml's reference quantisers (quantize_row_*_ref), one block at a time.
void quantize_block(Dtype d, const float* x, void* out) {
  switch (d) {
    case Dtype::q8_0: {
      auto& y = *static_cast<block_q8_0*>(out);
      float amax = 0;
      for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
      const float s = amax / 127, id = s ? 1.0f / s : 0.0f;
      y.d = fp16_bits(s);
      for (int j = 0; j < 32; ++j) y.qs[j] = static_cast<std::int8_t>(std::roundf(x[j] * id));
      return;
    }
    case Dtype::q4_0: {
      auto& y = *static_cast<block_q4_0*>(out);
      float amax, max;
      signed_absmax(x, 32, amax, max);
      const float s = max / -8, id = s ? 1.0f / s : 0.0f;
      y.d = fp16_bits(s);
      for (int j = 0; j < 16; ++j) {
        const auto a = std::min<std::uint8_t>(15, static_cast<std::int8_t>(x[j] * id + 8.5f));
        const auto b = std::min<std::uint8_t>(15, static_cast<std::int8_t>(x[16 + j] * id + 8.5f));
        y.qs[j] = static_cast<std::uint8_t>(a | (b << 4));
      }
      return;
    }
    case Dtype::q4_1: {
      auto& y = *static_cast<block_q4_1*>(out);
      const float mn = *std::min_element(x, x + 32), mx = *std::max_element(x, x + 32);
      const float s = (mx - mn) / 15, id = s ? 1.0f / s : 0.0f;
      y.d = fp16_bits(s);
      y.m = fp16_bits(mn);
      for (int j = 0; j < 16; ++j) {
        const auto a = std::min<std::uint8_t>(15, static_cast<std::int8_t>((x[j] - mn) * id + 0.5f));
        const auto b = std::min<std::uint8_t>(15, static_cast<std::int8_t>((x[16 + j] - mn) * id + 0.5f));
        y.qs[j] = static_cast<std::uint8_t>(a | (b << 4));
      }
      return;
    }
    case Dtype::q5_0:
    case Dtype::q5_1: {
      const bool one = d == Dtype::q5_1;
      float s, mn = 0;
      if (one) {
        mn = *std::min_element(x, x + 32);
        s = (*std::max_element(x, x + 32) - mn) / 31;
      } else {
        float amax, max;
        signed_absmax(x, 32, amax, max);
        s = max / -16;
      }
      const float id = s ? 1.0f / s : 0.0f;
      std::uint32_t qh = 0;
      std::uint8_t* qs;
      if (one) {
        auto& y = *static_cast<block_q5_1*>(out);
        y.d = fp16_bits(s), y.m = fp16_bits(mn), qs = y.qs;
      } else {
        auto& y = *static_cast<block_q5_0*>(out);
        y.d = fp16_bits(s), qs = y.qs;
      }
      for (int j = 0; j < 16; ++j) {
        std::uint8_t a, b;
        if (one) {
          a = static_cast<std::uint8_t>((x[j] - mn) * id + 0.5f);
          b = static_cast<std::uint8_t>((x[16 + j] - mn) * id + 0.5f);
        } else {
          a = std::min<std::uint8_t>(31, static_cast<std::int8_t>(x[j] * id + 16.5f));
          b = std::min<std::uint8_t>(31, static_cast<std::int8_t>(x[16 + j] * id + 16.5f));
        }
        qs[j] = static_cast<std::uint8_t>((a & 0x0F) | ((b & 0x0F) << 4));
        qh |= ((a & 0x10u) >> 4) << j;
        qh |= ((b & 0x10u) >> 4) << (j + 16);
      }
      if (one) std::memcpy(static_cast<block_q5_1*>(out)->qh, &qh, 4);
      else std::memcpy(static_cast<block_q5_0*>(out)->qh, &qh, 4);
      return;
    }
    case Dtype::iq4_nl: {
      auto& y = *static_cast<block_iq4_nl*>(out);
      float amax, max;
      signed_absmax(x, 32, amax, max);
      std::uint8_t L[32];
      if (amax == 0) {
        y.d = 0;
        std::memset(y.qs, 0, 16);
        return;
      }
      const float id = kIq4nl[0] / max;
      float sumqx = 0, sumq2 = 0;
      for (int j = 0; j < 32; ++j) {
        const float v = id * x[j];
        int best = 0;
        for (int k = 1; k < 16; ++k)
          if (std::fabs(kIq4nl[k] - v) < std::fabs(kIq4nl[best] - v)) best = k;
        L[j] = static_cast<std::uint8_t>(best);
        const float w = x[j] * x[j], q = kIq4nl[best];
        sumqx += w * q * x[j], sumq2 += w * q * q;
      }
      y.d = fp16_bits(sumq2 > 0 ? sumqx / sumq2 : 1.0f / id);  // ggml's least-squares refit
      for (int j = 0; j < 16; ++j) y.qs[j] = static_cast<std::uint8_t>(L[j] | (L[j + 16] << 4));
      return;
    }
    case Dtype::mxfp4: {
      auto& y = *static_cast<block_mxfp4*>(out);
      float amax = 0;
      for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
      // Shared exponent: floor(log2(amax)) - 2 (e2m1's largest exponent), as the OCP spec says.
      const int e = amax > 0 ? std::clamp(static_cast<int>(std::floor(std::log2(amax))) - 2, -127, 127) : -127;
      y.e = static_cast<std::uint8_t>(e + 127);
      const float inv = std::ldexp(1.0f, -e);
      for (int j = 0; j < 16; ++j)
        y.qs[j] = static_cast<std::uint8_t>(e2m1_code(x[j] * inv) | (e2m1_code(x[16 + j] * inv) << 4));
      return;
    }
    case Dtype::nvfp4: {
      auto& y = *static_cast<block_nvfp4*>(out);
      float amax = 0;
      for (int j = 0; j < 16; ++j) amax = std::max(amax, std::fabs(x[j]));
      y.d = fp8_e4m3_from_float(amax / 6);
      const float s = fp8_e4m3_to_float(y.d), inv = s ? 1.0f / s : 0.0f;
      for (int j = 0; j < 8; ++j)
        y.qs[j] = static_cast<std::uint8_t>(e2m1_code(x[j] * inv) | (e2m1_code(x[8 + j] * inv) << 4));
      return;
    }
    default:
      throw InputError::value("block dtype", name(d), "a block format (q8_0 q4_0 q4_1 q5_0 q5_1 iq4_nl mxfp4 nvfp4)");
  }
}

void dequantize_block(Dtype d, const void* in, float* y) {
  switch (d) {
    case Dtype::q8_0: {
      const auto& x = *static_cast<const block_q8_0*>(in);
      const float s = fp16_value(x.d);
      for (int j = 0; j < 32; ++j) y[j] = x.qs[j] * s;
      return;
    }
    case Dtype::q4_0: {
      const auto& x = *static_cast<const block_q4_0*>(in);
      const float s = fp16_value(x.d);
      for (int j = 0; j < 16; ++j) y[j] = ((x.qs[j] & 0x0F) - 8) * s, y[j + 16] = ((x.qs[j] >> 4) - 8) * s;
      return;
    }
    case Dtype::q4_1: {
      const auto& x = *static_cast<const block_q4_1*>(in);
      const float s = fp16_value(x.d), m = fp16_value(x.m);
      for (int j = 0; j < 16; ++j) y[j] = (x.qs[j] & 0x0F) * s + m, y[j + 16] = (x.qs[j] >> 4) * s + m;
      return;
    }
    case Dtype::q5_0:
    case Dtype::q5_1: {
      const bool one = d == Dtype::q5_1;
      float s, m = 0;
      std::uint32_t qh;
      const std::uint8_t* qs;
      if (one) {
        const auto& x = *static_cast<const block_q5_1*>(in);
        s = fp16_value(x.d), m = fp16_value(x.m), qs = x.qs;
        std::memcpy(&qh, x.qh, 4);
      } else {
        const auto& x = *static_cast<const block_q5_0*>(in);
        s = fp16_value(x.d), qs = x.qs;
        std::memcpy(&qh, x.qh, 4);
      }
      for (int j = 0; j < 16; ++j) {
        const std::uint8_t h0 = ((qh >> j) << 4) & 0x10, h1 = (qh >> (j + 12)) & 0x10;
        const int a = (qs[j] & 0x0F) | h0, b = (qs[j] >> 4) | h1;
        y[j] = one ? a * s + m : (a - 16) * s;
        y[j + 16] = one ? b * s + m : (b - 16) * s;
      }
      return;
    }
    case Dtype::iq4_nl: {
      const auto& x = *static_cast<const block_iq4_nl*>(in);
      const float s = fp16_value(x.d);
      for (int j = 0; j < 16; ++j) y[j] = s * kIq4nl[x.qs[j] & 0x0F], y[j + 16] = s * kIq4nl[x.qs[j] >> 4];
      return;
    }
    case Dtype::mxfp4: {
      const auto& x = *static_cast<const block_mxfp4*>(in);
      const float s = std::ldexp(1.0f, static_cast<int>(x.e) - 127);
      for (int j = 0; j < 16; ++j) y[j] = e2m1_value(x.qs[j] & 0x0F) * s, y[j + 16] = e2m1_value(x.qs[j] >> 4) * s;
      return;
    }
    case Dtype::nvfp4: {
      const auto& x = *static_cast<const block_nvfp4*>(in);
      const float s = fp8_e4m3_to_float(x.d);
      for (int j = 0; j < 8; ++j) y[j] = e2m1_value(x.qs[j] & 0x0F) * s, y[j + 8] = e2m1_value(x.qs[j] >> 4) * s;
      return;
    }
    default:
      throw InputError::value("block dtype", name(d), "a block format");
  }
}

namespace detail {

// A buffer of `count` elements of T, allocated once and never resized. Not zero-filled: the
// runtime only reads slots it has written (a 4097-token cache of a 70B model is gigabytes).
template <class T>
struct Buffer {
  T* data = nullptr;
  std::uint64_t count = 0;
  explicit Buffer(std::uint64_t n) : count(n) {
    const std::uint64_t bytes = checked_mul(n, sizeof(T), "cache tensor bytes");
    data = static_cast<T*>(::operator new(std::max<std::uint64_t>(bytes, 1), std::align_val_t{64}));
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { ::operator delete(data, std::align_val_t{64}); }
};

class Storage {
 public:
  virtual ~Storage() = default;
  virtual void write_row(std::uint64_t r, const float* x) = 0;
  virtual void read_row(std::uint64_t r, float* y) const = 0;
  virtual std::uint64_t element_count() const = 0;
  virtual std::uint64_t element_size() const = 0;
  virtual std::string element_type() const = 0;
  virtual const void* address() const = 0;
  virtual std::uint64_t scale_bytes() const { return 0; }
  virtual float* fp32() { return nullptr; }
};

template <class T>
class ScalarStorage final : public Storage {
 public:
  ScalarStorage(std::uint64_t rows, std::uint64_t len, const char* type)
      : buf_(checked_mul(rows, len, "cache tensor elements")), len_(len), type_(type) {}
  void write_row(std::uint64_t r, const float* x) override {
    T* p = buf_.data + r * len_;
    for (std::uint64_t j = 0; j < len_; ++j) p[j] = static_cast<T>(x[j]);
  }
  void read_row(std::uint64_t r, float* y) const override {
    const T* p = buf_.data + r * len_;
    for (std::uint64_t j = 0; j < len_; ++j) y[j] = static_cast<float>(p[j]);
  }
  std::uint64_t element_count() const override { return buf_.count; }
  std::uint64_t element_size() const override { return sizeof(T); }
  std::string element_type() const override { return type_; }
  const void* address() const override { return buf_.data; }
  float* fp32() override {
    if constexpr (std::is_same_v<T, float>) return buf_.data;
    return nullptr;
  }

 private:
  Buffer<T> buf_;
  std::uint64_t len_;
  const char* type_;
};

// fp8 / int8 / int4 with one float scale per tensor (vLLM's k_scale / v_scale).
class ScaledByteStorage final : public Storage {
 public:
  ScaledByteStorage(Dtype d, std::uint64_t rows, std::uint64_t len, float scale)
      : d_(d), per_row_(d == Dtype::int4 ? ceil_div(len, 2) : len),
        buf_(checked_mul(rows, per_row_, "cache tensor elements")), len_(len), scale_(scale) {}
  void write_row(std::uint64_t r, const float* x) override {
    std::uint8_t* p = buf_.data + r * per_row_;
    const float inv = 1.0f / scale_;
    switch (d_) {
      case Dtype::fp8_e4m3: for (std::uint64_t j = 0; j < len_; ++j) p[j] = fp8_e4m3_from_float(x[j] * inv); break;
      case Dtype::fp8_e5m2: for (std::uint64_t j = 0; j < len_; ++j) p[j] = fp8_e5m2_from_float(x[j] * inv); break;
      case Dtype::int8:
        for (std::uint64_t j = 0; j < len_; ++j)
          p[j] = static_cast<std::uint8_t>(static_cast<std::int8_t>(std::clamp(std::nearbyint(x[j] * inv), -127.f, 127.f)));
        break;
      default:  // int4: two per byte, low nibble first, offset 8
        std::fill(p, p + per_row_, std::uint8_t{0});
        for (std::uint64_t j = 0; j < len_; ++j) {
          const auto q = static_cast<std::uint8_t>(std::clamp(std::nearbyint(x[j] * inv), -8.f, 7.f) + 8);
          p[j / 2] |= static_cast<std::uint8_t>(j % 2 ? q << 4 : q);
        }
    }
  }
  void read_row(std::uint64_t r, float* y) const override {
    const std::uint8_t* p = buf_.data + r * per_row_;
    switch (d_) {
      case Dtype::fp8_e4m3: for (std::uint64_t j = 0; j < len_; ++j) y[j] = fp8_e4m3_to_float(p[j]) * scale_; break;
      case Dtype::fp8_e5m2: for (std::uint64_t j = 0; j < len_; ++j) y[j] = fp8_e5m2_to_float(p[j]) * scale_; break;
      case Dtype::int8: for (std::uint64_t j = 0; j < len_; ++j) y[j] = static_cast<std::int8_t>(p[j]) * scale_; break;
      default:
        for (std::uint64_t j = 0; j < len_; ++j) y[j] = (((p[j / 2] >> (j % 2 ? 4 : 0)) & 0x0F) - 8) * scale_;
    }
  }
  std::uint64_t element_count() const override { return buf_.count; }
  std::uint64_t element_size() const override { return sizeof(std::uint8_t); }
  std::string element_type() const override { return d_ == Dtype::int8 ? "int8_t" : "uint8_t"; }
  const void* address() const override { return buf_.data; }
  std::uint64_t scale_bytes() const override { return sizeof(float); }

 private:
  Dtype d_;
  std::uint64_t per_row_;
  Buffer<std::uint8_t> buf_;
  std::uint64_t len_;
  float scale_;
};

template <class B>
class BlockStorage final : public Storage {
 public:
  BlockStorage(Dtype d, std::uint64_t rows, std::uint64_t len, std::uint64_t block_values, const char* type)
      : d_(d), bv_(block_values), per_row_(ceil_div(len, block_values)),
        buf_(checked_mul(rows, per_row_, "cache tensor blocks")), len_(len), type_(type) {}
  void write_row(std::uint64_t r, const float* x) override {
    B* p = buf_.data + r * per_row_;
    float tmp[32];
    for (std::uint64_t b = 0; b < per_row_; ++b) {
      const std::uint64_t n = std::min(bv_, len_ - b * bv_);
      std::fill(tmp, tmp + bv_, 0.0f);  // the tail of the last block is zero padding
      std::copy(x + b * bv_, x + b * bv_ + n, tmp);
      quantize_block(d_, tmp, p + b);
    }
  }
  void read_row(std::uint64_t r, float* y) const override {
    const B* p = buf_.data + r * per_row_;
    float tmp[32];
    for (std::uint64_t b = 0; b < per_row_; ++b) {
      const std::uint64_t n = std::min(bv_, len_ - b * bv_);
      dequantize_block(d_, p + b, tmp);
      std::copy(tmp, tmp + n, y + b * bv_);
    }
  }
  std::uint64_t element_count() const override { return buf_.count; }
  std::uint64_t element_size() const override { return sizeof(B); }
  std::string element_type() const override { return type_; }
  const void* address() const override { return buf_.data; }

 private:
  Dtype d_;
  std::uint64_t bv_, per_row_;
  Buffer<B> buf_;
  std::uint64_t len_;
  const char* type_;
};

}  // namespace detail

Tensor::Tensor(std::string name, Dtype dtype, std::vector<std::uint64_t> shape, float scale)
    : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)), scale_(scale) {
  if (shape_.empty()) throw InputError::value("tensor shape", name_, "at least one dimension");
  rows_ = 1;
  for (std::size_t i = 0; i + 1 < shape_.size(); ++i) rows_ = checked_mul(rows_, shape_[i], "tensor rows");
  const std::uint64_t r = rows_, n = shape_.back();
  using namespace detail;
  switch (dtype) {
    case Dtype::fp32: storage_ = std::make_unique<ScalarStorage<float>>(r, n, "float"); break;
    case Dtype::fp16: storage_ = std::make_unique<ScalarStorage<Eigen::half>>(r, n, "Eigen::half"); break;
    case Dtype::bf16: storage_ = std::make_unique<ScalarStorage<Eigen::bfloat16>>(r, n, "Eigen::bfloat16"); break;
    case Dtype::fp8_e4m3:
    case Dtype::fp8_e5m2:
    case Dtype::int8:
    case Dtype::int4: storage_ = std::make_unique<ScaledByteStorage>(dtype, r, n, scale); break;
    case Dtype::q8_0: storage_ = std::make_unique<BlockStorage<block_q8_0>>(dtype, r, n, 32, "block_q8_0"); break;
    case Dtype::q4_0: storage_ = std::make_unique<BlockStorage<block_q4_0>>(dtype, r, n, 32, "block_q4_0"); break;
    case Dtype::q4_1: storage_ = std::make_unique<BlockStorage<block_q4_1>>(dtype, r, n, 32, "block_q4_1"); break;
    case Dtype::q5_0: storage_ = std::make_unique<BlockStorage<block_q5_0>>(dtype, r, n, 32, "block_q5_0"); break;
    case Dtype::q5_1: storage_ = std::make_unique<BlockStorage<block_q5_1>>(dtype, r, n, 32, "block_q5_1"); break;
    case Dtype::iq4_nl: storage_ = std::make_unique<BlockStorage<block_iq4_nl>>(dtype, r, n, 32, "block_iq4_nl"); break;
    case Dtype::mxfp4: storage_ = std::make_unique<BlockStorage<block_mxfp4>>(dtype, r, n, 32, "block_mxfp4"); break;
    case Dtype::nvfp4: storage_ = std::make_unique<BlockStorage<block_nvfp4>>(dtype, r, n, 16, "block_nvfp4"); break;
  }
}

Tensor::Tensor(Tensor&&) noexcept = default;
Tensor& Tensor::operator=(Tensor&&) noexcept = default;
Tensor::~Tensor() = default;

void Tensor::write_row(std::uint64_t row, const float* values) { storage_->write_row(row, values); }
void Tensor::read_row(std::uint64_t row, float* out) const { storage_->read_row(row, out); }
const float* Tensor::fp32_data() const { return storage_->fp32(); }
float* Tensor::fp32_data() { return storage_->fp32(); }
const void* Tensor::buffer_address() const { return storage_->address(); }

void Tensor::round_trip(const float* in, float* out) const {
  if (dtype_ == Dtype::fp32) {
    std::copy(in, in + row_len(), out);
    return;
  }
  // A one-row scratch tensor of the same format and scale does exactly what a cache row does.
  // It is not part of the cache and is not reported.
  if (!scratch_) scratch_ = std::make_unique<Tensor>("scratch", dtype_, std::vector<std::uint64_t>{1, row_len()}, scale_);
  scratch_->write_row(0, in);
  scratch_->read_row(0, out);
}

TensorInfo Tensor::info() const {
  TensorInfo i;
  i.name = name_;
  i.dtype = dtype_;
  i.shape = shape_;
  i.numbers = 1;
  for (auto d : shape_) i.numbers = checked_mul(i.numbers, d, "tensor numbers");
  i.element_type = storage_->element_type();
  i.element_count = storage_->element_count();
  i.element_size = storage_->element_size();
  i.bytes = checked_mul(i.element_count, i.element_size, "tensor bytes");
  i.scale_bytes = storage_->scale_bytes();
  return i;
}

std::uint64_t Tensor::bytes() const {
  return checked_mul(storage_->element_count(), storage_->element_size(), "tensor bytes");
}

}  // namespace kvplan::runtime
