#pragma once
// Internal: Kubernetes' own typing of the container fields kvplan reads, so a manifest the API
// server refuses (or a container it starts without a GPU) is never judged as if it ran.
// Source: kubernetes/api core/v1 types.go (Container.Command and Container.Args are []string;
// resource limits are resource.Quantity values), decoded strictly by the API server
// ("cannot unmarshal number into Go struct field Container...args of type string").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvplan::detail {

// A container's `command` or `args`: absent or null is empty; a list of strings is itself; a
// number, bool, mapping or list inside it, or a bare string instead of a list, is a
// DeploymentError naming `where`, `key` and the item (the API server refuses the manifest).
std::vector<std::string> k8s_string_list(const nlohmann::json& v, std::string_view where, std::string_view key);

// The GPUs a container's resources give it: nvidia.com/gpu or amd.com/gpu from limits, else
// requests; nullopt when neither names one. `0` is zero GPUs (not "unset"). A value that is not
// a whole number (a negative, a fraction, "1.5", "abc") is a DeploymentError.
std::optional<std::uint64_t> k8s_container_gpus(const nlohmann::json& container, std::string_view where);

}  // namespace kvplan::detail
