// PaddleOCR-VL (model_type paddleocr_vl; its text tower is ERNIE-4.5-0.3B, transformers
// modeling_paddleocr_vl.py / vLLM paddleocr_vl.py, whose language model is Ernie4_5ForCausalLM):
// every text layer is full causal attention with num_key_value_heads heads of head_dim (the
// fields are top-level in the remote-code release, in text_config (paddleocr_vl_text) in
// transformers 5). The vision encoder holds no KV cache. mrope (rope_scaling.mrope_section)
// changes no cache shape.
//
// Weights: not counted (a NaViT vision encoder beside the text tower, no rule proven yet).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> paddleocr_vl() {
  return {Family{.name = "paddleocr_vl",
                 .model_types = {"paddleocr_vl", "paddleocr_vl_text"},
                 .map_layers = map_plain_attention,
                 .count_params = [](const ParamCtx& x) {
                   no_weight_rule(x, "PaddleOCR-VL: a NaViT vision encoder and projector beside the ERNIE-4.5 text "
                                     "tower, not proven against a published count");
                 }}};
}

}  // namespace kvplan::detail::families
