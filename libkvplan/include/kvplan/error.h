#pragma once
#include <cstdint>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kvplan {

// Every failure the library reports is a kvplan::Error; the CLI maps it to exit code 2 and
// the Python module to kvplan.KvplanError. Messages are built by the named constructors below
// so each wording exists once.
// Control characters in a message (a newline or an ANSI escape taken from a config value or a
// file name) are written as \n, \t, \r or \xNN, so every message stays one line and cannot
// inject lines into a CI log; this holds for every subclass and every constructor.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what);
  explicit Error(const char* what);
};

// `s` with every control character (0x00-0x1F, 0x7F) written as \n, \t, \r or \xNN, and every
// byte that is not part of valid UTF-8 written as \xNN (so a message is always valid UTF-8:
// Python's str, JSON output and terminals take it as it is).
std::string escape_control_characters(std::string_view s);

// Longest part of one user-supplied string (a model id, a GGUF or safetensors string, a trace
// field, a flag value) that a message quotes, and the longest message. Longer strings are cut:
// "<first kMaxEchoBytes bytes>... (N bytes)"; a message past kMaxMessageBytes is cut the same way.
inline constexpr std::size_t kMaxEchoBytes = 200;
inline constexpr std::size_t kMaxMessageBytes = 4096;
inline constexpr std::size_t kMaxPathEchoBytes = 1024;  // a file name or path quoted in a message
// `s` itself when it is at most `max` bytes, else its first `max` bytes (cut at a UTF-8 character
// boundary) followed by "... (N bytes)". Every named constructor below quotes through it.
std::string bounded_echo(std::string_view s, std::size_t max = kMaxEchoBytes);

// A config.json (or other input document) that is malformed or inconsistent.
class ConfigError : public Error {
 public:
  using Error::Error;
  // "<file> (<pointer>): expected <what>, got <got> [model_type=<mt>]"
  static ConfigError field(std::string_view file, std::string_view pointer, std::string_view expected,
                           std::string_view got, std::string_view model_type);
  static ConfigError parse(std::string_view file, std::string_view detail);
  // "<file>: arrays and objects nested deeper than <limit> levels (at byte <offset>); ..."
  static ConfigError too_deep(std::string_view file, std::size_t limit, std::size_t offset);
};

// A model_type (or a field combination) whose cache layout kvplan cannot map with certainty.
class UnsupportedArchitecture : public Error {
 public:
  using Error::Error;
  static UnsupportedArchitecture model_type(std::string_view file, std::string_view model_type,
                                            std::string_view hint);
  static UnsupportedArchitecture field(std::string_view file, std::string_view model_type,
                                       std::string_view pointer, std::string_view why);
};

// A bad value given by the user (flag, option, name): unknown dtype, GPU, model, malformed size.
class InputError : public Error {
 public:
  using Error::Error;
  static InputError value(std::string_view what, std::string_view got, std::string_view expected);
  static InputError unknown(std::string_view what, std::string_view got, std::string_view suggestion);
  // "unknown model "<got>" (looked in: <looked>)[; `<fetch>` fetches its config][; did you mean <s>?]"
  static InputError unknown_model(std::string_view got, std::string_view looked, std::string_view fetch_command,
                                  std::string_view suggestion);
  // A plan or check that needs the model's weight bytes when kvplan cannot derive them:
  // "<model>: weight bytes unknown (<why>); give the checkpoint's size with <option>"
  static InputError unknown_weights(std::string_view model, std::string_view why, std::string_view option);
};

// A binary checkpoint header (safetensors, GGUF) that is malformed, truncated or declares more
// than kvplan accepts: "<file>: <format> header at byte <offset>: <what>".
class FormatError : public Error {
 public:
  using Error::Error;
  static FormatError at(std::string_view file, std::string_view format, std::uint64_t offset, std::string_view what);
};

// A byte count that would not fit in 64 bits: an error, never a wrapped number.
class OverflowError : public Error {
 public:
  using Error::Error;
  static OverflowError in(std::string_view what);
};

}  // namespace kvplan
