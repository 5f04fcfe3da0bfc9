// Operators' custom resources as their controllers render them, each read from the operator's own
// types and controller code, pinned:
//
// KServe LLMInferenceService (serving.kserve.io/v1alpha1 and v1alpha2), kserve/kserve @
// aaac4e294dae2c7b1aa1886447793f3aa1c30912: the spec's fields are LLMInferenceServiceSpec /
// WorkloadSpec / ParallelismSpec of pkg/apis/serving/v1alpha2/llm_inference_service_types.go.
// pkg/controller/v1alpha2/llmisvc/config_merge.go combineBaseRefsConfig picks the preset by the
// deployment pattern (no worker: config-llm-template, or with spec.prefill the prefill / decode
// templates; a worker with parallelism data/dataLocal: the *-worker-data-parallel presets; a worker
// with parallelism pipeline: *-worker-pipeline-parallel, which this commit does not ship), and the
// user's spec is merged over it (strategic merge: containers by name, so the `main` container keeps
// the preset's command unless it sets its own). Each preset's command
// (config/llmisvcconfig/config-llm-*.yaml) is a bash script ending in
//   eval "exec vllm serve /mnt/models --served-model-name ... --port 8000 ${KV_TRANSFER_ARGS}
//         [--tensor-parallel-size T] ${VLLM_ADDITIONAL_ARGS} $@"
// with `--` as its last word, so the container's args are `$@`; the data-parallel presets add
// [--enable-expert-parallel] --data-parallel-size D --data-parallel-size-local DL ... and run as a
// LeaderWorkerSet of size max(D / DL, 1) (llm_inference_service_types_func.go GetSize,
// workload_multi_node.go). The storage initializer puts spec.model.uri at /mnt/models; kvplan reads
// an hf:// URI as the model it names. KV_TRANSFER_ARGS is config_merge.go's kvTransferConfig of
// kvCacheOffloading (vLLM's OffloadingConnector); workload_lora.go addLoRAVLLMArgs puts
// --enable-lora [--max-lora-rank=R] [--max-loras=N] [--max-cpu-loras=C] --lora-modules ... before
// the args. kvplan's command leaves out what changes no memory and what the script only knows at
// run time: --served-model-name, the access-log and --shutdown-timeout flags chosen from
// `vllm --version`, TLS, --data-parallel-address, and the --lora-modules paths.
//
// KubeAI Model (kubeai.org/v1), kubeai-project/kubeai @ f442a2cd620cc0c903d0d0a5145bb70fb050503b:
// api/k8s/v1/model_types.go ModelSpec; internal/modelcontroller/engine_vllm.go vLLMPodForModel
// (`python3 -m vllm.entrypoints.openai.api_server --model=REF --served-model-name=NAME
// [--load-format=runai_streamer] ARGS [--enable-lora]`, env sorted by name), model_source.go
// parseModelURL (scheme://ref), model_controller.go (resourceProfile NAME:MULTIPLE multiplies the
// profile's requests and limits); the profiles are charts/kubeai/values.yaml resourceProfiles
// (each GPU profile: 1 nvidia.com/gpu or amd.com/gpu, no node selector).
#include "deploy/operators.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <set>

#include "deploy/gpu_labels.h"
#include "kvplan/checked.h"
#include "kvplan/deploy.h"
#include "kvplan/error.h"
#include "util/config_view.h"

