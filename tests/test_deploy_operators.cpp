// Operators' custom resources read as their controllers render them (deploy/operators.cpp): the
// engine command kvplan reconstructs from each verbatim example (tests/data/deployments/README.md),
// derived by hand from the CR and the controller's preset / pod builder (args: the engine's words after
// the executable, the model first), and the fields it refuses.
#include <string>
#include <vector>

#include "helpers.h"
#include "kvplan/deploy.h"
#include "kvplan/files.h"

using namespace kvplan;
using kvplan::test::HasMessage;

namespace {
using Args = std::vector<std::string>;

std::vector<Deployment> fixture(const std::string& name) {
  return load_deployment_files(std::string(KVPLAN_SOURCE_DIR) + "/tests/data/deployments/" + name);
}

std::string env_of(const Deployment& d, const std::string& name) {
  for (const auto& [k, v] : d.env)
    if (k == name) return v;
  return "<unset>";
}

const char* const kLlmisvcHead = "apiVersion: serving.kserve.io/v1alpha2\nkind: LLMInferenceService\nmetadata:\n  name: x\nspec:\n"
                                 "  model:\n    uri: hf://Qwen/Qwen2.5-7B-Instruct\n";
}  // namespace

BOOST_AUTO_TEST_SUITE(deploy_operators)

// config-llm-template: `vllm serve /mnt/models ... --port 8000 ${VLLM_ADDITIONAL_ARGS} $@`, no
// tensor flag (no spec.parallelism), the model from spec.model.uri hf://Qwen/Qwen2.5-7B-Instruct.
BOOST_AUTO_TEST_CASE(kserve_single_node) {
  const auto ds = fixture("kserve-llmisvc-qwen2-7b-gpu-no-scheduler.yaml");
  BOOST_REQUIRE_EQUAL(ds.size(), 1u);
  const auto& d = ds[0];
  BOOST_TEST((d.engine == EngineKind::vllm));
  BOOST_TEST(d.args == (Args{"Qwen/Qwen2.5-7B-Instruct", "--port", "8000"}), boost::test_tools::per_element());
  BOOST_TEST(d.gpus == 1u);  // template.containers[main] limits nvidia.com/gpu "1"
  BOOST_TEST(d.gpu == "");   // no node selector: --gpu decides
  BOOST_TEST(d.line == 14u);  // `  template:`
  BOOST_TEST(d.resource == "LLMInferenceService/qwen2-7b-instruct-single-no-scheduler");
  BOOST_TEST(d.container == "main");
}

// amd.com/gpu on the user's image (the preset's command still runs).
BOOST_AUTO_TEST_CASE(kserve_amd) {
  const auto ds = fixture("kserve-llmisvc-qwen2-7b-amd-no-scheduler.yaml");
  BOOST_REQUIRE_EQUAL(ds.size(), 1u);
  BOOST_TEST(ds[0].args == (Args{"Qwen/Qwen2.5-7B-Instruct", "--port", "8000"}), boost::test_tools::per_element());
  BOOST_TEST(ds[0].gpus == 1u);
}

// spec.prefill: the prefill template (--port 8000) and the decode template (--port 8001), each
// with its own VLLM_ADDITIONAL_ARGS, shell-split as the preset's eval splits it.
BOOST_AUTO_TEST_CASE(kserve_prefill_decode) {
  const auto ds = fixture("kserve-llmisvc-pd-qwen2-7b-gpu.yaml");
  BOOST_REQUIRE_EQUAL(ds.size(), 2u);
  BOOST_TEST(ds[0].resource == "LLMInferenceService/qwen2-7b-instruct-pd (prefill)");
  BOOST_TEST(ds[0].args == (Args{"Qwen/Qwen2.5-7B-Instruct", "--port", "8000", "--kv_transfer_config", R"({"kv_connector":"NixlConnector","kv_role":"kv_producer"})"}),
             boost::test_tools::per_element());
  BOOST_TEST(ds[0].line == 75u);
  BOOST_TEST(ds[1].resource == "LLMInferenceService/qwen2-7b-instruct-pd (decode)");
  BOOST_TEST(ds[1].args == (Args{"Qwen/Qwen2.5-7B-Instruct", "--port", "8001", "--kv_transfer_config", R"({"kv_connector":"NixlConnector","kv_role":"kv_consumer"})"}),
             boost::test_tools::per_element());
  BOOST_TEST(ds[1].line == 18u);
  for (const auto& d : ds) BOOST_TEST(d.gpus == 1u);
}

