#pragma once
// Operators' custom resources, rendered as each operator's controller renders them (deploy/operators.cpp):
// the workloads (Deployment / LeaderWorkerSet) whose engine container runs the command the
// controller builds, so that the manifest reader checks them as it checks any workload.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvplan::detail {

struct OperatorWorkload {
  nlohmann::json manifest;  // apps/v1 Deployment or leaderworkerset.x-k8s.io/v1 LeaderWorkerSet
  std::string pointer;      // JSON pointer, in the custom resource, of the part it comes from (the report's line)
  std::string resource;     // "LLMInferenceService/qwen (prefill)", for the report
  std::string gpu;          // the GPU the operator's own configuration names ("" : the pod's labels, or --gpu)
};

// The workloads `cr` makes: nullopt when `cr` is no custom resource kvplan reads; an empty list
// when it is one that runs no engine kvplan checks (KubeAI's FasterWhisper / Infinity engines).
// A field the controller would turn into memory that kvplan cannot see (an unknown field, a
// base config not in the file, a secret's value in the engine's arguments) is a DeploymentError
// naming `where` and the field.
std::optional<std::vector<OperatorWorkload>> render_operator_resource(const nlohmann::json& cr, std::string_view where);

// Kubernetes kinds (core, RBAC, networking, Gateway API, monitoring, cert-manager, KEDA, ...) that
// run no engine: a `helm template` output's Service, ConfigMap, CustomResourceDefinition ...
bool non_serving_kind(std::string_view kind);

}  // namespace kvplan::detail
