// quantization_config -> WeightQuantization, and the bytes one quantised matrix takes as the
// checkpoint stores it. Storage layouts (per rows x cols matrix, rows = output features):
// - awq (AutoAWQ GEMM): qweight int32 [cols, rows*bits/32], qzeros int32 [cols/g, rows*bits/32],
//   scales fp16 [cols/g, rows]: `bits` per value, per group 16 + bits (zero_point=false: 16).
// - gptq (AutoGPTQ / GPTQModel / transformers): qweight int32 [cols*bits/32, rows], qzeros
//   [cols/g, rows*bits/32], scales fp16 [cols/g, rows], g_idx int32 [cols] (saved whatever
//   desc_act is); group_size -1 = one group per row. AutoGPTQ up to v0.7.1 also saved a zero
//   16-bit bias per quantised linear (bias=True in make_quant); a config cannot tell, so it is not
//   priced (TheBloke/Genz-70b-GPTQ: 13.4 MB, 0.037 %, tests/test_checkpoints.cpp).
// - bitsandbytes 4-bit (nf4/fp4): packed uint8 (4 bits/value), absmax per 64 values: fp32, or with
//   double quant uint8 + one fp32 per 256 blocks + a 256-entry fp32 code; a 16-entry fp32 quant_map
//   and a small quant_state per matrix. 8-bit (LLM.int8): int8 + fp32 SCB per output row + a
//   uint8 `weight_format` scalar per matrix (bitsandbytes nn/modules.py Linear8bitLt
//   `_save_to_state_dict`, kept "for backwards compatibility").
// - compressed-tensors: config_groups[*].weights {num_bits, type, strategy, group_size,
//   symmetric, scale_dtype} with format pack-quantized (int packed in int32 + weight_shape
//   int64[2]), int-/naive-quantized (int8), float-quantized (fp8), nvfp4-pack-quantized (4 bits +
//   fp8 scale per 16 + fp32 global scale), + an int32 g_idx per input column with actorder
//   "group". Every scale (per tensor, channel, group or block, and a
//   static input scale) is created in the weight's dtype unless the args name a scale_dtype; fp4
//   scales are fp8 and TENSOR_GROUP's global scale fp32 (compressed-tensors
//   quantization/lifecycle/initialize.py `_initialize_scale_zero_point`: scale_dtype =
//   observed_dtype). A zero point per group when asymmetric.
// - fp8 (DeepSeek / Qwen FP8): 1 byte/value + fp32 scale per weight_block_size block (or per tensor),
//   + an fp32 input_scale per matrix with activation_scheme "static".
// - fbgemm_fp8: 1 byte/value + fp32 scale per output row.
// - modelopt: FP8 = 1 byte/value + fp32 weight_scale + fp32 input_scale; NVFP4 = 4 bits/value +
//   fp8 scale per 16 + fp32 weight_scale_2 + fp32 input_scale.
// - mxfp4 (gpt-oss): ggml-style 17 bytes per 32 values, routed experts only.
// - MLX (mlx-lm / mlx-vlm, "quantization": {bits, group_size}): packed uint32 + scales and biases in the
//   model dtype per group; the embedding table and head are quantised too, vision and audio towers
//   not (weights.cpp mlx_multimodal).
// - hqq (transformers HqqConfig, saved by hqq's HQQLinear.state_dict with encoded_state_dict;
//   hqq/core/quantize.py, bitpack.py, utils.py encode_safetensor_type): W reshaped to
//   [n/g, g] (axis 1) or [g, n/g] (axis 0) and packed along its first dimension: 8, 6 and 5 bits
//   one uint8 each ("8bit_u8"), 4 bits two a byte, 2 bits four, 1 bit eight, 3 bits ten to an
//   int32 with the first dimension padded to a multiple of 10 ("3bit_32"); a scale and a zero per
//   group in the compute dtype (the torch_dtype transformers writes back); group_size null = one
//   group per row (axis 1) or per column (axis 0); per matrix the meta as tensors: shape int64[2],
//   nbits/group_size/axis int32, packing and unpack_view_dtype and compute_dtype as uint8 strings,
//   eight uint8 flags (hqq_matrix_bytes).
#include <algorithm>
#include <array>
#include <cctype>

#include <nlohmann/json.hpp>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/gguf.h"
#include "kvplan/text.h"
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

