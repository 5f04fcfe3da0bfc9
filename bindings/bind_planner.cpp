// The accelerator catalog, weights, the planner (plan, sweep, compare).
#include <set>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "common.h"
#include "kvplan/engine_fields.h"
#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/planner.h"
#include "kvplan/request.h"
#include "kvplan/weights.h"
#include "numpy_util.h"

namespace pyb = pybind11;
using namespace pybind11::literals;

namespace kvplan::py {
namespace {

Accelerator accelerator_arg(pyb::handle gpu) {
  if (pyb::isinstance<pyb::str>(gpu)) return find_accelerator(py_text(gpu, "gpu"));
  if (pyb::isinstance<pyb::dict>(gpu)) return accelerator_from_json(from_python(gpu, "gpu").dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "<gpu dict>");
  throw InputError::value("gpu", pyb::str(pyb::repr(gpu)).cast<std::string>(),
                          "an accelerator name (kvplan.gpus()) or a dict with the catalog's keys");
}

// The keywords -> PlanInput through the library's one request parser (kvplan/request.h), as the
// CLI's flags and the page's form fields: the keywords are the field table's names.
PlanInput plan_input(const pyb::dict& o) {
  nlohmann::json req = nlohmann::json::object();
  for (auto [k, v] : o) {
    const std::string key = py_text(pyb::str(k), "keyword");
    req[key] = request_value(v, key);
  }
  return plan_input_from_request(req, FieldNaming::keyword);
}

// A list of token counts: a numpy integer array (fast path) or any sequence of ints / "32k" strings.
std::vector<std::uint64_t> token_list(pyb::handle h, const char* what) {
  std::vector<std::uint64_t> out;
  if (pyb::isinstance<pyb::array>(h)) {
    auto a = pyb::reinterpret_borrow<pyb::array>(h);
    if (a.ndim() != 1)
      throw InputError::value(what, "an array of " + std::to_string(a.ndim()) + " dimensions", "a 1-D array or list of token counts");
    const char kind = a.dtype().kind();
    if (kind != 'i' && kind != 'u')
      throw InputError::value(what, "an array of dtype " + pyb::str(a.dtype()).cast<std::string>(), "integers");
    if (kind == 'i') {
      auto ai = pyb::array_t<std::int64_t, pyb::array::c_style | pyb::array::forcecast>::ensure(a).reshape({-1});
      auto typed = pyb::array_t<std::int64_t>(ai);
      out.reserve(typed.size());
      for (pyb::ssize_t i = 0; i < typed.size(); ++i) {
        const auto v = typed.at(i);
        if (v < 0) throw InputError::value(what, std::to_string(v), "non-negative token counts");
        out.push_back(static_cast<std::uint64_t>(v));
      }
    } else {
      auto au = pyb::array_t<std::uint64_t, pyb::array::c_style | pyb::array::forcecast>::ensure(a).reshape({-1});
      auto typed = pyb::array_t<std::uint64_t>(au);
      out.assign(typed.data(), typed.data() + typed.size());
    }
  } else if (pyb::isinstance<pyb::str>(h) || pyb::isinstance<pyb::int_>(h)) {
    out.push_back(tokens_arg(h, what));
  } else if (pyb::hasattr(h, "__iter__")) {
    for (auto v : h) out.push_back(tokens_arg(v, what));
  } else {
    throw InputError::value(what, pyb::str(pyb::repr(h)).cast<std::string>(), "a list of token counts");
  }
  if (out.empty()) throw InputError::value(what, "an empty list", "at least one value");
  return out;
}

pyb::dict weights_dict(const WeightBytes& w) {
  return pyb::dict("total"_a = w.total, "experts"_a = w.experts, "non_experts"_a = w.non_experts,
                   "active"_a = w.active, "mtp"_a = w.mtp, "scheme"_a = w.scheme);
}

}  // namespace
}  // namespace kvplan::py

void bind_catalog(pyb::module_& m) {
  using namespace kvplan;
  using namespace kvplan::py;
  m.def("gpus", [] {
    pyb::list out;
    for (const auto& a : accelerator_catalog()) out.append(to_python(to_json(a)));
    return out;
  }, "The accelerator catalog: one record per device (name, memory_bytes, bandwidth_bytes_per_s, ...).");
  m.def("gpu", [](pyb::handle name) { return to_python(to_json(accelerator_arg(name))); }, "name"_a,
        "One accelerator by name or alias (case-insensitive: \"H100\", \"mi300x\") or from a dict.");
  m.def("gpus_to_hold", [](pyb::handle bytes, pyb::handle gpu, const std::string& basis) {
    CapacityBasis b;
    if (basis == "device") b = CapacityBasis::device;
    else if (basis == "marketing") b = CapacityBasis::marketing;
    else throw InputError::value("basis", basis, "\"device\" or \"marketing\"");
    return kvplan::gpus_to_hold(bytes_arg(bytes, "bytes"), accelerator_arg(gpu), b);
  }, "bytes"_a, "gpu"_a = "H100", "basis"_a = "marketing",
     "ceil(bytes / capacity): how many devices `bytes` alone fills (the seeds' \"how many H100s\").");
}

