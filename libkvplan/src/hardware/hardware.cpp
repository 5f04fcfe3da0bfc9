#include "util/config_view.h"
#include "kvplan/hardware.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <nlohmann/json.hpp>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/text.h"
#include "kvplan/units.h"

namespace kvplan {

namespace detail {
std::string_view gpu_catalog_json();  // generated from data/gpus.json (libkvplan/CMakeLists.txt)
}

namespace {

// "H100 SXM", "h100-sxm" and "H100_SXM" are the same key.
std::string key_of(std::string_view s) {
  std::string r;
  for (char c : s)
    if (c != '-' && c != '_' && c != ' ') r.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return r;
}

using nlohmann::json;

std::string where(std::string_view source, std::string_view name, std::string_view key) {
  std::string s(source);
  if (!name.empty()) s += " (" + std::string(name) + ")";
  return s + ": field \"" + std::string(key) + "\"";
}

double positive_number(const json& e, std::string_view source, std::string_view name, const char* key, bool required) {
  if (!e.contains(key)) {
    if (required) throw InputError::value(where(source, name, key), "nothing (field missing)", "a positive number");
    return 0;
  }
  const auto& v = e.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 ||
      (required && v.get<double>() == 0))
    throw InputError::value(where(source, name, key), detail::describe_json(v), required ? "a positive number" : "a number >= 0");
  return v.get<double>();
}

std::string text(const json& e, const char* key) {
  if (!e.contains(key)) return {};
  const auto& v = e.at(key);
  return v.is_string() ? v.get<std::string>() : detail::describe_json(v);
}

std::uint64_t byte_field(const json& e, std::string_view source, std::string_view name, const char* key, bool required) {
  if (!e.contains(key)) {
    if (required) throw InputError::value(where(source, name, key), "nothing (field missing)", "a byte count");
    return 0;
  }
  const auto& v = e.at(key);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > 0) return v.get<std::uint64_t>();
  if (v.is_string()) {
    // "0GB" parses, but a device with no memory is not a device (found by fuzz_gpus).
    const std::uint64_t b = parse_bytes(v.get<std::string>(), where(source, name, key), ByteRounding::down);  // a capacity
    if (b > 0) return b;
  }
  throw InputError::value(where(source, name, key), detail::describe_json(v), "a positive byte count (integer or \"80GB\")");
}

Accelerator parse_entry(const json& e, std::string_view source) {
  if (!e.is_object()) throw InputError::value(std::string(source), detail::describe_json(e).substr(0, 40), "a JSON object describing one accelerator");
  Accelerator a;
  if (!e.contains("name") || !e.at("name").is_string() || e.at("name").get<std::string>().empty())
    throw InputError::value(where(source, "", "name"), e.contains("name") ? detail::describe_json(e.at("name")) : "nothing", "a device name");
  a.name = e.at("name").get<std::string>();
  if (e.contains("aliases")) {
    if (!e.at("aliases").is_array()) throw InputError::value(where(source, a.name, "aliases"), detail::describe_json(e.at("aliases")), "an array of names");
    for (const auto& x : e.at("aliases")) {
      if (!x.is_string()) throw InputError::value(where(source, a.name, "aliases"), detail::describe_json(x), "a name");
      a.aliases.push_back(x.get<std::string>());
    }
  }
  a.vendor = text(e, "vendor");
  a.memory_bytes = byte_field(e, source, a.name, "memory_bytes", true);
  a.memory_basis = e.contains("memory_basis") ? text(e, "memory_basis") : "given by " + std::string(source);
  a.memory_marketing = text(e, "memory_marketing");
  a.memory_marketing_bytes = byte_field(e, source, a.name, "memory_marketing_bytes", false);
  if (a.memory_marketing_bytes == 0) a.memory_marketing_bytes = a.memory_bytes;
  if (a.memory_marketing.empty()) a.memory_marketing = format_gb(a.memory_marketing_bytes, 0);
  // Optional: a device without a bandwidth still plans memory; it only has no decode-speed figures.
  a.bandwidth_bytes_per_s = positive_number(e, source, a.name, "bandwidth_bytes_per_s", false);
  a.bf16_flops = positive_number(e, source, a.name, "bf16_flops", false);
  a.fp8_flops = positive_number(e, source, a.name, "fp8_flops", false);
  a.fp4_flops = positive_number(e, source, a.name, "fp4_flops", false);
  if (e.contains("bf16")) {
    if (!e.at("bf16").is_boolean()) throw InputError::value(where(source, a.name, "bf16"), detail::describe_json(e.at("bf16")), "true or false");
    a.bf16 = e.at("bf16").get<bool>();
  }
  a.interconnect = text(e, "interconnect");
  a.interconnect_bytes_per_s = positive_number(e, source, a.name, "interconnect_bytes_per_s", false);
  a.source = e.contains("source") ? text(e, "source") : std::string(source);
  if (e.contains("runtime_total_gib")) {
    const auto& v = e.at("runtime_total_gib");
    const auto expected = "an array of totals in GiB as an engine log prints them (e.g. [23.54, 23.58])";
    if (!v.is_array() || v.empty()) throw InputError::value(where(source, a.name, "runtime_total_gib"), detail::describe_json(v), expected);
    for (const auto& x : v) {
      if (!x.is_number() || !(x.get<double>() > 0) || !(x.get<double>() < 1.0e6))
        throw InputError::value(where(source, a.name, "runtime_total_gib"), detail::describe_json(x), expected);
      a.runtime_total_centigib.push_back(static_cast<std::uint64_t>(std::llround(x.get<double>() * 100.0)));
    }
    if (!e.contains("runtime_total_source"))
      throw InputError::value(where(source, a.name, "runtime_total_source"), "nothing (field missing)", "where the logged totals come from");
    a.runtime_total_source = text(e, "runtime_total_source");
  }
  if (e.contains("shared")) {
    a.shared = text(e, "shared");
    if (a.shared != "desktop" && a.shared != "unified")
      throw InputError::value(where(source, a.name, "shared"), a.shared, "\"desktop\" or \"unified\"");
  }
  return a;
}

}  // namespace