// worker + parallelism data 16 / dataLocal 8 / expert / tensor 1: config-llm-worker-data-parallel,
// a LeaderWorkerSet of 16 / 8 = 2 pods of 8 GPUs; VLLM_ADDITIONAL_ARGS after the preset's flags.
BOOST_AUTO_TEST_CASE(kserve_data_parallel_lws) {
  const auto ds = fixture("kserve-llmisvc-dp-ep-deepseek-gpu-naive.yaml");
  BOOST_REQUIRE_EQUAL(ds.size(), 1u);
  const auto& d = ds[0];
  BOOST_TEST(d.args == (Args{"deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct", "--port", "8000", "--enable-expert-parallel", "--tensor-parallel-size", "1", "--data-parallel-size", "16",
                             "--data-parallel-size-local", "8", "--data-parallel-rpc-port", "5555", "--data-parallel-start-rank", "0",
                             "--gpu-memory-utilization", "0.95", "--max-model-len", "8192", "--enforce-eager"}),
             boost::test_tools::per_element());
  BOOST_TEST(d.gpus == 16u);  // leader 8 + 1 worker pod x 8
  BOOST_TEST(env_of(d, "VLLM_ALL2ALL_BACKEND") == "naive");
}

// KServe's own sample puts kvCacheOffloading under spec.workload, which the CRD (v1alpha2) has not:
// refused, naming the field, not judged without it.
BOOST_AUTO_TEST_CASE(kserve_unknown_field) {
  BOOST_CHECK_EXCEPTION(fixture("kserve-llmisvc-kv-cache-offloading.yaml"), DeploymentError,
                        HasMessage({"spec.workload is not a field of KServe's LLMInferenceServiceSpec", "kserve-llmisvc-kv-cache-offloading.yaml"}));
}

// kvCacheOffloading where the CRD has it: config_merge.go kvTransferConfig's JSON (cpu 10Gi =
// 10,737,418,240 bytes; the emptyDir tier at /mnt/kv-cache-0), after --port.
BOOST_AUTO_TEST_CASE(kserve_kv_offloading) {
  const std::string y = std::string(kLlmisvcHead) +
                        "  kvCacheOffloading:\n    cpu: \"10Gi\"\n    evictionPolicy: lru\n    secondary:\n"
                        "      - fileSystem:\n          emptyDir:\n            size: \"100Gi\"\n"
                        "  parallelism:\n    tensor: 2\n"
                        "  template:\n    containers:\n      - name: main\n        args: [--max-model-len, \"4096\"]\n"
                        "        resources:\n          limits:\n            nvidia.com/gpu: \"2\"\n"
                        "    nodeSelector:\n      nvidia.com/gpu.product: NVIDIA-L40S\n";
  const auto ds = parse_deployments(y, "kv.yaml");
  BOOST_REQUIRE_EQUAL(ds.size(), 1u);
  BOOST_TEST(ds[0].args == (Args{"Qwen/Qwen2.5-7B-Instruct", "--port", "8000", "--kv-transfer-config",
                                 R"({"kv_connector":"OffloadingConnector","kv_connector_extra_config":{"cpu_bytes_to_use":10737418240,)"
                                 R"("eviction_policy":"lru","secondary_tiers":[{"root_dir":"/mnt/kv-cache-0","type":"fs"}],)"
                                 R"("spec_name":"TieringOffloadingSpec"},"kv_role":"kv_both"})",
                                 "--tensor-parallel-size", "2", "--max-model-len", "4096"}),
             boost::test_tools::per_element());
  BOOST_TEST(ds[0].gpus == 2u);
  BOOST_TEST(ds[0].gpu == "L40S-48GB");
}

