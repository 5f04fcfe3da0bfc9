// kvplan._core: the C++ library for Python. One bind_<area>() per file; this is the table of
// contents. The reference runtime is optional (KVPLAN_BUILD_RUNTIME); without it `measure` is
// left out and the pure-Python package only re-exports what exists.
#include <pybind11/pybind11.h>

#include "common.h"
#include "kvplan/version.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "kvplan's C++ core: exact KV-cache and state bytes, plans, sweeps, engine profiles.";
  m.attr("__version__") = KVPLAN_VERSION_STRING;
  bind_errors(m);
  bind_model(m);
  bind_sizes(m);
  bind_catalog(m);
  bind_planner(m);
  bind_engines(m);
  bind_check(m);
  bind_simulate(m);
  bind_search(m);
#ifdef KVPLAN_PY_HAVE_RUNTIME
  bind_runtime(m);
#endif
}