const std::vector<Accelerator>& accelerator_catalog() {
  static const std::vector<Accelerator> catalog = [] {
    std::vector<Accelerator> out;
    const json doc = json::parse(detail::gpu_catalog_json());
    for (const auto& e : doc.at("accelerators")) out.push_back(parse_entry(e, "data/gpus.json"));
    return out;
  }();
  return catalog;
}

namespace {
// nvidia-smi / rocm-smi print "NVIDIA GeForce RTX 3090", "Tesla T4", "AMD Instinct MI210": the
// vendor and brand words are dropped before the look-up.
std::string without_brand(std::string key) {
  for (bool again = true; again;) {
    again = false;
    for (std::string_view p : {"nvidia", "geforce", "tesla", "amd", "instinct", "radeon", "intel", "apple"})
      if (key.size() > p.size() && key.compare(0, p.size(), p) == 0) {
        key.erase(0, p.size());
        again = true;
      }
  }
  return key;
}

const Accelerator* lookup(const std::string& key) {
  for (const auto& a : accelerator_catalog()) {
    if (key_of(a.name) == key) return &a;
    for (const auto& al : a.aliases)
      if (key_of(al) == key) return &a;
  }
  return nullptr;
}
}  // namespace

MemoryBand runtime_memory_band(const Accelerator& a) {
  MemoryBand b;
  const std::uint64_t m = a.memory_bytes;
  auto less = [](std::uint64_t x, std::uint64_t d) { return x > d ? x - d : 0; };
  const std::string& basis = a.memory_basis;
  if (basis.rfind("given", 0) == 0) {
    b = {m, m, "given: " + basis};
  } else if (!a.runtime_total_centigib.empty()) {
    // Totals the runtime printed (to 0.01 GiB) in public logs: the band of their rounding.
    const auto [lo, hi] = std::minmax_element(a.runtime_total_centigib.begin(), a.runtime_total_centigib.end());
    b = {checked_mul(2 * *lo - 1, GiB) / 200, checked_mul(2 * *hi + 1, GiB) / 200,
         "the runtime's total as engines logged it (" + a.runtime_total_source + ")"};
  } else if (basis.find("nvidia-smi") != std::string::npos && basis.rfind("reported", 0) == 0) {
    // CUDA's total (cudaMemGetInfo, torch.cuda.mem_get_info) is below nvidia-smi's memory.total
    // by the driver's reservation: 561 MiB on an H100 80GB, 582 MiB on an L40S (docs/engines.md).
    // Typical: 550 MiB (H100 80GB) and 582 MiB (L40S) logged.
    b = {less(m, GiB), less(m, 384 * MiB), "nvidia-smi total less the driver's reservation (384 MiB to 1 GiB)", less(m, 576 * MiB)};
  } else if (a.vendor == "Apple") {
    // Metal's recommendedMaxWorkingSetSize is about 75% of unified memory (less on small machines).
    b = {m / 100 * 65, m / 100 * 75, "unified memory x Metal's working-set limit (65% to 75%)"};
  } else if (basis.rfind("reported", 0) == 0) {
    b = {less(m, GiB), m, "reported total less up to 1 GiB the runtime keeps"};
  } else {
    // An estimate from the datasheet: anywhere from the decimal figure less 1 GiB up to the GiB reading.
    b = {less(std::min(m, a.memory_marketing_bytes ? a.memory_marketing_bytes : m), GiB), m,
         "datasheet estimate (decimal GB less 1 GiB to the figure read as GiB)"};
  }
  return b;
}

