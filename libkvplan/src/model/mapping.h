#pragma once
// Internal: what a family's map_layers gets (LoadCtx) and the config readers families share
// (layer counts, attention shape, layer_types lists, windows). Layer specs are made only through
// model/layer_build.h.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/model.h"
#include "model/family.h"
#include "model/layer_build.h"
#include "util/config_view.h"

namespace kvplan::detail {

struct LoadCtx {
  const ConfigView& cfg;
  ModelSpec& m;
  const LoadOptions& opts;
  const Family& family;
  bool assumed(std::string_view what) const {
    return std::find(opts.assume.begin(), opts.assume.end(), what) != opts.assume.end();
  }
  void note(std::string s) const { m.assumptions.push_back(std::move(s)); }
  void add(std::uint64_t index, LayerCache cache) const { m.layers.push_back({index, {std::move(cache)}}); }
  // A layer whose block runs several mixers (attention + Mamba-2 in Falcon-H1 and Zamba2).
  void add_mixers(std::uint64_t index, std::vector<LayerCache> mixers) const {
    m.layers.push_back({index, std::move(mixers)});
  }
  // Replaces layer i (a one-mixer layer) with `cache`.
  void replace(std::size_t i, LayerCache cache) const { m.layers.at(i).mixers = {std::move(cache)}; }
};

std::uint64_t num_layers(const ConfigView& c);
std::uint64_t hidden_size(const ConfigView& c);
std::uint64_t attention_heads(const ConfigView& c);

// The KV head count: the family's rule, else num_key_value_heads (default: the head count);
// checked to divide the head count.
std::uint64_t kv_heads(const LoadCtx& x, std::uint64_t heads);
// A family rule: every query head has its own K/V (GPT-2, GPT-NeoX: their configs name no KV heads).
std::uint64_t kv_heads_all(const LoadCtx& x, std::uint64_t heads);
// head_dim (attention_head_dim, kv_channels), else hidden / heads (which must divide).
std::uint64_t head_dim(const ConfigView& c, std::uint64_t hidden, std::uint64_t heads);
// Attention shape shared by every attention layer (also sets dims.q_head_dim).
build::AttnDims attention_shape(const LoadCtx& x);

// One entry of a per-layer type list.
enum class Slot { full, sliding, chunked, linear, mamba, conv, none };
// The `layer_types` list, or empty when the config has none.
std::vector<Slot> layer_types_field(const LoadCtx& x, std::uint64_t n);
// Layer i slides unless (i+1) % pattern == 0 (Gemma 2/3, Cohere 2, gpt-oss).
std::vector<Slot> pattern_slots(std::uint64_t n, std::uint64_t pattern);
// sliding_window (or sliding_window_size); the family's default, noted, when absent.
std::uint64_t require_window(const LoadCtx& x);
// Fails when a field that changes the cache layout is present but the family has no rule for it.
void reject_unmapped(const LoadCtx& x, std::initializer_list<std::string_view> keys);
// Where layer_types entry i of `key` is.
std::string slot_pointer(const LoadCtx& x, std::string_view key, std::size_t i);

// Attention-only decoders: full / sliding / chunked per slot, one shape; the window (and the
// chunk, attention_chunk_size) read when a slot needs them.
void add_attention_layers(const LoadCtx& x, const std::vector<Slot>& slots, const build::AttnDims& a);
// Families without windowed layers: layer_types when given, else full attention everywhere;
// window, MLA and recurrent fields are rejected.
void map_plain_attention(const LoadCtx& x);
// Full attention on all n layers, after rejecting window, MLA and recurrent fields.
std::vector<Slot> plain_attention_slots(const LoadCtx& x, std::uint64_t n);
// The general rule: a config whose layer_types names only full and sliding attention, with the
// heads and dims the config gives per type. True when it applied.
bool map_from_layer_types(const LoadCtx& x);

}  // namespace kvplan::detail

namespace kvplan::detail {
// Mistral-style: layer_types when given, else every layer slides when sliding_window is set.
void map_uniform_window(const LoadCtx& x);
// A Mamba-2 layer from the config keys a family names (n_groups defaults to 1 and must divide
// the head count).
LayerCache mamba2_from(const LoadCtx& x, std::string_view heads_key, std::string_view head_dim_key,
                       std::string_view groups_key, std::string_view state_key, std::string_view conv_key);
}  // namespace kvplan::detail
