#pragma once
// The GPU a Kubernetes pod is scheduled on, from the node labels its nodeSelector or required node
// affinity names: NVIDIA GPU feature discovery's nvidia.com/gpu.product, GKE's
// cloud.google.com/gke-accelerator and Karpenter's (EKS) karpenter.k8s.aws/instance-gpu-name.
#include <string>
#include <string_view>
#include <vector>

namespace kvplan::detail {

struct GpuLabel {
  std::string key;    // "nvidia.com/gpu.product"
  std::string value;  // "NVIDIA-H100-80GB-HBM3"
};

// Catalog names one label value can mean: one for a precise product, several for a family named
// without its variant (Karpenter's "a100" is the 40 GB p4d or the 80 GB p4de). An unknown value
// is a DeploymentError naming the label and --gpu.
std::vector<std::string> gpus_for_label(const GpuLabel& label, std::string_view where);

// The pod's candidate GPUs over every label it allows, judged on the one with the least memory
// (the worst of them for a memory verdict); `note` says so when there were several. "" when the
// pod names no GPU label.
std::string gpu_for_labels(const std::vector<GpuLabel>& labels, std::string_view where, std::string& note);

}  // namespace kvplan::detail
