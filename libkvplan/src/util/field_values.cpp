// One parse function per option type (kvplan/fields.h), shared by the request parser
// (planner/request_parse.cpp) and the engine option tables (engines/engine_fields.cpp).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "kvplan/error.h"
#include "kvplan/fields.h"
#include "kvplan/units.h"

namespace kvplan {

namespace {
using json = nlohmann::json;

std::string shown(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// No option takes a negative number (the CLI's own rule for every numeric flag, cli/main.cpp); so
// after this check an integer of either JSON kind (signed or unsigned) is read as unsigned.
void refuse_negative(const json& v, std::string_view label) {
  bool negative = false;
  if (v.is_number()) {
    negative = v.get<double>() < 0;
  } else if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    const std::size_t b = s.find_first_not_of(" \t");
    negative = b != std::string::npos && s[b] == '-';
  }
  if (negative) throw InputError::value(label, shown(v), "a non-negative number");
}

std::uint64_t to_count(const json& v, FieldType t, std::string_view label) {
  refuse_negative(v, label);
  std::uint64_t n = 0;
  if (v.is_number_integer()) {
    n = v.get<std::uint64_t>();
  } else if (v.is_string() && !v.get_ref<const std::string&>().empty() &&
             v.get_ref<const std::string&>().find_first_not_of("0123456789") == std::string::npos) {
    const std::string& s = v.get_ref<const std::string&>();
    errno = 0;
    const unsigned long long parsed = std::strtoull(s.c_str(), nullptr, 10);
    if (errno == ERANGE) throw OverflowError::in(label);
    n = parsed;
  } else {
    throw InputError::value(label, shown(v), field_expected(t));
  }
  if (n == 0) throw InputError::value(label, shown(v), field_expected(t));
  return n;
}
}  // namespace

std::string_view field_type_name(FieldType t) {
  switch (t) {
    case FieldType::count: return "count";
    case FieldType::tokens: return "tokens";
    case FieldType::bytes: return "bytes";
    case FieldType::memory: return "memory";
    case FieldType::fraction: return "fraction";
    case FieldType::rate: return "rate";
    case FieldType::dtype: return "dtype";
    case FieldType::weight_format: return "weight_format";
    case FieldType::name: return "name";
    case FieldType::count_list: return "count_list";
    case FieldType::token_list: return "token_list";
    case FieldType::bytes_list: return "bytes_list";
    case FieldType::text: return "text";
    case FieldType::boolean: return "boolean";
  }
  return "unknown";
}

std::string_view field_expected(FieldType t) {
  switch (t) {
    case FieldType::count: return "a positive whole number";
    case FieldType::tokens: return "a token count such as 4096, 32k or 128k";
    case FieldType::bytes: return "a byte count such as 123456, 80GB or 1.5GiB";
    case FieldType::memory: return "a memory size with a unit such as 80GB or 24GiB";
    case FieldType::fraction: return "a number in (0, 1] such as 0.9";
    case FieldType::rate: return "a number such as 3.35e12";
    case FieldType::dtype: return "a dtype name such as bf16, or auto";
    case FieldType::weight_format: return "a dtype or preset name such as bf16 or awq, or auto";
    case FieldType::name: return "a name";
    case FieldType::count_list: return "comma-separated positive whole numbers such as 21,20,20,19";
    case FieldType::token_list: return "comma-separated token counts such as 4096,4096,0";
    case FieldType::bytes_list: return "comma-separated byte counts such as 23.2GiB,11.5GiB";
    case FieldType::text: return "a name";
    case FieldType::boolean: return "true or false";
  }
  return "a value";
}

bool field_is_list(FieldType t) {
  return t == FieldType::count_list || t == FieldType::token_list || t == FieldType::bytes_list;
}

bool field_unset(const json& v) {
  return v.is_null() || (v.is_string() && v.get_ref<const std::string&>().empty()) || (v.is_array() && v.empty());
}

std::uint64_t field_uint(const json& v, FieldType t, std::string_view label) {
  refuse_negative(v, label);
  switch (t) {
    case FieldType::count: return to_count(v, t, label);
    case FieldType::tokens:
    case FieldType::bytes:
    case FieldType::memory:
      if (v.is_number_integer()) return v.get<std::uint64_t>();
      if (v.is_string()) {
        const std::string& s = v.get_ref<const std::string&>();
        if (t == FieldType::tokens) return parse_tokens(s, label);
        if (t == FieldType::memory) return parse_memory_size(s, label);
        return parse_bytes(s, label);
      }
      throw InputError::value(label, shown(v), field_expected(t));
    default: throw InputError::value(label, shown(v), field_expected(t));
  }
}

double field_number(const json& v, FieldType t, std::string_view label) {
  refuse_negative(v, label);
  double d = 0;
  if (v.is_number() && !v.is_boolean()) {
    d = v.get<double>();
  } else if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    char* end = nullptr;
    d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || s.empty()) throw InputError::value(label, s, field_expected(t));
  } else {
    throw InputError::value(label, shown(v), field_expected(t));
  }
  if (!std::isfinite(d)) throw InputError::value(label, shown(v), "a finite number");  // ranges: the consumer's
  return d;
}

std::string field_text(const json& v, FieldType t, std::string_view label) {
  if (!v.is_string()) throw InputError::value(label, v.dump(), field_expected(t));
  return v.get<std::string>();
}

bool field_bool(const json& v, std::string_view label) {
  if (!v.is_boolean()) throw InputError::value(label, shown(v), field_expected(FieldType::boolean));
  return v.get<bool>();
}

std::vector<std::uint64_t> field_uint_list(const json& v, FieldType t, std::string_view label) {
  // Each element is read as the list's element type: a count list holds counts, a token list tokens.
  const FieldType element = t == FieldType::token_list ? FieldType::tokens : t == FieldType::bytes_list ? FieldType::bytes : FieldType::count;
  auto one = [&](const json& e) {
    if (element == FieldType::count) return to_count(e, t, label);
    refuse_negative(e, label);
    if (e.is_number_integer()) return e.get<std::uint64_t>();
    if (e.is_string()) {
      const std::string& s = e.get_ref<const std::string&>();
      return element == FieldType::tokens ? parse_tokens(s, label) : parse_bytes(s, label);
    }
    throw InputError::value(label, shown(e), field_expected(t));
  };
  std::vector<std::uint64_t> out;
  if (v.is_array()) {
    for (const auto& e : v) out.push_back(one(e));
  } else if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    std::size_t start = 0;
    while (start <= s.size()) {
      const std::size_t comma = std::min(s.find(',', start), s.size());
      out.push_back(one(json(s.substr(start, comma - start))));
      start = comma + 1;
    }
  } else {
    throw InputError::value(label, shown(v), field_expected(t));
  }
  return out;
}

}  // namespace kvplan
