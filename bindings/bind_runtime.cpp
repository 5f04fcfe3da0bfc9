// The reference runtime: kvplan.measure allocates a model's real cache tensors, runs tokens
// through them and sets the measured buffer bytes beside the library's formula.
#include <pybind11/stl.h>

#include "common.h"
#include "kvplan/runtime/measure.h"

namespace pyb = pybind11;
using namespace pybind11::literals;

void bind_runtime(pyb::module_& m) {
  using namespace kvplan;
  using namespace kvplan::py;
  m.def("measure", [](pyb::handle model, pyb::handle tokens, pyb::handle kv_dtype, pyb::handle k_dtype,
                      pyb::handle v_dtype, pyb::handle state_dtype, pyb::handle run_tokens, bool scaled,
                      pyb::handle threads) {
    const ModelSpec& spec = model_arg(model).get();
    Workload w;
    w.tokens = tokens_arg(tokens, "tokens");
    w.k_dtype = w.v_dtype = dtype_arg(kv_dtype, "kv_dtype");
    if (!k_dtype.is_none()) w.k_dtype = dtype_arg(k_dtype, "k_dtype");
    if (!v_dtype.is_none()) w.v_dtype = dtype_arg(v_dtype, "v_dtype");
    w.state_dtype = dtype_arg(state_dtype, "state_dtype");
    runtime::MeasureOptions opt;
    opt.run_tokens = tokens_arg(run_tokens, "run_tokens");
    opt.runtime.scaled = scaled;
    opt.runtime.threads = static_cast<int>(count_arg(threads, "threads", 1));
    runtime::Measurement r;
    {
      pyb::gil_scoped_release nogil;
      r = runtime::measure(spec, w, opt);
    }
    return to_python(runtime::to_json(r));
  }, "model"_a, pyb::kw_only(), "tokens"_a = 64, "kv_dtype"_a = pyb::none(), "k_dtype"_a = pyb::none(),
     "v_dtype"_a = pyb::none(), "state_dtype"_a = pyb::none(), "run_tokens"_a = 4, "scaled"_a = true,
     "threads"_a = 1,
     "Build the model in kvplan's reference runtime (seeded random weights; scaled=True shrinks what\n"
     "no cache depends on), allocate its cache for one sequence of `tokens` tokens in the given dtypes,\n"
     "run `run_tokens` tokens through it and return the measured buffer bytes beside the formula, layer\n"
     "by layer (the same object as `kvplan measure --json`). `model` must be a kvplan.Model.");
}
