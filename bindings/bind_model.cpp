// Errors, loading, the Model and Layer objects, the dtype and model catalogs.
#include <pybind11/stl.h>

#include "common.h"
#include "kvplan/generation.h"
#include "kvplan/error.h"
#include "kvplan/layer.h"
#include "kvplan/model.h"
#include "kvplan/registry.h"
#include "kvplan/report.h"
#include "kvplan/sizes.h"
#include "kvplan/request.h"
#include "kvplan/units.h"

namespace pyb = pybind11;
using namespace pybind11::literals;

namespace kvplan::py {
void set_record_type(pyb::object t);

namespace {

struct PyLayer {
  std::shared_ptr<const ModelSpec> spec;
  std::size_t i = 0;
  const LayerSpec& get() const { return spec->layers.at(i); }
};

LoadOptions load_options(pyb::handle assume) {
  LoadOptions o;
  if (assume.is_none()) return o;
  if (pyb::isinstance<pyb::str>(assume)) {
    o.assume.push_back(py_text(assume, "assume"));
    return o;
  }
  for (auto a : assume) o.assume.push_back(str_arg(a, "assume"));
  return o;
}

PyModel load_any(pyb::handle what, pyb::handle assume) {
  const LoadOptions opts = load_options(assume);
  if (pyb::isinstance<PyModel>(what)) return what.cast<PyModel>();
  if (pyb::isinstance<pyb::dict>(what)) {
    const auto text = from_python(what, "config dict").dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return {std::make_shared<const ModelSpec>(load_model_from_json(text, "<config dict>", opts))};
  }
  pyb::object s = pyb::reinterpret_borrow<pyb::object>(what);
  if (!pyb::isinstance<pyb::str>(s) && pyb::hasattr(s, "__fspath__")) s = s.attr("__fspath__")();
  if (pyb::isinstance<pyb::bytes>(s)) s = s.attr("decode")("utf-8");
  if (!pyb::isinstance<pyb::str>(s))
    throw InputError::value("model", pyb::str(pyb::repr(what)).cast<std::string>(),
                            "a bundled model name, a path to config.json, a config dict or JSON text");
  const auto text = py_text(s, "model");
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{')
    return {std::make_shared<const ModelSpec>(load_model_from_json(text, "<config JSON>", opts))};
  return {std::make_shared<const ModelSpec>(load_model(text, opts))};
}

// The size keywords -> Workload through the library's one request parser (kvplan/request.h), as
// `kvplan size`'s flags and the page's fields.
Workload workload(const pyb::handle& tokens, const pyb::handle& batch, const pyb::handle& kv_dtype,
                  const pyb::handle& k_dtype, const pyb::handle& v_dtype, const pyb::handle& state_dtype,
                  const pyb::handle& tp) {
  nlohmann::json req = nlohmann::json::object();
  const std::pair<const char*, const pyb::handle*> given[] = {{"tokens", &tokens},   {"batch", &batch},
                                                             {"kv_dtype", &kv_dtype}, {"k_dtype", &k_dtype},
                                                             {"v_dtype", &v_dtype},   {"state_dtype", &state_dtype},
                                                             {"tp", &tp}};
  for (const auto& [name, h] : given) req[name] = request_value(*h, name);
  return workload_from_request(req, FieldNaming::keyword);
}

#define KVPLAN_WORKLOAD_ARGS                                                                             \
  pyb::kw_only(), "tokens"_a = 4096, "batch"_a = 1, "kv_dtype"_a = pyb::none(), "k_dtype"_a = pyb::none(), \
      "v_dtype"_a = pyb::none(), "state_dtype"_a = pyb::none(), "tp"_a = 1

pyb::dict layer_bytes_dict(const LayerBytes& b) {
  return pyb::dict("k_bytes"_a = b.k_bytes, "v_bytes"_a = b.v_bytes, "conv_bytes"_a = b.conv_bytes,
                   "ssm_bytes"_a = b.ssm_bytes, "tokens_held"_a = b.tokens_held, "kv_bytes"_a = b.kv_bytes(),
                   "state_bytes"_a = b.state_bytes(), "total_bytes"_a = b.total_bytes());
}

}  // namespace

const PyModel& model_arg(pyb::handle h) {
  if (!pyb::isinstance<PyModel>(h))
    throw InputError::value("model", pyb::str(pyb::repr(h)).cast<std::string>(), "a kvplan.Model (kvplan.load(...))");
  return h.cast<const PyModel&>();
}

}  // namespace kvplan::py

using kvplan::py::PyModel;

void bind_errors(pyb::module_& m) {
  static pyb::exception<kvplan::Error> base(m, "KvplanError", PyExc_ValueError);
  base.doc() = "Every bad input kvplan rejects (a ValueError); the message names the field and what was expected.";
  pyb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const kvplan::Error& e) {
      base(e.what());
    }
  });
}

