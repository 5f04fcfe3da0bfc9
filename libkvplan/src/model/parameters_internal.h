#pragma once
// Internal: parameter counting from the parsed config (parameters.cpp).
#include "util/config_view.h"
#include "kvplan/model.h"

namespace kvplan::detail {
// Fills m.params (and m.quantization) from the config; m.layers and m.dims are already set.
void fill_parameters(const ConfigView& cfg, ModelSpec& m);
}
