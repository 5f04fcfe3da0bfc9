// Size, token and dtype strings: only kvplan::InputError may escape; parsed values round-trip.
#include <cstdint>
#include <string>

#include "kvplan/kvplan.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto b = kvplan::parse_bytes(text);
    if (kvplan::parse_bytes(std::to_string(b)) != b) __builtin_trap();
    (void)kvplan::format_bytes(b);
  } catch (const kvplan::InputError&) {
  }
  try {
    auto t = kvplan::parse_tokens(text);
    if (kvplan::parse_tokens(std::to_string(t)) != t) __builtin_trap();
  } catch (const kvplan::InputError&) {
  }
  try {
    auto d = kvplan::parse_dtype(text);
    if (kvplan::parse_dtype(kvplan::name(d)) != d) __builtin_trap();
  } catch (const kvplan::InputError&) {
  }
  return 0;
}