void bind_model(pyb::module_& m) {
  using namespace kvplan;
  using namespace kvplan::py;

  m.def("_set_record_type", &set_record_type, "internal: the dict type used for JSON objects");

  pyb::class_<PyLayer>(m, "Layer", "One model layer and the cache it keeps.")
      .def_property_readonly("index", [](const PyLayer& l) { return l.get().index; })
      .def_property_readonly("kind", [](const PyLayer& l) { return std::string(kind_name(l.get())); },
                             "full_attention, sliding_attention, chunked_attention, mla, mamba, "
                             "linear_attention, short_conv, shared_kv or none")
      .def_property_readonly("description", [](const PyLayer& l) { return describe_layer(l.get()); })
      .def("to_dict", [](const PyLayer& l) {
        return to_python(layer_to_json(l.get()));
      }, "The layer's kind and dimensions (the same object as in `kvplan inspect --json`).")
      .def("tokens_held", [](const PyLayer& l, pyb::handle tokens) {
        return kvplan::tokens_held(l.get(), tokens_arg(tokens, "tokens"));
      }, "tokens"_a, "Tokens this layer keeps for a sequence of `tokens` tokens.")
      .def("bytes", [](const PyLayer& l, pyb::handle tokens, pyb::handle kv_dtype, pyb::handle k_dtype,
                       pyb::handle v_dtype, pyb::handle state_dtype, pyb::handle tp) {
        const Workload w = workload(tokens, pyb::int_(1), kv_dtype, k_dtype, v_dtype, state_dtype, tp);
        return layer_bytes_dict(layer_bytes(l.get(), w.tokens, resolve_dtypes(*l.spec, w), w.tp));
      }, pyb::kw_only(), "tokens"_a = 4096, "kv_dtype"_a = pyb::none(), "k_dtype"_a = pyb::none(),
         "v_dtype"_a = pyb::none(), "state_dtype"_a = pyb::none(), "tp"_a = 1,
         "Exact bytes this layer holds for ONE sequence (k, v, conv, ssm, tokens_held, totals).")
      .def("__getattr__", [](const PyLayer& l, const std::string& name) -> pyb::object {
        auto j = layer_to_json(l.get());
        if (j.is_object() && j.contains(name)) return to_python(j[name]);
        throw pyb::attribute_error("Layer has no attribute '" + name + "'");
      })
      .def("__repr__", [](const PyLayer& l) {
        return "<kvplan.Layer " + std::to_string(l.get().index) + " " + std::string(kind_name(l.get())) + ": " +
               describe_layer(l.get()) + ">";
      });

  pyb::class_<PyModel>(m, "Model", "A model's cache layout, read from a config.json (kvplan.load).")
      .def_property_readonly("name", [](const PyModel& p) { return p.get().name; })
      .def_property_readonly("source", [](const PyModel& p) { return p.get().source; })
      .def_property_readonly("model_type", [](const PyModel& p) { return p.get().model_type; })
      .def_property_readonly("architecture", [](const PyModel& p) { return p.get().architecture; })
      .def_property_readonly("dtype", [](const PyModel& p) { return std::string(name(p.get().dtype)); })
      .def_property_readonly("num_layers", [](const PyModel& p) { return p.get().num_layers(); })
      .def_property_readonly("assumptions", [](const PyModel& p) { return p.get().assumptions; })
      .def_property_readonly("layers", [](const PyModel& p) {
        pyb::list out;
        for (std::size_t i = 0; i < p.get().layers.size(); ++i) out.append(pyb::cast(PyLayer{p.spec, i}));
        return out;
      }, "One kvplan.Layer per model layer, in order.")
      .def("count_kind", [](const PyModel& p, const std::string& k) { return p.get().count_kind(k); }, "kind"_a)
      .def("to_dict", [](const PyModel& p) { return to_python(to_json(p.get())); },
           "Model summary and per-layer specs (the same object as `kvplan inspect --json`).")
      .def("parameters", [](const PyModel& p) { return to_python(to_json(p.get().params)); },
           "Parameter counts by component (embedding, attention, moe_routed, ..., total, active).")
      .def("kv_bytes", [](const PyModel& p, pyb::handle tokens, pyb::handle batch, pyb::handle kv_dtype,
                          pyb::handle k_dtype, pyb::handle v_dtype, pyb::handle state_dtype, pyb::handle tp) {
        return total_cache_bytes(p.get(), workload(tokens, batch, kv_dtype, k_dtype, v_dtype, state_dtype, tp));
      }, KVPLAN_WORKLOAD_ARGS,
         "Exact bytes (int) held by `batch` sequences of `tokens` tokens: KV caches and recurrent state\n"
         "together (the `total_bytes` of `kvplan size --json`). kv_dtype=None or \"auto\" is the model's dtype.")
      .def("bytes_per_token", [](const PyModel& p, pyb::handle kv_dtype, pyb::handle k_dtype, pyb::handle v_dtype,
                                 pyb::handle tp) {
        return cache_size(p.get(), workload(pyb::int_(1), pyb::int_(1), kv_dtype, k_dtype, v_dtype, pyb::none(), tp))
            .bytes_per_token;
      }, pyb::kw_only(), "kv_dtype"_a = pyb::none(), "k_dtype"_a = pyb::none(), "v_dtype"_a = pyb::none(), "tp"_a = 1,
         "Bytes one more token adds to one sequence while no window is full.")
      .def("inspect", [](const PyModel& p, pyb::handle kv_dtype) {
        Workload w;
        w.k_dtype = w.v_dtype = dtype_arg(kv_dtype, "kv_dtype");
        return format_inspect_text(p.get(), resolve_dtypes(p.get(), w));
      }, "kv_dtype"_a = pyb::none(), "The text report of `kvplan inspect`.")
      .def("__len__", [](const PyModel& p) { return p.get().num_layers(); })
      .def("__repr__", [](const PyModel& p) {
        return "<kvplan.Model " + p.get().name + " (" + p.get().model_type + ", " +
               std::to_string(p.get().num_layers()) + " layers)>";
      });

  m.def("load", [](pyb::handle what, pyb::handle assume) { return kvplan::py::load_any(what, assume); },
        "model"_a, pyb::kw_only(), "assume"_a = pyb::none(),
        "Load a model: a bundled name (\"Qwen/Qwen3-0.6B\", case-insensitive), a path to a config.json or a\n"
        "directory holding one, a config dict, or config JSON text. `assume` accepts the CLI's --assume\n"
        "values (\"dense\", \"dtype=bf16\"). Raises KvplanError for anything kvplan cannot map exactly.");
  m.def("models", [] {
    std::vector<std::string> ids;
    for (const auto& b : bundled_models()) ids.push_back(b.id);
    return ids;
  }, "Ids of the bundled model configs.");
  m.def("dtypes", [] {
    pyb::list out;
    for (const auto& d : all_dtypes())
      out.append(to_python({{"name", d.name}, {"block_values", d.block_values}, {"block_bytes", d.block_bytes},
                            {"bits_per_value", bits_per_value(d.dtype)}, {"description", d.description}}));
    return out;
  }, "The storage formats kvplan knows (name, block_values, block_bytes, bits_per_value).");
  m.def("parse_tokens", [](const std::string& s) { return parse_tokens(s, "tokens"); }, "text"_a,
        "\"32k\" -> 32768, \"1M\" -> 1048576.");
  m.def("parse_bytes", [](const std::string& s) { return parse_bytes(s, "size"); }, "text"_a,
        "\"80GB\" -> 80000000000, \"1.5GiB\" -> 1610612736.");
  m.def("format_bytes", [](std::uint64_t b) { return format_bytes(b); }, "bytes"_a, "\"4.70 GB (4.37 GiB)\"");
}

