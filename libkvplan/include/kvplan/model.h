#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/checkpoint.h"
#include "kvplan/dtype.h"
#include "kvplan/layer.h"
#include "kvplan/parameters.h"

namespace kvplan {

// The checkpoint's weight quantisation (quantization_config), when it has one.
struct WeightQuantization {
  std::string method;                       // quant_method: "fp8", "mxfp4", "awq", "gptq", "mlx", ...
  std::optional<Dtype> dtype;               // element format of the quantised matrices
  std::uint64_t block_rows = 0, block_cols = 0;  // scale block (fp8 128x128); 0 = per tensor
  std::vector<std::string> modules_not_converted;
  // Format of the tensors left unquantised when the config names no torch_dtype (gpt-oss
  // checkpoints keep them in bf16); nullopt: the model dtype.
  std::optional<Dtype> unquantised_dtype;
  // Grouped formats (AWQ, GPTQ, bitsandbytes, compressed-tensors, modelopt NVFP4, MLX, HQQ; priced
  // by quantised_matrix_bytes in quantization.cpp): `bits` per stored value, one scale of
  // `scale_bits` and a zero point of `zero_bits` per `group_size` values along a row (0 = one per
  // output row), `col_bits` per input column (GPTQ's g_idx), `tensor_bytes` per matrix (global
  // scales, stored shapes). 0 bits: an element dtype (`dtype`) prices the matrix.
  std::uint64_t bits = 0;
  std::uint64_t group_size = 0;
  std::uint64_t scale_bits = 0, zero_bits = 0, col_bits = 0, tensor_bytes = 0;
  // Values packed whole into words of this many bits (word_bits / bits per word, the row padded to
  // whole words; zero points packed the same way down the output rows): compressed-tensors'
  // pack-quantized int32, where 3 bits take 10 values a word, not 32/3. 0: packed bit by bit.
  std::uint64_t word_bits = 0;
  bool double_quant = false;          // bitsandbytes: absmax quantised again (8 bits + fp32 per 256 blocks)
  // HQQ's `axis`: 1 = groups run along a row (the input dimension, as every grouped format), 0 =
  // down a column (W reshaped to [group_size, -1]); decides the packed dimension and, with
  // group_size null, the group (a whole row or a whole column).
  std::uint64_t group_axis = 1;
  bool quantises_embeddings = false;  // MLX: the embedding table and the output head are quantised too
  std::string describe;               // "awq int4 g128", "gptq int4 g128 (desc_act)", ...
};

// Dimensions of the model that are not per-layer cache facts but that the planner, the
// weight count and the reference runtime need.
struct ModelDims {
  std::uint64_t hidden_size = 0;
  std::uint64_t num_attention_heads = 0;
  std::uint64_t vocab_size = 0;
  std::uint64_t intermediate_size = 0;     // dense MLP width (0 if none)
  std::uint64_t max_position_embeddings = 0;
  std::uint64_t q_head_dim = 0;            // per query head (MLA: nope + rope)
  std::uint64_t mla_q_lora_rank = 0;       // 0: no query compression
  std::uint64_t mla_qk_nope_head_dim = 0;
  std::uint64_t mla_v_head_dim = 0;
  double rope_theta = 10000.0;
  bool tie_word_embeddings = false;
  // MoE (0 when dense)
  std::uint64_t num_experts = 0;
  std::uint64_t experts_per_token = 0;
  std::uint64_t moe_intermediate_size = 0;
};

// What kvplan knows about a model: where it came from, its dtype and one cache spec per
// layer. Built once from a config.json; nothing after this step reads the config again.
struct ModelSpec {
  std::string name;            // bundled id or the path it was read from
  std::string source;          // file name used in messages
  std::string model_type;      // the (text) model_type that decided the mapping
  std::string architecture;    // architectures[0] when present
  Dtype dtype = Dtype::bf16;   // the serving dtype: torch_dtype / dtype, fp32 or none read as bf16 (the "auto" cache dtype)
  std::optional<Dtype> conv_state_dtype;  // config-named recurrent dtypes, if any
  std::optional<Dtype> ssm_state_dtype;
  // The SSM state dtype vLLM's implementation of this family uses when the user leaves it
  // "auto" (Nemotron-H: float32); a family fact, set by the loader.
  std::optional<Dtype> vllm_ssm_state_dtype;
  ModelDims dims;
  std::vector<LayerSpec> layers;
  ParameterCounts params;
  std::optional<WeightQuantization> quantization;
  // The KV cache format a ModelOpt checkpoint was calibrated for (its kv_cache_quant_algo,
  // upper-cased: "FP8", "NVFP4"; "" when it names none). Engines whose "auto" cache dtype follows
  // it read it through checkpoint_kv_cache_dtype() (engines.h).
  std::string kv_cache_quant_algo;
  // Exact weight bytes from the checkpoint's own headers (safetensors, GGUF), when present:
  // weight_bytes() prefers them to the config rule.
  std::optional<CheckpointWeights> checkpoint_weights;
  std::vector<std::string> assumptions;   // every default kvplan applied that is worth reporting

  std::size_t num_layers() const { return layers.size(); }
  std::size_t count_kind(std::string_view kind) const;
  bool has_kind(std::string_view kind) const { return count_kind(kind) > 0; }
};

// The deepest config kvplan accepts. Published models stop near 130 layers and research runs
// near 1,000; anything deeper is a typo or a hostile file, and every layer costs work in every
// report.
inline constexpr std::uint64_t kMaxLayers = 1u << 14;

struct LoadOptions {
  // Explicit assumptions the user accepts (CLI --assume). Known: "dense" (an unknown
  // model_type with plain attention fields is read as full attention on every layer),
  // "dtype=<name>" (model dtype when the config names none).
  std::vector<std::string> assume;
};

// The dtype GPU engines run the model in with `--dtype auto`: ModelSpec::dtype itself. The loader
// has already applied the serving rule (a float32 or dtype-less config is served in bf16, as vLLM,
// SGLang and TensorRT-LLM do, reported as an assumption; fp32 only with --assume dtype=fp32 or an
// engine's --dtype), so an "auto" KV cache is 2 bytes per number, not 4.
Dtype serving_dtype(const ModelSpec& m);

// Reads a config from text. `source` names it in messages (e.g. the file path).
ModelSpec load_model_from_json(std::string_view json_text, std::string_view source,
                               const LoadOptions& opts = {});
// A MODEL argument resolved by resolve_model() (checkpoint.h: a path, a GGUF file, the Hugging
// Face cache, the Ollama store, a bundled id); safetensors headers beside a config fill
// checkpoint_weights.
ModelSpec load_model(std::string_view name_or_path, const LoadOptions& opts = {});


}  // namespace kvplan
