// Node labels that name a GPU, read as each labeller writes them.
#include "deploy/gpu_labels.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "kvplan/check.h"
#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/text.h"

namespace kvplan::detail {

namespace {

[[noreturn]] void unknown_label(const GpuLabel& l, std::string_view where) {
  throw DeploymentError(std::string(where) + ": the node label " + l.key + "=" + l.value +
                            " names no GPU in kvplan's catalog; pass --gpu (see kvplan gpus)",
                        "", 0);
}

// A name the catalog knows exactly, else every entry of the family it names, else nothing.
std::vector<std::string> resolve(const std::string& name) {
  std::vector<std::string> out;
  for (const Accelerator* a : accelerators_of_family(name)) out.push_back(a->name);
  if (!out.empty()) return out;
  try {
    out.push_back(find_accelerator(name).name);
  } catch (const Error&) {
  }
  return out;
}

// NVIDIA GPU feature discovery (github.com/NVIDIA/k8s-device-plugin, docs/gpu-feature-discovery):
// nvidia.com/gpu.product = the name nvidia-smi prints with spaces replaced by '-', e.g.
// "NVIDIA-H100-80GB-HBM3", "NVIDIA-A100-SXM4-80GB", "Tesla-T4", "-SHARED" under time-slicing.
std::vector<std::string> gfd_product(const GpuLabel& l, std::string_view where) {
  std::string s = l.value;
  for (const char* p : {"NVIDIA-", "Tesla-"})
    if (s.rfind(p, 0) == 0) s = s.substr(std::string(p).size());
  if (s.size() > 7 && s.substr(s.size() - 7) == "-SHARED") s = s.substr(0, s.size() - 7);
  static const std::map<std::string, std::string> names = {
      {"H100-80GB-HBM3", "H100-SXM-80GB"},   {"H100-PCIE", "H100-PCIe-80GB"},  {"A100-PCIE-40GB", "A100-40GB"},
      {"A100-80GB-PCIE", "A100-PCIe-80GB"},  {"A100-PCIE-80GB", "A100-PCIe-80GB"}, {"H200-NVL", "H200-NVL-141GB"},
      {"GH200-480GB", "GH200-96GB"},         {"B200", "B200-180GB"},           {"H800-80GB-HBM3", "H800-SXM-80GB"},
      {"A800-SXM4-80GB", "A800-80GB"}};
  const std::string upper = ascii_upper(s);
  if (auto it = names.find(upper); it != names.end()) return {it->second};
  auto r = resolve(s);
  if (r.empty()) unknown_label(l, where);
  return r;
}

// GKE (cloud.google.com/kubernetes-engine/docs/how-to/gpus, "GPU types"): nvidia-tesla-a100 is the
// 40 GB A100, nvidia-a100-80gb the 80 GB one, nvidia-tesla-v100 the 16 GB V100.
std::vector<std::string> gke_accelerator(const GpuLabel& l, std::string_view where) {
  static const std::map<std::string, std::string> names = {
      {"nvidia-tesla-t4", "T4-16GB"},          {"nvidia-tesla-v100", "V100-16GB"},     {"nvidia-l4", "L4-24GB"},
      {"nvidia-tesla-a100", "A100-40GB"},      {"nvidia-a100-80gb", "A100-80GB"},      {"nvidia-h100-80gb", "H100-SXM-80GB"},
      {"nvidia-h100-mega-80gb", "H100-SXM-80GB"}, {"nvidia-h200-141gb", "H200-141GB"}, {"nvidia-b200", "B200-180GB"},
      {"nvidia-gb200", "GB200-186GB"},         {"nvidia-rtx-pro-6000", "RTX-PRO-6000-Blackwell-96GB"}};
  if (auto it = names.find(ascii_lower(l.value)); it != names.end()) return {it->second};
  unknown_label(l, where);
}

// Karpenter on EKS (karpenter.sh/docs/reference/instance-types): karpenter.k8s.aws/instance-gpu-name
// is the lower-case family ("a100", "h100", "l40s", "a10g", "t4"), so "a100" (p4d 40 GB / p4de
// 80 GB) and "v100" (p3 16 GB / p3dn 32 GB) are several GPUs.
std::vector<std::string> karpenter_gpu_name(const GpuLabel& l, std::string_view where) {
  auto r = resolve(l.value);
  if (r.empty()) unknown_label(l, where);
  return r;
}

}  // namespace

std::vector<std::string> gpus_for_label(const GpuLabel& label, std::string_view where) {
  if (label.key == "nvidia.com/gpu.product") return gfd_product(label, where);
  if (label.key == "cloud.google.com/gke-accelerator") return gke_accelerator(label, where);
  if (label.key == "karpenter.k8s.aws/instance-gpu-name") return karpenter_gpu_name(label, where);
  // Not a node label: the GPU a KubeAI resource profile is named after (deploy/operators.cpp), a
  // catalog name or family ("H100": every H100).
  if (label.key == "kubeai.org/resource-profile") return karpenter_gpu_name(label, where);
  unknown_label(label, where);
}

std::string gpu_for_labels(const std::vector<GpuLabel>& labels, std::string_view where, std::string& note) {
  std::vector<std::string> all;
  for (const auto& l : labels)
    for (auto& n : gpus_for_label(l, where))
      if (std::find(all.begin(), all.end(), n) == all.end()) all.push_back(std::move(n));
  if (all.empty()) return "";
  std::string best;
  std::uint64_t best_mem = UINT64_MAX;
  for (const auto& n : all) {
    const std::uint64_t mem = find_accelerator(n).memory_bytes;
    if (mem < best_mem) best_mem = mem, best = n;
  }
  if (all.size() > 1) {
    std::string list;
    for (const auto& n : all) list += (list.empty() ? "" : ", ") + n;
    note = "the pod may run on any of " + std::to_string(all.size()) + " GPUs (" + list + "); checked on the one with the least memory, " + best;
  }
  return best;
}

}  // namespace kvplan::detail
