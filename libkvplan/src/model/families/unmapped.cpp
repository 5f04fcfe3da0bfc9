// Families kvplan recognises but cannot map yet: a precise refusal instead of "unknown model_type",
// naming the field whose layer kind kvplan lacks and why.
#include "kvplan/error.h"
#include "model/mapping.h"

namespace kvplan::detail::families {

namespace {
[[noreturn]] void refuse_parallel_mixers(const LoadCtx& x) {
  throw UnsupportedArchitecture::model_type(
      x.cfg.source(), x.cfg.model_type(),
      "its shared attention blocks beside Mamba-1 layers (Zamba-1) have no family rule in kvplan yet");
}

// Llama-3.2-Vision (transformers mllama): cross-attention layers attend to the image tokens.
[[noreturn]] void refuse_cross_attention(const LoadCtx& x) {
  throw UnsupportedArchitecture::field(
      x.cfg.source(), x.cfg.model_type(), x.cfg.pointer("cross_attention_layers"),
      "cross-attention layers (Llama-3.2-Vision) cache K/V of the image tokens, sized by the number of images and "
      "tiles, which kvplan has no layer kind or option for");
}

// DeepSeek-V4: compressed sparse attention.
[[noreturn]] void refuse_compressed_attention(const LoadCtx& x) {
  throw UnsupportedArchitecture::field(
      x.cfg.source(), x.cfg.model_type(), x.cfg.pointer("compress_ratios"),
      "compressed sparse attention (per-layer KV compressed 4x or 128x beside a sliding window, with its own "
      "indexer) has no layer kind in kvplan, so its cache cannot be sized exactly");
}

// MiniMax-M3: block-sparse attention.
[[noreturn]] void refuse_block_sparse_attention(const LoadCtx& x) {
  throw UnsupportedArchitecture::field(
      x.cfg.source(), x.cfg.model_type(), x.cfg.pointer("sparse_attention_config"),
      "block-sparse attention (sparse_attention_config: top-k key blocks chosen through an index-key cache) has no "
      "layer kind in kvplan, so its cache cannot be sized exactly");
}

// RWKV-7 (fla-hub / BlinkDL, model_type rwkv7; llama.cpp LLM_ARCH_RWKV7, llama-memory-recurrent):
// every layer keeps a wkv matrix state of head_size x head_size per head plus two token-shift
// rows of hidden_size (time mix and channel mix), constant in the length. None of kvplan's
// kinds holds that shape (linear_attention's conv state is (kernel - 1) columns of the
// projected q/k/v, not two hidden-size shift rows), so it is refused rather than sized with a
// near-miss formula.
[[noreturn]] void refuse_rwkv7(const LoadCtx& x) {
  throw UnsupportedArchitecture::model_type(
      x.cfg.source(), x.cfg.model_type(),
      "RWKV-7 keeps a per-head head_size x head_size wkv state plus two hidden_size token-shift rows per layer, "
      "which kvplan has no layer kind for");
}

// xLSTM (NX-AI xLSTM-7B, transformers modeling_xlstm.py, model_type xlstm): every mLSTM block
// keeps, per head, a qk_head_dim x v_head_dim matrix memory, a qk_head_dim normaliser and a
// max-state scalar (xLSTMCache, float32), constant in the length. kvplan has no layer kind for
// that state, so it is refused.
[[noreturn]] void refuse_xlstm(const LoadCtx& x) {
  throw UnsupportedArchitecture::model_type(
      x.cfg.source(), x.cfg.model_type(),
      "xLSTM's mLSTM blocks keep a per-head matrix memory, normaliser vector and max-state scalar, which kvplan has "
      "no layer kind for");
}

}  // namespace

std::vector<Family> unmapped() {
  return {Family{.name = "zamba (Zamba-1: shared attention beside Mamba-1)",
                 .model_types = {"zamba"},
                 .map_layers = refuse_parallel_mixers},
          Family{.name = "mllama (cross-attention)",
                 .model_types = {"mllama", "mllama_text_model"},
                 .map_layers = refuse_cross_attention},
          Family{.name = "deepseek_v4 (compressed sparse attention)",
                 .model_types = {"deepseek_v4"},
                 .map_layers = refuse_compressed_attention},
          Family{.name = "minimax_m3 (block-sparse attention)",
                 .model_types = {"minimax_m3"},
                 .map_layers = refuse_block_sparse_attention},
          Family{.name = "rwkv7 (RWKV-7 recurrent state)", .model_types = {"rwkv7"}, .map_layers = refuse_rwkv7},
          Family{.name = "xlstm (mLSTM matrix memory)", .model_types = {"xlstm"}, .map_layers = refuse_xlstm}};
}

}  // namespace kvplan::detail::families
