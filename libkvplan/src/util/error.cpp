#include "kvplan/error.h"

#include <algorithm>
#include <string>

#include "kvplan/text.h"

namespace kvplan {

namespace {
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (auto p : parts) s += p;
  return s;
}
std::string mt_suffix(std::string_view model_type) {
  return model_type.empty() ? std::string{} : cat({" [model_type=", model_type, "]"});
}
}  // namespace

namespace {
// Length of the valid UTF-8 sequence starting at s[i] (1-4), or 0 when the bytes there are not
// one (overlong forms, surrogates and code points past U+10FFFF are invalid, as in RFC 3629).
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
  else return 0;
  if (i + n > s.size()) return 0;
  if (b(1) < lo || b(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(k) < 0x80 || b(k) > 0xBF) return 0;
  return n;
}

// A message longer than kMaxMessageBytes keeps its head and its tail (where "expected ..." is).
std::string cap_message(std::string s) {
  if (s.size() <= kMaxMessageBytes) return s;
  const std::size_t tail = kMaxMessageBytes / 4, head = kMaxMessageBytes - tail - 64;
  std::size_t h = head, t = s.size() - tail;
  while (h > 0 && (static_cast<unsigned char>(s[h]) & 0xC0) == 0x80) --h;
  while (t < s.size() && (static_cast<unsigned char>(s[t]) & 0xC0) == 0x80) ++t;
  return s.substr(0, h) + "... (" + std::to_string(t - h) + " bytes cut) ..." + s.substr(t);
}
}  // namespace

std::string escape_control_characters(std::string_view s) {
  static const char* const hex = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  auto put_hex = [&](unsigned char c) {
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 15];
  };
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t n = utf8_sequence(s, i);
      if (n == 0) {
        put_hex(c);
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    ++i;
    if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      put_hex(c);
    }
  }
  return out;
}

bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

namespace {
// True when `s` already is an echo cut to at most `max` bytes: "<head>... (N bytes)", optionally
// inside the quotes a caller put around it. Quoting it again keeps N, the length of the original.
bool already_cut(std::string_view s, std::size_t max) {
  if (!s.empty() && s.back() == '"') s.remove_suffix(1);
  constexpr std::string_view tail = " bytes)", mark = "... (";
  if (!s.ends_with(tail)) return false;
  const std::size_t at = s.rfind(mark);
  if (at == std::string_view::npos || at > max + 1) return false;
  const std::string_view n = s.substr(at + mark.size(), s.size() - tail.size() - at - mark.size());
  return !n.empty() && std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; });
}
}  // namespace

std::string bounded_echo(std::string_view s, std::size_t max) {
  if (s.size() <= max || already_cut(s, max)) return std::string(s);
  std::size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // not inside a character
  return std::string(s.substr(0, n)) + "... (" + std::to_string(s.size()) + " bytes)";
}

Error::Error(const std::string& what) : std::runtime_error(cap_message(escape_control_characters(what))) {}
Error::Error(const char* what) : std::runtime_error(cap_message(escape_control_characters(what ? what : ""))) {}

ConfigError ConfigError::too_deep(std::string_view file, std::size_t limit, std::size_t offset) {
  return ConfigError(cat({file, ": arrays and objects nested deeper than ", std::to_string(limit),
                          " levels (at byte ", std::to_string(offset), "); kvplan reads at most ",
                          std::to_string(limit)}));
}

ConfigError ConfigError::field(std::string_view file, std::string_view pointer, std::string_view expected,
                               std::string_view got, std::string_view model_type) {
  return ConfigError(cat({bounded_echo(file, kMaxPathEchoBytes), " (", pointer.empty() ? "/" : bounded_echo(pointer),
                          "): expected ", expected, ", got ", bounded_echo(got), mt_suffix(bounded_echo(model_type))}));
}

ConfigError ConfigError::parse(std::string_view file, std::string_view detail) {
  return ConfigError(cat({bounded_echo(file, kMaxPathEchoBytes), ": not valid JSON: ", bounded_echo(detail, 1024)}));
}

UnsupportedArchitecture UnsupportedArchitecture::model_type(std::string_view file, std::string_view model_type,
                                                            std::string_view hint) {
  return UnsupportedArchitecture(cat({bounded_echo(file, kMaxPathEchoBytes), " (/model_type): unsupported architecture \"",
                                      bounded_echo(model_type), "\"",
                                      hint.empty() ? "" : "; ", hint}));
}

UnsupportedArchitecture UnsupportedArchitecture::field(std::string_view file, std::string_view model_type,
                                                       std::string_view pointer, std::string_view why) {
  return UnsupportedArchitecture(cat({file, " (", pointer, "): ", why, mt_suffix(model_type)}));
}

InputError InputError::value(std::string_view what, std::string_view got, std::string_view expected) {
  return InputError(cat({bounded_echo(what, kMaxPathEchoBytes), ": expected ", expected, ", got \"", bounded_echo(got), "\""}));
}

InputError InputError::unknown(std::string_view what, std::string_view got, std::string_view suggestion) {
  return InputError(cat({"unknown ", what, " \"", bounded_echo(got), "\"", suggestion.empty() ? "" : "; did you mean ",
                         suggestion, suggestion.empty() ? "" : "?"}));
}

InputError InputError::unknown_model(std::string_view got, std::string_view looked, std::string_view fetch_command,
                                     std::string_view suggestion) {
  return InputError(cat({"unknown model \"", bounded_echo(got), "\" (looked in: ", bounded_echo(looked, 1024), ")",
                         fetch_command.empty() ? "" : "; `", bounded_echo(fetch_command, kMaxPathEchoBytes),
                         fetch_command.empty() ? "" : "` fetches its config", suggestion.empty() ? "" : "; did you mean ",
                         suggestion, suggestion.empty() ? "" : "?"}));
}

InputError InputError::unknown_weights(std::string_view model, std::string_view why, std::string_view option) {
  return InputError(cat({bounded_echo(model, kMaxPathEchoBytes), ": weight bytes unknown (", why, "); give the checkpoint's size with ", option,
                         " (e.g. ", option, " 60GB)"}));
}

FormatError FormatError::at(std::string_view file, std::string_view format, std::uint64_t offset,
                            std::string_view what) {
  return FormatError(cat({bounded_echo(file, kMaxPathEchoBytes), ": ", format, " header at byte ", std::to_string(offset), ": ", what}));
}

OverflowError OverflowError::in(std::string_view what) {
  return OverflowError(cat({"overflow: ", what, " does not fit in 64 bits (inputs are absurdly large)"}));
}

}  // namespace kvplan