// LoRA: workload_lora.go puts --enable-lora and the limits before the container's args.
BOOST_AUTO_TEST_CASE(kserve_lora) {
  const std::string y = std::string(kLlmisvcHead) +
                        "    lora:\n      maxRank: 32\n      maxAdapters: 4\n      adapters:\n        - uri: hf://org/adapter\n          name: a\n"
                        "  template:\n    containers:\n      - name: main\n        args: [--max-model-len, \"4096\"]\n";
  const auto ds = parse_deployments(y, "lora.yaml");
  BOOST_REQUIRE_EQUAL(ds.size(), 1u);
  BOOST_TEST(ds[0].args == (Args{"Qwen/Qwen2.5-7B-Instruct", "--port", "8000", "--enable-lora", "--max-lora-rank=32", "--max-loras=4", "--max-model-len", "4096"}),
             boost::test_tools::per_element());
}

// A main container with its own command keeps it (strategic merge replaces the preset's list).
BOOST_AUTO_TEST_CASE(kserve_own_command) {
  const std::string y = std::string(kLlmisvcHead) +
                        "  template:\n    containers:\n      - name: main\n        command: [vllm, serve, Qwen/Qwen3-8B, --max-model-len, \"2048\"]\n";
  const auto ds = parse_deployments(y, "own.yaml");
  BOOST_REQUIRE_EQUAL(ds.size(), 1u);
  BOOST_TEST(ds[0].args == (Args{"Qwen/Qwen3-8B", "--max-model-len", "2048"}), boost::test_tools::per_element());
}

// What kvplan cannot see is refused, naming it.
BOOST_AUTO_TEST_CASE(kserve_refusals) {
  BOOST_CHECK_EXCEPTION(parse_deployments(std::string(kLlmisvcHead) + "  baseRefs:\n    - name: my-config\n", "b.yaml"), DeploymentError,
                        HasMessage({"spec.baseRefs names the LLMInferenceServiceConfig \"my-config\""}));
  BOOST_CHECK_EXCEPTION(parse_deployments(std::string(kLlmisvcHead) + "  parallelism:\n    pipeline: 2\n  worker:\n    containers: []\n", "p.yaml"),
                        DeploymentError, HasMessage({"worker-pipeline-parallel", "ConfigNotFound"}));
  BOOST_CHECK_EXCEPTION(parse_deployments(std::string(kLlmisvcHead) + "  worker:\n    containers: []\n", "w.yaml"), DeploymentError,
                        HasMessage({"spec.worker without parallelism.data, dataLocal or pipeline"}));
  BOOST_CHECK_EXCEPTION(parse_deployments(std::string(kLlmisvcHead) + "  parallelism:\n    tensr: 2\n", "t.yaml"), DeploymentError,
                        HasMessage({"spec.parallelism.tensr is not a field of KServe's ParallelismSpec"}));
  BOOST_CHECK_EXCEPTION(parse_deployments(std::string(kLlmisvcHead) +
                                              "  template:\n    containers:\n      - name: main\n        env:\n          - name: VLLM_ADDITIONAL_ARGS\n"
                                              "            valueFrom:\n              configMapKeyRef: {name: a, key: b}\n",
                                          "v.yaml"),
                        DeploymentError, HasMessage({"VLLM_ADDITIONAL_ARGS takes its value from valueFrom"}));
  BOOST_CHECK_EXCEPTION(parse_deployments("apiVersion: serving.kserve.io/v1alpha2\nkind: LLMInferenceService\nmetadata: {name: x}\n"
                                          "spec:\n  model:\n    uri: hf://Qwen\n",
                                          "u.yaml"),
                        DeploymentError, HasMessage({"spec.model.uri: expected hf://ORG/NAME"}));
  // Another scheme: the controller's /mnt/models, which kvplan check reads with --model.
  const auto ds = parse_deployments("apiVersion: serving.kserve.io/v1alpha1\nkind: LLMInferenceService\nmetadata: {name: x}\n"
                                    "spec:\n  model:\n    uri: pvc://models/qwen\n",
                                    "pvc.yaml");
  BOOST_TEST(ds.at(0).args.at(0) == "/mnt/models");
}

