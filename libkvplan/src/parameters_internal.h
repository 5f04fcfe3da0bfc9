#pragma once
// Internal: parameter counting from the parsed config (parameters.cpp).
#include "config_view.h"
#include "kvplan/model.h"

namespace kvplan::detail {
ParameterCounts count_parameters(const ConfigView& cfg, const ModelSpec& m);
}
