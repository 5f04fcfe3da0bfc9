// Deployment files as teams write them: Kubernetes workloads (Deployment, StatefulSet, DaemonSet,
// ReplicaSet, Pod, Job, CronJob, LeaderWorkerSet, KServe InferenceService / ServingRuntime), `helm
// template` multi-document output, docker-compose files, shell launch scripts, and kvplan's own
// JSON/YAML deployment format. YAML is read by yaml-cpp (check/yaml.cpp) with size, depth and
// alias-expansion limits.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "deploy/gpu_labels.h"
#include "deploy/helm.h"
#include "deploy/launch_internal.h"
#include "deploy/k8s_container.h"
#include "deploy/operators.h"
#include "deploy/yaml.h"
#include "kvplan/deploy.h"
#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/units.h"
#include "util/config_view.h"
#include "kvplan/files.h"
#include "kvplan/text.h"

namespace kvplan {

namespace {

using json = nlohmann::json;

// A string field of an object; "" when absent, null, another type, or when `j` is no object
// (manifests put anything anywhere: `kind:` alone is null).
std::string text_of(const json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string scalar_string(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  // The shortest text that reads back as the same double (as Python's repr): 1234567.5, not
  // ostream's 6 significant digits (1.23457e+06).
  if (v.is_number_float()) return v.dump();
  return detail::describe_json(v);
}

const json* at(const json& j, std::initializer_list<const char*> path) {
  const json* p = &j;
  for (const char* k : path) {
    if (!p->is_object() || !p->contains(k)) return nullptr;
    p = &(*p)[k];
  }
  return p;
}

std::string escape_pointer(const std::string& k) {
  std::string o;
  for (char c : k) o += c == '/' ? std::string("~1") : c == '~' ? std::string("~0") : std::string(1, c);
  return o;
}

// --------------------------------------------------------------------------------------------
// kvplan's own deployment format
// --------------------------------------------------------------------------------------------
std::uint64_t positive(const json& v, std::string_view source, std::string_view key) {
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > 0) return v.get<std::uint64_t>();
  if (v.is_string()) {
    const std::uint64_t n = parse_tokens(v.get<std::string>(), std::string(source) + " (" + std::string(key) + ")");
    if (n > 0) return n;
  }
  throw ConfigError::field(source, key, "a positive integer", detail::describe_json(v), "deployment");
}

Deployment kvplan_format(const json& j, std::string_view source, std::uint64_t line) {
  if (!j.is_object()) throw ConfigError::field(source, "", "a mapping of deployment keys", j.type_name(), "deployment");
  static const std::set<std::string> known = {"name", "engine", "model", "command", "args", "gpu", "gpus", "env", "require"};
  for (const auto& [k, v] : j.items())
    if (!known.count(k))
      throw ConfigError::field(source, "/" + k,
                               "one of the keys name, engine, model, command, args, gpu, gpus, env, require "
                               "(or a Kubernetes manifest with apiVersion/kind, or a compose file with services)",
                               k, "deployment");
  Deployment d;
  if (j.contains("command") && !j["command"].is_null()) {
    std::vector<std::string> argv;
    if (j["command"].is_string()) argv = split_command_line(j["command"].get<std::string>());
    else if (j["command"].is_array())
      for (const auto& x : j["command"]) argv.push_back(scalar_string(x));
    else throw ConfigError::field(source, "/command", "a command string or a list of words", detail::describe_json(j["command"]), "deployment");
    d = parse_launch_command(argv, source);
  } else {
    if (!j.contains("engine") || !j["engine"].is_string())
      throw ConfigError::field(source, "/engine", "an engine name (vllm, llama.cpp, sglang, trtllm) when there is no command",
                               detail::describe_json(j.value("engine", json())), "deployment");
    d.engine = parse_engine(j["engine"].get<std::string>());
  }
  d.source = std::string(source);
  d.line = line;
  if (j.contains("engine") && j["engine"].is_string() && parse_engine(j["engine"].get<std::string>()) != d.engine)
    throw ConfigError::field(source, "/engine", "the engine the command runs (" + std::string(engine_name(d.engine)) + ")",
                             j["engine"].get<std::string>(), "deployment");
  if (j.contains("name") && !j["name"].is_null()) d.name = scalar_string(j["name"]);
  if (j.contains("model") && !j["model"].is_null()) d.model = scalar_string(j["model"]);
  if (j.contains("args") && !j["args"].is_null()) {
    const auto& a = j["args"];
    if (a.is_array()) {
      for (const auto& x : a) d.args.push_back(scalar_string(x));
    } else if (a.is_object()) {
      for (const auto& [k, v] : a.items()) {
        const std::string flag = k.rfind("-", 0) == 0 ? k : "--" + k;
        if (v.is_boolean()) {
          if (v.get<bool>()) d.args.push_back(flag);
        } else {
          d.args.push_back(flag);
          d.args.push_back(scalar_string(v));
        }
      }
    } else {
      throw ConfigError::field(source, "/args", "a list of arguments or a mapping flag: value", detail::describe_json(a), "deployment");
    }
  }
  if (j.contains("env") && !j["env"].is_null()) {
    if (!j["env"].is_object()) throw ConfigError::field(source, "/env", "a mapping NAME: value", detail::describe_json(j["env"]), "deployment");
    for (const auto& [k, v] : j["env"].items()) d.env.emplace_back(k, scalar_string(v));
  }
  if (j.contains("gpu") && !j["gpu"].is_null()) d.gpu = scalar_string(j["gpu"]);
  if (j.contains("gpus") && !j["gpus"].is_null()) d.gpus = positive(j["gpus"], source, "/gpus");
  if (j.contains("require") && !j["require"].is_null()) {
    const auto& r = j["require"];
    if (!r.is_object()) throw ConfigError::field(source, "/require", "a mapping with concurrency and/or context", detail::describe_json(r), "deployment");
    for (const auto& [k, v] : r.items()) {
      if (k == "concurrency") d.require_concurrency = positive(v, source, "/require/concurrency");
      else if (k == "context") d.require_context = positive(v, source, "/require/context");
      else throw ConfigError::field(source, "/require/" + k, "concurrency or context", k, "deployment");
    }
  }
  return d;
}

// --------------------------------------------------------------------------------------------
// GPUs named by node labels
// --------------------------------------------------------------------------------------------
// The GPU the pod is scheduled on: nodeSelector, or required node affinity terms (operator In), on
// the labels deploy/gpu_labels.cpp reads (GPU feature discovery, GKE, Karpenter). Several allowed
// GPUs: the one with the least memory.
std::string gpu_from_pod_spec(const json& spec, std::string_view where, std::vector<std::string>& notes) {
  static const char* const keys[] = {"nvidia.com/gpu.product", "cloud.google.com/gke-accelerator", "karpenter.k8s.aws/instance-gpu-name"};
  std::vector<detail::GpuLabel> labels;
  if (const json* ns = at(spec, {"nodeSelector"}); ns && ns->is_object())
    for (const char* k : keys)
      if (ns->contains(k) && (*ns)[k].is_string()) labels.push_back({k, (*ns)[k].get<std::string>()});
  if (const json* terms = at(spec, {"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"});
      terms && terms->is_array()) {
    for (const auto& t : *terms) {
      const json* exprs = at(t, {"matchExpressions"});
      if (!exprs || !exprs->is_array()) continue;
      for (const auto& e : *exprs)
        for (const char* k : keys)
          if (text_of(e, "key") == k && text_of(e, "operator") == "In" && e.contains("values") && e["values"].is_array())
            for (const auto& v : e["values"])
              if (v.is_string()) labels.push_back({k, v.get<std::string>()});
    }
  }
  std::string note;
  const std::string gpu = detail::gpu_for_labels(labels, where, note);
  if (!note.empty()) notes.push_back(note);
  return gpu;
}

std::uint64_t gpu_quantity(const json& v, std::string_view where) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (!s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return std::stoull(s);
  }
  throw DeploymentError(std::string(where) + ": expected a whole number of GPUs in resources, got " + detail::describe_json(v), "", 0);
}

// nvidia.com/gpu or amd.com/gpu from limits (else requests); 0 when neither (k8s_container.h).
std::uint64_t container_gpus(const json& c, std::string_view where) { return detail::k8s_container_gpus(c, where).value_or(0); }

// --------------------------------------------------------------------------------------------
// Containers
// --------------------------------------------------------------------------------------------
struct Context {
  std::string_view source;
  const detail::YamlDocument* doc = nullptr;
  std::string document;   // "document 2" when the file has several
  std::string resource;   // "Deployment/vllm"
  std::string resource_as;  // a rendered workload is reported as the custom resource it comes from
};

std::vector<std::string> words_of(const json& v, std::string_view where, const char* key) {
  std::vector<std::string> out;
  if (v.is_null()) return out;
  if (v.is_string()) return split_command_line(v.get<std::string>());  // compose's string form
  if (!v.is_array()) throw DeploymentError(std::string(where) + ": expected a list of words in " + key + ", got " + detail::describe_json(v), "", 0);
  for (const auto& x : v) out.push_back(scalar_string(x));
  return out;
}

// Kubernetes expands $(VAR) in command/args from the container's env; $$ escapes.
std::string k8s_expand(const std::string& s, const std::map<std::string, std::string>& env) {
  std::string o;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '$' && i + 1 < s.size() && s[i + 1] == '$') { o += '$'; ++i; continue; }
    if (s[i] == '$' && i + 1 < s.size() && s[i + 1] == '(') {
      const auto end = s.find(')', i + 2);
      if (end != std::string::npos) {
        const std::string name = s.substr(i + 2, end - i - 2);
        if (auto it = env.find(name); it != env.end()) {
          o += it->second;
          i = end;
          continue;
        }
      }
    }
    o += s[i];
  }
  return o;
}