// Module lists (`ignore`, `modules_to_not_convert`, ...). A "re:" entry must compile: a pattern
// kvplan cannot read (Python-only syntax such as "(?i)" or "(?P<name>...)") is an error naming it,
// never an entry that silently matches nothing.
void not_converted(const ConfigView& c, const json& q, const std::string& ptr, std::initializer_list<const char*> keys,
                   WeightQuantization& wq) {
  for (const char* key : keys) {
    auto it = q.find(key);
    if (it == q.end() || !it->is_array()) continue;
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& s = (*it)[i];
      if (!s.is_string()) continue;
      std::string entry = s.get<std::string>();
      if (is_module_regex(entry)) {
        try {
          (void)module_regex(entry);
        } catch (const std::regex_error& e) {
          c.fail_at(ptr + "/" + key + "/" + std::to_string(i),
                    "a module name or \"re:\" and a regular expression (ECMAScript syntax)",
                    s.dump() + " (" + e.what() + ")");
        }
      }
      wq.modules_not_converted.push_back(std::move(entry));
    }
  }
}

u64 dtype_bits(Dtype d) { return info(d).block_bytes * 8 / info(d).block_values; }

// compressed-tensors QuantizationArgs.scale_dtype: null (the weight's dtype) or a torch dtype
// name ("torch.float32", "bfloat16", ...); bits of one scale.
u64 ct_scale_bits(const ConfigView& c, const json& args, const std::string& ptr, u64 model_bits) {
  auto it = args.find("scale_dtype");
  if (it == args.end() || it->is_null()) return model_bits;
  std::string v = it->is_string() ? it->get<std::string>() : "";
  if (v.rfind("torch.", 0) == 0) v = v.substr(6);
  if (v == "float32" || v == "float") return 32;
  if (v == "bfloat16" || v == "float16" || v == "half") return 16;
  if (v == "float8_e4m3fn" || v == "float8_e5m2") return 8;
  c.fail_at(ptr + "/scale_dtype", "null or a torch float dtype (\"torch.float32\", \"torch.bfloat16\", ...)", it->dump());
  return model_bits;
}

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
  const u64 scale_bits = ct_scale_bits(c, w, wptr, model_bits);
  wq.scale_bits = scale_bits;
  // How each value is stored (the compressors): pack-quantized packs num_bits into int32 words;
  // naive-, int- and float-quantized store QuantizationArgs.pytorch_dtype(), int8 up to 8 bits
  // (int16 up to 16) and fp8 (quant_args.py `pytorch_dtype`, naive_quantized.py). So an int
  // W4A8 checkpoint (int-quantized) holds a byte per value: llm-compressor issue #1215's
  // Llama-3.1-8B W4A8 (tests/test_checkpoints.cpp). Zero points are created in that dtype too
  // (initialize.py `zp_dtype = pytorch_dtype()`), packed with the values in pack-quantized.
  const bool unpacked = format == "naive-quantized" || format == "int-quantized" || format == "float-quantized";
  const u64 num_bits = wq.bits;
  if (unpacked && type == "int") wq.bits = num_bits <= 8 ? 8 : 16;
  wq.zero_bits = symmetric ? 0 : (format == "pack-quantized" || unpacked ? wq.bits : model_bits);
  if (strategy == "group" || strategy == "tensor_group") {
    wq.group_size = positive(c, w, wptr, {"group_size"}, std::nullopt, 1u << 20);
  } else if (strategy == "channel") {
    wq.group_size = 0;
  } else if (strategy == "tensor") {
    wq.group_size = 0;
    wq.scale_bits = wq.zero_bits = 0;
    wq.tensor_bytes = scale_bits / 8;  // one weight_scale
  } else if (strategy == "block") {
    auto b = w.find("block_structure");
    if (b == w.end() || !b->is_array() || b->size() != 2 || !(*b)[0].is_number_unsigned() || !(*b)[1].is_number_unsigned() ||
        (*b)[0].get<u64>() == 0 || (*b)[1].get<u64>() == 0)
      c.fail_at(wptr + "/block_structure", "two positive integers [rows, cols]", b == w.end() ? "nothing" : b->dump());
    wq.block_rows = (*b)[0].get<u64>();
    wq.block_cols = (*b)[1].get<u64>();
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
  } else if (type != "int") {
    c.fail_at(wptr + "/type", "\"int\" or \"float\"", "\"" + type + "\"");
  }
  if (format == "pack-quantized") {
    // pack_to_int32: 32 // num_bits values per int32 word, each row padded to whole words; the
    // compressor refuses more than 8 bits (pack_quantized.py).
    if (num_bits > 8) c.fail_at(wptr + "/num_bits", "at most 8 bits for format pack-quantized", std::to_string(num_bits));
    wq.word_bits = 32;
    if (strategy != "group" && strategy != "channel") wq.zero_bits = 0;  // the only zero points it saves
    wq.tensor_bytes += 16;  // weight_shape int64[2]
  }
  // GPTQ activation ordering "group" keeps weight_g_idx, one int32 per input column
  // (compressed-tensors initialize.py: ActivationOrdering.GROUP); "weight" and null keep none.
  if (str(w, "actorder") == "group") wq.col_bits = 32;
  // Activation scales: static (dynamic false) stores one input_scale per matrix in the weight's
  // dtype (or the args' scale_dtype), and NVFP4's dynamic "local" an fp32 input_global_scale;
  // fully dynamic (true) stores none.
  if (g.contains("input_activations") && g["input_activations"].is_object()) {
    const json& ia = g["input_activations"];
    const bool fully_dynamic = ia.contains("dynamic") && ia["dynamic"].is_boolean() && ia["dynamic"].get<bool>();
    if (!fully_dynamic)
      wq.tensor_bytes += wq.dtype == Dtype::nvfp4 ? 4 : ct_scale_bits(c, ia, gptr + "/input_activations", model_bits) / 8;
  }
  wq.describe = "compressed-tensors " + std::string(type == "float" ? "fp" : "int") + std::to_string(num_bits) + " " +
                strategy + (wq.group_size ? " g" + std::to_string(wq.group_size) : "") +
                (wq.bits != num_bits && wq.dtype != Dtype::nvfp4 ? " (stored as int" + std::to_string(wq.bits) + ")" : "");
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
    // activation_scheme "static" (AutoFP8, neuralmagic *-FP8) stores an fp32 input_scale per
    // matrix beside the weight_scale (vLLM fp8.py Fp8LinearMethod.create_weights); "dynamic" none.
    if (str(q, "activation_scheme") == "static") wq.tensor_bytes = 4;
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
      wq.scale_bits = 32;   // SCB: fp32 per output row
      wq.tensor_bytes = 1;  // weight_format: a uint8 scalar per matrix (Linear8bitLt._save_to_state_dict)
      wq.describe = "bitsandbytes int8";
    } else {
      c.fail_at(ptr + "/load_in_4bit", "load_in_4bit or load_in_8bit true", "neither");
    }
    not_converted(c, q, ptr, {"llm_int8_skip_modules"}, wq);
  } else if (k == "compressed-tensors") {
    compressed_tensors(c, q, ptr, md, wq);
  } else if (k == "modelopt") {
    const json& inner = q.contains("quantization") && q["quantization"].is_object() ? q["quantization"] : q;
    // A cache fact, read before the weight format can fail: vLLM, SGLang and TensorRT-LLM size an
    // "auto" KV cache by it (checkpoint_kv_cache_dtype).
    for (const json* o : {&inner, &q})
      if (auto kv = o->find("kv_cache_quant_algo"); m.kv_cache_quant_algo.empty() && kv != o->end() && kv->is_string()) {
        m.kv_cache_quant_algo = ascii_upper(kv->get<std::string>());
        m.assumptions.push_back("the checkpoint names kv_cache_quant_algo " + m.kv_cache_quant_algo +
                                ": an auto KV cache is the model dtype here (--kv-dtype auto), while vLLM 0.14+, "
                                "SGLang and TensorRT-LLM store theirs in that format (kvplan engine / check follow "
                                "them; --kv-dtype sizes it)");
      }
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
    not_converted(c, inner, &inner != &q ? ptr + "/quantization" : ptr, {"exclude_modules"}, wq);
  } else if (k == "mlx") {
    wq.bits = positive(c, q, ptr, {"bits"}, std::nullopt, 8);
    wq.group_size = positive(c, q, ptr, {"group_size"}, std::nullopt, 1u << 16);
    if (auto mode = str(q, "mode", "affine"); mode != "affine")
      c.fail_at(ptr + "/mode", "\"affine\" (the mode kvplan prices)", "\"" + mode + "\"");
    wq.scale_bits = wq.zero_bits = dtype_bits(md);  // scales and biases in the model dtype
    wq.quantises_embeddings = true;
    wq.describe = "mlx int" + std::to_string(wq.bits) + " g" + std::to_string(wq.group_size);
  } else if (k == "hqq") {
    // transformers HqqConfig.to_dict: {"quant_config": {"weight_quant_params": {nbits, group_size,
    // axis, ...}, ...}, "skip_modules": [...]}; a dynamic_config instead keys one quant_config per
    // linear tag ("self_attn.q_proj": {...}), which kvplan does not price.
    const json* p = &q;
    std::string pptr = ptr;
    if (auto qc = q.find("quant_config"); qc != q.end() && qc->is_object()) {
      if (!qc->contains("weight_quant_params"))
        throw UnsupportedArchitecture::field(
            c.source(), c.model_type(), ptr + "/quant_config",
            "an HQQ quant_config per linear layer (HqqConfig dynamic_config) is not priced");
      p = &(*qc)["weight_quant_params"];
      pptr = ptr + "/quant_config/weight_quant_params";
    }
    wq.bits = positive(c, *p, pptr, {"nbits"}, std::nullopt, 8);
    if (wq.bits == 7) c.fail_at(pptr + "/nbits", "one of hqq's bit widths 8, 6, 5, 4, 3, 2, 1", "7");
    const auto axis = integer(*p, "axis");
    if (p->contains("axis") && !(axis && (*axis == 0 || *axis == 1)))
      c.fail_at(pptr + "/axis", "0 or 1", (*p)["axis"].dump());
    wq.group_axis = axis ? static_cast<u64>(*axis) : 1;  // HqqConfig's default since transformers 4.46
    if (!axis)
      m.params.notes.push_back("hqq quant_config names no axis: taken as 1 (HqqConfig's default); axis 0 packs 3-bit "
                               "values and groups a null group_size differently");
    // null: a whole row (axis 1) or a whole column (axis 0) is one group (HQQLinear.initialize).
    wq.group_size = p->contains("group_size") && (*p)["group_size"].is_null()
                        ? 0
                        : positive(c, *p, pptr, {"group_size"}, std::nullopt, u64{1} << 32);
    wq.scale_bits = wq.zero_bits = dtype_bits(md);  // scale and zero in the compute dtype
    // The meta saved as tensors beside W_q, scale and zero: shape (int64[2]); nbits, group_size,
    // axis (int32); the strings packing ("4bit_u8", ...) and unpack_view_dtype ("torch.uint8" /
    // "torch.int32"), 7 + 11 B; view_as_float, quant_scale, quant_zero, offload_meta,
    // encoded_state_dict, stores_quant_config, channel_wise, optimize, round_zero (uint8); and
    // compute_dtype as a string ("torch.float16", 13 B; "torch.bfloat16", 14 B). The ints are
    // int32 from hqq 0.2.0 on (commit 7cd36a7); transformers saves HQQ models with 0.2.1 or later.
    wq.tensor_bytes = 16 + 3 * 4 + 7 + 11 + 9 + (md == Dtype::bf16 ? 14 : 13);
    not_converted(c, q, ptr, {"skip_modules"}, wq);
    const std::string group = wq.group_size ? " g" + std::to_string(wq.group_size)
                                            : std::string(wq.group_axis ? " per row" : " per column");
    wq.describe = "hqq int" + std::to_string(wq.bits) + group + (wq.group_axis ? "" : " axis 0");
  } else {
    throw UnsupportedArchitecture::field(
        c.source(), c.model_type(), ptr + "/quant_method",
        "quantisation method \"" + k +
            "\" is not priced by kvplan (known: fp8, fbgemm_fp8, mxfp4, awq, gptq, bitsandbytes, compressed-tensors, "
            "modelopt, mlx, hqq); pass --weight-dtype or --weights to size the weights");
  }
  not_converted(c, q, ptr, {"modules_to_not_convert", "ignored_layers", "ignore"}, wq);
  m.quantization = std::move(wq);
}

