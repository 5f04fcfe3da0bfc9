#pragma once
// Internal: building a ModelSpec from a resolved MODEL (checkpoint_loader.cpp).
#include "kvplan/checkpoint.h"
#include "kvplan/model.h"

namespace kvplan::detail {
// Reads what resolve_model() found: a config.json (plus safetensors headers beside it), a GGUF
// header, or a bundled config.
ModelSpec load_resolved(const ResolvedModel& r, const LoadOptions& opts);
// A GGUF file: its metadata translated to a config (gguf_to_config), its tensor infos summed.
ModelSpec load_gguf_model(const std::filesystem::path& file, const LoadOptions& opts);
}  // namespace kvplan::detail
