// quantization_config -> WeightQuantization, and the bytes one quantised matrix takes as the
// checkpoint stores it. Storage layouts (per rows x cols matrix, rows = output features):
// - awq (AutoAWQ GEMM): qweight int32 [cols, rows*bits/32], qzeros int32 [cols/g, rows*bits/32],
//   scales fp16 [cols/g, rows]: `bits` per value, per group 16 + bits (zero_point=false: 16).
// - gptq (AutoGPTQ / GPTQModel / transformers): qweight int32 [cols*bits/32, rows], qzeros
//   [cols/g, rows*bits/32], scales fp16 [cols/g, rows], g_idx int32 [cols] (saved whatever
//   desc_act is); group_size -1 = one group per row.
// - bitsandbytes 4-bit (nf4/fp4): packed uint8 (4 bits/value), absmax per 64 values: fp32, or with
//   double quant uint8 + one fp32 per 256 blocks + a 256-entry fp32 code; a 16-entry fp32 quant_map
//   and a small quant_state per matrix. 8-bit (LLM.int8): int8 + fp32 SCB per output row.
// - compressed-tensors: config_groups[*].weights {num_bits, type, strategy, group_size,
//   symmetric} with format pack-quantized (int packed in int32 + weight_shape int64[2]),
//   int-/naive-quantized (int8), float-quantized (fp8), nvfp4-pack-quantized (4 bits + fp8 scale
//   per 16 + fp32 global scale); scales in the model dtype, a zero point per group when asymmetric.
// - fp8 (DeepSeek / Qwen FP8): 1 byte/value + fp32 scale per weight_block_size block (or per tensor).
// - fbgemm_fp8: 1 byte/value + fp32 scale per output row.
// - modelopt: FP8 = 1 byte/value + fp32 weight_scale + fp32 input_scale; NVFP4 = 4 bits/value +
//   fp8 scale per 16 + fp32 weight_scale_2 + fp32 input_scale.
// - mxfp4 (gpt-oss): ggml-style 17 bytes per 32 values, routed experts only.
// - MLX (mlx-lm, "quantization": {bits, group_size}): packed uint32 + scales and biases in the
//   model dtype per group; the embedding table and head are quantised too.
// - hqq: packed W_q + fp16 scale and zero per group.
#include <nlohmann/json.hpp>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "model/quantization_internal.h"