std::regex module_regex(std::string_view entry) {
  return std::regex(std::string(entry.substr(3)), std::regex::ECMAScript);
}

namespace {
// One HQQLinear as transformers saves it (the hqq layout at the top of this file).
u64 hqq_matrix_bytes(const WeightQuantization& q, u64 rows, u64 cols) {
  const u64 n = checked_mul(rows, cols, "weight bytes");
  const u64 g = q.group_size ? q.group_size : (q.group_axis ? cols : rows);
  const u64 groups = ceil_div(n, g);
  // W_q is [first, second]: the packed dimension first (groups for axis 1, the group for axis 0).
  const u64 first = q.group_axis ? groups : g, second = q.group_axis ? g : groups;
  u64 wq = 0;
  if (q.bits >= 5) wq = n;  // 8bit_u8: one value a byte (6 and 5 bits too)
  else if (q.bits == 3) wq = checked_mul(checked_mul(ceil_div(first, 10), second, "weight bytes"), 4, "weight bytes");
  else wq = checked_mul(ceil_div(first, 8 / q.bits), second, "weight bytes");
  const u64 meta = checked_mul(groups, (q.scale_bits + q.zero_bits) / 8, "weight bytes");
  return checked_add(checked_add(wq, meta, "weight bytes"), q.tensor_bytes, "weight bytes");
}
}  // namespace

