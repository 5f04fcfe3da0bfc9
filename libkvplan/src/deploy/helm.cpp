// Helm values files as their charts render them. Each chart is read by its own templates, pinned:
//
// vLLM production-stack, helm/templates/deployment-vllm-multi.yaml and _helpers.tpl
// (github.com/vllm-project/production-stack @ 010004eea56fa9ee522a4cf66d363a213fdc67ab and
// 18328b5076799642ecafffd0018b779a7a30e817): one Deployment per servingEngineSpec.modelSpec[]
// entry without raySpec, container `vllm serve <modelURL> --host 0.0.0.0 --port <containerPort>`
// + the vllmConfig flags in the template's order + extraArgs; GPUs from requestGPU (resource
// requestGPUType, default nvidia.com/gpu); node affinity from nodeSelectorTerms.
#include "deploy/helm.h"

#include <string>
#include <vector>

#include "kvplan/check.h"
#include "kvplan/error.h"

namespace kvplan::detail {

namespace {

using json = nlohmann::json;

std::string helm_scalar(const json& v) {  // Helm's `quote` of a YAML scalar
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  return v.dump();
}

bool truthy(const json& m, const char* k) {  // Go template truth of .k
  if (!m.is_object() || !m.contains(k)) return false;
  const json& v = m[k];
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string()) return !v.get<std::string>().empty();
  if (v.is_number()) return v.get<double>() != 0;
  if (v.is_array() || v.is_object()) return !v.empty();
  return false;
}

[[noreturn]] void bad(std::string_view source, const std::string& field, const std::string& expected) {
  throw DeploymentError(std::string(source) + ": production-stack values " + field + ": expected " + expected +
                            " (chart templates: vllm-project/production-stack helm/templates/deployment-vllm-multi.yaml)",
                        std::string(source), 0);
}

json production_stack(const json& values, std::string_view source) {
  const json& spec = values["servingEngineSpec"];
  if (!spec.is_object()) bad(source, "servingEngineSpec", "a mapping");
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  if (spec.contains("enableEngine") && !truthy(spec, "enableEngine")) return list;
  const json ms = spec.value("modelSpec", json::array());
  if (!ms.is_array()) bad(source, "servingEngineSpec.modelSpec", "a list of models");
  const std::string port = spec.contains("containerPort") ? helm_scalar(spec["containerPort"]) : "8000";
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const json& m = ms[i];
    const std::string at = "servingEngineSpec.modelSpec[" + std::to_string(i) + "]";
    if (!m.is_object()) bad(source, at, "a mapping");
    if (m.contains("raySpec"))
      throw DeploymentError(std::string(source) + ": " + at + " has raySpec: the chart renders it as a KubeRay RayCluster, which kvplan "
                                                             "does not read; check the engine command with --gpus (kvplan check -- vllm serve ...)",
                            std::string(source), 0);
    if (!m.contains("modelURL") || !m["modelURL"].is_string()) bad(source, at + ".modelURL", "the model to serve");
    std::vector<std::string> cmd = {"vllm", "serve", m["modelURL"].get<std::string>(), "--host", "0.0.0.0", "--port", port};
    if (truthy(m, "enableLoRA")) cmd.push_back("--enable-lora");
    if (truthy(m, "enableTool")) cmd.push_back("--enable-auto-tool-choice");
    if (truthy(m, "toolCallParser")) cmd.insert(cmd.end(), {"--tool-call-parser", helm_scalar(m["toolCallParser"])});
    if (truthy(m, "vllmConfig")) {
      const json& c = m["vllmConfig"];
      if (!c.is_object()) bad(source, at + ".vllmConfig", "a mapping");
      if (c.contains("enableChunkedPrefill"))
        cmd.push_back(truthy(c, "enableChunkedPrefill") ? "--enable-chunked-prefill" : "--no-enable-chunked-prefill");
      cmd.push_back(truthy(c, "enablePrefixCaching") ? "--enable-prefix-caching" : "--no-enable-prefix-caching");
      for (const auto& [key, flag] : std::vector<std::pair<const char*, const char*>>{{"maxModelLen", "--max-model-len"},
                                                                                     {"dtype", "--dtype"},
                                                                                     {"tensorParallelSize", "--tensor-parallel-size"},
                                                                                     {"maxNumSeqs", "--max-num-seqs"},
                                                                                     {"gpuMemoryUtilization", "--gpu_memory_utilization"},
                                                                                     {"maxLoras", "--max_loras"}})
        if (c.contains(key)) cmd.insert(cmd.end(), {flag, helm_scalar(c[key])});
      if (truthy(c, "extraArgs")) {
        if (!c["extraArgs"].is_array()) bad(source, at + ".vllmConfig.extraArgs", "a list of arguments");
        for (const auto& a : c["extraArgs"]) cmd.push_back(helm_scalar(a));
      }
    }
    if (m.contains("lmcacheConfig") && truthy(m["lmcacheConfig"], "enabled"))
      cmd.insert(cmd.end(), {"--kv-transfer-config", R"({"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"})"});
    if (truthy(m, "chatTemplate")) cmd.insert(cmd.end(), {"--chat-template", "/templates/" + helm_scalar(m["chatTemplate"])});
    json container = {{"name", "vllm"}, {"command", cmd}};
    if (m.contains("repository") && m.contains("tag"))
      container["image"] = helm_scalar(m["repository"]) + ":" + helm_scalar(m["tag"]);
    if (m.contains("requestGPU")) {
      const std::string type = m.contains("requestGPUType") ? helm_scalar(m["requestGPUType"]) : "nvidia.com/gpu";
      container["resources"]["limits"][type] = helm_scalar(m["requestGPU"]);
    }
    if (m.contains("env") && m["env"].is_array()) container["env"] = m["env"];
    json pod = {{"containers", json::array({container})}};
    if (truthy(m, "nodeSelectorTerms") && !truthy(m, "nodeName"))
      pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] = m["nodeSelectorTerms"];
    const std::string name = m.contains("name") ? helm_scalar(m["name"]) : std::to_string(i);
    list["items"].push_back({{"apiVersion", "apps/v1"},
                             {"kind", "Deployment"},
                             {"metadata", {{"name", "RELEASE-" + name + "-deployment-vllm"}}},
                             {"spec", {{"template", {{"spec", pod}}}}}});
  }
  return list;
}

}  // namespace

std::optional<json> render_helm_values(const json& values, std::string_view source) {
  if (!values.is_object()) return std::nullopt;
  if (values.contains("servingEngineSpec")) return production_stack(values, source);
  // Keys Helm charts' values files carry and kvplan's own deployment format does not: a values
  // file of a chart kvplan does not read.
  static const char* const helm_keys[] = {"replicaCount", "image", "nameOverride", "fullnameOverride", "podAnnotations",
                                          "serviceAccount", "ingress", "tolerations", "modelArtifacts", "decode", "prefill",
                                          "routing", "servingRuntime", "global"};
  for (const char* k : helm_keys)
    if (values.contains(k))
      throw DeploymentError(std::string(source) + ": this looks like a Helm chart's values file (key \"" + k +
                                "\") of a chart kvplan does not read (it reads vLLM production-stack's servingEngineSpec); "
                                "check what the chart renders: helm template RELEASE CHART -f " + std::string(source) +
                                " > rendered.yaml && kvplan check rendered.yaml",
                            std::string(source), 0);
  return std::nullopt;
}

}  // namespace kvplan::detail