namespace kvplan::detail {

using u64 = std::uint64_t;
using nlohmann::json;

namespace {

std::string str(const json& q, const char* key, const std::string& fallback = {}) {
  auto it = q.find(key);
  return it != q.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::optional<std::int64_t> integer(const json& q, const char* key) {
  auto it = q.find(key);
  if (it == q.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

bool flag(const json& q, const char* key, bool fallback) {
  auto it = q.find(key);
  return it != q.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

// A positive bit width / group size field, or a ConfigError naming it.
u64 positive(const ConfigView& c, const json& q, const std::string& ptr, std::initializer_list<const char*> keys,
             std::optional<u64> fallback, u64 max) {
  for (const char* k : keys) {
    auto v = integer(q, k);
    if (!v) {
      if (q.contains(k) && !q[k].is_null()) c.fail_at(ptr + "/" + k, "a positive integer", q[k].dump());
      continue;
    }
    if (*v <= 0 || static_cast<u64>(*v) > max) c.fail_at(ptr + "/" + k, "an integer from 1 to " + std::to_string(max), std::to_string(*v));
    return static_cast<u64>(*v);
  }
  if (!fallback) c.fail_at(ptr + "/" + *keys.begin(), "a positive integer", "nothing");
  return *fallback;
}

u64 group_of(const ConfigView& c, const json& q, const std::string& ptr, std::initializer_list<const char*> keys, u64 fallback) {
  for (const char* k : keys) {
    auto v = integer(q, k);
    if (!v) continue;
    if (*v == -1) return 0;  // one group per output row
    if (*v <= 0) c.fail_at(ptr + "/" + k, "a positive group size or -1", std::to_string(*v));
    return static_cast<u64>(*v);
  }
  return fallback;
}

void not_converted(const json& q, std::initializer_list<const char*> keys, WeightQuantization& wq) {
  for (const char* key : keys) {
    auto it = q.find(key);
    if (it == q.end() || !it->is_array()) continue;
    for (const auto& s : *it)
      if (s.is_string()) wq.modules_not_converted.push_back(s.get<std::string>());
  }
}

u64 dtype_bits(Dtype d) { return info(d).block_bytes * 8 / info(d).block_values; }

void compressed_tensors(const ConfigView& c, const json& q, const std::string& ptr, Dtype model_dtype,
                        WeightQuantization& wq) {
  const std::string format = str(q, "format");
  auto groups = q.find("config_groups");
  if (groups == q.end() || !groups->is_object() || groups->empty())
    c.fail_at(ptr + "/config_groups", "an object of quantisation groups", groups == q.end() ? "nothing" : groups->dump());
  if (groups->size() > 1)
    throw UnsupportedArchitecture::field(c.source(), c.model_type(), ptr + "/config_groups",
                                         "compressed-tensors with more than one config group (mixed schemes) is not priced");
  const std::string gptr = ptr + "/config_groups/" + groups->begin().key();
  const json& g = groups->begin().value();
  if (!g.is_object() || !g.contains("weights") || !g["weights"].is_object())
    c.fail_at(gptr + "/weights", "an object {num_bits, type, strategy, ...}", g.dump());
  const json& w = g["weights"];
  const std::string wptr = gptr + "/weights";
  wq.bits = positive(c, w, wptr, {"num_bits"}, std::nullopt, 16);
  const std::string type = str(w, "type", "int");
  const std::string strategy = str(w, "strategy", "tensor");
  const bool symmetric = flag(w, "symmetric", true);
  const u64 model_bits = dtype_bits(model_dtype);
  wq.scale_bits = model_bits;
  wq.zero_bits = symmetric ? 0 : (format == "pack-quantized" ? wq.bits : model_bits);
  if (strategy == "group" || strategy == "tensor_group") {
    wq.group_size = positive(c, w, wptr, {"group_size"}, std::nullopt, 1u << 20);
  } else if (strategy == "channel") {
    wq.group_size = 0;
  } else if (strategy == "tensor") {
    wq.group_size = 0;
    wq.scale_bits = wq.zero_bits = 0;
    wq.tensor_bytes = 4;
  } else if (strategy == "block") {
    auto b = w.find("block_structure");
    if (b == w.end() || !b->is_array() || b->size() != 2 || !(*b)[0].is_number_unsigned() || !(*b)[1].is_number_unsigned() ||
        (*b)[0].get<u64>() == 0 || (*b)[1].get<u64>() == 0)
      c.fail_at(wptr + "/block_structure", "two positive integers [rows, cols]", b == w.end() ? "nothing" : b->dump());
    wq.block_rows = (*b)[0].get<u64>();
    wq.block_cols = (*b)[1].get<u64>();
    wq.scale_bits = 32;
  } else {
    c.fail_at(wptr + "/strategy", "tensor, channel, group, tensor_group or block", "\"" + strategy + "\"");
  }
  if (format == "nvfp4-pack-quantized" || (type == "float" && wq.bits == 4)) {
    wq.scale_bits = 8;                 // fp8 e4m3 scale per 16 values
    wq.zero_bits = 0;
    if (wq.group_size == 0) wq.group_size = 16;
    wq.tensor_bytes = 4;               // weight_global_scale fp32
    wq.dtype = Dtype::nvfp4;
  } else if (type == "float" && wq.bits == 8) {
    wq.dtype = Dtype::fp8_e4m3;
    if (strategy != "tensor" && strategy != "block") wq.scale_bits = 32;
  } else if (type != "int") {
    c.fail_at(wptr + "/type", "\"int\" or \"float\"", "\"" + type + "\"");
  }
  if (format == "pack-quantized") wq.tensor_bytes += 16;  // weight_shape int64[2]
  // Activation scales: static (dynamic false) stores one fp32 input_scale per matrix, and NVFP4's
  // dynamic "local" an fp32 input_global_scale; fully dynamic (true) stores none.
  if (g.contains("input_activations") && g["input_activations"].is_object()) {
    const json& ia = g["input_activations"];
    const bool fully_dynamic = ia.contains("dynamic") && ia["dynamic"].is_boolean() && ia["dynamic"].get<bool>();
    if (!fully_dynamic) wq.tensor_bytes += 4;
  }
  wq.describe = "compressed-tensors " + std::string(type == "float" ? "fp" : "int") + std::to_string(wq.bits) + " " +
                strategy + (wq.group_size ? " g" + std::to_string(wq.group_size) : "");
}

}  // namespace

void read_weight_quantization(const ConfigView& c, const json& q, const std::string& ptr, bool mlx_root,
                              ModelSpec& m) {
  WeightQuantization wq;
  wq.method = str(q, "quant_method");
  // mlx-lm writes {"group_size", "bits"[, "mode"]} with no quant_method, under "quantization"
  // (and a copy under "quantization_config").
  if (wq.method.empty() && (mlx_root || (q.contains("bits") && q.contains("group_size")))) wq.method = "mlx";
  const Dtype md = m.dtype;
  const std::string& k = wq.method;
  if (k == "fp8") {
    // fmt absent: e4m3 (transformers FineGrainedFP8Config / vLLM Fp8Config default). DeepSeek and
    // MiMo write "e4m3", MiniMax-M2.x the torch name "float8_e4m3fn"; anything else (null
    // included) is an error naming the field.
    bool e5m2 = false;
    if (auto f = q.find("fmt"); f != q.end()) {
      const std::string v = f->is_string() ? f->get<std::string>() : "";
      e5m2 = v == "e5m2" || v == "float8_e5m2" || v == "float8_e5m2fnuz";
      if (!e5m2 && v != "e4m3" && v != "float8_e4m3fn" && v != "float8_e4m3fnuz")
        c.fail_at(ptr + "/fmt", "an fp8 format: \"e4m3\", \"e5m2\" or a torch name such as \"float8_e4m3fn\" (or no fmt: e4m3)",
                  f->dump());
    }
    wq.dtype = e5m2 ? Dtype::fp8_e5m2 : Dtype::fp8_e4m3;
    if (q.contains("weight_block_size") && !q["weight_block_size"].is_null()) {
      const auto& b = q["weight_block_size"];
      if (!b.is_array() || b.size() != 2 || !b[0].is_number_unsigned() || !b[1].is_number_unsigned() ||
          b[0].get<u64>() == 0 || b[1].get<u64>() == 0)
        c.fail_at(ptr + "/weight_block_size", "two positive integers [rows, cols] (or null: one scale per tensor)",
                  b.dump());
      wq.block_rows = b[0].get<u64>();
      wq.block_cols = b[1].get<u64>();
    }
  } else if (k == "fbgemm_fp8") {
    wq.dtype = Dtype::fp8_e4m3;
    wq.bits = 8;
    wq.scale_bits = 32;  // one fp32 scale per output row
    wq.describe = "fbgemm fp8 per-channel";
  } else if (k == "mxfp4") {
    wq.dtype = Dtype::mxfp4;
    if (!c.dtype_name()) {
      wq.unquantised_dtype = Dtype::bf16;
      m.params.notes.push_back("mxfp4 checkpoint names no torch_dtype: its unquantised tensors are taken as bf16");
    }
  } else if (k == "awq") {
    wq.bits = positive(c, q, ptr, {"bits", "w_bit"}, 4, 8);
    wq.group_size = group_of(c, q, ptr, {"group_size", "q_group_size"}, 128);
    wq.scale_bits = 16;
    wq.zero_bits = flag(q, "zero_point", true) ? wq.bits : 0;
    wq.describe = "awq int" + std::to_string(wq.bits) + " g" + std::to_string(wq.group_size);
  } else if (k == "gptq") {
    wq.bits = positive(c, q, ptr, {"bits"}, std::nullopt, 8);
    wq.group_size = group_of(c, q, ptr, {"group_size"}, 128);
    wq.scale_bits = 16;
    wq.zero_bits = wq.bits;
    wq.col_bits = 32;
    wq.describe = "gptq int" + std::to_string(wq.bits) + (wq.group_size ? " g" + std::to_string(wq.group_size) : " per-channel") +
                  (flag(q, "desc_act", false) ? " desc_act" : "");
  } else if (k == "bitsandbytes") {
    if (flag(q, "load_in_4bit", false)) {
      wq.bits = 4;
      wq.group_size = 64;
      wq.double_quant = flag(q, "bnb_4bit_use_double_quant", false);
      wq.scale_bits = wq.double_quant ? 8 : 32;
      wq.tensor_bytes = 64 + 128 + (wq.double_quant ? 1024 + 4 : 0);  // quant_map, quant_state, nested code
      wq.describe = str(q, "bnb_4bit_quant_type", "fp4") + (wq.double_quant ? " (double quant)" : "");
    } else if (flag(q, "load_in_8bit", false)) {
      wq.bits = 8;
      wq.scale_bits = 32;  // SCB: fp32 per output row
      wq.describe = "bitsandbytes int8";
    } else {
      c.fail_at(ptr + "/load_in_4bit", "load_in_4bit or load_in_8bit true", "neither");
    }
    not_converted(q, {"llm_int8_skip_modules"}, wq);
  } else if (k == "compressed-tensors") {
    compressed_tensors(c, q, ptr, md, wq);
  } else if (k == "modelopt") {
    const json& inner = q.contains("quantization") && q["quantization"].is_object() ? q["quantization"] : q;
    const std::string algo = str(inner, "quant_algo");
    if (algo == "FP8") {
      wq.dtype = Dtype::fp8_e4m3;
      wq.bits = 8;
      wq.tensor_bytes = 8;  // weight_scale + input_scale, fp32
      wq.describe = "modelopt fp8";
    } else if (algo == "NVFP4") {
      wq.dtype = Dtype::nvfp4;
      wq.bits = 4;
      wq.group_size = integer(inner, "group_size").value_or(16);
      wq.scale_bits = 8;
      wq.tensor_bytes = 8;  // weight_scale_2 + input_scale, fp32
      wq.describe = "modelopt nvfp4";
    } else {
      c.fail_at(ptr + "/quant_algo", "\"FP8\" or \"NVFP4\"", "\"" + algo + "\"");
    }
    not_converted(inner, {"exclude_modules"}, wq);
  } else if (k == "mlx") {
    wq.bits = positive(c, q, ptr, {"bits"}, std::nullopt, 8);
    wq.group_size = positive(c, q, ptr, {"group_size"}, std::nullopt, 1u << 16);
    if (auto mode = str(q, "mode", "affine"); mode != "affine")
      c.fail_at(ptr + "/mode", "\"affine\" (the mode kvplan prices)", "\"" + mode + "\"");
    wq.scale_bits = wq.zero_bits = dtype_bits(md);  // scales and biases in the model dtype
    wq.quantises_embeddings = true;
    wq.describe = "mlx int" + std::to_string(wq.bits) + " g" + std::to_string(wq.group_size);
  } else if (k == "hqq") {
    const json* p = &q;
    if (q.contains("quant_config") && q["quant_config"].is_object() && q["quant_config"].contains("weight_quant_params"))
      p = &q["quant_config"]["weight_quant_params"];
    wq.bits = positive(c, *p, ptr, {"nbits"}, std::nullopt, 8);
    wq.group_size = group_of(c, *p, ptr, {"group_size"}, 64);
    wq.scale_bits = wq.zero_bits = 16;
    not_converted(q, {"skip_modules"}, wq);
    wq.describe = "hqq int" + std::to_string(wq.bits) + " g" + std::to_string(wq.group_size);
  } else {
    throw UnsupportedArchitecture::field(
        c.source(), c.model_type(), ptr + "/quant_method",
        "quantisation method \"" + k +
            "\" is not priced by kvplan (known: fp8, fbgemm_fp8, mxfp4, awq, gptq, bitsandbytes, compressed-tensors, "
            "modelopt, mlx, hqq); pass --weight-dtype or --weights to size the weights");
  }
  not_converted(q, {"modules_to_not_convert", "ignored_layers", "ignore"}, wq);
  m.quantization = std::move(wq);
}

u64 quantised_matrix_bytes(const WeightQuantization& q, u64 rows, u64 cols) {
  const u64 n = checked_mul(rows, cols, "weight bytes");
  if (q.bits == 0) {
    // An element dtype, with fp8's block (or per-tensor) fp32 scales.
    const u64 values = checked_mul(rows, row_bytes(*q.dtype, cols), "weight bytes");
    if (q.method != "fp8") return values;
    if (q.block_rows == 0 || q.block_cols == 0) return checked_add(values, 4, "weight bytes");
    const u64 scales = checked_mul(ceil_div(rows, q.block_rows), ceil_div(cols, q.block_cols), "weight bytes");
    return checked_add(values, checked_mul(scales, 4, "weight bytes"), "weight bytes");
  }
  u64 bits = checked_mul(n, q.bits, "weight bytes");
  const u64 groups = q.block_rows ? checked_mul(ceil_div(rows, q.block_rows), ceil_div(cols, q.block_cols), "weight bytes")
                     : q.group_size ? checked_mul(rows, ceil_div(cols, q.group_size), "weight bytes")
                                    : rows;
  bits = checked_add(bits, checked_mul(groups, q.scale_bits + q.zero_bits, "weight bytes"), "weight bytes");
  bits = checked_add(bits, checked_mul(cols, q.col_bits, "weight bytes"), "weight bytes");
  u64 bytes = checked_add(ceil_div(bits, 8), q.tensor_bytes, "weight bytes");
  if (q.double_quant) bytes = checked_add(bytes, checked_mul(ceil_div(groups, 256), 4, "weight bytes"), "weight bytes");
  return bytes;
}

}  // namespace kvplan::detail
