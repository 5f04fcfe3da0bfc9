#pragma once
#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "kvplan/error.h"

namespace kvplan {

// Byte arithmetic is unsigned 64-bit and checked: overflow throws OverflowError naming what
// was being computed.
inline std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, std::string_view what = "byte count") {
  std::uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw OverflowError::in(what);
  return r;
}

inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, std::string_view what = "byte count") {
  std::uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw OverflowError::in(what);
  return r;
}

inline std::uint64_t checked_product(std::initializer_list<std::uint64_t> factors,
                                     std::string_view what = "byte count") {
  std::uint64_t r = 1;
  for (auto f : factors) r = checked_mul(r, f, what);
  return r;
}

inline constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

}  // namespace kvplan