u64 quantised_matrix_bytes(const WeightQuantization& q, u64 rows, u64 cols) {
  if (q.method == "hqq") return hqq_matrix_bytes(q, rows, cols);
  const u64 n = checked_mul(rows, cols, "weight bytes");
  if (q.bits == 0) {
    // An element dtype, with fp8's block (or per-tensor) fp32 scales.
    const u64 values = checked_mul(rows, row_bytes(*q.dtype, cols), "weight bytes");
    if (q.method != "fp8") return values;
    const u64 extra = q.tensor_bytes;  // a static input_scale
    if (q.block_rows == 0 || q.block_cols == 0) return checked_add(values, 4 + extra, "weight bytes");
    const u64 scales = checked_mul(ceil_div(rows, q.block_rows), ceil_div(cols, q.block_cols), "weight bytes");
    return checked_add(values, checked_add(checked_mul(scales, 4, "weight bytes"), extra, "weight bytes"), "weight bytes");
  }
  const u64 groups = q.block_rows ? checked_mul(ceil_div(rows, q.block_rows), ceil_div(cols, q.block_cols), "weight bytes")
                     : q.group_size ? checked_mul(rows, ceil_div(cols, q.group_size), "weight bytes")
                                    : rows;
  u64 bits = 0;
  if (q.word_bits) {
    // Whole words: the values along each row, the zero points (one per group) down each column of
    // groups (compressed-tensors packs weight_zero_point with packed_dim 0).
    const u64 per_word = q.word_bits / q.bits;
    bits = checked_mul(checked_mul(rows, ceil_div(cols, per_word), "weight bytes"), q.word_bits, "weight bytes");
    bits = checked_add(bits, checked_mul(groups, q.scale_bits, "weight bytes"), "weight bytes");
    if (q.zero_bits) {
      const u64 per_row = groups / rows;  // group / channel strategies: whole rows of groups
      bits = checked_add(bits, checked_mul(checked_mul(ceil_div(rows, per_word), per_row, "weight bytes"), q.word_bits, "weight bytes"),
                         "weight bytes");
    }
  } else {
    bits = checked_mul(n, q.bits, "weight bytes");
    bits = checked_add(bits, checked_mul(groups, q.scale_bits + q.zero_bits, "weight bytes"), "weight bytes");
  }
  bits = checked_add(bits, checked_mul(cols, q.col_bits, "weight bytes"), "weight bytes");
  u64 bytes = checked_add(ceil_div(bits, 8), q.tensor_bytes, "weight bytes");
  if (q.double_quant) bytes = checked_add(bytes, checked_mul(ceil_div(groups, 256), 4, "weight bytes"), "weight bytes");
  return bytes;
}