namespace kvplan::detail {

namespace operators_impl {
namespace {

using json = nlohmann::json;

[[noreturn]] void refuse(std::string_view where, const std::string& what) {
  throw DeploymentError(std::string(where) + ": " + what, "", 0);
}

const json* field(const json& j, const char* k) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(k);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

// Every key of `j` is one of `keys`: an unknown field is one kvplan cannot say what it changes
// (and one the API server refuses under strict field validation).
void only_keys(const json& j, std::string_view where, const std::string& path, std::initializer_list<const char*> keys,
               const std::string& type) {
  if (!j.is_object()) refuse(where, path + ": expected a mapping (" + type + "), got " + describe_json(j));
  for (const auto& [k, v] : j.items())
    if (std::none_of(keys.begin(), keys.end(), [&k = k](const char* x) { return k == x; }))
      refuse(where, path + "." + k + " is not a field of " + type + " (the API server refuses it under strict field validation and drops it otherwise; kvplan cannot tell what it was meant to change)");
}

// A resource's identity field (kind, apiVersion, metadata.name) as text: absent, null or of another
// type is "" (nlohmann's value() throws a type_error on those; hostile input is a message, not a throw).
std::string id_text(const json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::uint64_t count_field(const json& j, const char* key, std::string_view where, const std::string& path) {
  const json* v = field(j, key);
  if (!v) return 0;
  if (v->is_number_unsigned()) return v->get<std::uint64_t>();
  refuse(where, path + "." + key + ": expected a non-negative whole number, got " + describe_json(*v));
}

std::string text_field(const json& j, const char* key, std::string_view where, const std::string& path) {
  const json* v = field(j, key);
  if (!v) return "";
  if (v->is_string()) return v->get<std::string>();
  refuse(where, path + "." + key + ": expected a string, got " + describe_json(*v));
}

// A Kubernetes resource.Quantity as Value() reads it (whole bytes): digits and an optional binary
// (Ki .. Ei) or decimal (k .. E) suffix. Fractions and exponents are refused rather than rounded.
std::uint64_t quantity_bytes(const json& v, std::string_view where, const std::string& path) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (!v.is_string()) refuse(where, path + ": expected a quantity (100Gi, 500G), got " + describe_json(v));
  const std::string s = v.get<std::string>();
  std::size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  static const std::map<std::string, std::uint64_t> suffixes = {
      {"", 1},          {"Ki", 1ull << 10}, {"Mi", 1ull << 20}, {"Gi", 1ull << 30}, {"Ti", 1ull << 40}, {"Pi", 1ull << 50},
      {"Ei", 1ull << 60}, {"k", 1000ull},   {"M", 1000000ull},  {"G", 1000000000ull}, {"T", 1000000000000ull},
      {"P", 1000000000000000ull}, {"E", 1000000000000000000ull}};
  const auto it = suffixes.find(s.substr(i));
  if (i == 0 || i > 19 || it == suffixes.end())
    refuse(where, path + ": expected a whole quantity with a unit suffix (100Gi, 500G), got \"" + s + "\"");
  return checked_mul(std::stoull(s.substr(0, i)), it->second, path);
}

// A container's env list entry NAME's literal value; nullopt when absent. A value from a secret or
// a config map (valueFrom) is refused when the engine reads it as arguments.
std::optional<std::string> env_value(const json& container, const std::string& name, std::string_view where, const std::string& path) {
  const json* env = field(container, "env");
  if (!env || !env->is_array()) return std::nullopt;
  std::optional<std::string> out;
  for (const auto& e : *env) {
    if (!e.is_object() || !e.contains("name") || e["name"] != name) continue;
    if (e.contains("valueFrom"))
      refuse(where, path + ".env " + name + " takes its value from valueFrom, which kvplan cannot read; the engine reads it as "
                                               "arguments that may change memory: give the value itself");
    out = e.contains("value") && e["value"].is_string() ? e["value"].get<std::string>() : std::string();
  }
  return out;
}

// --------------------------------------------------------------------------------------------
// KServe LLMInferenceService
// --------------------------------------------------------------------------------------------
constexpr const char* kKserveTypes = "KServe's LLMInferenceServiceSpec (kserve/kserve@aaac4e29 pkg/apis/serving/v1alpha2)";

struct KserveWorkload {
  const json* spec = nullptr;   // the WorkloadSpec (spec itself, or spec.prefill)
  std::string path;             // "spec" or "spec.prefill"
  std::string pointer;          // "/spec" or "/spec/prefill"
  std::string role;             // "" (one pool), "decode", "prefill"
  std::string port;             // the preset's --port
};

void check_workload_keys(const json& w, std::string_view where, const std::string& path, bool top) {
  if (top)
    only_keys(w, where, path,
              {"model", "storageInitializer", "replicas", "scaling", "parallelism", "labels", "annotations", "template", "worker",
               "kvCacheOffloading", "rolloutStrategy", "router", "prefill", "tracing", "baseRefs"},
              kKserveTypes);
  else
    only_keys(w, where, path,
              {"replicas", "scaling", "parallelism", "labels", "annotations", "template", "worker", "kvCacheOffloading", "rolloutStrategy"},
              "KServe's WorkloadSpec");
  if (const json* p = field(w, "parallelism"))
    only_keys(*p, where, path + ".parallelism", {"tensor", "pipeline", "data", "dataLocal", "dataRPCPort", "expert"}, "KServe's ParallelismSpec");
}

// The model kvplan reads: an hf:// URI's repository; any other scheme is what the controller
// mounts at /mnt/models, which kvplan check reads only with --model.
std::string kserve_model(const json& spec, std::string_view where) {
  const json* m = field(spec, "model");
  if (!m) refuse(where, "spec.model.uri: expected the model's URI (hf://ORG/NAME, pvc://..., s3://...), got nothing");
  only_keys(*m, where, "spec.model", {"uri", "name", "lora", "confidential"}, "KServe's LLMModelSpec");
  const std::string uri = text_field(*m, "uri", where, "spec.model");
  if (uri.empty()) refuse(where, "spec.model.uri: expected the model's URI (hf://ORG/NAME, pvc://..., s3://...), got nothing");
  if (uri.rfind("hf://", 0) != 0) return "/mnt/models";
  const std::string repo = uri.substr(5);
  const auto slash = repo.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == repo.size() || repo.find('/', slash + 1) != std::string::npos)
    refuse(where, "spec.model.uri: expected hf://ORG/NAME (a Hugging Face repository), got \"" + uri + "\"");
  return repo;
}

// --enable-lora [--max-lora-rank=R] [--max-loras=N] [--max-cpu-loras=C] (workload_lora.go
// addLoRAVLLMArgs); the --lora-modules entries (adapter names and mount paths) change no memory.
std::vector<std::string> kserve_lora_args(const json& spec, std::string_view where) {
  const json* lora = field(spec["model"], "lora");
  if (!lora) return {};
  only_keys(*lora, where, "spec.model.lora", {"adapters", "maxRank", "maxAdapters", "maxCpuAdapters"}, "KServe's LoRASpec");
  const json* adapters = field(*lora, "adapters");
  if (!adapters || !adapters->is_array() || adapters->empty()) return {};
  std::vector<std::string> out = {"--enable-lora"};
  for (const auto& [key, flag] : std::vector<std::pair<const char*, const char*>>{
           {"maxRank", "--max-lora-rank="}, {"maxAdapters", "--max-loras="}, {"maxCpuAdapters", "--max-cpu-loras="}})
    if (field(*lora, key)) out.push_back(flag + std::to_string(count_field(*lora, key, where, "spec.model.lora")));
  return out;
}

// config_merge.go kvTransferConfig: vLLM's OffloadingConnector with the CPU bytes to use.
std::vector<std::string> kserve_kv_offloading(const json& w, std::string_view where, const std::string& path) {
  const json* kv = field(w, "kvCacheOffloading");
  if (!kv) return {};
  only_keys(*kv, where, path + ".kvCacheOffloading", {"cpu", "evictionPolicy", "secondary"}, "KServe's KVCacheOffloadingSpec");
  const json* cpu = field(*kv, "cpu");
  if (!cpu) refuse(where, path + ".kvCacheOffloading.cpu: expected the CPU memory for offloaded KV blocks (a quantity), got nothing");
  json extra = {{"spec_name", "TieringOffloadingSpec"}, {"cpu_bytes_to_use", quantity_bytes(*cpu, where, path + ".kvCacheOffloading.cpu")}};
  const std::string eviction = text_field(*kv, "evictionPolicy", where, path + ".kvCacheOffloading");
  if (!eviction.empty()) extra["eviction_policy"] = eviction;
  if (const json* sec = field(*kv, "secondary"); sec && sec->is_array()) {
    json tiers = json::array();
    for (std::size_t i = 0; i < sec->size(); ++i)
      if (field((*sec)[i], "fileSystem")) tiers.push_back({{"type", "fs"}, {"root_dir", "/mnt/kv-cache-" + std::to_string(i)}});
    if (!tiers.empty()) extra["secondary_tiers"] = tiers;
  }
  const json config = {{"kv_connector", "OffloadingConnector"}, {"kv_role", "kv_both"}, {"kv_connector_extra_config", extra}};
  return {"--kv-transfer-config", config.dump()};
}

// The user's pod template with its `main` container running `command` (the preset's, unless the
// user's own main container sets one).
json kserve_pod(const json* user_pod, const std::vector<std::string>& command, const std::vector<std::string>& pre_args,
                std::string_view where, const std::string& path) {
  json pod = user_pod && user_pod->is_object() ? *user_pod : json::object();
  if (!pod.contains("containers") || !pod["containers"].is_array()) pod["containers"] = json::array();
  json* main = nullptr;
  for (auto& c : pod["containers"])
    if (c.is_object() && id_text(c, "name") == "main") main = &c;
  if (!main) {
    pod["containers"].push_back({{"name", "main"}});
    main = &pod["containers"].back();
  }
  if (main->contains("command") && !(*main)["command"].is_null()) return pod;  // the user's own entrypoint
  std::vector<std::string> argv = command;
  if (auto extra = env_value(*main, "VLLM_ADDITIONAL_ARGS", where, path + ".containers[main]")) {
    const auto words = split_command_line(*extra);
    argv.insert(argv.end(), words.begin(), words.end());
  }
  argv.insert(argv.end(), pre_args.begin(), pre_args.end());
  if (const json* a = field(*main, "args")) {
    if (!a->is_array()) refuse(where, path + ".containers[main].args must be a list of strings (Kubernetes' []string)");
    for (const auto& x : *a) argv.push_back(x.is_string() ? x.get<std::string>() : x.dump());
  }
  (*main)["command"] = argv;
  main->erase("args");
  return pod;
}

std::vector<OperatorWorkload> llm_inference_service(const json& cr, std::string_view where) {
  const std::string api = id_text(cr, "apiVersion");
  if (api != "serving.kserve.io/v1alpha1" && api != "serving.kserve.io/v1alpha2")
    refuse(where, "apiVersion " + api + ": kvplan reads LLMInferenceService serving.kserve.io/v1alpha1 and v1alpha2");
  const json* spec = field(cr, "spec");
  if (!spec) refuse(where, "spec: expected the LLMInferenceService's spec, got nothing");
  check_workload_keys(*spec, where, "spec", true);
  if (const json* refs = field(*spec, "baseRefs"); refs && refs->is_array() && !refs->empty()) {
    const std::string name = id_text(refs->at(0), "name");
    refuse(where, "spec.baseRefs names the LLMInferenceServiceConfig \"" + name +
                      "\", whose template may change the engine command and its resources; kvplan reads KServe's own presets only: "
                      "check what the controller renders (kubectl get deployment,leaderworkerset -o yaml) instead");
  }
  const std::string model = kserve_model(*spec, where);
  const std::vector<std::string> lora = kserve_lora_args(*spec, where);
  std::vector<KserveWorkload> pools;
  const json* prefill = field(*spec, "prefill");
  if (prefill) {
    check_workload_keys(*prefill, where, "spec.prefill", false);
    pools.push_back({prefill, "spec.prefill", "/spec/prefill", "prefill", "8000"});
    pools.push_back({spec, "spec", "/spec", "decode", "8001"});
  } else {
    pools.push_back({spec, "spec", "/spec", "", "8000"});
  }
  const std::string name = cr.contains("metadata") ? id_text(cr["metadata"], "name") : "";
  std::vector<OperatorWorkload> out;
  for (const auto& w : pools) {
    const json& s = *w.spec;
    const json* par_field = field(s, "parallelism");
    const std::string pp = w.path + ".parallelism";
    if (par_field && !par_field->is_object()) refuse(where, pp + ": expected an object, got " + describe_json(*par_field));
    const json par = par_field ? *par_field : json::object();
    const std::uint64_t tensor = count_field(par, "tensor", where, pp), pipeline = count_field(par, "pipeline", where, pp);
    const std::uint64_t data = count_field(par, "data", where, pp), data_local = count_field(par, "dataLocal", where, pp);
    const json* expert_field = field(par, "expert");
    if (expert_field && !expert_field->is_boolean()) refuse(where, pp + ".expert: expected true or false, got " + describe_json(*expert_field));
    const bool expert = expert_field && expert_field->get<bool>();
    const json* worker = field(s, "worker");
    std::vector<std::string> cmd = {"vllm", "serve", model, "--port", w.port};
    const auto kv = kserve_kv_offloading(s, where, w.path);
    OperatorWorkload ow;
    ow.resource = "LLMInferenceService/" + name + (w.role.empty() ? "" : " (" + w.role + ")");
    ow.pointer = w.pointer + "/template";
    const std::string deploy_name = name + (w.role == "prefill" ? "-kserve-prefill" : "-kserve");
    if (!worker) {
      // Single node (config-llm-template, -decode-template, -prefill-template): parallelism.tensor only.
      cmd.insert(cmd.end(), kv.begin(), kv.end());
      if (tensor) cmd.insert(cmd.end(), {"--tensor-parallel-size", std::to_string(tensor)});
      ow.manifest = {{"apiVersion", "apps/v1"},
                     {"kind", "Deployment"},
                     {"metadata", {{"name", deploy_name}}},
                     {"spec", {{"template", {{"spec", kserve_pod(field(s, "template"), cmd, lora, where, w.path + ".template")}}}}}};
    } else if (data || data_local) {
      // *-worker-data-parallel: a LeaderWorkerSet of max(data / dataLocal, 1) pods.
      if (expert) cmd.push_back("--enable-expert-parallel");
      if (tensor) cmd.insert(cmd.end(), {"--tensor-parallel-size", std::to_string(tensor)});
      const std::uint64_t d = std::max<std::uint64_t>(data, 1), dl = std::max<std::uint64_t>(data_local, 1);
      const std::string rpc = field(par, "dataRPCPort") ? std::to_string(count_field(par, "dataRPCPort", where, pp)) : "5555";
      cmd.insert(cmd.end(), {"--data-parallel-size", std::to_string(d), "--data-parallel-size-local", std::to_string(dl),
                             "--data-parallel-rpc-port", rpc, "--data-parallel-start-rank", "0"});
      cmd.insert(cmd.end(), kv.begin(), kv.end());
      const std::uint64_t size = std::max<std::uint64_t>(d / dl, 1);
      json worker_pod = *worker;
      if (!worker_pod.is_object()) refuse(where, w.path + ".worker: expected a pod spec, got " + describe_json(*worker));
      ow.manifest = {{"apiVersion", "leaderworkerset.x-k8s.io/v1"},
                     {"kind", "LeaderWorkerSet"},
                     {"metadata", {{"name", deploy_name + "-mn"}}},
                     {"spec",
                      {{"leaderWorkerTemplate",
                        {{"size", size},
                         {"leaderTemplate", {{"spec", kserve_pod(field(s, "template"), cmd, lora, where, w.path + ".template")}}},
                         {"workerTemplate", {{"spec", worker_pod}}}}}}}};
    } else if (pipeline) {
      refuse(where, w.path + ".worker with parallelism.pipeline: the controller applies the preset kserve-config-llm-" +
                        (w.role.empty() ? std::string() : w.role + "-") +
                        "worker-pipeline-parallel, which KServe (kserve/kserve@aaac4e29 config/llmisvcconfig) does not ship, so it "
                        "reports ConfigNotFound and starts no pod");
    } else {
      refuse(where, w.path + ".worker without parallelism.data, dataLocal or pipeline: the controller applies no preset "
                                 "(config_merge.go combineBaseRefsConfig), so the pods run their image's own entrypoint; give the "
                                 "parallelism, or check the rendered LeaderWorkerSet");
    }
    out.push_back(std::move(ow));
  }
  return out;
}

// --------------------------------------------------------------------------------------------
// KubeAI Model
// --------------------------------------------------------------------------------------------
// charts/kubeai/values.yaml resourceProfiles (kubeai-project/kubeai@f442a2cd): the GPU each
// default profile is named after (a catalog name or family) and the resource it requests, one per
// unit. "" for the GPU: a profile whose GPU kvplan's catalog does not hold (--gpu names it).
struct KubeaiProfile {
  const char* name;
  const char* gpu;        // kvplan catalog name or family ("" : not in the catalog)
  const char* resource;   // nvidia.com/gpu, amd.com/gpu, or "" (cpu)
};
constexpr KubeaiProfile kKubeaiProfiles[] = {
    {"cpu", "", ""},
    {"nvidia-gpu-t4", "T4", "nvidia.com/gpu"},
    {"nvidia-gpu-l4", "L4", "nvidia.com/gpu"},
    {"nvidia-gpu-l40s", "L40S", "nvidia.com/gpu"},
    {"nvidia-gpu-h100", "H100", "nvidia.com/gpu"},
    {"nvidia-gpu-gh200", "GH200", "nvidia.com/gpu"},
    {"nvidia-gpu-a100-80gb", "A100-80GB", "nvidia.com/gpu"},
    {"nvidia-gpu-a100-40gb", "A100-40GB", "nvidia.com/gpu"},
    {"nvidia-gpu-a16", "", "nvidia.com/gpu"},
    {"nvidia-gpu-rtx4070-8gb", "", "nvidia.com/gpu"},
    {"amd-gpu-mi300x", "MI300X", "amd.com/gpu"},
};

std::vector<OperatorWorkload> kubeai_model(const json& cr, std::string_view where) {
  const std::string api = id_text(cr, "apiVersion");
  if (api != "kubeai.org/v1") refuse(where, "apiVersion " + api + ": kvplan reads KubeAI's Model kubeai.org/v1");
  const json* spec = field(cr, "spec");
  if (!spec) refuse(where, "spec: expected the Model's spec, got nothing");
  only_keys(*spec, where, "spec",
            {"url", "adapters", "features", "engine", "resourceProfile", "cacheProfile", "image", "args", "env", "envFrom", "replicas",
             "minReplicas", "maxReplicas", "autoscalingDisabled", "targetRequests", "scaleDownDelaySeconds", "owner", "loadBalancing",
             "files", "priorityClassName"},
            "KubeAI's ModelSpec (kubeai-project/kubeai@f442a2cd api/k8s/v1/model_types.go)");
  const std::string engine = text_field(*spec, "engine", where, "spec");
  if (engine == "FasterWhisper" || engine == "Infinity") return {};  // speech-to-text and embedding servers: no LLM engine
  if (engine == "OLlama")
    refuse(where, "spec.engine OLlama: KubeAI starts `ollama serve` and pulls the model in a startup probe "
                  "(engine_ollama.go); kvplan checks Ollama from its Modelfile or the store: kvplan check -- ollama run MODEL");
  if (engine != "VLLM") refuse(where, "spec.engine: expected VLLM, OLlama, FasterWhisper or Infinity (KubeAI's engines), got \"" + engine + "\"");
  const std::string url = text_field(*spec, "url", where, "spec");
  const auto sep = url.find("://");
  if (sep == std::string::npos || sep == 0) refuse(where, "spec.url: expected SCHEME://REF (hf://ORG/NAME, s3://, pvc://), got \"" + url + "\"");
  const std::string scheme = url.substr(0, sep);
  std::string ref = url.substr(sep + 3);
  if (const auto q = ref.find('?'); q != std::string::npos) ref = ref.substr(0, q);
  // engine_vllm.go: --model= the URL's ref (hf: the repository; a cacheProfile's directory holds
  // the same files), the URL itself with the Run:ai streamer for s3, /model for a pvc.
  std::string model_flag = ref;
  bool streamer = false;
  if (scheme == "s3") model_flag = url, streamer = true;
  if (scheme == "pvc") model_flag = "/model";
  const std::string name = cr.contains("metadata") ? id_text(cr["metadata"], "name") : "";
  std::vector<std::string> cmd = {"python3", "-m", "vllm.entrypoints.openai.api_server", "--model=" + model_flag, "--served-model-name=" + name};
  if (streamer) cmd.push_back("--load-format=runai_streamer");
  if (const json* a = field(*spec, "args")) {
    if (!a->is_array()) refuse(where, "spec.args: expected a list of strings, got " + describe_json(*a));
    for (const auto& x : *a) {
      if (!x.is_string()) refuse(where, "spec.args: expected a list of strings, got " + describe_json(x));
      cmd.push_back(x.get<std::string>());
    }
  }
  json env = json::array();
  if (const json* ad = field(*spec, "adapters"); ad && ad->is_array()) {
    cmd.push_back("--enable-lora");
    env.push_back({{"name", "VLLM_ALLOW_RUNTIME_LORA_UPDATING"}, {"value", "True"}});
  }
  if (const json* e = field(*spec, "env")) {
    if (!e->is_object()) refuse(where, "spec.env: expected a mapping NAME: value, got " + describe_json(*e));
    for (const auto& [k, v] : e->items()) env.push_back({{"name", k}, {"value", v.is_string() ? v.get<std::string>() : v.dump()}});  // sorted
  }
  const std::string profile = text_field(*spec, "resourceProfile", where, "spec");
  const auto colon = profile.find(':');
  const std::string pname = profile.substr(0, colon);
  const std::string multiple = colon == std::string::npos ? "" : profile.substr(colon + 1);
  if (profile.empty() || multiple.empty() || multiple.size() > 6 ||
      !std::all_of(multiple.begin(), multiple.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
    refuse(where, "spec.resourceProfile: expected NAME:MULTIPLE (nvidia-gpu-l4:2), got \"" + profile + "\"");
  const KubeaiProfile* p = nullptr;
  for (const auto& k : kKubeaiProfiles)
    if (pname == k.name) p = &k;
  if (!p)
    refuse(where, "spec.resourceProfile " + pname + " is not one of KubeAI's default profiles (charts/kubeai/values.yaml @f442a2cd); "
                  "a cluster's own profile is in its Helm values: check the rendered pod (kubectl get pod -o yaml) or give the "
                  "command with --gpu and --gpus");
  if (!*p->resource) refuse(where, "spec.resourceProfile " + profile + " runs vLLM on CPU; kvplan checks GPU memory");
  OperatorWorkload ow;
  ow.resource = "Model/" + name;
  ow.pointer = "/spec";
  if (*p->gpu) {
    std::string note;
    ow.gpu = gpu_for_labels({{"kubeai.org/resource-profile", p->gpu}}, where, note);
  }
  json container = {{"name", "server"}, {"command", cmd}, {"env", env}, {"resources", {{"limits", {{p->resource, multiple}}}}}};
  ow.manifest = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}}}, {"spec", {{"containers", json::array({container})}}}};
  return {std::move(ow)};
}

}  // namespace
}  // namespace operators_impl

