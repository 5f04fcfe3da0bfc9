// Families kvplan recognises but cannot map yet: a precise refusal instead of "unknown model_type".
#include "kvplan/error.h"
#include "model/mapping.h"

namespace kvplan::detail::families {

namespace {
[[noreturn]] void refuse_parallel_mixers(const LoadCtx& x) {
  throw UnsupportedArchitecture::model_type(
      x.cfg.source(), x.cfg.model_type(),
      "its layers run attention and Mamba side by side (or share attention blocks), which kvplan does not map yet");
}

}  // namespace

std::vector<Family> unmapped() {
  return {Family{.name = "attention + Mamba in one layer",
                 .model_types = {"falcon_h1", "zamba2", "zamba"},
                 .map_layers = refuse_parallel_mixers}};
}

}  // namespace kvplan::detail::families
