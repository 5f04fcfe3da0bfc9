#include "common.h"

#include <cmath>
#include <limits>

#include "kvplan/error.h"
#include "kvplan/files.h"
#include "kvplan/units.h"

namespace kvplan::py {

namespace {
// Set by the pure-Python package: the dict subclass with attribute access used for records.
pyb::object& record_type() {
  static pyb::object* t = new pyb::object();  // leaked on purpose: outlives interpreter teardown order
  return *t;
}

std::string repr_of(pyb::handle h) { return pyb::str(pyb::repr(h)).cast<std::string>(); }
}  // namespace

pyb::str utf8_str(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (!o) throw pyb::error_already_set();
  return pyb::reinterpret_steal<pyb::str>(o);
}

void set_record_type(pyb::object t) { record_type() = std::move(t); }

pyb::object to_python(const nlohmann::json& j) {
  using T = nlohmann::json::value_t;
  switch (j.type()) {
    case T::null: return pyb::none();
    case T::boolean: return pyb::bool_(j.get<bool>());
    case T::number_unsigned: return pyb::int_(j.get<std::uint64_t>());
    case T::number_integer: return pyb::int_(j.get<std::int64_t>());
    case T::number_float: return pyb::float_(j.get<double>());
    case T::string: return utf8_str(j.get_ref<const std::string&>());
    case T::array: {
      pyb::list out(j.size());
      for (std::size_t i = 0; i < j.size(); ++i) out[i] = to_python(j[i]);
      return out;
    }
    case T::object: {
      pyb::dict d;
      for (const auto& [k, v] : j.items()) d[utf8_str(k)] = to_python(v);
      if (record_type()) return record_type()(d);
      return d;
    }
    case T::binary:
    case T::discarded: break;
  }
  return pyb::none();
}

namespace {
nlohmann::json from_python_at(pyb::handle h, const std::string& what, std::size_t depth) {
  if (h.is_none()) return nullptr;
  if (pyb::isinstance<pyb::bool_>(h)) return h.cast<bool>();
  if (pyb::isinstance<pyb::int_>(h)) {
    // Python ints are unbounded: outside [-2^63, 2^64) no JSON number holds them, and pybind11's
    // cast would raise RuntimeError "Unable to cast".
    const auto i = h.cast<pyb::int_>();
    if (i < pyb::int_(std::numeric_limits<std::int64_t>::min()) ||
        i > pyb::int_(std::numeric_limits<std::uint64_t>::max()))
      throw InputError::value(what, repr_of(h), "an integer in [-2^63, 2^64)");
    if (i < pyb::int_(0)) return h.cast<std::int64_t>();
    return h.cast<std::uint64_t>();
  }
  if (pyb::isinstance<pyb::float_>(h)) return h.cast<double>();
  if (pyb::isinstance<pyb::str>(h)) return py_text(h, what.c_str());
  const bool container = pyb::isinstance<pyb::dict>(h) || pyb::isinstance<pyb::list>(h) || pyb::isinstance<pyb::tuple>(h);
  // The same bound as for JSON text; it also stops a dict or list that contains itself.
  if (container && depth >= kMaxJsonDepth)
    throw ConfigError(what + ": dicts and lists nested deeper than " + std::to_string(kMaxJsonDepth) +
                      " levels (or containing themselves); kvplan reads at most " + std::to_string(kMaxJsonDepth));
  if (pyb::isinstance<pyb::dict>(h)) {
    nlohmann::json o = nlohmann::json::object();
    for (auto [k, v] : h.cast<pyb::dict>()) {
      if (!pyb::isinstance<pyb::str>(k)) throw InputError::value(what, repr_of(k), "string keys");
      o[py_text(k, what.c_str())] = from_python_at(v, what, depth + 1);
    }
    return o;
  }
  if (pyb::isinstance<pyb::list>(h) || pyb::isinstance<pyb::tuple>(h)) {
    nlohmann::json a = nlohmann::json::array();
    for (auto v : h) a.push_back(from_python_at(v, what, depth + 1));
    return a;
  }
  throw InputError::value(what, repr_of(h), "JSON-like data (dict, list, str, int, float, bool, None)");
}
}  // namespace

nlohmann::json from_python(pyb::handle h, const std::string& what) { return from_python_at(h, what, 0); }

namespace {
// An int (numpy integers included) that is >= 0, else an InputError naming `what`.
std::optional<std::uint64_t> as_uint(pyb::handle h, const char* what) {
  if (pyb::isinstance<pyb::bool_>(h)) return std::nullopt;
  pyb::object idx;
  if (pyb::isinstance<pyb::int_>(h)) {
    idx = pyb::reinterpret_borrow<pyb::object>(h);
  } else if (pyb::hasattr(h, "__index__")) {
    try {
      idx = h.attr("__index__")();
    } catch (const pyb::error_already_set&) {
      return std::nullopt;
    }
    if (!pyb::isinstance<pyb::int_>(idx)) return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (idx.cast<pyb::int_>() < pyb::int_(0))
    throw InputError::value(what, repr_of(h), "a non-negative integer");
  if (idx.cast<pyb::int_>() > pyb::int_(std::numeric_limits<std::uint64_t>::max()))
    throw OverflowError::in(what);
  return idx.cast<std::uint64_t>();
}
}  // namespace

std::uint64_t tokens_arg(pyb::handle h, const char* what) {
  if (pyb::isinstance<pyb::str>(h)) return parse_tokens(py_text(h, what), what);
  if (auto v = as_uint(h, what)) return *v;
  throw InputError::value(what, repr_of(h), "a token count (4096, \"32k\", \"1M\")");
}
std::optional<std::uint64_t> opt_tokens_arg(pyb::handle h, const char* what) {
  if (h.is_none()) return std::nullopt;
  return tokens_arg(h, what);
}

std::uint64_t bytes_arg(pyb::handle h, const char* what) {
  if (pyb::isinstance<pyb::str>(h)) return parse_bytes(py_text(h, what), what);
  if (auto v = as_uint(h, what)) return *v;
  throw InputError::value(what, repr_of(h), "a byte count (80000000000, \"80GB\", \"1.5GiB\")");
}
std::optional<std::uint64_t> opt_bytes_arg(pyb::handle h, const char* what) {
  if (h.is_none()) return std::nullopt;
  return bytes_arg(h, what);
}

std::uint64_t count_arg(pyb::handle h, const char* what, std::uint64_t min) {
  auto v = as_uint(h, what);
  if (!v) throw InputError::value(what, repr_of(h), "an integer");
  if (*v < min) throw InputError::value(what, repr_of(h), "an integer >= " + std::to_string(min));
  return *v;
}
std::optional<std::uint64_t> opt_count_arg(pyb::handle h, const char* what, std::uint64_t min) {
  if (h.is_none()) return std::nullopt;
  return count_arg(h, what, min);
}

double float_arg(pyb::handle h, const char* what) {
  if (pyb::isinstance<pyb::bool_>(h) || !(pyb::isinstance<pyb::float_>(h) || pyb::isinstance<pyb::int_>(h) ||
                                          pyb::hasattr(h, "__float__")))
    throw InputError::value(what, repr_of(h), "a number");
  double v = 0;
  try {
    v = h.attr("__float__")().cast<double>();
  } catch (const pyb::error_already_set&) {  // int.__float__ of 2**2000: Python's OverflowError
    throw InputError::value(what, repr_of(h), "a finite number");
  } catch (const pyb::cast_error&) {
    throw InputError::value(what, repr_of(h), "a number");
  }
  if (!std::isfinite(v)) throw InputError::value(what, repr_of(h), "a finite number");
  return v;
}

std::optional<Dtype> dtype_arg(pyb::handle h, const char* what) {
  if (h.is_none()) return std::nullopt;
  if (!pyb::isinstance<pyb::str>(h)) throw InputError::value(what, repr_of(h), "a dtype name such as \"bf16\"");
  auto s = py_text(h, what);
  if (s == "auto") return std::nullopt;
  return parse_dtype(s, what);
}

std::optional<WeightFormat> weight_format_arg(pyb::handle h, const char* what) {
  if (h.is_none()) return std::nullopt;
  if (!pyb::isinstance<pyb::str>(h))
    throw InputError::value(what, repr_of(h), "a dtype or preset name such as \"bf16\" or \"awq\"");
  auto s = py_text(h, what);
  if (s == "auto") return std::nullopt;
  return parse_weight_format(s, what);
}

std::string py_text(pyb::handle h, std::string_view what) {
  Py_ssize_t n = 0;
  const char* p = PyUnicode_Check(h.ptr()) ? PyUnicode_AsUTF8AndSize(h.ptr(), &n) : nullptr;
  if (!p) {
    PyErr_Clear();
    throw InputError::value(what, repr_of(h), "text UTF-8 can encode (no lone surrogates such as '\\udcff')");
  }
  return std::string(p, static_cast<std::size_t>(n));
}

std::string str_arg(pyb::handle h, const char* what, const std::string& fallback) {
  if (h.is_none()) return fallback;
  if (!pyb::isinstance<pyb::str>(h)) throw InputError::value(what, repr_of(h), "a string");
  return py_text(h, what);
}

// A keyword's value as the request JSON the library's parser reads: ints (numpy's too, through
// __index__), floats, strings, lists/tuples/arrays (pp_layers) and dicts (a custom gpu). The
// parser checks each value against its field's type; nothing is interpreted here.
nlohmann::json request_value(pyb::handle h, const std::string& what) {
  if (h.is_none() || pyb::isinstance<pyb::bool_>(h) || pyb::isinstance<pyb::str>(h) || pyb::isinstance<pyb::dict>(h))
    return from_python(h, what);
  if (pyb::isinstance<pyb::int_>(h)) return from_python(h, what);
  if (pyb::hasattr(h, "__index__") && !pyb::isinstance<pyb::float_>(h))  // numpy integers
    return from_python(h.attr("__index__")(), what);
  if (pyb::isinstance<pyb::float_>(h) || pyb::hasattr(h, "__float__")) return float_arg(h, what.c_str());
  if (pyb::hasattr(h, "__iter__")) {
    nlohmann::json a = nlohmann::json::array();
    for (auto v : h) a.push_back(request_value(v, what));
    return a;
  }
  return from_python(h, what);  // its message names what JSON-like data is accepted
}

}  // namespace kvplan::py
