// kvplan._core: the C++ library for Python. One bind_<area>() per file; this is the table of
// contents. Areas whose library part is not built are left out (the pure-Python package only
// re-exports what exists).
#include <pybind11/pybind11.h>

#include "common.h"
#include "kvplan/version.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "kvplan's C++ core: exact KV-cache and state bytes, plans, sweeps, engine profiles.";
  m.attr("__version__") = KVPLAN_VERSION_STRING;
  bind_errors(m);
  bind_model(m);
  bind_sizes(m);
#ifdef KVPLAN_PY_HAVE_PLANNER
  bind_catalog(m);
  bind_planner(m);
#endif
#ifdef KVPLAN_PY_HAVE_ENGINES
  bind_engines(m);
#endif
#ifdef KVPLAN_PY_HAVE_CHECK
  bind_check(m);
#endif
#ifdef KVPLAN_PY_HAVE_RUNTIME
  bind_runtime(m);
#endif
}