std::optional<std::vector<OperatorWorkload>> render_operator_resource(const nlohmann::json& cr, std::string_view where) {
  if (!cr.is_object()) return std::nullopt;
  const std::string kind = operators_impl::id_text(cr, "kind");
  const std::string api = operators_impl::id_text(cr, "apiVersion");
  const std::string group = api.substr(0, api.find('/'));
  if (kind == "LLMInferenceService" && group == "serving.kserve.io") return operators_impl::llm_inference_service(cr, where);
  if (kind == "Model" && group == "kubeai.org") return operators_impl::kubeai_model(cr, where);
  return std::nullopt;
}

bool non_serving_kind(std::string_view kind) {
  static const std::set<std::string, std::less<>> kinds = {
      // core, apps, RBAC, policy, scheduling, storage, admission, apiextensions
      "Service", "ConfigMap", "Secret", "ServiceAccount", "Namespace", "Endpoints", "EndpointSlice", "LimitRange", "ResourceQuota",
      "PersistentVolume", "PersistentVolumeClaim", "StorageClass", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding",
      "PodDisruptionBudget", "PriorityClass", "NetworkPolicy", "Ingress", "IngressClass", "HorizontalPodAutoscaler",
      "CustomResourceDefinition", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "APIService",
      "ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "RuntimeClass",
      // Gateway API and its inference extension
      "Gateway", "GatewayClass", "HTTPRoute", "GRPCRoute", "ReferenceGrant", "InferencePool", "InferenceModel", "InferenceObjective",
      // monitoring, certificates, autoscaling
      "ServiceMonitor", "PodMonitor", "PrometheusRule", "Certificate", "Issuer", "ClusterIssuer", "ScaledObject", "TriggerAuthentication",
      "VerticalPodAutoscaler",
      // KServe's presets (read only through the LLMInferenceService that names them)
      "LLMInferenceServiceConfig", "ClusterStorageContainer"};
  return kinds.count(kind) != 0;
}

}  // namespace kvplan::detail
