// config.json parser + mapping + sizing on arbitrary bytes: only kvplan::Error may escape.
#include <cstdint>
#include <string_view>

#include "kvplan/kvplan.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    kvplan::LoadOptions opts;
    if (size % 2) opts.assume = {"dense"};
    auto m = kvplan::load_model_from_json(text, "fuzz.json", opts);
    kvplan::Workload w;
    w.tokens = size * 977;
    w.batch = 1 + size % 7;
    w.tp = 1 + size % 16;
    auto s = kvplan::cache_size(m, w);
    if (s.total_bytes != s.kv_bytes + s.state_bytes) __builtin_trap();
    (void)kvplan::to_json(s).dump();
    (void)kvplan::to_json(m).dump();
  } catch (const kvplan::Error&) {
  }
  return 0;
}