// The argv a container runs: command (or the image's entrypoint for the engines' images) + args.
std::optional<Deployment> container_deployment(const std::vector<std::string>& command, const std::vector<std::string>& args,
                                               const std::string& image, const std::vector<std::pair<std::string, std::string>>& env,
                                               std::string_view source) {
  std::vector<std::string> argv;
  if (!command.empty()) {
    argv = command;
    argv.insert(argv.end(), args.begin(), args.end());
    return detail::recognise_engine_command(argv, source);
  }
  // No command: the image's entrypoint. `docker run IMAGE args` knows the engines' images.
  argv = {"docker", "run", image.empty() ? std::string("<no image>") : image};
  argv.insert(argv.end(), args.begin(), args.end());
  // An engine's server image runs its entrypoint with the args appended: what docker run says of
  // them (the engine command repeated, which makes the container exit) is the verdict, never
  // retried as a command of its own.
  if (detail::server_image_entrypoint(image)) return detail::recognise_engine_command(argv, source);
  try {
    return detail::recognise_engine_command(argv, source);
  } catch (const Error&) {
    // Not an engine image: a container that runs something else, unless its args start an engine.
    if (!args.empty()) return detail::recognise_engine_command(args, source);
    return std::nullopt;
  }
  (void)env;
}

// Whether a resource holds a container list (a pod template) anywhere inside it.
bool holds_containers(const json& j, std::uint64_t depth) {
  if (depth > kMaxYamlDepth) return false;
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      if ((k == "containers" || k == "initContainers") && v.is_array() && !v.empty() && v[0].is_object()) return true;
      if (holds_containers(v, depth + 1)) return true;
    }
  } else if (j.is_array()) {
    for (const auto& v : j)
      if (holds_containers(v, depth + 1)) return true;
  }
  return false;
}

