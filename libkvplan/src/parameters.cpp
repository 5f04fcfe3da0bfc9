#include "parameters_internal.h"

namespace kvplan::detail {

// Placeholder: filled in with the per-family component counts.
ParameterCounts count_parameters(const ConfigView&, const ModelSpec&) { return {}; }

}  // namespace kvplan::detail
