#include "parameters_internal.h"

namespace kvplan::detail {

// Placeholder: filled in with the per-family component counts.
void fill_parameters(const ConfigView&, ModelSpec&) {}

}  // namespace kvplan::detail