// --weight-dtype presets. The quantization_config presets are the configs the common tools write
// by default (each goes through read_weight_quantization like a checkpoint's own config):
// - awq: AutoAWQ's default {"bits": 4, "group_size": 128, "zero_point": true, "version": "gemm"}
//   (e.g. Qwen/Qwen2.5-7B-Instruct-AWQ config.json);
// - gptq: {"bits": 4, "group_size": 128, "desc_act": false, "sym": true} (AutoGPTQ / GPTQModel);
// - nf4: transformers BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4"), no double quant;
// - w8a8: llm-compressor's W8A8 scheme: compressed-tensors int8 per-channel symmetric weights,
//   dynamic per-token int8 activations, format int-quantized (RedHatAI *-quantized.w8a8 configs);
// - fp8: {"quant_method": "fp8"} with no weight_block_size: fp8 e4m3 with one fp32 scale per
//   tensor, what vLLM's --quantization fp8 makes of a 16-bit checkpoint;
// - mxfp4: gpt-oss's layout, routed experts only (a model without routed experts is refused).
// GGUF file types are llama.cpp's llama-quantize types, priced per tensor below.
namespace {

constexpr std::array kPresets = {
    WeightPresetInfo{"awq", "AutoAWQ GEMM int4, group 128, zero points"},
    WeightPresetInfo{"gptq", "GPTQ int4, group 128, zero points, g_idx"},
    WeightPresetInfo{"nf4", "bitsandbytes nf4 (absmax fp32 per 64)"},
    WeightPresetInfo{"w8a8", "compressed-tensors int8 per-channel weights, dynamic int8 activations"},
    WeightPresetInfo{"fp8", "fp8 e4m3, one fp32 scale per tensor (vLLM --quantization fp8)"},
    WeightPresetInfo{"mxfp4", "gpt-oss layout: routed experts in mxfp4"},
    WeightPresetInfo{"Q4_0", "llama-quantize Q4_0"},     WeightPresetInfo{"Q4_1", "llama-quantize Q4_1"},
    WeightPresetInfo{"Q5_0", "llama-quantize Q5_0"},     WeightPresetInfo{"Q5_1", "llama-quantize Q5_1"},
    WeightPresetInfo{"Q8_0", "llama-quantize Q8_0"},     WeightPresetInfo{"Q4_K_S", "llama-quantize Q4_K_S"},
    WeightPresetInfo{"Q4_K_M", "llama-quantize Q4_K_M"}, WeightPresetInfo{"Q5_K_S", "llama-quantize Q5_K_S"},
    WeightPresetInfo{"Q5_K_M", "llama-quantize Q5_K_M"}, WeightPresetInfo{"Q6_K", "llama-quantize Q6_K"},
    WeightPresetInfo{"IQ4_NL", "llama-quantize IQ4_NL"}, WeightPresetInfo{"IQ4_XS", "llama-quantize IQ4_XS"},
};

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool is_gguf_preset(std::string_view n) { return n.size() > 1 && (n[0] == 'Q' || n[0] == 'I'); }

// llama-quantize's default tensor type per file type (llama_ftype_get_default_type).
std::string_view gguf_base_type(std::string_view ftype) {
  if (ftype == "Q4_K_S" || ftype == "Q4_K_M") return "Q4_K";
  if (ftype == "Q5_K_S" || ftype == "Q5_K_M") return "Q5_K";
  return ftype;  // Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q6_K IQ4_NL IQ4_XS name their type
}

}  // namespace

