#include "kvplan/units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/text.h"

namespace kvplan {

namespace {

struct Number {
  std::uint64_t whole = 0;      // integer part
  std::uint64_t frac = 0;       // fractional digits as an integer
  std::uint64_t frac_scale = 1; // 10^digits
  std::string_view rest;        // unit suffix
};

// Digits with an optional fraction; no sign, no exponent, no hex.
bool parse_number(std::string_view s, Number& n) {
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  std::size_t start = i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    if (__builtin_mul_overflow(n.whole, 10u, &n.whole) || __builtin_add_overflow(n.whole, s[i] - '0', &n.whole))
      return false;
    ++i;
  }
  bool any = i > start;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (n.frac_scale >= 1'000'000'000'000ull) return false;  // 12 fractional digits is plenty
      n.frac = n.frac * 10 + (s[i] - '0');
      n.frac_scale *= 10;
      any = true;
      ++i;
    }
  }
  while (i < s.size() && s[i] == ' ') ++i;
  n.rest = s.substr(i);
  while (!n.rest.empty() && n.rest.back() == ' ') n.rest.remove_suffix(1);
  return any;
}

// whole.frac * mult, exact. A fractional result is an error unless `round` says which way
// (nullptr: no rounding; true: up; false: down).
bool scale(const Number& n, std::uint64_t mult, std::uint64_t& out, const bool* round_up = nullptr) {
  std::uint64_t a;
  if (__builtin_mul_overflow(n.whole, mult, &a)) return false;
  unsigned __int128 f = static_cast<unsigned __int128>(n.frac) * mult;
  unsigned __int128 part = f / n.frac_scale;
  if (f % n.frac_scale != 0) {
    if (!round_up) return false;
    if (*round_up) ++part;
  }
  unsigned __int128 total = static_cast<unsigned __int128>(a) + part;
  if (total > UINT64_MAX) return false;
  out = static_cast<std::uint64_t>(total);
  return true;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

std::uint64_t parse_bytes(std::string_view text, std::string_view what, ByteRounding rounding) {
  Number n;
  const char* expected = "a byte count such as 123456, 512MiB, 1.5GiB or 80GB";
  if (!parse_number(text, n)) throw InputError::value(what, text, expected);
  std::string u = ascii_lower(n.rest);
  std::uint64_t mult = 0;
  if (u.empty() || u == "b") mult = 1;
  else if (u == "kb" || u == "k") mult = KB;
  else if (u == "mb" || u == "m") mult = MB;
  else if (u == "gb" || u == "g") mult = GB;
  else if (u == "tb" || u == "t") mult = TB;
  else if (u == "kib") mult = KiB;
  else if (u == "mib") mult = MiB;
  else if (u == "gib") mult = GiB;
  else if (u == "tib") mult = TiB;
  else throw InputError::value(what, text, expected);
  std::uint64_t out;
  const bool up = rounding == ByteRounding::up;
  if (!scale(n, mult, out, mult > 1 ? &up : nullptr))
    throw InputError::value(what, text, "a whole number of bytes that fits in 64 bits");
  return out;
}

std::uint64_t parse_memory_size(std::string_view text, std::string_view what) {
  Number n;
  if (!parse_number(text, n) || n.rest.empty() || ascii_lower(n.rest) == "b")
    throw InputError::value(what, text, "a size with a unit such as 24GB, 80GiB or 512MiB (a bare number is not a memory size)");
  return parse_bytes(text, what, ByteRounding::down);
}

std::uint64_t parse_tokens(std::string_view text, std::string_view what) {
  Number n;
  const char* expected = "a token count such as 4096, 32k (32,768), 128k or 1M (1,048,576)";
  if (!parse_number(text, n)) throw InputError::value(what, text, expected);
  std::string u = ascii_lower(n.rest);
  std::uint64_t mult = 0;
  if (u.empty()) mult = 1;
  else if (u == "k") mult = 1024;
  else if (u == "m") mult = 1024 * 1024;
  else throw InputError::value(what, text, expected);
  std::uint64_t out;
  if (!scale(n, mult, out)) throw InputError::value(what, text, "a whole number of tokens");
  return out;
}

std::string format_gb(std::uint64_t bytes, int decimals) { return fixed(static_cast<double>(bytes) / 1e9, decimals) + " GB"; }
std::string format_gib(std::uint64_t bytes, int decimals) {
  return fixed(static_cast<double>(bytes) / static_cast<double>(GiB), decimals) + " GiB";
}

std::string format_signed_gib(std::int64_t b) {
  return b < 0 ? "-" + format_gib(static_cast<std::uint64_t>(-(b + 1)) + 1) : format_gib(static_cast<std::uint64_t>(b));
}
std::string format_mib(std::uint64_t bytes, int decimals) {
  return fixed(static_cast<double>(bytes) / static_cast<double>(MiB), decimals) + " MiB";
}

std::string format_bytes(std::uint64_t bytes) {
  if (bytes < KB) return std::to_string(bytes) + " B";
  if (bytes < MB) return fixed(static_cast<double>(bytes) / 1e3, 2) + " KB (" + fixed(static_cast<double>(bytes) / KiB, 2) + " KiB)";
  if (bytes < GB) return fixed(static_cast<double>(bytes) / 1e6, 2) + " MB (" + format_mib(bytes) + ")";
  return format_gb(bytes) + " (" + format_gib(bytes) + ")";
}

std::string format_count(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  int c = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (c && c % 3 == 0) out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++c;
  }
  return out;
}

std::string format_count(std::uint64_t n, std::string_view singular, std::string_view plural) {
  std::string out = format_count(n) + " ";
  if (n == 1) return out.append(singular);
  return plural.empty() ? out.append(singular).append("s") : out.append(plural);
}

std::string format_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string format_llama_mib(std::uint64_t bytes) {
  // llama.cpp: (float)bytes / (1024.0f * 1024.0f) printed with %7.2f.
  char buf[64];
  const float mib = static_cast<float>(bytes) / (1024.0f * 1024.0f);
  std::snprintf(buf, sizeof buf, "%7.2f", static_cast<double>(mib));
  return buf;
}

}  // namespace kvplan