void add_container(std::vector<Deployment>& out, const Context& cx, const json& c, const std::string& pointer,
                   std::uint64_t gpus_override, const std::string& gpu, const std::vector<std::string>& extra_args,
                   const std::vector<std::string>& notes) {
  const std::string name = text_of(c, "name");
  const std::string where = std::string(cx.source) + " (" + (cx.document.empty() ? "" : cx.document + ", ") + cx.resource +
                            (name.empty() ? "" : ", container " + name) + ")";
  std::vector<std::pair<std::string, std::string>> env;
  std::map<std::string, std::string> envmap;
  if (const json* e = at(c, {"env"}); e && e->is_array())
    for (const auto& x : *e)
      if (x.is_object() && x.contains("name") && x.contains("value") && !x["value"].is_null()) {
        env.emplace_back(scalar_string(x["name"]), scalar_string(x["value"]));
        envmap[env.back().first] = env.back().second;
      }
  auto expand = [&](std::vector<std::string> v) {
    for (auto& w : v) w = k8s_expand(w, envmap);
    return v;
  };
  // Kubernetes' typing (k8s_container.h): []string, or the API server refuses the manifest.
  std::vector<std::string> args, command;
  try {
    args = expand(detail::k8s_string_list(c.value("args", json()), where, "args"));
    command = expand(detail::k8s_string_list(c.value("command", json()), where, "command"));
  } catch (const DeploymentError& e) {
    throw DeploymentError(e.what(), std::string(cx.source), cx.doc ? cx.doc->line_of(pointer) : 0);
  }
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::optional<Deployment> d;
  try {
    d = container_deployment(command, args, text_of(c, "image"), env, cx.source);
  } catch (const DeploymentError&) {
    throw;
  } catch (const Error& e) {
    throw DeploymentError(where + ": " + e.what(), std::string(cx.source), cx.doc ? cx.doc->line_of(pointer) : 0);
  }
  if (!d) return;
  d->source = std::string(cx.source);
  d->line = cx.doc ? cx.doc->line_of(pointer) : 0;
  d->document = cx.document;
  d->resource = cx.resource;
  d->container = name;
  d->name = cx.resource + (name.empty() ? "" : "/" + name);
  d->env.insert(d->env.begin(), env.begin(), env.end());
  std::uint64_t g = 0;
  try {
    const auto own = detail::k8s_container_gpus(c, where);
    if (own && *own == 0 && !gpus_override)
      throw DeploymentError(where + ": resources give the container nvidia.com/gpu: 0, so it sees no GPU and the engine "
                                    "cannot start (0 is zero GPUs, not unset)", "", 0);
    g = gpus_override ? gpus_override : own.value_or(0);
  } catch (const DeploymentError& e) {
    throw DeploymentError(e.what(), std::string(cx.source), d->line);
  }
  if (g) d->gpus = g;
  if (!gpu.empty()) d->gpu = gpu;
  (void)notes;
  out.push_back(std::move(*d));
}

