#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvplan {

// One accelerator from the bundled catalog (data/gpus.json, embedded) or a custom one.
struct Accelerator {
  std::string name;                    // canonical, e.g. "H100-SXM-80GB"
  std::vector<std::string> aliases;    // "H100", "h100-sxm", ...
  std::string vendor;                  // NVIDIA, AMD, Intel, Google, Apple
  std::uint64_t memory_bytes = 0;      // as the device reports it (e.g. 85,520,809,984 for an H100 80GB)
  std::string memory_basis;            // how memory_bytes was obtained, or "estimate: ..."
  std::string memory_marketing;        // "80 GB"
  // The vendor's figure in decimal bytes (80 GB = 80e9). The seeds count "H100s the cache takes"
  // against this figure; plans use memory_bytes, which is what an engine actually sees.
  std::uint64_t memory_marketing_bytes = 0;
  double bandwidth_bytes_per_s = 0;    // datasheet memory bandwidth
  double bf16_flops = 0;               // dense BF16 peak
  double fp8_flops = 0;                // dense FP8 peak (0: not supported)
  double fp4_flops = 0;                // dense FP4 (NVFP4/MXFP4) peak (0: none in the datasheet)
  bool bf16 = true;                    // false: no bfloat16 (NVIDIA compute capability < 8.0)
  std::string interconnect;            // "NVLink 4, 900 GB/s"
  double interconnect_bytes_per_s = 0;
  std::string source;                  // where the figures come from
  // The totals the runtime (torch.cuda.mem_get_info, "total_gpu_memory") printed in public engine
  // logs, in hundredths of a GiB as logged (23.54 GiB -> 2354); empty when none was found.
  std::vector<std::uint64_t> runtime_total_centigib;
  std::string runtime_total_source;
  // Who else uses the device: "" (a datacenter card, the engine alone), "desktop" (a card that may
  // drive a display and run desktop applications), "unified" (memory shared with the OS).
  std::string shared;
};

const std::vector<Accelerator>& accelerator_catalog();
// Case-insensitive on name and aliases; throws InputError with "did you mean" when unknown.
const Accelerator& find_accelerator(std::string_view name);
// NVIDIA Blackwell (SM100) by the device's name: B100, B200, B300 and the GB200/GB300 superchips.
// The one rule engines' platform defaults use (vLLM's MLA backend, SGLang's attention backend).
bool is_blackwell(const Accelerator& gpu);

// Every catalog entry of a GPU family named without its variant: "A100" -> A100-40GB, A100-80GB,
// A100-PCIe-80GB; "H20" -> H20-96GB, H20-141GB (canonical names that start with FAMILY followed
// by '-'). Empty when the name is no family prefix. The CLI's --gpu keeps the short-name rule of
// find_accelerator ("A100" = A100 SXM 80GB); a name read from a deployment (a node label) that
// matches several entries is judged on all of them (deploy/gpu_labels.cpp).
std::vector<const Accelerator*> accelerators_of_family(std::string_view family);
// A custom device from a JSON object with the same keys as the catalog entries (memory_bytes
// may also be a size string such as "80GB"); `source` names the file in messages. A document
// {"accelerators": [...]} with exactly one entry is accepted too.
Accelerator accelerator_from_json(std::string_view json_text, std::string_view source);

// The device total the engine's runtime sees (cudaMemGetInfo, torch.cuda.mem_get_info, ROCm,
// Metal's working-set limit) as a band [low, high]: exact for a size the user gave, the
// nvidia-smi figure less the driver's reservation, or a datasheet estimate.
struct MemoryBand {
  std::uint64_t low = 0, high = 0;
  std::string basis;
  std::uint64_t typical = 0;  // the most likely total (0: the midpoint)
};
MemoryBand runtime_memory_band(const Accelerator& a);

// Memory other processes may hold on the device while an engine runs (the display server and
// desktop applications, the OS on unified memory): [0, high], with where the high end was seen.
MemoryBand other_processes_band(const Accelerator& a);

// What other processes hold on the device, as `kvplan check --gpu-used` reads it: a size ("14.99GiB",
// "15360MiB", bytes) or "@FILE", the output of
// `nvidia-smi --query-gpu=memory.used,memory.total --format=csv` (with or without `nounits`; the
// header names the columns and their unit, one row per GPU). From a file the most used GPU counts
// (every rank of a TP group must fit) and its memory.total is kept to compare with the GPU checked.
struct GpuUsed {
  std::uint64_t used_bytes = 0;              // per GPU
  std::optional<std::uint64_t> total_bytes;  // the file's memory.total of that GPU
  std::string basis;                         // "--gpu-used 14.99GiB" or "nvidia-smi FILE: ..."
};
GpuUsed parse_gpu_used(std::string_view text, std::string_view what = "--gpu-used");
// The CSV text itself; `source` names it in messages.
GpuUsed read_nvidia_smi_memory_csv(std::string_view csv, std::string_view source);

// Which capacity a count of devices is measured against.
enum class CapacityBasis {
  device,     // memory_bytes, what the runtime reports (what plans use)
  marketing,  // memory_marketing_bytes, the datasheet's decimal GB (the seeds' "80 GB")
};
std::uint64_t capacity_bytes(const Accelerator& a, CapacityBasis basis);
// ceil(bytes / capacity): how many devices `bytes` alone would fill (seed S12's "how many H100s
// the cache alone takes up" is gpus_to_hold(cache, H100, marketing)).
std::uint64_t gpus_to_hold(std::uint64_t bytes, const Accelerator& a, CapacityBasis basis);

}  // namespace kvplan