std::span<const WeightPresetInfo> weight_presets() { return kPresets; }

std::string weight_preset_name(std::string_view text) {
  for (const auto& p : kPresets)
    if (same_name(p.name, text)) return std::string(p.name);
  return {};
}

WeightQuantization weight_preset(std::string_view text, const ModelSpec& m) {
  const std::string n = weight_preset_name(text);
  if (is_gguf_preset(n)) {
    WeightQuantization wq;
    wq.method = "gguf";  // a llama.cpp file type: `describe` names it, gguf_preset_tensor_bytes prices it
    wq.describe = n;
    return wq;
  }
  json q;
  if (n == "awq") {
    q = {{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}, {"zero_point", true}, {"version", "gemm"}};
  } else if (n == "gptq") {
    q = {{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128}, {"desc_act", false}, {"sym", true}};
  } else if (n == "nf4") {
    q = {{"quant_method", "bitsandbytes"}, {"load_in_4bit", true}, {"bnb_4bit_quant_type", "nf4"},
         {"bnb_4bit_use_double_quant", false}};
  } else if (n == "w8a8") {
    q = {{"quant_method", "compressed-tensors"}, {"format", "int-quantized"},
         {"config_groups",
          {{"group_0",
            {{"targets", {"Linear"}},
             {"weights", {{"num_bits", 8}, {"type", "int"}, {"strategy", "channel"}, {"symmetric", true}, {"dynamic", false}}},
             {"input_activations",
              {{"num_bits", 8}, {"type", "int"}, {"strategy", "token"}, {"symmetric", true}, {"dynamic", true}}}}}}},
         {"ignore", {"lm_head"}}};
  } else if (n == "fp8") {
    q = {{"quant_method", "fp8"}, {"activation_scheme", "dynamic"}};
  } else if (n == "mxfp4") {
    const bool experts = std::any_of(m.params.tensors.begin(), m.params.tensors.end(),
                                     [](const WeightTensor& t) { return t.component == WeightComponent::moe_routed; });
    if (!experts)
      throw InputError::value("--weight-dtype", text,
                              "a model with routed experts for the mxfp4 preset (gpt-oss's layout quantises routed "
                              "experts only); for every matrix in mxfp4-like 4 bits use Q4_0 or nvfp4");
    q = {{"quant_method", "mxfp4"}};
  } else {
    throw InputError::value("--weight-dtype", text, "a preset name");
  }
  ModelSpec scratch;
  scratch.dtype = serving_dtype(m);  // what the unquantised tensors and model-dtype scales are saved in
  const ConfigView c(json{{"model_type", m.model_type}, {"torch_dtype", std::string(name(scratch.dtype))}},
                     "--weight-dtype " + n);
  read_weight_quantization(c, q, "/quantization_config", false, scratch);
  WeightQuantization wq = std::move(*scratch.quantization);
  if (n == "fp8") wq.describe = "fp8 e4m3 per-tensor";
  if (n == "nf4") wq.describe = "bitsandbytes nf4";
  if (n == "w8a8") wq.describe = "w8a8 int8 per-channel";
  return wq;
}

