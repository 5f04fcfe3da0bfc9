#include "kvplan/error.h"

#include <string>

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

std::string escape_control_characters(std::string_view s) {
  static const char* const hex = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

Error::Error(const std::string& what) : std::runtime_error(escape_control_characters(what)) {}
Error::Error(const char* what) : std::runtime_error(escape_control_characters(what ? what : "")) {}

ConfigError ConfigError::too_deep(std::string_view file, std::size_t limit, std::size_t offset) {
  return ConfigError(cat({file, ": arrays and objects nested deeper than ", std::to_string(limit),
                          " levels (at byte ", std::to_string(offset), "); kvplan reads at most ",
                          std::to_string(limit)}));
}

ConfigError ConfigError::field(std::string_view file, std::string_view pointer, std::string_view expected,
                               std::string_view got, std::string_view model_type) {
  return ConfigError(cat({file, " (", pointer.empty() ? "/" : pointer, "): expected ", expected, ", got ", got,
                          mt_suffix(model_type)}));
}

ConfigError ConfigError::parse(std::string_view file, std::string_view detail) {
  return ConfigError(cat({file, ": not valid JSON: ", detail}));
}

UnsupportedArchitecture UnsupportedArchitecture::model_type(std::string_view file, std::string_view model_type,
                                                            std::string_view hint) {
  return UnsupportedArchitecture(cat({file, " (/model_type): unsupported architecture \"", model_type, "\"",
                                      hint.empty() ? "" : "; ", hint}));
}

UnsupportedArchitecture UnsupportedArchitecture::field(std::string_view file, std::string_view model_type,
                                                       std::string_view pointer, std::string_view why) {
  return UnsupportedArchitecture(cat({file, " (", pointer, "): ", why, mt_suffix(model_type)}));
}

InputError InputError::value(std::string_view what, std::string_view got, std::string_view expected) {
  return InputError(cat({what, ": expected ", expected, ", got \"", got, "\""}));
}

InputError InputError::unknown(std::string_view what, std::string_view got, std::string_view suggestion) {
  return InputError(cat({"unknown ", what, " \"", got, "\"", suggestion.empty() ? "" : "; did you mean ",
                         suggestion, suggestion.empty() ? "" : "?"}));
}

InputError InputError::unknown_model(std::string_view got, std::string_view looked, std::string_view fetch_command,
                                     std::string_view suggestion) {
  return InputError(cat({"unknown model \"", got, "\" (looked in: ", looked, ")",
                         fetch_command.empty() ? "" : "; `", fetch_command,
                         fetch_command.empty() ? "" : "` fetches its config", suggestion.empty() ? "" : "; did you mean ",
                         suggestion, suggestion.empty() ? "" : "?"}));
}

InputError InputError::unknown_weights(std::string_view model, std::string_view why, std::string_view option) {
  return InputError(cat({model, ": weight bytes unknown (", why, "); give the checkpoint's size with ", option,
                         " (e.g. ", option, " 60GB)"}));
}

FormatError FormatError::at(std::string_view file, std::string_view format, std::uint64_t offset,
                            std::string_view what) {
  return FormatError(cat({file, ": ", format, " header at byte ", std::to_string(offset), ": ", what}));
}

OverflowError OverflowError::in(std::string_view what) {
  return OverflowError(cat({"overflow: ", what, " does not fit in 64 bits (inputs are absurdly large)"}));
}

}  // namespace kvplan
