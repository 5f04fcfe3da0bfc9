// Engine profiles: kvplan.engine("vllm", model, max_model_len=..., ...) -> the engine's own figures.
// Keyword names are the engine option tables' names (kvplan/engine_fields.h: the options structs'
// members), read by the library's parser like the CLI's flags; byte counts accept "80GB" strings,
// token counts "32k".

#include <pybind11/stl.h>

#include "common.h"
#include "kvplan/engine_fields.h"
#include "kvplan/engines.h"
#include "kvplan/error.h"

namespace pyb = pybind11;
using namespace pybind11::literals;

namespace kvplan::py {
namespace {

// The keywords as a request object for the engine's table (kvplan/engine_fields.h): the library
// reads each value by its field's type, as it reads the CLI's flags.
nlohmann::json engine_request(const pyb::dict& kw) {
  nlohmann::json req = nlohmann::json::object();
  for (auto [k, v] : kw) {
    const auto key = py_text(pyb::str(k), "keyword");
    req[key] = request_value(v, key);
  }
  return req;
}

}  // namespace
}  // namespace kvplan::py

void bind_engines(pyb::module_& m) {
  using namespace kvplan;
  using namespace kvplan::py;
  m.def("_engine", [](const std::string& engine, pyb::handle model, const pyb::dict& kw, bool text) -> pyb::object {
    const EngineReport r = engine_report(parse_engine(engine), model_arg(model).get(), engine_request(kw));
    return text ? pyb::object(pyb::str(r.text)) : to_python(r.json);
  }, "engine"_a, "model"_a, "options"_a, "text"_a = false);
  m.def("engine_options", [](const std::string& engine) -> pyb::list {
    pyb::list out;
    for (const auto& f : engine_fields(parse_engine(engine))) out.append(std::string(f.name));
    return out;
  }, "engine"_a, "The keyword options kvplan.engine(engine, ...) accepts.");
}
