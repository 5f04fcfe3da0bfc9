#pragma once
// Internal: parameter counting from the parsed config. parameters.cpp holds the tensor inventory
// and the building blocks (attention, MLPs, MoE blocks, Mamba mixers, the Llama-style decoder);
// each family's rule (model/families/*.cpp) lists its tensors with them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "kvplan/model.h"
#include "model/family.h"
#include "model/layer_build.h"
#include "util/config_view.h"

namespace kvplan::detail {

// Fills m.params (and m.quantization) from the config; m.layers and m.dims are already set.
// `family` is nullptr for a model_type without one (the generic-decoder estimate applies).
void fill_parameters(const ConfigView& cfg, ModelSpec& m, const Family* family);

// A family whose tensors kvplan has no proven rule for: its weights are unknown (plan, sweep and
// check ask for --weights; a checkpoint's own headers still count them). `why` names what sets the
// family apart from the generic Llama-shaped estimate, which would be wrong for it.
void no_weight_rule(const ParamCtx& x, const std::string& why);

// The generic Llama-shaped estimate (q/k/v/o, gated MLP of intermediate_size, two RMSNorms a
// layer, embedding and head), said in a note; for a family with no rule whose tensors are
// Llama's, and a model_type with no family. Leaves the count empty when the fields do not give it.
void generic_decoder(const ParamCtx& x);

inline constexpr std::uint64_t kAllActive = ~std::uint64_t{0};  // "active_count = count"

class Inventory {
 public:
  // While `mtp` is set every tensor is marked as part of the MTP module (not in the total).
  bool mtp = false;
  void add(WeightComponent comp, WeightKind kind, const std::string& name, std::uint64_t rows, std::uint64_t cols,
           std::uint64_t count = 1, std::uint64_t active = kAllActive);
  // A linear layer: weight (out x in) plus an optional bias of `out`.
  void linear(WeightComponent comp, const std::string& name, std::uint64_t out, std::uint64_t in, bool bias = false,
              std::uint64_t count = 1, std::uint64_t active = kAllActive);
  void vec(WeightComponent comp, const std::string& name, std::uint64_t size, std::uint64_t count = 1,
           std::uint64_t active = kAllActive);
  // A norm with a weight (and, for LayerNorm, a bias).
  void norm(WeightComponent comp, const std::string& name, std::uint64_t size, bool bias = false);
  void embedding(const std::string& name, std::uint64_t rows, std::uint64_t cols, bool tied_head);
  std::vector<WeightTensor> take() { return std::move(tensors_); }