void bind_planner(pyb::module_& m) {
  using namespace kvplan;
  using namespace kvplan::py;
  m.def("_weight_bytes", [](pyb::handle model, pyb::handle dtype) {
    return weights_dict(weight_bytes(model_arg(model).get(), weight_format_arg(dtype, "dtype")));
  }, "model"_a, "dtype"_a = pyb::none());
  m.def("_plan", [](pyb::handle model, const pyb::dict& options) {
    const PlanInput in = plan_input(options);
    const ModelSpec& spec = model_arg(model).get();
    nlohmann::json j = to_json(plan(spec, in));
    j["assumptions"] = spec.assumptions;  // as `kvplan plan --json` and kvplan.size()
    j["request"] = request_json(in);
    return to_python(j);
  }, "model"_a, "options"_a);
  m.def("fields", [](const std::string& verb) {
    pyb::list out;
    if (verb.rfind("engine.", 0) == 0) {  // "engine.vllm": that engine's option table
      for (const auto& f : engine_fields(parse_engine(verb.substr(7)))) out.append(to_python(to_json(f)));
      return out;
    }
    for (const auto& f : request_fields(verb)) out.append(to_python(to_json(f)));
    return out;
  }, "verb"_a = "plan",
     "A request field table (name, cli_flag, type, unit, default, help): for \"plan\" (and \"sweep\") the\n"
     "keywords kvplan.plan()/kvplan.sweep() take, the CLI's flags and the page's plan form; for \"size\"\n"
     "kvplan.size()'s and `kvplan size`'s; for \"engine.vllm\" (engine.llama.cpp, engine.sglang,\n"
     "engine.trtllm) the keywords kvplan.engine() takes for that engine and its `kvplan engine` flags\n"
     "(cli_flag, cli_aliases). One list each, in the library.");
  m.def("_plan_text", [](pyb::handle model, const pyb::dict& options) {
    return format_plan_text(plan(model_arg(model).get(), plan_input(options)));
  }, "model"_a, "options"_a);
  m.def("_sweep", [](pyb::handle model, pyb::handle contexts, pyb::handle concurrency, const pyb::dict& options) {
    auto ctx = token_list(contexts, "contexts");
    auto conc = token_list(concurrency, "concurrency");
    const PlanInput in = plan_input(options);
    const ModelSpec& spec = model_arg(model).get();
    SweepResult r;
    {
      pyb::gil_scoped_release nogil;
      r = sweep(spec, in, ctx, conc);
    }
    const auto nc = static_cast<pyb::ssize_t>(r.contexts.size());
    const auto nq = static_cast<pyb::ssize_t>(r.concurrency.size());
    pyb::dict d;
    d["contexts"] = vector_to_array(std::move(r.contexts), {nc});
    d["concurrency"] = vector_to_array(std::move(r.concurrency), {nq});
    std::vector<std::uint64_t> memory(r.cache_bytes.size());
    for (std::size_t k = 0; k < memory.size(); ++k) memory[k] = r.memory_bytes(k);
    d["memory_bytes"] = vector_to_array(std::move(memory), {nc, nq});
    d["cache_bytes"] = vector_to_array(std::move(r.cache_bytes), {nc, nq});
    d["fits"] = vector_to_array(std::move(r.fits), {nc, nq}, pyb::dtype("bool"));
    d["decode_step_seconds"] = vector_to_array(std::move(r.decode_step_seconds), {nc, nq});
    d["weights_bytes"] = r.weights_bytes;
    d["reserved_bytes"] = r.reserved_bytes;
    d["usable_bytes"] = r.usable_bytes;
    d["request"] = to_python(sweep_request_json(in));
    return d;
  }, "model"_a, "contexts"_a, "concurrency"_a, "options"_a);
  m.def("_compare", [](pyb::handle model, pyb::handle tokens, pyb::handle kv_dtype, pyb::handle weight_dtype) {
    return to_python(to_json(compare_row(model_arg(model).get(), tokens_arg(tokens, "tokens"),
                                         dtype_arg(kv_dtype, "kv_dtype"), weight_format_arg(weight_dtype, "weight_dtype"))));
  }, "model"_a, "tokens"_a, "kv_dtype"_a = pyb::none(), "weight_dtype"_a = pyb::none());
  m.def("kv_dtype_ladder", [](pyb::handle model) {
    std::vector<std::string> out;
    for (auto d : kv_dtype_ladder(model_arg(model).get())) out.emplace_back(name(d));
    return out;
  }, "model"_a, "The KV dtypes plan() tries for kv_dtype_to_fit, least lossy first.");
}