// engine_vllm.go vLLMPodForModel: python3 -m vllm.entrypoints.openai.api_server --model=REF
// --served-model-name=NAME + spec.args; env from spec.env; nvidia-gpu-l4:1 = 1 GPU, an L4.
BOOST_AUTO_TEST_CASE(kubeai_vllm) {
  const auto ds = fixture("kubeai-model-qwen2.5-7b-instruct-l4.yaml");
  BOOST_REQUIRE_EQUAL(ds.size(), 1u);
  const auto& d = ds[0];
  BOOST_TEST((d.engine == EngineKind::vllm));
  BOOST_TEST(d.args == (Args{"--model=Qwen/Qwen2.5-7B-Instruct", "--served-model-name=qwen2.5-7b-instruct-l4", "--max-model-len=8192", "--max-num-batched-token=8192",
                             "--max-num-seqs=256", "--gpu-memory-utilization=0.95", "--kv-cache-dtype=fp8", "--enable-prefix-caching"}),
             boost::test_tools::per_element());
  BOOST_TEST(env_of(d, "VLLM_ATTENTION_BACKEND") == "FLASHINFER");
  BOOST_TEST(d.gpus == 1u);
  BOOST_TEST(d.gpu == "L4-24GB");
  BOOST_TEST(d.resource == "Model/qwen2.5-7b-instruct-l4");
}

// nvidia-gpu-h100:2: twice the profile's 1 GPU; "h100" names the family, judged on its member with
// the least memory (gpu_labels.cpp gpu_for_labels).
BOOST_AUTO_TEST_CASE(kubeai_profile_multiple) {
  const auto ds = fixture("kubeai-model-llama-3.1-70b-instruct-fp8-h100.yaml");
  BOOST_REQUIRE_EQUAL(ds.size(), 1u);
  BOOST_TEST(ds[0].args.at(0) == "--model=neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8");
  BOOST_TEST(ds[0].gpus == 2u);
  BOOST_TEST(ds[0].gpu == "H100-SXM-80GB");
  const std::string head = "apiVersion: kubeai.org/v1\nkind: Model\nmetadata: {name: m}\nspec:\n  url: hf://Qwen/Qwen3-8B\n";
  BOOST_CHECK_EXCEPTION(parse_deployments(head + "  engine: VLLM\n  resourceProfile: my-gpus:1\n", "k.yaml"), DeploymentError,
                        HasMessage({"spec.resourceProfile my-gpus is not one of KubeAI's default profiles"}));
  BOOST_CHECK_EXCEPTION(parse_deployments(head + "  engine: VLLM\n  resourceProfile: nvidia-gpu-l4\n", "k.yaml"), DeploymentError,
                        HasMessage({"expected NAME:MULTIPLE"}));
  BOOST_CHECK_EXCEPTION(parse_deployments(head + "  engine: VLLM\n  resourceProfile: nvidia-gpu-l4:1\n  argz: []\n", "k.yaml"), DeploymentError,
                        HasMessage({"spec.argz is not a field of KubeAI's ModelSpec"}));
  // An embedding engine runs no LLM engine: skipped by kind, and a file with nothing else is an error.
  BOOST_CHECK_EXCEPTION(parse_deployments(head + "  engine: Infinity\n  resourceProfile: cpu:1\n", "k.yaml"), DeploymentError,
                        HasMessage({"no container runs an engine"}));
}

// `helm template` output: Service / ConfigMap / CRD documents are skipped by kind; an unknown kind
// that holds containers is an error naming it, never passed over.
BOOST_AUTO_TEST_CASE(multi_document_kinds) {
  const std::string svc = "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports: [{port: 80}]\n---\n"
                          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n---\n";
  const auto ds = parse_deployments(svc + std::string(kLlmisvcHead), "rendered.yaml");
  BOOST_REQUIRE_EQUAL(ds.size(), 1u);
  BOOST_TEST(ds[0].document == "document 3");
  BOOST_CHECK_EXCEPTION(parse_deployments(svc + "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: r}\nspec:\n  headGroupSpec:\n"
                                                "    template:\n      spec:\n        containers:\n          - name: head\n            image: rayproject/ray\n",
                                          "rendered.yaml"),
                        DeploymentError, HasMessage({"kind RayCluster (apiVersion ray.io/v1) holds containers"}));
}

BOOST_AUTO_TEST_SUITE_END()
