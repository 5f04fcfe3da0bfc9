#pragma once
// Shared helpers of the kvplan._core bindings: JSON <-> Python conversion, argument parsing
// that reports bad values as kvplan::InputError (so Python sees kvplan.KvplanError), and the
// Python-side model handle.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include "kvplan/dtype.h"
#include "kvplan/model.h"
#include "kvplan/weights.h"

namespace kvplan::py {
namespace pyb = pybind11;

// A loaded model, shared between the Python Model object and the layers it hands out.
struct PyModel {
  std::shared_ptr<const ModelSpec> spec;
  const ModelSpec& get() const { return *spec; }
};

// nlohmann::json -> dict/list/int/float/str/bool/None, generically (no field is re-listed).
pyb::object to_python(const nlohmann::json& j);
// A Python str from bytes that may not be UTF-8 (names and paths from files): replaced, never raised.
pyb::str utf8_str(const std::string& s);
// Python dict/list/scalars -> nlohmann::json (for configs given as dicts, option objects).
nlohmann::json from_python(pyb::handle h, const std::string& what);

// Token counts: a non-negative int or a string such as "32k" / "1M" (parse_tokens).
std::uint64_t tokens_arg(pyb::handle h, const char* what);
std::optional<std::uint64_t> opt_tokens_arg(pyb::handle h, const char* what);
// Byte counts: a non-negative int or a string such as "80GB" / "1.5GiB" (parse_bytes).
std::uint64_t bytes_arg(pyb::handle h, const char* what);
std::optional<std::uint64_t> opt_bytes_arg(pyb::handle h, const char* what);
// A plain count (int >= min).
std::uint64_t count_arg(pyb::handle h, const char* what, std::uint64_t min = 0);
std::optional<std::uint64_t> opt_count_arg(pyb::handle h, const char* what, std::uint64_t min = 0);
// A float (int or float).
double float_arg(pyb::handle h, const char* what);
// Dtype names; None or "auto" -> nullopt.
std::optional<Dtype> dtype_arg(pyb::handle h, const char* what);
// A --weight-dtype value: None/"auto" = the checkpoint's format, a preset ("awq", "Q4_K_M") or a dtype.
std::optional<WeightFormat> weight_format_arg(pyb::handle h, const char* what);
// A keyword's value as request JSON for the library's parser (plan_input_from_request,
// workload_from_request): ints (numpy's too), floats, strings, lists and dicts; the parser checks it.
nlohmann::json request_value(pyb::handle h, const std::string& what);
// A string option (None -> fallback).
// A Python str as UTF-8: the one conversion of every str argument. A str that UTF-8 cannot
// encode (a lone surrogate such as '\udcff', from os.fsdecode of undecodable bytes) is a
// KvplanError naming `what`, not pybind11's RuntimeError.
std::string py_text(pyb::handle h, std::string_view what);
std::string str_arg(pyb::handle h, const char* what, const std::string& fallback = "");

const PyModel& model_arg(pyb::handle h);

}  // namespace kvplan::py

// One function per area; module.cpp calls each.
void bind_errors(pybind11::module_& m);
void bind_model(pybind11::module_& m);
void bind_sizes(pybind11::module_& m);
void bind_catalog(pybind11::module_& m);
void bind_planner(pybind11::module_& m);
void bind_engines(pybind11::module_& m);
void bind_check(pybind11::module_& m);
void bind_simulate(pybind11::module_& m);
void bind_search(pybind11::module_& m);
void bind_runtime(pybind11::module_& m);