MemoryBand other_processes_band(const Accelerator& a) {
  // The high ends are what public logs showed in use by others when the engine started or failed:
  // 1.68 GiB on a desktop RTX 3090 (TheBuccaneer/vllm-offload-profiles, the sampler warm-up OOM:
  // 23.54 GiB total, 21.72 GiB vLLM, 0.14 GiB free), 7.60 GiB of a GB10's 121.63 GiB
  // (ryangu00/dell-pro-max-gb10-kvbm-ssd-kv-cache: "Free memory on device (114.03/121.63 GiB)").
  if (a.shared == "desktop") return {0, 1792 * MiB, "a desktop card: the display and other applications (0 to 1.75 GiB)"};
  if (a.shared == "unified") return {0, 8 * GiB, "unified memory: the OS and other applications (0 to 8 GiB)"};
  return {0, 0, "a datacenter card: the engine alone"};
}

bool is_blackwell(const Accelerator& gpu) {
  const std::string n = ascii_upper(gpu.name);  // case-insensitive: a custom device (--gpu-file) may spell it "b200"
  return n.find("B200") != std::string::npos || n.find("B100") != std::string::npos || n.find("B300") != std::string::npos;
}

const Accelerator& find_accelerator(std::string_view name) {
  const std::string key = key_of(name);
  const auto& cat = accelerator_catalog();
  if (const Accelerator* a = lookup(key)) return *a;
  if (const Accelerator* a = lookup(without_brand(key))) return *a;
  // "did you mean": the closest canonical names by edit distance on names and aliases, plus
  // any entry whose key contains what was typed.
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& a : cat) {
    const std::size_t close = std::max<std::size_t>(2, key.size() / 3);
    std::size_t d = edit_distance(key, key_of(a.name), close);
    for (const auto& al : a.aliases) d = std::min(d, edit_distance(key, key_of(al), close));
    if (key.size() >= 2 && key_of(a.name).find(key) != std::string::npos) d = 0;
    if (d <= close) scored.emplace_back(d, a.name);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string suggestion;
  for (std::size_t i = 0; i < scored.size() && i < 3; ++i) suggestion += (i ? ", " : "") + scored[i].second;
  if (suggestion.empty()) suggestion = "one of `kvplan gpus`";
  throw InputError::unknown("GPU", name, suggestion);
}

std::vector<const Accelerator*> accelerators_of_family(std::string_view family) {
  std::vector<const Accelerator*> out;
  const std::string f = ascii_upper(family);
  if (f.empty()) return out;
  for (const auto& a : accelerator_catalog()) {
    const std::string n = ascii_upper(a.name);
    if (n.size() > f.size() && n.compare(0, f.size(), f) == 0 && n[f.size()] == '-') out.push_back(&a);
  }
  return out;
}

Accelerator accelerator_from_json(std::string_view json_text, std::string_view source) {
  json doc;
  detail::check_json_depth(json_text, source);
  try {
    doc = json::parse(json_text);
  } catch (const json::exception& e) {
    throw InputError(std::string(source) + ": not valid JSON: " + e.what());
  }
  if (doc.is_object() && doc.contains("accelerators")) {
    const auto& arr = doc.at("accelerators");
    if (!arr.is_array() || arr.size() != 1)
      throw InputError::value(where(source, "", "accelerators"), arr.is_array() ? std::to_string(arr.size()) + " entries" : detail::describe_json(arr),
                              "exactly one accelerator");
    return parse_entry(arr.at(0), source);
  }
  return parse_entry(doc, source);
}

std::uint64_t capacity_bytes(const Accelerator& a, CapacityBasis basis) {
  return basis == CapacityBasis::marketing ? a.memory_marketing_bytes : a.memory_bytes;
}

std::uint64_t gpus_to_hold(std::uint64_t bytes, const Accelerator& a, CapacityBasis basis) {
  const std::uint64_t cap = capacity_bytes(a, basis);
  if (cap == 0) throw InputError::value("GPU " + a.name + " memory", "0", "a positive capacity");
  return ceil_div(bytes, cap);
}

}  // namespace kvplan
