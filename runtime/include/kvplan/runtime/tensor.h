#pragma once
// Cache tensors of the reference runtime: real buffers in the storage dtype, addressed by rows.
// A tensor of shape [1, a, b, ..., row] stores rows of `row` numbers; block formats (ggml q8_0,
// q4_0, ...) pack each row into whole blocks, the last one zero-padded, exactly as ggml lays a
// row out. What a tensor reports about its size comes from the buffer it allocated (element
// count x element size), never from kvplan's formula.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kvplan/dtype.h"

namespace kvplan::runtime {

// What one tensor holds, read from its buffer.
struct TensorInfo {
  std::string name;                    // "k", "v", "kv_latent", "indexer_k", "conv_state", "ssm_state"
  Dtype dtype = Dtype::fp32;
  std::vector<std::uint64_t> shape;    // [1, ..., row]
  std::uint64_t numbers = 0;           // product of the shape (values the tensor represents)
  std::string element_type;            // C++ element of the buffer: "float", "Eigen::bfloat16", "block_q8_0", ...
  std::uint64_t element_count = 0;     // elements in the buffer (scalars, bytes or blocks)
  std::uint64_t element_size = 0;      // sizeof(element)
  std::uint64_t bytes = 0;             // element_count * element_size
  std::uint64_t scale_bytes = 0;       // per-tensor scale kept beside the buffer (fp8/int8/int4): metadata
};

namespace detail {
class Storage;
}

class Tensor {
 public:
  // Throws InputError for a dtype the runtime cannot store. `scale` is the per-tensor scale of
  // fp8/int8/int4 storage (stored value = real value / scale); ignored by the other formats.
  Tensor(std::string name, Dtype dtype, std::vector<std::uint64_t> shape, float scale = 1.0f);
  Tensor(Tensor&&) noexcept;
  Tensor& operator=(Tensor&&) noexcept;
  ~Tensor();

  const std::string& name() const { return name_; }
  Dtype dtype() const { return dtype_; }
  const std::vector<std::uint64_t>& shape() const { return shape_; }
  std::uint64_t rows() const { return rows_; }
  std::uint64_t row_len() const { return shape_.back(); }

  // Quantises/rounds one row of row_len() numbers into storage; reads it back as float.
  void write_row(std::uint64_t row, const float* values);
  void read_row(std::uint64_t row, float* out) const;
  // What a value becomes after a round trip through this storage (for the prefill path).
  void round_trip(const float* in, float* out) const;
  // Rows laid out contiguously as float (fp32 storage only), else nullptr.
  const float* fp32_data() const;
  float* fp32_data();
  // Address of the buffer (to prove it never moves or grows while decoding).
  const void* buffer_address() const;

  TensorInfo info() const;
  std::uint64_t bytes() const;  // element_count * element_size of the buffer

 private:
  std::string name_;
  Dtype dtype_;
  std::vector<std::uint64_t> shape_;
  std::uint64_t rows_ = 0;
  float scale_ = 1.0f;
  std::unique_ptr<detail::Storage> storage_;
  mutable std::unique_ptr<Tensor> scratch_;
};

// ggml's block structs, byte for byte (ggml-common.h). ggml_half is an IEEE fp16 bit pattern.
struct block_q8_0 { std::uint16_t d; std::int8_t qs[32]; };
struct block_q4_0 { std::uint16_t d; std::uint8_t qs[16]; };
struct block_q4_1 { std::uint16_t d, m; std::uint8_t qs[16]; };
struct block_q5_0 { std::uint16_t d; std::uint8_t qh[4]; std::uint8_t qs[16]; };
struct block_q5_1 { std::uint16_t d, m; std::uint8_t qh[4]; std::uint8_t qs[16]; };
struct block_iq4_nl { std::uint16_t d; std::uint8_t qs[16]; };
// OCP MXFP4 (32 e2m1 + e8m0 scale) and NVIDIA NVFP4 (16 e2m1 + e4m3 scale).
struct block_mxfp4 { std::uint8_t e; std::uint8_t qs[16]; };
struct block_nvfp4 { std::uint8_t d; std::uint8_t qs[8]; };

// Scalar codecs, exposed for tests.
std::uint8_t fp8_e4m3_from_float(float x);  // round to nearest even, saturating at +-448
float fp8_e4m3_to_float(std::uint8_t b);
std::uint8_t fp8_e5m2_from_float(float x);  // saturating at +-57344
float fp8_e5m2_to_float(std::uint8_t b);
void quantize_block(Dtype d, const float* x, void* block);    // one block of 32 (16 for nvfp4) values
void dequantize_block(Dtype d, const void* block, float* y);

}  // namespace kvplan::runtime
