// kvplan.check: an engine launch command or a deployment file against a GPU, with a verdict.
#include <fstream>
#include <sstream>

#include <pybind11/stl.h>

#include "common.h"
#include "kvplan/check.h"
#include "kvplan/error.h"

namespace pyb = pybind11;
using namespace pybind11::literals;

void bind_check(pyb::module_& m) {
  using namespace kvplan;
  using namespace kvplan::py;
  m.def("_check", [](pyb::handle command, pyb::handle file, pyb::handle deployment, pyb::handle gpu,
                     pyb::handle gpus, pyb::handle model, pyb::handle require_concurrency,
                     pyb::handle require_context, pyb::handle format, pyb::handle gpu_memory, pyb::handle strict,
                     pyb::handle engine_log, pyb::handle engine_version, pyb::handle weights,
                     pyb::handle gpu_used) -> pyb::object {
    const int given = !command.is_none() + !file.is_none() + !deployment.is_none();
    if (given != 1)
      throw InputError::value("check", std::to_string(given) + " sources",
                              "exactly one of command=, file= or deployment=");
    Deployment d;
    if (!command.is_none()) {
      std::vector<std::string> argv;
      if (pyb::isinstance<pyb::str>(command)) {
        argv = split_command_line(py_text(command, "command"));
      } else {
        for (auto a : command) argv.push_back(str_arg(a, "command"));
      }
      d = parse_launch_command(argv);
    } else if (!file.is_none()) {
      pyb::object p = pyb::reinterpret_borrow<pyb::object>(file);
      if (pyb::hasattr(p, "__fspath__")) p = p.attr("__fspath__")();
      d = load_deployment_file(str_arg(p, "file"));
    } else {
      d = parse_deployment(str_arg(deployment, "deployment"), "<deployment>");
    }
    CheckOptions o;
    if (!gpu.is_none()) o.gpu = str_arg(gpu, "gpu");
    if (!gpu_memory.is_none()) {
      // A custom total (or the named GPU's, replaced), as `kvplan check --gpu-memory`.
      Accelerator a = o.gpu.empty() ? Accelerator{} : find_accelerator(o.gpu);
      if (a.name.empty()) a.name = "custom";
      a.memory_bytes = pyb::isinstance<pyb::str>(gpu_memory) ? parse_memory_size(py_text(gpu_memory, "gpu_memory"), "gpu_memory")
                                                            : bytes_arg(gpu_memory, "gpu_memory");
      a.memory_basis = "given by gpu_memory";
      a.memory_marketing_bytes = a.memory_bytes;
      o.device = a;
    }
    if (!strict.is_none()) o.strict = strict.cast<bool>();
    if (!engine_version.is_none()) o.engine_version = str_arg(engine_version, "engine_version");
    if (!engine_log.is_none()) {
      pyb::object p = pyb::reinterpret_borrow<pyb::object>(engine_log);
      if (pyb::hasattr(p, "__fspath__")) p = p.attr("__fspath__")();
      const std::string path = str_arg(p, "engine_log");
      std::ifstream in(path);
      if (!in) throw InputError::value("engine_log", path, "a readable start-up log file");
      std::stringstream ss;
      ss << in.rdbuf();
      o.engine_log = ss.str();
      o.engine_log_source = path;
    }
    if (!gpus.is_none()) o.gpus = count_arg(gpus, "gpus", 1);
    if (!model.is_none()) o.model = str_arg(model, "model");
    o.weight_bytes = opt_bytes_arg(weights, "weights");  // as `kvplan check --weights`
    if (!gpu_used.is_none()) {
      // As `kvplan check --gpu-used`: bytes, a size ("14.99GiB"), "@FILE", or a path to an
      // nvidia-smi --query-gpu=memory.used,memory.total --format=csv file.
      pyb::object p = pyb::reinterpret_borrow<pyb::object>(gpu_used);
      if (pyb::hasattr(p, "__fspath__")) o.gpu_used = parse_gpu_used("@" + str_arg(p.attr("__fspath__")(), "gpu_used"), "gpu_used");
      else if (pyb::isinstance<pyb::str>(p)) o.gpu_used = parse_gpu_used(py_text(p, "gpu_used"), "gpu_used");
      else o.gpu_used = GpuUsed{bytes_arg(p, "gpu_used"), std::nullopt, "gpu_used " + std::to_string(bytes_arg(p, "gpu_used"))};
    }
    o.require_concurrency = opt_tokens_arg(require_concurrency, "require_concurrency");
    o.require_context = opt_tokens_arg(require_context, "require_context");
    const CheckResult r = check_deployment(d, o);
    if (!format.is_none()) return utf8_str(format_check(r, str_arg(format, "format")));
    return to_python(to_json(r));
  }, pyb::kw_only(), "command"_a = pyb::none(), "file"_a = pyb::none(), "deployment"_a = pyb::none(),
     "gpu"_a = pyb::none(), "gpus"_a = pyb::none(), "model"_a = pyb::none(), "require_concurrency"_a = pyb::none(),
     "require_context"_a = pyb::none(), "format"_a = pyb::none(), "gpu_memory"_a = pyb::none(), "strict"_a = pyb::none(),
     "engine_log"_a = pyb::none(), "engine_version"_a = pyb::none(), "weights"_a = pyb::none(), "gpu_used"_a = pyb::none());
}