// GGUF file types: llama-quantize's per-tensor type choice, from llama.cpp src/llama-quant.cpp
// (llama_tensor_get_type_impl, tensor_type_fallback, llama_ftype_get_default_type; read at commit
// 007dbbf3fd17eefe9b47fee45f48f7ba5e62b714), without an importance matrix, --pure or overrides:
// - output.weight (the head, or a tied embedding table): Q6_K, or Q8_0 for Q8_0 files and when the
//   row is not a whole number of the base type's blocks;
// - token_embd.weight (untied): the base type;
// - attn_v / attn_qkv / attn_kv_b, the i-th of n: IQ4_NL/IQ4_XS with n_head/n_head_kv >= 4 -> Q5_K;
//   Q4_K_M/Q5_K_M when use_more_bits(i, n) -> Q6_K; Q4_K_S for i < 4 -> Q5_K; 80-layer models
//   (llama.cpp's LLM_TYPE_70B for llama/qwen2) Q4_K -> Q5_K; 8-expert models -> Q8_0;
// - attn_k: 8-expert models -> Q8_0;
// - ffn_down of layer i of n: Q4_K_M and Q5_K_M when use_more_bits(i, n) -> Q6_K; IQ4_NL/IQ4_XS
//   and Q4_K_S for i < n/8 -> Q5_K;
// - attn_output: 8-expert models with Q4_K_S/Q4_K_M/IQ4_NL/IQ4_XS -> Q5_K;
// - then a row that is not a whole number of blocks falls back (Q4_K -> Q5_0, Q5_K -> Q5_1,
//   Q6_K -> Q8_0, IQ4_XS -> IQ4_NL), and to F16 if still not whole.
// use_more_bits(i, n) = i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2. Not modelled: Falcon's own rule,
// MiniMax/RWKV small tensors llama.cpp leaves unquantised. Norms, biases and routers are F32 in
// GGUF files (convert_hf_to_gguf); weights.cpp prices those.
namespace {

enum class GgufCat { token_embd, output, attn_v, attn_k, attn_q, attn_output, ffn_down, other };

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

GgufCat gguf_category(const WeightTensor& t) {
  if (t.kind == WeightKind::embedding) return t.tied_head ? GgufCat::output : GgufCat::token_embd;
  if (t.component == WeightComponent::lm_head) return GgufCat::output;
  const std::string& n = t.name;
  if (t.component == WeightComponent::attention) {
    if (has(n, "v_proj") || has(n, "qkv_proj") || has(n, "query_key_value") || has(n, "kv_b_proj") || has(n, "Wqkv"))
      return GgufCat::attn_v;
    if (has(n, ".k_proj")) return GgufCat::attn_k;
    if (has(n, ".q_proj")) return GgufCat::attn_q;
    if (has(n, "o_proj") || has(n, "out_proj") || has(n, ".dense.")) return GgufCat::attn_output;
  }
  const bool ffn = t.component == WeightComponent::mlp_dense || t.component == WeightComponent::moe_routed ||
                   t.component == WeightComponent::moe_shared;
  if (ffn && (has(n, "down_proj") || has(n, ".w2.") || has(n, "fc2") || has(n, "dense_4h_to_h") || has(n, "c_proj")))
    return GgufCat::ffn_down;
  return GgufCat::other;
}

bool use_more_bits(u64 i, u64 n) { return i < n / 8 || i >= 7 * n / 8 || (i >= n / 8 && (i - n / 8) % 3 == 2); }

std::string_view gguf_type_for(std::string_view ft, GgufCat cat, u64 i, u64 n, const GgufQuantContext& ctx) {
  const std::string_view base = gguf_base_type(ft);
  const bool km = ft == "Q4_K_M" || ft == "Q5_K_M";
  const bool iq4 = ft == "IQ4_NL" || ft == "IQ4_XS";
  switch (cat) {
    case GgufCat::output: return base == "Q8_0" ? "Q8_0" : "Q6_K";  // the block check is the caller's
    case GgufCat::token_embd: return base;
    case GgufCat::attn_v: {
      std::string_view t = base;
      if (iq4 && ctx.n_gqa >= 4) t = "Q5_K";
      else if (km && use_more_bits(i, n)) t = "Q6_K";
      else if (ft == "Q4_K_S" && i < 4) t = "Q5_K";
      if (ctx.n_layer == 80 && t == "Q4_K") t = "Q5_K";
      if (ctx.n_expert == 8) t = "Q8_0";
      return t;
    }
    case GgufCat::attn_k: return ctx.n_expert == 8 ? "Q8_0" : base;
    case GgufCat::ffn_down:
      if (ft == "Q4_K_M") return use_more_bits(i, n) ? "Q6_K" : base;
      if (i < n / 8 && iq4) return "Q5_K";
      if (ft == "Q5_K_M" && use_more_bits(i, n)) return "Q6_K";
      if (ft == "Q4_K_S" && i < n / 8) return "Q5_K";
      return base;
    case GgufCat::attn_output:
      if (ctx.n_expert == 8 && (ft == "Q4_K_S" || ft == "Q4_K_M" || iq4)) return "Q5_K";
      return base;
    case GgufCat::attn_q:
    case GgufCat::other: return base;
  }
  return base;
}

// tensor_type_fallback: a row of `cols` values must be whole blocks.
const GgmlType& gguf_fit(std::string_view type, u64 cols, bool output) {
  const GgmlType* t = ggml_type(type);
  if (cols % t->block_values == 0) return *t;
  std::string_view f = "F16";
  if (output) f = "Q8_0";
  else if (type == "Q4_K") f = "Q5_0";
  else if (type == "Q5_K") f = "Q5_1";
  else if (type == "Q6_K") f = "Q8_0";
  else if (type == "IQ4_XS") f = "IQ4_NL";
  const GgmlType* ft = ggml_type(f);
  return cols % ft->block_values == 0 ? *ft : *ggml_type("F16");
}

}  // namespace

