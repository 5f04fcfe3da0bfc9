// The plan/sweep request field table (kvplan/request.h): the one list of options the CLI, the
// Python keywords and the page's plan form are checked against.
#include <array>

#include "kvplan/error.h"
#include "kvplan/request.h"

namespace kvplan {

namespace {
using T = FieldType;
// The cache dtype options plan, sweep and size share.
constexpr RequestField kKvDtype{"kv_dtype", "--kv-dtype", T::dtype, "", "auto", "cache dtype for K and V (auto = model dtype)"};
constexpr RequestField kKDtype{"k_dtype", "--k-dtype", T::dtype, "", "", "K cache dtype (overrides --kv-dtype)"};
constexpr RequestField kVDtype{"v_dtype", "--v-dtype", T::dtype, "", "", "V cache dtype (overrides --kv-dtype)"};
constexpr RequestField kStateDtype{"state_dtype", "--state-dtype", T::dtype, "", "",
                                   "recurrent state dtype (default: the config's, else the model dtype)"};

constexpr std::array<RequestField, 7> kSizeFields{{
    {"tokens", "--tokens", T::tokens, "tokens", "4096", "tokens per sequence (4096, 32k, 1M)"},
    {"batch", "--batch", T::count, "sequences", "1", "number of sequences"},
    {"tp", "--tp", T::count, "", "1", "tensor-parallel size: report one rank's share"},
    kKvDtype, kKDtype, kVDtype, kStateDtype,
}};
constexpr std::array<RequestField, 27> kPlanFields{{
    {"gpu", "--gpu", T::name, "", "", "accelerator name (kvplan gpus), e.g. H100, MI300X"},
    {"gpu_memory", "--gpu-memory", T::memory, "bytes", "",
     "device memory (overrides the catalog; with no --gpu, a custom device)"},
    {"gpu_bandwidth", "--gpu-bandwidth", T::rate, "bytes/s", "", "memory bandwidth in bytes/s (e.g. 3.35e12)"},
    {"gpu_flops", "--gpu-flops", T::rate, "FLOP/s", "", "dense BF16 peak FLOP/s for TTFT (e.g. 989e12)"},
    {"gpus", "--gpus", T::count, "", "", "GPU count = tp x pp x dp (default: tp x pp x dp)"},
    {"tp", "--tp", T::count, "", "", "tensor-parallel degree (default: gpus / (pp x dp), else 1)"},
    {"pp", "--pp", T::count, "", "1", "pipeline-parallel degree"},
    {"pp_layers", "--pp-layers", T::count_list, "layers", "",
     "layers per pipeline stage, e.g. 21,20,20,19 (default: vLLM's split)"},
    {"dp", "--dp", T::count, "", "1", "data-parallel replicas (concurrency is spread over them)"},
    {"context", "--context", T::tokens, "tokens", "4096", "tokens per sequence (4096, 32k, 128k)"},
    {"concurrency", "--concurrency", T::count, "sequences", "1", "concurrent sequences"},
    kKvDtype, kKDtype, kVDtype, kStateDtype,
    {"weight_dtype", "--weight-dtype", T::weight_format, "", "auto",
     "store weights in this dtype or preset (awq gptq nf4 w8a8 fp8 mxfp4 Q4_K_M Q8_0 ...; auto = the checkpoint's "
     "format)"},
    {"weights", "--weights", T::bytes, "bytes", "", "total weight bytes, replacing kvplan's count (e.g. 16GB)"},
    {"engine", "--engine", T::name, "", "none", "defaults of an engine: none or vllm"},
    {"utilization", "--utilization", T::fraction, "", "0.9",
     "fraction of device memory the engine may use"},
    {"reserved", "--reserved", T::bytes, "bytes", "",
     "reserved memory per GPU for activations/CUDA graphs/runtime (replaces the estimate)"},
    {"runtime_overhead", "--runtime-overhead", T::bytes, "bytes", "1GiB",
     "runtime part of the reserved estimate"},
    {"prefill_chunk", "--prefill-chunk", T::tokens, "tokens", "8192",
     "tokens per forward pass in the activation estimate"},
    {"block_tokens", "--block-tokens", T::count, "tokens", "1",
     "paging block: per-sequence tokens round up to it (--engine vllm: 16)"},
    {"shared_prefix", "--shared-prefix", T::tokens, "tokens", "0",
     "tokens of a common prefix stored once (prefix caching)"},
    {"offload", "--offload", T::bytes, "bytes", "0", "host memory per GPU the cache may spill into (e.g. 256GB)"},
    {"offload_bandwidth", "--offload-bandwidth", T::rate, "bytes/s", "0",
     "host<->GPU bytes/s for the spilled cache (e.g. 64e9)"},
    {"prefill_efficiency", "--prefill-efficiency", T::fraction, "", "",
     "fraction of the dense peak GEMMs reach (default: the calibrated one, data/step_time.json)"},
}};
}  // namespace

std::span<const RequestField> plan_request_fields() { return kPlanFields; }
std::span<const RequestField> size_request_fields() { return kSizeFields; }

std::span<const RequestField> request_fields(std::string_view verb) {
  if (verb == "plan" || verb == "sweep") return kPlanFields;
  if (verb == "size") return kSizeFields;
  throw InputError::value("request fields", verb, "plan, sweep or size");
}

const RequestField& request_field(std::string_view verb, std::string_view name) {
  for (const auto& f : request_fields(verb))
    if (f.name == name) return f;
  throw InputError::unknown(std::string(verb) + " option", name, "");
}

const RequestField& plan_request_field(std::string_view name) {
  for (const auto& f : kPlanFields)
    if (f.name == name) return f;
  throw InputError::unknown("planner option", name, "");
}

}  // namespace kvplan
