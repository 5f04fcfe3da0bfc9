// The accelerator catalog and custom devices.
#include <algorithm>
#include <cctype>
#include <set>

#include "helpers.h"
#include "kvplan/hardware.h"
#include "kvplan/planner.h"

using namespace kvplan;
using kvplan::test::HasMessage;

namespace {
std::string key(std::string s) {
  std::string r;
  for (char c : s)
    if (c != '-' && c != '_' && c != ' ') r.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return r;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(hardware)

BOOST_AUTO_TEST_CASE(catalog_covers_the_issue_list) {
  BOOST_TEST(accelerator_catalog().size() >= 25u);
  // Every device the issue names, by one of its names.
  for (const char* n : {"A10G", "L4", "L40S", "A100-40GB", "A100-80GB", "H100-SXM", "H100-PCIe", "H100-NVL", "H200", "GH200",
                        "B200", "B300", "GB200", "RTX4090", "RTX5090", "RTX6000-Ada", "RTX-PRO-6000-Blackwell", "MI250X",
                        "MI300X", "MI325X", "MI355X", "Gaudi3", "TPU-v5e", "TPU-v5p", "TPU-v6e", "M2-Ultra", "M3-Max",
                        "M4-Max"})
    BOOST_CHECK_NO_THROW(find_accelerator(n));
}

BOOST_AUTO_TEST_CASE(names_and_aliases_are_unique) {
  std::set<std::string> seen;
  for (const auto& a : accelerator_catalog()) {
    BOOST_TEST(seen.insert(key(a.name)).second, a.name);
    for (const auto& al : a.aliases) BOOST_TEST(seen.insert(key(al)).second, al);
  }
}

BOOST_AUTO_TEST_CASE(interface_short_names) {
  // ../shared/spec/interface.md: H100 = H100 SXM 80GB, A100 = A100 SXM 80GB, ...
  BOOST_TEST(find_accelerator("H100").name == "H100-SXM-80GB");
  BOOST_TEST(find_accelerator("A100").name == "A100-80GB");
  BOOST_TEST(find_accelerator("H200").name == "H200-141GB");
  BOOST_TEST(find_accelerator("B200").name == "B200-180GB");
  BOOST_TEST(find_accelerator("MI300X").name == "MI300X-192GB");
  BOOST_TEST(find_accelerator("L40S").name == "L40S-48GB");
  BOOST_TEST(find_accelerator("RTX4090").name == "RTX4090-24GB");
  // Case and separators do not matter.
  BOOST_TEST(find_accelerator("h100 sxm 80gb").name == "H100-SXM-80GB");
  BOOST_TEST(find_accelerator("mi300x_192gb").name == "MI300X-192GB");
}

BOOST_AUTO_TEST_CASE(h100_is_the_seeds_h100) {
  const auto& h = find_accelerator("H100");
  BOOST_TEST(h.memory_bytes == 81'559ull * 1024 * 1024);  // nvidia-smi: 81,559 MiB = 85,520,809,984 B
  BOOST_TEST(h.memory_marketing_bytes == 80'000'000'000ull);  // the seeds' "80 GB"
  BOOST_TEST(h.bandwidth_bytes_per_s == 3.35e12);             // the seeds' 3.35 TB/s
  BOOST_TEST(h.bf16_flops == 989.4e12);                       // 1,979 TFLOPS sparse / 2
  BOOST_TEST(find_accelerator("MI300X").memory_bytes == 196'288ull * 1024 * 1024);  // rocm-smi 205,822,885,888 B
}

BOOST_AUTO_TEST_CASE(every_entry_is_complete_and_plausible) {
  for (const auto& a : accelerator_catalog()) {
    BOOST_TEST_CONTEXT(a.name) {
      BOOST_TEST(a.memory_bytes > 0u);
      BOOST_TEST(a.bandwidth_bytes_per_s > 0);
      // A peak the vendor does not state is 0, and the source says so.
      BOOST_TEST((a.bf16_flops > 0 || a.source.find("not stated") != std::string::npos), a.source);
      BOOST_TEST(!a.source.empty());
      BOOST_TEST(!a.interconnect.empty());
      BOOST_TEST(!a.vendor.empty());
      const bool reported = a.memory_basis.rfind("reported", 0) == 0, estimated = a.memory_basis.rfind("estimate", 0) == 0;
      BOOST_TEST((reported || estimated), a.memory_basis);
      // nvidia-smi reports whole MiB.
      if (reported && a.vendor == "NVIDIA") BOOST_TEST(a.memory_bytes % (1024 * 1024) == 0u);
      // The reported capacity is within 10% of the marketing figure (GB vs GiB and reservations).
      const double ratio = static_cast<double>(a.memory_bytes) / static_cast<double>(a.memory_marketing_bytes);
      BOOST_TEST((ratio > 0.9 && ratio < 1.1), ratio);
      // Decode is bandwidth-bound on every one of them: more than 10 FLOPs per byte.
      if (a.bf16_flops > 0) BOOST_TEST(a.bf16_flops / a.bandwidth_bytes_per_s > 10);
    }
  }
}

BOOST_AUTO_TEST_CASE(unknown_gpu_suggests) {
  BOOST_CHECK_EXCEPTION(find_accelerator("H1OO"), InputError, HasMessage({"unknown GPU \"H1OO\"", "did you mean", "H100-SXM-80GB"}));
  BOOST_CHECK_EXCEPTION(find_accelerator("MI30OX"), InputError, HasMessage({"MI300X-192GB"}));
  BOOST_CHECK_EXCEPTION(find_accelerator("zzzzzzzzzzzz"), InputError, HasMessage({"unknown GPU", "kvplan gpus"}));
}

BOOST_AUTO_TEST_CASE(custom_device_from_json) {
  const Accelerator a = accelerator_from_json(
      R"({"name": "MyCard", "memory_bytes": "48GB", "bandwidth_bytes_per_s": 1.2e12, "bf16_flops": 2e14})", "card.json");
  BOOST_TEST(a.name == "MyCard");
  BOOST_TEST(a.memory_bytes == 48'000'000'000ull);
  BOOST_TEST(a.memory_marketing_bytes == 48'000'000'000ull);
  BOOST_TEST(a.bandwidth_bytes_per_s == 1.2e12);
  const Accelerator b = accelerator_from_json(
      R"({"accelerators": [{"name": "X", "memory_bytes": 1073741824, "bandwidth_bytes_per_s": 1e11}]})", "x.json");
  BOOST_TEST(b.memory_bytes == 1073741824u);
  // No bandwidth: a device that plans memory only (no decode-speed figures).
  BOOST_TEST(accelerator_from_json(R"({"name": "X", "memory_bytes": 10})", "x.json").bandwidth_bytes_per_s == 0);
  BOOST_CHECK_EXCEPTION(accelerator_from_json(R"({"name": "X", "memory_bytes": 10, "bandwidth_bytes_per_s": -1})", "x.json"),
                        InputError, HasMessage({"x.json", "bandwidth_bytes_per_s"}));
  BOOST_CHECK_EXCEPTION(accelerator_from_json(R"({"name": "X", "memory_bytes": -5, "bandwidth_bytes_per_s": 1})", "x.json"),
                        InputError, HasMessage({"x.json", "memory_bytes"}));
  BOOST_CHECK_EXCEPTION(accelerator_from_json("{not json", "bad.json"), InputError, HasMessage({"bad.json", "not valid JSON"}));
  BOOST_CHECK_EXCEPTION(accelerator_from_json(R"({"memory_bytes": 10, "bandwidth_bytes_per_s": 1})", "n.json"), InputError,
                        HasMessage({"n.json", "name"}));
}

BOOST_AUTO_TEST_CASE(gpus_to_hold_counts_whole_devices) {
  const auto& h = find_accelerator("H100");
  // Seeds S12: ceil(bytes / 80 GB); against the reported 85.52 GB the count can be smaller.
  BOOST_TEST(gpus_to_hold(80'000'000'000ull, h, CapacityBasis::marketing) == 1u);
  BOOST_TEST(gpus_to_hold(80'000'000'001ull, h, CapacityBasis::marketing) == 2u);
  BOOST_TEST(gpus_to_hold(80'000'000'001ull, h, CapacityBasis::device) == 1u);
  BOOST_TEST(gpus_to_hold(0, h, CapacityBasis::device) == 0u);
  BOOST_TEST(capacity_bytes(h, CapacityBasis::device) == 85'520'809'984ull);
}

BOOST_AUTO_TEST_CASE(catalog_json_round_trips) {
  for (const auto& a : accelerator_catalog()) {
    const Accelerator b = accelerator_from_json(to_json(a).dump(), "roundtrip");
    BOOST_TEST(b.name == a.name);
    BOOST_TEST(b.memory_bytes == a.memory_bytes);
    BOOST_TEST(b.memory_marketing_bytes == a.memory_marketing_bytes);
    BOOST_TEST(b.bandwidth_bytes_per_s == a.bandwidth_bytes_per_s);
  }
}

BOOST_AUTO_TEST_SUITE_END()