bool gguf_attn_v_like(const WeightTensor& t) { return gguf_category(t) == GgufCat::attn_v; }

u64 gguf_preset_tensor_bytes(const WeightQuantization& q, const WeightTensor& t, GgufQuantContext& ctx,
                             std::set<std::string>& types) {
  const GgufCat cat = gguf_category(t);
  const std::string_view ft = q.describe;
  auto copies_bytes = [&](std::string_view type, u64 copies) {
    const GgmlType& g = gguf_fit(type, t.cols, cat == GgufCat::output);
    types.insert(std::string(g.name));
    return checked_mul(checked_mul(t.rows, ggml_row_bytes(g, t.cols), "weight bytes"), copies, "weight bytes");
  };
  u64 all = 0;
  if (cat == GgufCat::attn_v) {
    for (u64 k = 0; k < t.count; ++k, ++ctx.i_attention_wv)
      all = checked_add(all, copies_bytes(gguf_type_for(ft, cat, ctx.i_attention_wv, ctx.n_attention_wv, ctx), 1),
                        "weight bytes");
  } else if (cat == GgufCat::ffn_down && ctx.n_layer > 0) {
    // Copies per layer: routed experts n_expert, otherwise one. A group on fewer layers than the
    // model is taken as the first layers when dense (DeepSeek's first_k_dense_replace) and the
    // last when MoE.
    const u64 per_layer = t.component == WeightComponent::moe_routed && ctx.n_expert ? ctx.n_expert : 1;
    const u64 layers = std::max<u64>(1, t.count / per_layer);
    const u64 first = t.component == WeightComponent::mlp_dense || layers >= ctx.n_layer ? 0 : ctx.n_layer - layers;
    for (u64 l = 0; l < layers; ++l)
      all = checked_add(all, copies_bytes(gguf_type_for(ft, cat, (first + l) % ctx.n_layer, ctx.n_layer, ctx), per_layer),
                        "weight bytes");
    if (const u64 rest = t.count - layers * per_layer)
      all = checked_add(all, copies_bytes(gguf_base_type(ft), rest), "weight bytes");
  } else {
    all = copies_bytes(gguf_type_for(ft, cat, 0, 0, ctx), t.count);
  }
  return all;
}

}  // namespace kvplan::detail

