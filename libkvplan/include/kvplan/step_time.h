#pragma once
// One engine step's time, for `kvplan plan` and `kvplan simulate` alike (issue 30): the planner's
// decode step and TTFT and every simulated scheduler step go through step_time(), with the
// constants calibrated on published measurements (data/step_time.json, docs/speed.md).
//
// The terms, and where the simulators this model is checked against put them:
//  - weights and KV read / (achievable fraction x datasheet bandwidth): InferSim (alibaba/InferSim
//    layers/attn.py, decode_attn_core's kv_load_time = KV bytes / gpu.mem_bw, the attention core
//    max(compute, KV load)); Vidur profiles the same kernels per batch shape
//    (microsoft/vidur vidur/execution_time_predictor/sklearn_execution_time_predictor.py);
//  - GEMM + attention FLOPs / (achievable fraction x the per-dtype dense peak): InferSim
//    layers/attn.py get_gemm_mfu_and_latency (fp8_tflops when the GEMM is FP8, x a benchmarked
//    MFU); AISimulate (ai-dynamo/aisimulate aic-core/.../operations/gemm.py
//    _get_quant_tc_flops: bfloat16/fp8/fp4 tensor-core peak by quant mode, an achieved-util level
//    per quant);
//  - a fixed per-step overhead: Vidur base_execution_time_predictor.py get_execution_time adds
//    schedule, sampler, prepare-inputs and process-model-outputs CPU times to every batch;
//  - TP all-reduce from the message size and the interconnect, plus a per-all-reduce latency:
//    InferSim comm/comm.py tp_all_reduce (ring: 2 (tp-1)/tp x tokens x hidden x 2 bytes over the
//    NVLink bandwidth); Vidur sklearn_execution_time_predictor.py
//    _get_tensor_parallel_communication_time (profiled all-reduce + nccl_cpu_launch_overhead_ms).
//    LLMServingSim (casys-kaist/LLMServingSim) hands the same collectives to ASTRA-sim's network
//    model.
// Not modelled (docs/speed.md): grouped-GEMM and routing costs of MoE, EP all-to-all, PP
// send/recv and micro-batching, attention efficiency by head layout, per-engine overheads.
#include <cstdint>
#include <string>
#include <string_view>
#include <optional>

#include "kvplan/dtype.h"

namespace kvplan {

struct Accelerator;
struct ModelSpec;

// The fitted constants and the band, with where they come from.
struct StepCalibration {
  double bandwidth_fraction = 1;   // of the datasheet memory bandwidth weight and KV reads reach
  double compute_fraction = 1;     // of the per-dtype dense peak GEMMs and attention reach (BF16, FP8)
  double compute_fraction_fp4 = 1; // the same on the FP4 peak (NVFP4/MXFP4 weights)
  double step_overhead_s = 0;      // every step: scheduling, launches, sampling
  double layer_overhead_s = 0;     // every step, each decoder layer (kernel launches and syncs per layer)
  double token_overhead_s = 0;     // every token a step runs (input preparation)
  double seq_overhead_s = 0;       // every sequence a step schedules (sampling, per-request bookkeeping)
  double moe_token_overhead_s = 0; // every token a step runs through an MoE model (routing, grouped GEMM)
  double allreduce_latency_s = 0;  // every TP all-reduce, on top of its bytes
  // The band on a time figure: fast = typical x fast_factor, slow = typical x slow_factor, from
  // the held-out (leave-one-model-out) error quantiles of the fit (docs/speed.md).
  double fast_factor = 1, slow_factor = 1;
  std::string source;              // the data file and the points it was fitted on
};
// The bundled constants (data/step_time.json, embedded).
const StepCalibration& default_step_calibration();
// c with both compute fractions replaced by `fraction` when it is > 0 (--prefill-efficiency in
// plan, sweep and simulate); 0 keeps the fitted ones.
StepCalibration with_compute_fraction(StepCalibration c, double fraction);
// Parses a document with the same keys as data/step_time.json; `source` names it in messages.
StepCalibration step_calibration_from_json(std::string_view json_text, std::string_view source);

// What one GPU of a replica does in one step (all PP stages: a step runs them one after another).
struct StepWork {
  double weight_bytes = 0;         // weights read
  double kv_bytes = 0;             // KV cache and recurrent state read
  double flops = 0;                // linear layers + attention
  double allreduce_bytes = 0;      // one all-reduce's message: tokens x hidden x 2 bytes (bf16)
  std::uint64_t allreduces = 0;    // all-reduces in the step (2 per layer when tp > 1)
  std::uint64_t tokens = 0;        // tokens the step runs (prefill + decode)
  std::uint64_t sequences = 0;     // sequences it schedules
};

// The GPU figures a step uses, picked once per model and GPU.
struct StepDevice {
  double bandwidth_bytes_per_s = 0;     // datasheet
  double peak_flops = 0;                // dense peak of the weights' GEMM dtype (0: unknown)
  std::string peak_name;                // "FP8", "FP4", "BF16"
  std::string peak_field;               // the catalog field it came from ("fp8_flops", ...)
  double link_bytes_per_s = 0;          // one direction of the interconnect (catalog total / 2)
  std::uint64_t tp = 1;
  std::uint64_t layers = 0;             // decoder layers (all-reduces: 2 per layer)
  double hidden_size = 0;
  bool fp4 = false;                     // peak_flops is the FP4 one (compute_fraction_fp4 applies)
  bool moe = false;                     // routed experts (moe_token_overhead_s applies)
};
// FP8 weights use fp8_flops, NVFP4/MXFP4 weights fp4_flops, else (or when the GPU has no such
// figure) bf16_flops; peak_flops 0 when the catalog has none (the caller says so). `weights`
// replaces the checkpoint's quantised dtype (plan's --weight-dtype).
StepDevice step_device(const ModelSpec& m, const Accelerator& gpu, std::uint64_t tp,
                       std::optional<Dtype> weights = std::nullopt);

// Tokens, sequences, all-reduces and message of a step that runs `tokens` tokens of `sequences`
// sequences through the model.
void set_batch(StepWork& w, const StepDevice& d, std::uint64_t tokens, std::uint64_t sequences);

struct StepTime {
  double weights_s = 0, kv_s = 0;  // the memory term's parts
  double memory_s = 0, compute_s = 0, overhead_s = 0, comm_s = 0;
  double seconds = 0;              // overhead + max(memory, compute) + comm
};
// overhead + layers x layer overhead + tokens x (token overhead [+ MoE token overhead]) + sequences x
// sequence overhead + max((weights + KV) /
// (bandwidth_fraction x bandwidth), FLOPs / (compute_fraction x peak)) + allreduces x (latency +
// 2 (tp-1)/tp x message / link). A step with FLOPs on a device
// with no peak throws InputError naming the missing figure.
StepTime step_time(const StepWork& w, const StepDevice& d, const StepCalibration& c);

// One line: the formula with the constants, for reports.
std::string describe_step_time(const StepDevice& d, const StepCalibration& c);

}  // namespace kvplan