 private:
  std::vector<WeightTensor> tensors_;
  std::map<std::tuple<std::string, std::uint64_t, std::uint64_t, int, int, bool>, std::size_t> index_;
};

struct ParamCtx {
  const ConfigView& c;
  ModelSpec& m;
  Inventory& inv;
  std::uint64_t h() const { return m.dims.hidden_size; }
  std::uint64_t heads() const { return m.dims.num_attention_heads; }
  std::uint64_t n() const { return m.layers.size(); }
  const LayerCache& cache(std::size_t i) const { return m.layers[i].cache(); }  // a one-mixer layer
  void note(std::string s) const { m.params.notes.push_back(std::move(s)); }
  // The attention shape of layer i (a shared-KV layer: its source's); an error for other kinds.
  build::AttnDims attn(std::size_t i) const;
  bool is_attention(std::size_t i) const;
};

struct AttnStyle {
  bool qkv_bias = false;
  bool o_bias = false;
  bool qk_norm = false;     // per-head RMSNorm weights (head_dim each) on q and k
  bool gated_q = false;     // q_proj also emits an output gate (Qwen3-Next / Qwen3.5)
  bool fused_qkv = false;   // one qkv_proj (Phi-3)
  bool no_v_proj = false;   // V taken from K (Gemma 4 global layers, attention_k_eq_v)
  bool sinks = false;       // one learned sink logit per head (gpt-oss)
};
void attention(Inventory& inv, const std::string& p, std::uint64_t h, std::uint64_t heads, const build::AttnDims& a,
               const AttnStyle& s);

// SwiGLU/GeGLU MLP: gate, up (i x h) and down (h x i).
void gated_mlp(Inventory& inv, WeightComponent comp, const std::string& p, std::uint64_t h, std::uint64_t i,
               bool bias = false, std::uint64_t count = 1, std::uint64_t active = kAllActive,
               const char* gate = "gate_proj", const char* up = "up_proj", const char* down = "down_proj");
// Two-matrix MLP (GELU / ReLU^2): up (i x h) and down (h x i).
void plain_mlp(Inventory& inv, WeightComponent comp, const std::string& p, std::uint64_t h, std::uint64_t i, bool bias,
               const char* up, const char* down);
// Embedding and output head. The head is booked only when untied.
void embeddings(Inventory& inv, const ModelSpec& m, const std::string& embed_name = "model.embed_tokens.weight",
                const std::string& head_name = "lm_head", bool head_bias = false);
bool in_list(const std::optional<std::vector<std::uint64_t>>& list, std::uint64_t i);

// The routed-expert block shared by the Mixtral/Qwen/DeepSeek/Jamba/MiniMax families.
struct MoeStyle {
  std::string prefix;          // "model.layers.*.mlp."
  const char* gate = "gate";   // router module name
  bool router_bias = false;
  bool router_correction_bias = false;  // DeepSeek-V3 e_score_correction_bias
  const char* experts = "experts.*.";
  const char* w_gate = "gate_proj";
  const char* w_up = "up_proj";
  const char* w_down = "down_proj";
  std::uint64_t shared_i = 0;  // shared expert(s) width (0: none)
  const char* shared = "shared_expert.";
  bool shared_gate = false;    // Qwen2-MoE / Qwen3-Next: a sigmoid gate (1 x h) on the shared expert
};
void moe_block(const ParamCtx& x, const MoeStyle& s, std::uint64_t experts, std::uint64_t top_k,
               std::uint64_t expert_i);
std::uint64_t top_k(const ParamCtx& x);

// Llama-style decoders: attention + (dense or MoE) MLP + RMSNorms; the options below are what
// the families built on it differ in.
struct LlamaStyle {
  bool qkv_bias_only = false;        // Qwen2: q/k/v biases, none on o_proj
  bool qk_norm = false;              // Qwen3, Gemma 3
  bool fused_projections = false;    // Phi-3: qkv_proj and gate_up_proj
  std::uint64_t norms_per_layer = 2; // Gemma 2/3: 4; Cohere 2 (parallel block): 1
  bool starcoder = false;            // use_bias on every linear, LayerNorms with bias, c_fc/c_proj MLP
  bool mixtral_experts = false;      // block_sparse_moe.experts.*.w1/w2/w3
  bool qwen2_shared_expert = false;  // shared_expert_intermediate_size with a sigmoid gate
};
void llama_like(const ParamCtx& x, const LlamaStyle& style);

// Mamba mixers (transformers MambaMixer / JambaMambaMixer; Mamba2Mixer / NemotronHMamba2Mixer).
void mamba1_mixer(const ParamCtx& x, const std::string& p, const build::Mamba1Dims& mb, std::uint64_t dt_rank,
                  bool proj_bias, bool conv_bias, bool jamba_norms);
void mamba2_mixer(const ParamCtx& x, const std::string& p, const build::Mamba2Dims& mb, bool proj_bias, bool conv_bias);
// time_step_rank / mamba_dt_rank: "auto" or absent means ceil(hidden / 16).
std::uint64_t dt_rank(const ParamCtx& x, const char* key);

// An encoder's sub-config (vision_config, audio_config) read field by field: a field it leaves out
// takes transformers' config-class default, said in a note ("gemma4: vision_config.head_dim not
// set; transformers' Gemma4VisionConfig default 64 used").
struct EncoderConfig {
  const ParamCtx& x;
  const ConfigView& v;
  std::string where;         // "gemma4: vision_config"
  std::string config_class;  // "Gemma4VisionConfig"
  std::uint64_t uint(const char* key, std::uint64_t def) const;
  bool boolean(const char* key, bool def) const;
};

// The Qwen3-VL vision tower (model.visual.*) from the config's vision_config, if it has one; Qwen3.5
// runs the same tower without DeepStack mergers (families/qwen3_vl.cpp).
void qwen_vl_vision(const ParamCtx& x);

}  // namespace kvplan::detail