void bind_sizes(pyb::module_& m) {
  using namespace kvplan;
  using namespace kvplan::py;
  m.def("size", [](pyb::handle model, pyb::handle tokens, pyb::handle batch, pyb::handle kv_dtype, pyb::handle k_dtype,
                   pyb::handle v_dtype, pyb::handle state_dtype, pyb::handle tp) {
    const PyModel pm = load_any(model, pyb::none());
    auto j = to_json(cache_size(pm.get(), workload(tokens, batch, kv_dtype, k_dtype, v_dtype, state_dtype, tp)));
    j["assumptions"] = pm.get().assumptions;
    return to_python(j);
  }, "model"_a, pyb::kw_only(), "tokens"_a = pyb::none(), "batch"_a = 1, "kv_dtype"_a = pyb::none(),
     "k_dtype"_a = pyb::none(), "v_dtype"_a = pyb::none(), "state_dtype"_a = pyb::none(), "tp"_a = 1,
     "Exact cache bytes held by `batch` sequences of `tokens` tokens, layer by layer: the same object as\n"
     "`kvplan size --json` (total_bytes = kv_bytes + state_bytes, bytes_per_token, layers[...]).\n"
     "tokens None = not given: the default context, 4,096 tokens (context_default is True).");
  m.def("generation", [](pyb::handle model, pyb::handle prompt, pyb::handle steps, pyb::handle batch, pyb::handle kv_dtype,
                         pyb::handle k_dtype, pyb::handle v_dtype, pyb::handle state_dtype, pyb::handle tp) {
    const PyModel pm = load_any(model, pyb::none());
    const Workload w = workload(pyb::int_(1), batch, kv_dtype, k_dtype, v_dtype, state_dtype, tp);
    pyb::list rows;
    for (const auto& s : generation_steps(pm.get(), w, tokens_arg(prompt, "prompt"), tokens_arg(steps, "steps")))
      rows.append(to_python(to_json(s)));
    return rows;
  }, "model"_a, pyb::kw_only(), "prompt"_a = 8, "steps"_a = 16, "batch"_a = 1, "kv_dtype"_a = pyb::none(),
     "k_dtype"_a = pyb::none(), "v_dtype"_a = pyb::none(), "state_dtype"_a = pyb::none(), "tp"_a = 1,
     "Seed S13's generation loop: one row per step (a prompt, then one token per step) with the tokens\n"
     "computed with and without a KV cache and the cache bytes held after the step.");
}