void add_pod_spec(std::vector<Deployment>& out, const Context& cx, const json& spec, const std::string& pointer,
                  std::uint64_t group_pods = 1, const json* worker_spec = nullptr) {
  if (!spec.is_object()) return;
  std::vector<std::string> notes;
  const std::string where = std::string(cx.source) + " (" + cx.resource + ")";
  std::string gpu;
  try {
    gpu = gpu_from_pod_spec(spec, where, notes);
  } catch (const DeploymentError& e) {
    throw DeploymentError(e.what(), std::string(cx.source), cx.doc ? cx.doc->line_of(pointer) : 0);
  }
  const json* containers = at(spec, {"containers"});
  if (!containers || !containers->is_array()) return;
  for (std::size_t i = 0; i < containers->size(); ++i) {
    const json& c = (*containers)[i];
    std::uint64_t gpus_override = 0;
    if (worker_spec && group_pods > 1) {
      // LeaderWorkerSet: one group = the leader pod + (size - 1) worker pods, each with its GPUs.
      std::uint64_t worker_gpus = 0;
      if (const json* wc = at(*worker_spec, {"containers"}); wc && wc->is_array())
        for (const auto& x : *wc) worker_gpus += container_gpus(x, where);
      gpus_override = container_gpus(c, where) + worker_gpus * (group_pods - 1);
    }
    add_container(out, cx, c, pointer + "/containers/" + std::to_string(i), gpus_override, gpu, {}, notes);
  }
}

