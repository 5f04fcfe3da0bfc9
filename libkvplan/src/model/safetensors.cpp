// safetensors headers: an 8-byte little-endian length N, then N bytes of JSON naming every tensor's
// dtype, shape and [begin, end) byte range in the data that follows. kvplan reads the length and
// the JSON only (never tensor data), refuses headers over kMaxSafetensorsHeaderBytes or nested
// deeper than kMaxJsonDepth, and checks each range against the shape and the file size.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "kvplan/checked.h"
#include "kvplan/checkpoint.h"
#include "kvplan/error.h"
#include "kvplan/files.h"
#include "model/tensor_ranges.h"
#include "util/config_view.h"

namespace kvplan {

namespace fs = std::filesystem;
using u64 = std::uint64_t;

namespace {

constexpr std::string_view kSafetensorsFormat = "safetensors";

// Bits per element of safetensors' dtypes (its Dtype enum); 0 = unknown here (no shape check).
u64 dtype_bits(std::string_view d) {
  static const std::pair<std::string_view, u64> kBits[] = {
      {"BOOL", 8},  {"U8", 8},   {"I8", 8},   {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"I16", 16},
      {"U16", 16},  {"F16", 16}, {"BF16", 16}, {"I32", 32},   {"U32", 32},    {"F32", 32},    {"I64", 64},
      {"U64", 64},  {"F64", 64}, {"F4", 4},   {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"C64", 64}};
  for (const auto& [n, b] : kBits)
    if (n == d) return b;
  return 0;
}

// JSON nesting depth, ignoring brackets inside strings; stops counting past `limit`.
u64 json_depth(std::string_view s, u64 limit) {
  u64 depth = 0, deepest = 0;
  bool in_str = false, esc = false;
  for (char c : s) {
    if (in_str) {
      if (esc) esc = false;
      else if (c == '\\') esc = true;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '"') in_str = true;
    else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// "model.layers.12.mlp.down_proj.weight" -> 12; "blk.3.attn_k.weight" -> 3; none -> nullopt.
std::optional<u64> layer_index(std::string_view name) {
  static const std::string_view kParents[] = {"layers", "h", "blocks", "blk", "layer", "block", "decoder_layers"};
  std::size_t b = 0;
  std::string_view prev;
  while (b <= name.size()) {
    std::size_t e = name.find('.', b);
    if (e == std::string_view::npos) e = name.size();
    std::string_view seg = name.substr(b, e - b);
    if (!seg.empty() && seg.size() <= 9 &&
        std::all_of(seg.begin(), seg.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
        std::find(std::begin(kParents), std::end(kParents), prev) != std::end(kParents))
      return std::stoull(std::string(seg));
    prev = seg;
    b = e + 1;
  }
  return std::nullopt;
}

bool routed_expert(std::string_view name) {
  if (name.find("shared_expert") != std::string_view::npos || name.find("_shexp") != std::string_view::npos) return false;
  return name.find(".experts.") != std::string_view::npos || name.find("_exps.") != std::string_view::npos ||
         name.find(".experts_") != std::string_view::npos;
}

}  // namespace

std::vector<CheckpointTensor> parse_safetensors_header(std::string_view json, std::string_view source,
                                                       u64 data_bytes_available) {
  const std::string file(source);
  if (json_depth(json, kMaxJsonDepth) > kMaxJsonDepth)
    throw FormatError::at(file, kSafetensorsFormat, 8, "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw FormatError::at(file, kSafetensorsFormat, 8, "not a JSON object");
  // safetensors' own parser (serde_json into a HashMap) keeps the last of two equal keys;
  // nlohmann does the same, so a duplicated name cannot be seen here and is one tensor.
  const std::string size_what = file + ": safetensors tensor size";
  std::vector<detail::TensorRange> ranges;
  ranges.reserve(j.size());
  std::vector<CheckpointTensor> out;
  out.reserve(j.size());
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const auto& t = it.value();
    const std::string where = "tensor \"" + bounded_echo(it.key()) + "\"";
    if (!t.is_object() || !t.contains("dtype") || !t["dtype"].is_string() || !t.contains("shape") ||
        !t["shape"].is_array() || !t.contains("data_offsets") || !t["data_offsets"].is_array() ||
        t["data_offsets"].size() != 2 || !t["data_offsets"][0].is_number_unsigned() ||
        !t["data_offsets"][1].is_number_unsigned())
      throw FormatError::at(file, kSafetensorsFormat, 8, where + ": expected {dtype, shape, data_offsets: [begin, end]}");
    CheckpointTensor ct;
    ct.name = it.key();
    ct.dtype = t["dtype"].get<std::string>();
    const u64 begin = t["data_offsets"][0].get<u64>(), end = t["data_offsets"][1].get<u64>();
    if (end < begin) throw FormatError::at(file, kSafetensorsFormat, 8, where + ": data_offsets end before begin");
    if (end > data_bytes_available)
      throw FormatError::at(file, kSafetensorsFormat, 8,
                            where + ": data_offsets end " + std::to_string(end) + " past the file's " +
                                std::to_string(data_bytes_available) + " data bytes (truncated file?)");
    ranges.push_back({it.key(), begin, end});
    u64 elements = 1;
    for (const auto& d : t["shape"]) {
      if (!d.is_number_unsigned()) throw FormatError::at(file, kSafetensorsFormat, 8, where + ": shape entries must be non-negative integers");
      elements = checked_mul(elements, d.get<u64>(), size_what);
      ct.shape.push_back(d.get<u64>());
    }
    ct.bytes = end - begin;
    if (const u64 bits = dtype_bits(ct.dtype)) {
      const u64 want = ceil_div(checked_mul(elements, bits, size_what), 8);
      if (want != ct.bytes)
        throw FormatError::at(file, kSafetensorsFormat, 8,
                              where + ": shape and dtype " + ct.dtype + " give " + std::to_string(want) +
                                  " bytes but data_offsets span " + std::to_string(ct.bytes));
    }
    out.push_back(std::move(ct));
  }
  // The keys' string_views point into `j`, alive here.
  detail::validate_tensor_ranges(std::move(ranges), data_bytes_available, file, kSafetensorsFormat, 8);
  return out;
}

std::vector<CheckpointTensor> read_safetensors_header(const fs::path& file, u64* bytes_read) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError::value("model", file.string(), "a readable .safetensors file");
  std::error_code ec;
  const u64 size = fs::file_size(file, ec);
  unsigned char len[8] = {};
  if (ec || size < 8 || !in.read(reinterpret_cast<char*>(len), 8))
    throw FormatError::at(file.string(), kSafetensorsFormat, 0, "file shorter than the 8-byte header length");
  u64 n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  if (n > kMaxSafetensorsHeaderBytes)
    throw FormatError::at(file.string(), kSafetensorsFormat, 0,
                          "header length " + std::to_string(n) + " is over the " +
                              std::to_string(kMaxSafetensorsHeaderBytes) + "-byte limit");
  if (n > size - 8)
    throw FormatError::at(file.string(), kSafetensorsFormat, 0,
                          "header length " + std::to_string(n) + " runs past the end of the " + std::to_string(size) +
                              "-byte file (truncated?)");
  std::string json(static_cast<std::size_t>(n), '\0');
  if (!in.read(json.data(), static_cast<std::streamsize>(n)))
    throw FormatError::at(file.string(), kSafetensorsFormat, 8, "could not read the header");
  if (bytes_read) *bytes_read = checked_add(*bytes_read, 8 + n, "bytes read");
  return parse_safetensors_header(json, file.string(), size - 8 - n);
}

CheckpointWeights sum_checkpoint_tensors(const std::vector<CheckpointTensor>& tensors, u64 num_layers,
                                         std::string source) {
  CheckpointWeights w;
  w.source = std::move(source);
  w.layer_bytes.assign(num_layers, 0);
  w.layer_expert_bytes.assign(num_layers, 0);
  const std::string what = "checkpoint bytes (" + bounded_echo(w.source) + ")";
  for (const auto& t : tensors) {
    ++w.tensor_count;
    const auto layer = layer_index(t.name);
    if (layer && *layer >= num_layers) {
      w.mtp_bytes = checked_add(w.mtp_bytes, t.bytes, what);
      continue;
    }
    w.total_bytes = checked_add(w.total_bytes, t.bytes, what);
    w.bytes_by_dtype[t.dtype] = checked_add(w.bytes_by_dtype[t.dtype], t.bytes, what);
    if (routed_expert(t.name)) {
      w.expert_bytes = checked_add(w.expert_bytes, t.bytes, what);
      if (layer) w.layer_expert_bytes[*layer] = checked_add(w.layer_expert_bytes[*layer], t.bytes, what);
    }
    if (layer) w.layer_bytes[*layer] = checked_add(w.layer_bytes[*layer], t.bytes, what);
    else w.non_layer_bytes = checked_add(w.non_layer_bytes, t.bytes, what);
  }
  return w;
}

CheckpointWeights safetensors_weights(const fs::path& dir, u64 num_layers) {
  std::error_code ec;
  std::vector<fs::path> shards;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.size() > 12 && n.ends_with(".safetensors") && fs::is_regular_file(e.path(), ec)) shards.push_back(e.path());
  }
  std::sort(shards.begin(), shards.end());
  const fs::path index = dir / "model.safetensors.index.json";
  nlohmann::json idx;
  if (fs::is_regular_file(index, ec)) {
    idx = detail::parse_config_text(read_regular_file(index.string(), kMaxSafetensorsHeaderBytes, "model.safetensors.index.json"),
                                    index.string());
    if (!idx.is_object()) throw ConfigError::parse(index.string(), "model.safetensors.index.json is not a JSON object");
  }
  // Headers count when every shard the index names is present (or there is no index).
  bool all_shards = !shards.empty();
  if (all_shards && idx.is_object() && idx.contains("weight_map") && idx["weight_map"].is_object()) {
    for (const auto& [tensor, file] : idx["weight_map"].items()) {
      if (!file.is_string())
        throw ConfigError::field(index.string(), "/weight_map/" + bounded_echo(tensor), "a shard file name", detail::describe_json(file), "");
      // The containment rule (kvplan/files.h): a shard lies in the checkpoint folder.
      if (!contained_path(dir, file.get<std::string>()))
        throw ConfigError::field(index.string(), "/weight_map/" + bounded_echo(tensor), "a shard file inside " + dir.string(),
                                 detail::describe_json(file) + " (it resolves outside the folder; refused)", "");
      if (!fs::is_regular_file(dir / file.get<std::string>(), ec)) {
        all_shards = false;
        break;
      }
    }
  }
  if (all_shards) {
    std::vector<CheckpointTensor> tensors;
    u64 read = 0;
    std::unordered_set<std::string> seen;
    for (const auto& s : shards) {
      auto part = read_safetensors_header(s, &read);
      for (const auto& t : part)
        if (!seen.insert(t.name).second)
          throw FormatError::at(s.string(), kSafetensorsFormat, 8,
                                "tensor \"" + bounded_echo(t.name) + "\" is also in another shard (tensor names are unique)");
      tensors.insert(tensors.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    }
    auto w = sum_checkpoint_tensors(tensors, num_layers,
                                    "safetensors headers (" + std::to_string(shards.size()) +
                                        (shards.size() == 1 ? " file)" : " files)"));
    w.header_bytes_read = read;
    return w;
  }
  if (idx.is_object()) {
    const auto& meta = idx.contains("metadata") ? idx["metadata"] : nlohmann::json();
    if (!meta.is_object() || !meta.contains("total_size") || !meta["total_size"].is_number_unsigned())
      throw ConfigError::field(index.string(), "/metadata/total_size", "a non-negative integer (bytes)",
                               meta.is_object() && meta.contains("total_size") ? meta["total_size"].dump() : "nothing",
                               "");
    CheckpointWeights w;
    w.source = "model.safetensors.index.json (metadata.total_size)";
    w.total_bytes = meta["total_size"].get<u64>();
    w.exact = false;
    return w;
  }
  return {};
}

}  // namespace kvplan
