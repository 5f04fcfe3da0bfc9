// config.json -> ModelSpec. The family registered for the config's model_type
// (model/families/*.cpp) maps its fields onto the layer kinds in layer.h; transformers' class
// defaults are applied for omitted fields, and anything that cannot be mapped with certainty is an
// error naming model_type and the field.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "util/config_view.h"
#include "kvplan/checked.h"
#include "kvplan/files.h"
#include "kvplan/model.h"
#include "kvplan/registry.h"
#include "kvplan/units.h"
#include "model/family.h"
#include "model/mapping.h"
#include "model/checkpoint_internal.h"
#include "model/parameters_internal.h"

namespace kvplan {

using detail::ConfigView;

namespace {

using Ctx = detail::LoadCtx;

// Gemma 3n-style sharing: the last num_kv_shared_layers layers reuse the cache of the last
// earlier layer of the same kind.
void apply_kv_sharing(const Ctx& x) {
  auto shared = x.cfg.uint("num_kv_shared_layers", true);
  if (!shared || *shared == 0) return;
  auto& layers = x.m.layers;
  if (*shared >= layers.size())
    x.cfg.fail_at(x.cfg.pointer("num_kv_shared_layers"), "fewer than the layer count (" + std::to_string(layers.size()) + ")",
                  std::to_string(*shared));
  const std::size_t first = layers.size() - *shared;
  for (std::size_t i = first; i < layers.size(); ++i) {
    auto kind = kind_name(layers[i].cache());
    std::optional<std::size_t> src;
    for (std::size_t j = first; j-- > 0;)
      if (kind_name(layers[j].cache()) == kind) {
        src = j;
        break;
      }
    if (!src)
      x.cfg.fail_at(x.cfg.pointer("num_kv_shared_layers"), "an earlier layer of kind " + std::string(kind) + " to share",
                    std::to_string(*shared));
    x.replace(i, detail::build::shared_kv(*src));
  }
}

void read_dims(const Ctx& x) {
  const auto& c = x.cfg;
  auto& d = x.m.dims;
  d.hidden_size = c.uint_any({"hidden_size", "n_embd", "d_model"}).value_or(0);
  d.num_attention_heads = c.uint_any({"num_attention_heads", "n_head", "num_heads", "n_heads"}).value_or(0);
  d.vocab_size = c.uint_any({"vocab_size", "padded_vocab_size"}).value_or(0);
  d.intermediate_size = c.uint_any({"intermediate_size", "n_inner", "ffn_hidden_size"}).value_or(0);
  d.max_position_embeddings =
      c.uint_any({"max_position_embeddings", "n_positions", "max_sequence_length", "seq_length", "n_ctx"}).value_or(0);
  if (auto th = c.number("rope_theta")) d.rope_theta = *th;
  d.num_experts = c.uint_any({"num_local_experts", "num_experts", "n_routed_experts"}, true).value_or(0);
  d.experts_per_token = c.uint_any({"num_experts_per_tok", "experts_per_token", "top_k_experts"}, true).value_or(0);
  d.moe_intermediate_size = c.uint_any({"moe_intermediate_size"}, true).value_or(0);
  // PretrainedConfig defaults tie_word_embeddings to true; most decoder classes override it.
  const bool tie_default = x.family.tie_word_embeddings;
  auto tie = c.boolean("tie_word_embeddings");
  if (!tie && c.has_root("tie_word_embeddings") && c.root()["tie_word_embeddings"].is_boolean())
    tie = c.root()["tie_word_embeddings"].get<bool>();
  d.tie_word_embeddings = tie.value_or(tie_default);
}

void read_dtypes(const Ctx& x) {
  const auto& c = x.cfg;
  auto name = c.dtype_name();
  std::string assumed_dtype;
  for (const auto& a : x.opts.assume)
    if (a.starts_with("dtype=")) assumed_dtype = a.substr(6);
  if (name) {
    try {
      x.m.dtype = parse_dtype(*name, "dtype");
    } catch (const InputError&) {
      c.fail_at(c.pointer("torch_dtype"), "a dtype name such as bfloat16, float16 or float32", "\"" + *name + "\"");
    }
  } else {
    x.m.dtype = Dtype::fp32;  // transformers' default
  }
  if (!assumed_dtype.empty()) {
    // The user names the dtype it is served in (and the model dtype when the config names none).
    x.m.dtype = parse_dtype(assumed_dtype, "--assume dtype");
    x.note(std::string(name ? "config names " + *name : "config names no torch_dtype/dtype") + "; --assume dtype=" +
           assumed_dtype + " used for the KV cache, recurrent state and weights");
  } else if (x.m.dtype == Dtype::fp32) {
    // Serving default, in this one place for every verb (size, plan, sweep, compare, engine,
    // check, Python, the page): a float32 (or dtype-less) config is served in bf16, as vLLM,
    // SGLang and TensorRT-LLM do with --dtype auto; the KV cache, recurrent state and
    // unquantised weights all follow the model dtype.
    x.m.dtype = Dtype::bf16;
    x.note(std::string(name ? "config names float32" : "config names no torch_dtype/dtype (float32)") +
           "; served in bf16 (KV cache, recurrent state and weights), as vLLM, SGLang and TensorRT-LLM do with "
           "--dtype auto (pass --assume dtype=fp32, --kv-dtype or --weight-dtype to change it)");
  }
  for (const char* key : {"mamba_ssm_cache_dtype", "mamba_ssm_dtype"}) {
    if (auto s = c.string(key)) {
      if (*s == "auto") continue;
      try {
        x.m.ssm_state_dtype = parse_dtype(*s, key);
      } catch (const InputError&) {
        c.fail(key, "a dtype name", &c.text()[key]);
      }
    }
  }
}

}  // namespace

std::size_t ModelSpec::count_kind(std::string_view kind) const {
  // Mixers of that kind (a layer with attention and Mamba counts once for each).
  std::size_t n = 0;
  for (const auto& l : layers)
    n += static_cast<std::size_t>(
        std::count_if(l.mixers.begin(), l.mixers.end(), [&](const LayerCache& c) { return kind_name(c) == kind; }));
  return n;
}

// The loader has already applied the serving rule (read_dtypes): a ModelSpec's dtype is the dtype
// it is served in, fp32 only when the user asked for it (--assume dtype=fp32, an engine's --dtype).
Dtype serving_dtype(const ModelSpec& m) { return m.dtype; }

namespace {
// The assumptions kvplan knows (docs/cli.md --assume); any other is an error listing them, never
// silently ignored.
void check_assumptions(const LoadOptions& opts) {
  for (const auto& a : opts.assume) {
    if (a == "dense") continue;
    if (a.starts_with("dtype=")) {
      (void)parse_dtype(a.substr(6), "--assume dtype");
      continue;
    }
    throw InputError::unknown("assumption (--assume)", a, "dense or dtype=NAME (the only assumptions kvplan accepts)");
  }
}
}  // namespace

ModelSpec load_model_from_json(std::string_view json_text, std::string_view source, const LoadOptions& opts) {
  check_assumptions(opts);
  ConfigView cfg(detail::parse_config_text(json_text, source), std::string(source));
  ModelSpec m;
  m.name = std::string(source);
  m.source = std::string(source);
  m.model_type = cfg.model_type();
  if (m.model_type.empty()) cfg.fail("model_type", "a model_type string naming the architecture", nullptr);
  if (cfg.has_root("architectures") && cfg.root()["architectures"].is_array() && !cfg.root()["architectures"].empty() &&
      cfg.root()["architectures"][0].is_string())
    m.architecture = cfg.root()["architectures"][0].get<std::string>();
  // A config without a family of its own is read by the general layer_types rule, or as plain
  // attention under --assume dense; this record stands for "no family".
  static const detail::Family kNoFamily = [] {
    detail::Family f;
    f.name = "(none)";
    return f;
  }();
  const detail::Family* family = detail::find_family(m.model_type);
  Ctx x{cfg, m, opts, family ? *family : kNoFamily};
  read_dtypes(x);
  read_dims(x);
  if (family) {
    family->map_layers(x);
    m.vllm_ssm_state_dtype = family->vllm_ssm_state_dtype;
  } else if (detail::map_from_layer_types(x)) {
  } else if (x.assumed("dense")) {
    x.note("model_type " + m.model_type + " is unknown; --assume dense: every layer read as plain attention");
    detail::map_plain_attention(x);
  } else {
    throw UnsupportedArchitecture::model_type(
        cfg.source(), m.model_type,
        "kvplan cannot map its layers with certainty (pass --assume dense if every layer is plain full attention)");
  }
  apply_kv_sharing(x);
  if (m.layers.empty()) cfg.fail("num_hidden_layers", "at least one layer", nullptr);
  detail::fill_parameters(cfg, m, family);
  return m;
}

ModelSpec load_model(std::string_view name_or_path, const LoadOptions& opts) {
  check_assumptions(opts);
  return detail::load_resolved(resolve_model(name_or_path), opts);
}

}  // namespace kvplan