void kubernetes(std::vector<Deployment>& out, const Context& cx_in, const json& j, const std::string& pointer,
                const std::map<std::string, json>& runtimes, const std::set<std::string>& referenced) {
  const std::string kind = text_of(j, "kind");
  const std::string name = j.contains("metadata") ? text_of(j["metadata"], "name") : "";
  Context cx = cx_in;
  cx.resource = !cx_in.resource_as.empty() ? cx_in.resource_as : kind + (name.empty() ? "" : "/" + name);
  cx.resource_as.clear();
  if (kind == "List") {
    if (const json* items = at(j, {"items"}); items && items->is_array())
      for (std::size_t i = 0; i < items->size(); ++i) kubernetes(out, cx_in, (*items)[i], pointer + "/items/" + std::to_string(i), runtimes, referenced);
    return;
  }
  if (kind == "Pod") return add_pod_spec(out, cx, j.value("spec", json()), pointer + "/spec");
  if (kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet" || kind == "ReplicaSet" || kind == "Job" ||
      kind == "ReplicationController") {
    if (const json* s = at(j, {"spec", "template", "spec"})) add_pod_spec(out, cx, *s, pointer + "/spec/template/spec");
    return;
  }
  if (kind == "CronJob") {
    if (const json* s = at(j, {"spec", "jobTemplate", "spec", "template", "spec"})) add_pod_spec(out, cx, *s, pointer + "/spec/jobTemplate/spec/template/spec");
    return;
  }
  if (kind == "LeaderWorkerSet") {
    const json* lwt = at(j, {"spec", "leaderWorkerTemplate"});
    if (!lwt) return;
    std::uint64_t size = 1;
    if (const json* sz = at(*lwt, {"size"}); sz && sz->is_number_unsigned()) size = sz->get<std::uint64_t>();
    const json* worker = at(*lwt, {"workerTemplate", "spec"});
    const json* leader = at(*lwt, {"leaderTemplate", "spec"});
    // Without a leader template every pod of the group uses the worker template.
    if (leader) add_pod_spec(out, cx, *leader, pointer + "/spec/leaderWorkerTemplate/leaderTemplate/spec", size, worker);
    else if (worker) add_pod_spec(out, cx, *worker, pointer + "/spec/leaderWorkerTemplate/workerTemplate/spec", size, worker);
    return;
  }
  if (kind == "ServingRuntime" || kind == "ClusterServingRuntime") {
    if (referenced.count(name)) return;  // checked through the InferenceService that uses it
    if (const json* s = at(j, {"spec"})) add_pod_spec(out, cx, *s, pointer + "/spec");
    return;
  }
  if (kind == "InferenceService") {
    const json* pred = at(j, {"spec", "predictor"});
    if (!pred) return;
    if (pred->contains("containers")) return add_pod_spec(out, cx, *pred, pointer + "/spec/predictor");
    const json* model = at(*pred, {"model"});
    if (!model) return;
    const std::string where = std::string(cx.source) + " (" + cx.resource + ")";
    const std::string runtime = model->value("runtime", "");
    auto it = runtime.empty() ? runtimes.end() : runtimes.find(runtime);
    if (it == runtimes.end())
      throw DeploymentError(where + ": predictor.model uses " +
                                (runtime.empty() ? "the cluster's default runtime for its modelFormat"
                                                 : "the ServingRuntime \"" + runtime + "\", which is not in this file") +
                                "; kvplan checks the engine command: include the ServingRuntime (or use predictor.containers)",
                            std::string(cx.source), cx.doc ? cx.doc->line_of(pointer + "/spec/predictor/model") : 0);
    const json* rc = at(it->second, {"spec", "containers"});
    if (!rc || !rc->is_array() || rc->empty())
      throw DeploymentError(where + ": the ServingRuntime \"" + runtime + "\" has no containers", std::string(cx.source), 0);
    json c = (*rc)[0];
    // The model's args follow the runtime's; its resources (when given) replace the runtime's.
    if (model->contains("resources")) c["resources"] = (*model)["resources"];
    if (model->contains("env")) c["env"] = (*model)["env"];
    std::vector<std::string> extra = detail::k8s_string_list(model->value("args", json()), where, "args");
    std::vector<std::string> notes;
    std::string gpu;
    try {
      gpu = gpu_from_pod_spec(*pred, where, notes);
    } catch (const DeploymentError& e) {
      throw DeploymentError(e.what(), std::string(cx.source), 0);
    }
    add_container(out, cx, c, pointer + "/spec/predictor/model", 0, gpu, extra, notes);
    return;
  }
  // Operators' custom resources: the workloads their controllers make (deploy/operators.cpp).
  const std::string where = std::string(cx.source) + " (" + (cx.document.empty() ? "" : cx.document + ", ") + cx.resource + ")";
  const std::uint64_t line = cx.doc ? cx.doc->line_of(pointer) : 0;
  std::optional<std::vector<detail::OperatorWorkload>> rendered;
  try {
    rendered = detail::render_operator_resource(j, where);
  } catch (const DeploymentError& e) {
    throw DeploymentError(e.what(), std::string(cx.source), line);
  }
  if (rendered) {
    for (const auto& w : *rendered) {
      const std::uint64_t wline = cx.doc ? cx.doc->line_of(pointer + w.pointer) : 0;
      Context sub = cx_in;
      sub.doc = nullptr;
      sub.resource_as = w.resource;
      std::vector<Deployment> part;
      try {
        kubernetes(part, sub, w.manifest, "", runtimes, referenced);
      } catch (const DeploymentError& e) {
        throw DeploymentError(e.what(), std::string(cx.source), e.line() ? e.line() : wline);
      }
      for (auto& d : part) {
        d.line = wline;
        if (d.gpu.empty()) d.gpu = w.gpu;
        out.push_back(std::move(d));
      }
    }
    return;
  }
  // Kinds that run no engine (Service, ConfigMap, CustomResourceDefinition, HTTPRoute, ...).
  if (detail::non_serving_kind(kind)) return;
  // Any other kind is skipped only when it holds no containers: one that does (another operator's
  // resource, a RayCluster, ...) would run something kvplan cannot see.
  if (holds_containers(j, 0))
    throw DeploymentError(where + ": kind " + kind + " (apiVersion " + text_of(j, "apiVersion") +
                              ") holds containers, but kvplan does not read what this resource's controller runs from them; "
                              "check the workloads it renders (kubectl get deployment,statefulset,leaderworkerset -o yaml)",
                          std::string(cx.source), line);
}

