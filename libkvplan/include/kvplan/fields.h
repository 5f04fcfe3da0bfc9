#pragma once
// Option fields as data: the value types every option table shares (the plan/sweep/size request
// tables, kvplan/request.h, and the engine option tables, kvplan/engine_fields.h), and one parse
// function per type. A value is what a face hands over: a string as typed ("32k", "80GB",
// "21,20,20,19", "auto"), a number, a bool or, for lists, an array. Every error is an InputError
// naming the option as the caller spells it (`label`: the CLI flag or the keyword).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvplan {

enum class FieldType {
  count,          // a positive integer
  tokens,         // a token count: 4096, "32k" (0 allowed where the option says what it means)
  bytes,          // a byte count: 123456, "80GB", "1.5GiB"
  memory,         // a device memory size: a number of bytes, or text with a unit ("80GB"; a bare "24" is refused)
  fraction,       // a number in (0, 1]
  rate,           // a non-negative number (bytes/s, FLOP/s)
  dtype,          // a dtype name, "auto" = the model's
  weight_format,  // a dtype or a weight preset (awq, Q4_K_M, ...)
  name,           // a catalog or engine name
  count_list,     // comma-separated positive integers
  token_list,     // comma-separated token counts (an engine's per-layer windows)
  bytes_list,     // comma-separated byte counts (free memory of each GPU: 23.2GiB,11.5GiB)
  text,           // a name in an engine's own vocabulary (the engine's profile checks it: "fp8_e4m3", "FLASHMLA")
  boolean,        // true or false (on the CLI a switch that turns the default over)
};
std::string_view field_type_name(FieldType t);

// How a face names a field in its messages: the CLI flag ("--gpu-memory") or the keyword
// ("gpu_memory", Python and the page).
enum class FieldNaming { cli_flag, keyword };

// What a value of type `t` looks like ("a token count such as 4096, 32k or 128k"), for messages.
std::string_view field_expected(FieldType t);
// A list type (count_list, token_list, bytes_list): the CLI takes several words, the page a list.
bool field_is_list(FieldType t);
// null, "" and [] mean unset: the option keeps its default.
bool field_unset(const nlohmann::json& v);

// One parse function per type (each refuses a negative number and a value of another kind):
// count, tokens, bytes, memory -> an integer;
std::uint64_t field_uint(const nlohmann::json& v, FieldType t, std::string_view label);
// fraction, rate -> a finite number (ranges are the consumer's);
double field_number(const nlohmann::json& v, FieldType t, std::string_view label);
// dtype, weight_format, name, text -> the text as given (the consumer parses the name);
std::string field_text(const nlohmann::json& v, FieldType t, std::string_view label);
// boolean -> true or false (a JSON / Python bool; nothing else);
bool field_bool(const nlohmann::json& v, std::string_view label);
// count_list, token_list, bytes_list -> integers, from an array (of numbers or strings) or
// comma-separated text.
std::vector<std::uint64_t> field_uint_list(const nlohmann::json& v, FieldType t, std::string_view label);

}  // namespace kvplan
