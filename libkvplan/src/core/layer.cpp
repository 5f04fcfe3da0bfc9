#include "kvplan/layer.h"

#include <algorithm>

#include "kvplan/checked.h"
#include "kvplan/error.h"

namespace kvplan {

namespace {
std::uint64_t split(std::uint64_t n, std::uint64_t tp) { return ceil_div(n, tp); }

// Mamba-2 B/C groups are replicated up to the TP degree when they do not divide it.
std::uint64_t mamba_groups_per_rank_total(std::uint64_t groups, std::uint64_t tp) {
  if (groups % tp == 0) return groups;
  if (tp > groups) return tp;
  throw InputError::value("tensor parallel size", std::to_string(tp),
                          "a degree that divides the Mamba-2 group count (" + std::to_string(groups) + ")");
}

}  // namespace

std::uint64_t LayerBytes::kv_bytes() const { return checked_add(k_bytes, v_bytes, "layer KV bytes"); }
std::uint64_t LayerBytes::state_bytes() const { return checked_add(conv_bytes, ssm_bytes, "layer state bytes"); }
std::uint64_t LayerBytes::total_bytes() const { return checked_add(kv_bytes(), state_bytes(), "layer bytes"); }
std::uint64_t AttentionRowBytes::total_bytes() const { return checked_add(k_bytes, v_bytes, "KV bytes per token"); }
std::uint64_t Mamba2::d_inner() const { return checked_mul(n_heads, head_dim, "Mamba-2 d_inner"); }
std::uint64_t StateBytes::total_bytes() const { return checked_add(conv_bytes, ssm_bytes, "state bytes"); }

std::string_view kind_name(const LayerCache& c) {
  return std::visit(overloaded{
                        [](const Attention& a) {
                          return std::visit(overloaded{
                                                [](const Attention::All&) { return std::string_view("full_attention"); },
                                                [](const Attention::Window&) { return std::string_view("sliding_attention"); },
                                                [](const Attention::Chunk&) { return std::string_view("chunked_attention"); },
                                            },
                                            a.span);
                        },
                        [](const Mla&) { return std::string_view("mla"); },
                        [](const Mamba1&) { return std::string_view("mamba"); },
                        [](const Mamba2&) { return std::string_view("mamba"); },
                        [](const LinearAttention&) { return std::string_view("linear_attention"); },
                        [](const ShortConv&) { return std::string_view("short_conv"); },
                        [](const SharedKv&) { return std::string_view("shared_kv"); },
                        [](const NoCache&) { return std::string_view("none"); },
                    },
                    c);
}

const LayerCache& LayerSpec::cache() const {
  if (mixers.size() != 1)
    throw InputError::value("layer " + std::to_string(index), std::to_string(mixers.size()) + " mixers",
                            "a layer with one mixer here (a step that reads several iterates LayerSpec::mixers)");
  return mixers.front();
}

std::string_view kind_name(const LayerSpec& l) {
  if (l.mixers.empty()) throw InputError::value("layer " + std::to_string(l.index), "no mixer", "at least one mixer");
  return kind_name(l.mixers.front());
}

std::uint64_t tokens_held(const LayerSpec& l, std::uint64_t tokens) {
  std::uint64_t held = 0;
  for (const auto& c : l.mixers) held = std::max(held, tokens_held(c, tokens));
  return held;
}

LayerBytes layer_bytes(const LayerSpec& l, std::uint64_t tokens, const CacheDtypes& dt, std::uint64_t tp) {
  LayerBytes sum;
  for (const auto& c : l.mixers) {
    const LayerBytes b = layer_bytes(c, tokens, dt, tp);
    sum.k_bytes = checked_add(sum.k_bytes, b.k_bytes, "layer K bytes");
    sum.v_bytes = checked_add(sum.v_bytes, b.v_bytes, "layer V bytes");
    sum.conv_bytes = checked_add(sum.conv_bytes, b.conv_bytes, "layer conv bytes");
    sum.ssm_bytes = checked_add(sum.ssm_bytes, b.ssm_bytes, "layer SSM bytes");
    sum.tokens_held = std::max(sum.tokens_held, b.tokens_held);
  }
  return sum;
}

std::uint64_t bytes_per_token(const LayerSpec& l, const CacheDtypes& dt, std::uint64_t tp) {
  std::uint64_t sum = 0;
  for (const auto& c : l.mixers) sum = checked_add(sum, bytes_per_token(c, dt, tp), "bytes per token");
  return sum;
}

std::uint64_t kv_heads_per_rank(std::uint64_t kv_heads, std::uint64_t tp) {
  if (tp == 0) throw InputError::value("tensor parallel size", "0", "a positive integer");
  return std::max<std::uint64_t>(1, kv_heads / tp);
}

std::uint64_t tokens_held(const Attention::Span& s, std::uint64_t tokens) {
  return std::visit(overloaded{
                        [&](const Attention::All&) { return tokens; },
                        [&](const Attention::Window& w) { return std::min(tokens, w.tokens); },
                        [&](const Attention::Chunk& k) { return std::min(tokens, k.tokens); },
                    },
                    s);
}

std::uint64_t span_tokens(const Attention::Span& s) {
  return std::visit(overloaded{
                        [](const Attention::All&) { return std::uint64_t{0}; },
                        [](const Attention::Window& w) { return w.tokens; },
                        [](const Attention::Chunk& k) { return k.tokens; },
                    },
                    s);
}

std::uint64_t tokens_held(const LayerCache& c, std::uint64_t tokens) {
  return std::visit(overloaded{
                        [&](const Attention& a) { return tokens_held(a.span, tokens); },
                        [&](const Mla&) { return tokens; },
                        [](const Mamba1&) { return std::uint64_t{0}; },
                        [](const Mamba2&) { return std::uint64_t{0}; },
                        [](const LinearAttention&) { return std::uint64_t{0}; },
                        [](const ShortConv&) { return std::uint64_t{0}; },
                        [](const SharedKv&) { return std::uint64_t{0}; },
                        [](const NoCache&) { return std::uint64_t{0}; },
                    },
                    c);
}

AttentionRowBytes attention_row_bytes(const Attention& a, Dtype k, Dtype v, std::uint64_t tp, HeadSplit split) {
  if (tp == 0) throw InputError::value("tensor parallel size", "0", "a positive integer");
  switch (split) {
    case HeadSplit::per_rank_heads: {
      const std::uint64_t heads = kv_heads_per_rank(a.kv_heads, tp);
      return {checked_mul(heads, row_bytes(k, a.k_head_dim), "K bytes per token"),
              checked_mul(heads, row_bytes(v, a.v_head_dim), "V bytes per token")};
    }
    case HeadSplit::flat_row:
      return {row_bytes(k, checked_mul(a.kv_heads, a.k_head_dim, "K row") / tp),
              row_bytes(v, checked_mul(a.kv_heads, a.v_head_dim, "V row") / tp)};
  }
  throw InputError::value("head split", "?", "per_rank_heads or flat_row");
}

std::uint64_t mla_row_bytes(const Mla& m, Dtype d, bool with_indexer) {
  std::uint64_t row = row_bytes(d, checked_add(m.kv_lora_rank, m.rope_dim, "MLA row"));
  if (with_indexer && m.index_head_dim) row = checked_add(row, row_bytes(d, m.index_head_dim), "MLA row");
  return row;
}

StateBytes state_bytes(const LayerCache& c, const StateOptions& o) {
  const StateShape s = state_shape(c, o.tp);
  StateBytes b;
  const std::uint64_t rows = checked_add(s.conv_rows, o.extra_conv_rows, "conv state rows");
  b.conv_bytes = checked_mul(rows, row_bytes(o.conv, s.conv_cols), "conv state bytes");
  b.ssm_bytes = checked_mul(checked_mul(s.ssm_a, s.ssm_b, "SSM state bytes"), row_bytes(o.ssm, s.ssm_c),
                            "SSM state bytes");
  return b;
}

StateShape state_shape(const LayerCache& c, std::uint64_t tp) {
  if (tp == 0) throw InputError::value("tensor parallel size", "0", "a positive integer");
  return std::visit(
      overloaded{
          [&](const Mamba1& m) {
            StateShape s;
            s.conv_rows = m.conv_kernel - 1;
            s.conv_cols = split(m.d_inner, tp);
            s.ssm_a = split(m.d_inner, tp);
            s.ssm_b = 1;
            s.ssm_c = m.d_state;
            return s;
          },
          [&](const Mamba2& m) {
            StateShape s;
            s.conv_rows = m.conv_kernel - 1;
            const std::uint64_t g = mamba_groups_per_rank_total(m.n_groups, tp);
            s.conv_cols = split(checked_add(m.d_inner(), checked_product({2, g, m.d_state})), tp);
            s.ssm_a = split(m.n_heads, tp);
            s.ssm_b = m.head_dim;
            s.ssm_c = m.d_state;
            return s;
          },
          [&](const LinearAttention& l) {
            StateShape s;
            using V = LinearAttention::Variant;
            if (l.conv_kernel > 0) {
              s.conv_rows = l.conv_kernel - 1;
              if (l.variant == V::kda)
                s.conv_cols = split(checked_add(checked_mul(l.num_v_heads, l.v_head_dim),
                                                checked_product({2, l.num_k_heads, l.k_head_dim})),
                                    tp);
              else
                s.conv_cols = split(checked_add(checked_product({2, l.num_k_heads, l.k_head_dim}),
                                                checked_mul(l.num_v_heads, l.v_head_dim)),
                                    tp);
            }
            // One (v_head_dim x k_head_dim) matrix per value head.
            s.ssm_a = split(l.num_v_heads, tp);
            s.ssm_b = l.v_head_dim;
            s.ssm_c = l.k_head_dim;
            return s;
          },
          [&](const ShortConv& sc) {
            StateShape s;
            s.conv_rows = sc.conv_kernel - 1;
            s.conv_cols = split(sc.channels, tp);
            return s;
          },
          [](const Attention&) { return StateShape{}; },
          [](const Mla&) { return StateShape{}; },
          [](const SharedKv&) { return StateShape{}; },
          [](const NoCache&) { return StateShape{}; },
      },
      c);
}

LayerBytes layer_bytes(const LayerCache& c, std::uint64_t tokens, const CacheDtypes& dt, std::uint64_t tp) {
  if (tp == 0) throw InputError::value("tensor parallel size", "0", "a positive integer");
  LayerBytes b;
  b.tokens_held = tokens_held(c, tokens);
  auto state = [&] {
    const StateBytes s = state_bytes(c, StateOptions{dt.conv, dt.ssm, tp, 0});
    b.conv_bytes = s.conv_bytes;
    b.ssm_bytes = s.ssm_bytes;
  };
  std::visit(overloaded{
                 [&](const Attention& a) {
                   const AttentionRowBytes row = attention_row_bytes(a, dt.k, dt.v, tp);
                   b.k_bytes = checked_mul(row.k_bytes, b.tokens_held, "K cache bytes");
                   b.v_bytes = checked_mul(row.v_bytes, b.tokens_held, "V cache bytes");
                 },
                 [&](const Mla& m) { b.k_bytes = checked_mul(mla_row_bytes(m, dt.k), b.tokens_held, "MLA cache bytes"); },
                 [&](const Mamba1&) { state(); },
                 [&](const Mamba2&) { state(); },
                 [&](const LinearAttention&) { state(); },
                 [&](const ShortConv&) { state(); },
                 [&](const SharedKv&) {},
                 [&](const NoCache&) {},
             },
             c);
  return b;
}

std::uint64_t bytes_per_token(const LayerCache& c, const CacheDtypes& dt, std::uint64_t tp) {
  // One token more than none, for a layer whose window is not yet full.
  const bool grows = std::visit(overloaded{
                                    [](const Attention& a) { return tokens_held(a.span, 1) > 0; },
                                    [](const Mla&) { return true; },
                                    [](const Mamba1&) { return false; },
                                    [](const Mamba2&) { return false; },
                                    [](const LinearAttention&) { return false; },
                                    [](const ShortConv&) { return false; },
                                    [](const SharedKv&) { return false; },
                                    [](const NoCache&) { return false; },
                                },
                                c);
  if (!grows) return 0;
  return layer_bytes(c, 1, dt, tp).kv_bytes();
}

}  // namespace kvplan