// docker-compose: services with image / command / entrypoint / environment and GPU reservations.
void compose(std::vector<Deployment>& out, const Context& cx_in, const json& j, const std::string& pointer) {
  const json& services = j["services"];
  if (!services.is_object()) return;
  for (const auto& [sname, s] : services.items()) {
    if (!s.is_object()) continue;
    Context cx = cx_in;
    cx.resource = "compose service " + sname;
    const std::string where = std::string(cx.source) + " (" + cx.resource + ")";
    const std::string sp = pointer + "/services/" + escape_pointer(sname);
    std::vector<std::pair<std::string, std::string>> env;
    if (const json* e = at(s, {"environment"})) {
      if (e->is_object())
        for (const auto& [k, v] : e->items()) env.emplace_back(k, v.is_null() ? "" : scalar_string(v));
      else if (e->is_array())
        for (const auto& x : *e) {
          const std::string t = scalar_string(x);
          const auto eq = t.find('=');
          if (eq != std::string::npos) env.emplace_back(t.substr(0, eq), t.substr(eq + 1));
        }
    }
    std::vector<std::string> command, entrypoint;
    try {
      command = words_of(s.value("command", json()), where, "command");
      entrypoint = words_of(s.value("entrypoint", json()), where, "entrypoint");
    } catch (const DeploymentError& e) {
      throw DeploymentError(e.what(), std::string(cx.source), cx.doc ? cx.doc->line_of(sp) : 0);
    }
    std::optional<Deployment> d;
    try {
      if (!entrypoint.empty()) d = container_deployment(entrypoint, command, "", env, cx.source);
      else d = container_deployment({}, command, text_of(s, "image"), env, cx.source);
    } catch (const Error& e) {
      throw DeploymentError(where + ": " + e.what(), std::string(cx.source), cx.doc ? cx.doc->line_of(sp) : 0);
    }
    if (!d) continue;
    d->source = std::string(cx.source);
    d->line = cx.doc ? cx.doc->line_of(sp) : 0;
    d->document = cx.document;
    d->resource = cx.resource;
    d->container = sname;
    d->name = sname;
    d->env.insert(d->env.begin(), env.begin(), env.end());
    // deploy.resources.reservations.devices: [{driver: nvidia, count: N | all, device_ids: [...]}]
    if (const json* devs = at(s, {"deploy", "resources", "reservations", "devices"}); devs && devs->is_array()) {
      std::uint64_t n = 0;
      bool all = false;
      for (const auto& dev : *devs) {
        if (dev.contains("count")) {
          if (dev["count"].is_string() && dev["count"] == "all") all = true;
          else n += gpu_quantity(dev["count"], where);
        } else if (dev.contains("device_ids") && dev["device_ids"].is_array()) {
          n += dev["device_ids"].size();
        } else {
          all = true;  // compose: no count and no device_ids reserves all GPUs
        }
      }
      if (n && !all) d->gpus = n;
    }
    for (const auto& [k, v] : env)
      if ((k == "NVIDIA_VISIBLE_DEVICES" || k == "CUDA_VISIBLE_DEVICES") && !d->gpus && v != "all" && !v.empty()) {
        std::uint64_t c = 1;
        for (char ch : v) c += ch == ',';
        d->gpus = c;
      }
    out.push_back(std::move(*d));
  }
}

