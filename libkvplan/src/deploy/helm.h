#pragma once
// Helm chart values files, read by the chart's own templates' schema (deploy/helm.cpp).
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kvplan::detail {

// A values file kvplan knows the chart of, rendered as the chart's templates render it: a v1
// `List` of the workloads that run an engine. nullopt when `values` is no values file kvplan
// recognises as one. A values file whose chart kvplan does not read is a DeploymentError saying
// to check the `helm template` output instead.
std::optional<nlohmann::json> render_helm_values(const nlohmann::json& values, std::string_view source);

}  // namespace kvplan::detail