bool looks_like_script(std::string_view text, std::string_view source) {
  const std::string s(source);
  if (s.size() > 3 && s.substr(s.size() - 3) == ".sh") return true;
  return text.substr(0, 2) == "#!";
}

}  // namespace

namespace {
std::vector<Deployment> read_deployments(std::string_view text, std::string_view source);
}  // namespace

std::vector<Deployment> parse_deployments(std::string_view text, std::string_view source) {
  // The readers check each field's type; a nlohmann type error reaching here is one they missed,
  // and it is still the file's fault, not an internal error.
  try {
    return read_deployments(text, source);
  } catch (const nlohmann::json::exception& e) {
    throw DeploymentError::at(source, 0, std::string("a field of an unexpected type (") + e.what() + ")");
  }
}

namespace {
std::vector<Deployment> read_deployments(std::string_view text, std::string_view source) {
  if (text.size() > kMaxDeploymentFileBytes)
    throw DeploymentError::at(source, 0, "a deployment file of at most " + std::to_string(kMaxDeploymentFileBytes) + " bytes (it has " +
                                             std::to_string(text.size()) + ")");
  std::vector<Deployment> out;
  if (looks_like_script(text, source)) {
    out = detail::launch_script_deployments(text, source);
    if (out.empty()) throw DeploymentError::at(source, 0, "no engine command (vllm serve, python -m sglang.launch_server, llama-server, trtllm-serve) in the script");
    for (auto& d : out) d.name = d.name.empty() ? "line " + std::to_string(d.line) : d.name;
    return out;
  }
  std::vector<detail::YamlDocument> docs;
  const std::string t = trim_space(text);
  if (!t.empty() && (t.front() == '{' || t.front() == '[')) {
    detail::YamlDocument d;
    d.value = detail::parse_config_text(t, source, /*nonfinite_as_text=*/true);
    docs.push_back(std::move(d));
  } else {
    docs = detail::parse_yaml_documents(text, source);
  }
  if (docs.empty()) throw DeploymentError::at(source, 0, "an empty deployment file");
  // ServingRuntimes first: an InferenceService's predictor.model names one.
  std::map<std::string, json> runtimes;
  std::set<std::string> referenced;
  for (const auto& d : docs) {
    const json& j = d.value;
    if (!j.is_object()) continue;
    const std::string kind = text_of(j, "kind");
    if ((kind == "ServingRuntime" || kind == "ClusterServingRuntime") && j.contains("metadata"))
      runtimes[text_of(j["metadata"], "name")] = j;
    if (kind == "InferenceService")
      if (const json* r = at(j, {"spec", "predictor", "model", "runtime"}); r && r->is_string()) referenced.insert(r->get<std::string>());
  }
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const json& j = docs[i].value;
    Context cx;
    cx.source = source;
    cx.doc = &docs[i];
    cx.document = docs.size() > 1 ? "document " + std::to_string(i + 1) : "";
    if (!j.is_object())
      throw DeploymentError::at(source, docs[i].line, "expected a mapping (a manifest, a compose file or kvplan's deployment keys), got " +
                                                          std::string(j.type_name()));
    if (j.contains("kind") || j.contains("apiVersion")) kubernetes(out, cx, j, "", runtimes, referenced);
    else if (j.contains("services")) compose(out, cx, j, "");
    else if (auto rendered = detail::render_helm_values(j, source)) {  // a chart's values file (deploy/helm.cpp)
      cx.doc = nullptr;
      kubernetes(out, cx, *rendered, "", runtimes, referenced);
    } else if (docs.size() == 1) out.push_back(kvplan_format(j, source, docs[i].line));
    else
      throw DeploymentError::at(source, docs[i].line, "a document without kind (Kubernetes) or services (compose) in a multi-document file");
  }
  if (out.empty())
    throw DeploymentError::at(source, 0, "no container runs an engine (vllm serve, python -m vllm.entrypoints.openai.api_server, "
                                         "python -m sglang.launch_server, llama-server, trtllm-serve, or an engine image)");
  // Files the deployment names (--config, --extra_llm_api_options) are read from, and contained
  // in, the file's folder ("." for a file in the working directory or a text with no folder).
  std::string dir = std::filesystem::path(std::string(source)).parent_path().string();
  if (dir.empty()) dir = ".";
  for (auto& d : out) d.base_dir = dir;
  return out;
}
}  // namespace

Deployment parse_deployment(std::string_view text, std::string_view source) {
  auto all = parse_deployments(text, source);
  if (all.size() != 1)
    throw DeploymentError::at(source, all[1].line, "one deployment (this file holds " + std::to_string(all.size()) +
                                                       "; kvplan check reads each of them)");
  return all[0];
}

std::vector<Deployment> load_deployment_files(const std::string& path) {
  if (path == "-") return parse_deployments(read_deployment_stdin(), kStdinSource);
  const std::string text = read_regular_file(path, kMaxDeploymentFileBytes, "deployment file");
  return parse_deployments(text, path);
}

std::string read_deployment_stdin() {
  std::string text;
  char buf[65536];
  while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(std::cin.gcount()));
    if (text.size() > kMaxDeploymentFileBytes)
      throw DeploymentError::at(kStdinSource, 0, "at most " + std::to_string(kMaxDeploymentFileBytes) + " bytes on standard input");
  }
  return text;
}

Deployment load_deployment_file(const std::string& path) {
  if (path == "-") return parse_deployment(read_deployment_stdin(), kStdinSource);
  const std::string text = read_regular_file(path, kMaxDeploymentFileBytes, "deployment file");
  return parse_deployment(text, path);
}

}  // namespace kvplan
