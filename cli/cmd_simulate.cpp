// kvplan simulate MODEL --gpu GPU (--trace FILE | --workload SPEC) [vLLM flags]: vLLM V1's scheduler
// and KV-cache allocator over a workload, with kvplan's exact block count. Also the launch-command
// form: kvplan simulate --gpu GPU --trace FILE -- vllm serve MODEL --max-num-seqs 64 ...
//
// The memory budget is `kvplan check`'s (check_deployment on the same vllm serve command), so
// simulate, check and engine agree on num_blocks; the simulation itself is one library call.
#include <span>
#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <iostream>

#include "common.h"
#include "plan_options.h"
#include "kvplan/check.h"
#include "kvplan/simulate.h"

namespace kvplan::cli {

namespace {

// The vLLM flags simulate understands, by their vLLM names.
struct VllmFlags {
  std::string max_model_len, max_num_batched_tokens, kv_cache_memory, kv_cache_dtype, mamba_cache_mode, attention_backend;
  std::string scheduling_policy;
  std::optional<std::uint64_t> max_num_seqs, block_size, num_gpu_blocks_override, long_prefill;
  std::optional<double> gpu_memory_utilization;
  std::uint64_t tp = 1, pp = 1;
  bool prefix_on = false, prefix_off = false, enforce_eager = false, no_chunked_prefill = false;
  bool no_reserve_full_isl = false;

  void add(CLI::App& c) {
    c.add_option("--max-model-len", max_model_len, "tokens per request (32k, 131072); default: the model's");
    c.add_option("--max-num-seqs", max_num_seqs, "running requests at most (default: vllm serve's, 1024 on >= 70 GiB GPUs other than A100, else 256)");
    c.add_option("--max-num-batched-tokens", max_num_batched_tokens, "token budget per step (default: vllm serve's, 8192 or 2048)");
    c.add_option("--kv-cache-dtype", kv_cache_dtype, "auto, fp8, fp8_e4m3, fp8_e5m2, bf16, ...");
    c.add_option("--block-size", block_size, "tokens per KV block (default: 16, or the MLA backend's)");
    c.add_option("--gpu-memory-utilization", gpu_memory_utilization, "fraction of GPU memory vLLM may use (0.9)");
    c.add_option("--kv-cache-memory,--kv-cache-memory-bytes", kv_cache_memory, "KV cache bytes per GPU (replaces the utilization budget)");
    c.add_flag("--enable-prefix-caching", prefix_on, "prefix caching on (the default)");
    c.add_flag("--no-enable-prefix-caching", prefix_off, "prefix caching off");
    c.add_option("--tensor-parallel-size,--tp", tp, "tensor-parallel size")->capture_default_str();
    c.add_option("--pipeline-parallel-size,--pp", pp, "pipeline-parallel size")->capture_default_str();
    c.add_option("--num-gpu-blocks-override", num_gpu_blocks_override, "vLLM's block-count override");
    c.add_option("--long-prefill-token-threshold", long_prefill, "cap on one request's prefill tokens per step");
    c.add_flag("--no-enable-chunked-prefill", no_chunked_prefill, "chunked prefill off");
    c.add_flag("--no-scheduler-reserve-full-isl", no_reserve_full_isl,
               "admit a waiting request when its first chunk fits (default: only when its whole sequence fits)");
    c.add_option("--scheduling-policy", scheduling_policy,
                 "fcfs (the default) or priority: waiting requests by the trace's \"priority\" (lower first), then arrival");
    c.add_option("--mamba-cache-mode", mamba_cache_mode, "none, align or all (hybrid Mamba models)");
    c.add_option("--attention-backend", attention_backend, "vLLM attention backend (changes the MLA block size)");
    c.add_flag("--enforce-eager", enforce_eager, "no CUDA graphs (frees their memory for the cache)");
  }
  // The same settings as `vllm serve` flags: the MODEL form becomes the launch command it stands
  // for, read by the check layer (read_vllm_launch) like any other.
  std::vector<std::string> to_args() const {
    std::vector<std::string> a;
    auto put = [&](const char* k, const std::string& v) {
      if (!v.empty()) a.insert(a.end(), {k, v});
    };
    if (!max_model_len.empty()) put("--max-model-len", std::to_string(parse_tokens(max_model_len, "--max-model-len")));
    if (!max_num_batched_tokens.empty())
      put("--max-num-batched-tokens", std::to_string(parse_tokens(max_num_batched_tokens, "--max-num-batched-tokens")));
    if (max_num_seqs) put("--max-num-seqs", std::to_string(*max_num_seqs));
    if (long_prefill) put("--long-prefill-token-threshold", std::to_string(*long_prefill));
    if (no_chunked_prefill) a.push_back("--no-enable-chunked-prefill");
    if (no_reserve_full_isl) a.push_back("--no-scheduler-reserve-full-isl");
    put("--scheduling-policy", scheduling_policy);
    put("--kv-cache-dtype", kv_cache_dtype);
    if (block_size) put("--block-size", std::to_string(*block_size));
    if (gpu_memory_utilization) put("--gpu-memory-utilization", std::to_string(*gpu_memory_utilization));
    if (!kv_cache_memory.empty())  // vLLM's flag takes whole bytes
      put("--kv-cache-memory-bytes", std::to_string(parse_bytes(kv_cache_memory, "--kv-cache-memory")));
    if (prefix_off) a.push_back("--no-enable-prefix-caching");
    put("--tensor-parallel-size", std::to_string(tp));
    put("--pipeline-parallel-size", std::to_string(pp));
    if (num_gpu_blocks_override) put("--num-gpu-blocks-override", std::to_string(*num_gpu_blocks_override));
    put("--mamba-cache-mode", mamba_cache_mode);
    put("--attention-backend", attention_backend);
    if (enforce_eager) a.push_back("--enforce-eager");
    return a;
  }
};

// SGLang's and llama-server's flags, by the engines' own names: every option table field
// (kvplan/engine_fields.h, the options `kvplan engine` takes) whose flag the engine itself has, plus
// the scheduler-only flags the simulator reads. A MODEL form's flags become the launch command
// they stand for, read like any other (llamacpp_sim_options / sglang_sim_options and check).
struct EngineFlag {
  EngineKind engine;
  std::string name;     // the spelling forwarded to the engine
  bool is_switch = false;
  std::string text;
  bool on = false;
  CLI::Option* option = nullptr;
};
struct OtherEngineFlags {
  std::vector<EngineFlag> flags;  // stable: options hold pointers into it
  bool any_given() const {
    return std::any_of(flags.begin(), flags.end(), [](const EngineFlag& f) { return f.option->count() > 0; });
  }

  void add(CLI::App& c) {
    struct Extra {
      EngineKind e;
      const char* flags;
      bool sw;
      const char* help;
    };
    static const Extra extras[] = {
        {EngineKind::sglang, "--schedule-conservativeness", false, "new_token_ratio = min(0.7 x this, 1) (default 1.0)"},
        {EngineKind::sglang, "--max-prefill-tokens", false, "prefill tokens per batch (default 16384)"},
        {EngineKind::sglang, "--schedule-policy", false, "fcfs (other policies are refused: not simulated)"},
        {EngineKind::sglang, "--enable-mixed-chunk", true, "not simulated (noted)"},
        {EngineKind::llamacpp, "--slot-prompt-similarity", false, "prompt similarity that picks a slot (default 0.1)"},
        {EngineKind::llamacpp, "--cache-reuse", false, "KV shift chunk reuse (noted)"},
        {EngineKind::llamacpp, "--context-shift", true, "refused (shifting is not simulated)"},
        // trtllm-serve's own flags (tensorrt_llm/commands/serve.py); the rest (tokens_per_block, the KV
        // dtype, the capacity scheduler policy) in its --extra_llm_api_options YAML.
        {EngineKind::trtllm, "--max_batch_size", false, "requests per batch (default 2048)"},
        {EngineKind::trtllm, "--max_num_tokens", false, "tokens per step (default 8192)"},
        {EngineKind::trtllm, "--max_seq_len", false, "longest sequence (default: the model's)"},
        {EngineKind::trtllm, "--kv_cache_free_gpu_memory_fraction", false, "KV share of the free memory (default 0.9)"},
        {EngineKind::trtllm, "--tp_size", false, "tensor-parallel size"},
        {EngineKind::trtllm, "--pp_size", false, "pipeline-parallel size"},
        {EngineKind::trtllm, "--enable_chunked_prefill", true, "chunked context"},
        {EngineKind::trtllm, "--extra_llm_api_options", false,
         "LLM API YAML (kv_cache_config, scheduler_config.capacity_scheduler_policy, ...)"},
    };
    std::vector<std::tuple<EngineKind, std::string, bool, std::string>> want;
    auto table = [&](EngineKind e, const std::vector<EngineField>& fields) {
      for (const EngineField& f : fields) {
        std::string names;
        std::string_view rest = f.cli_flags;
        while (!rest.empty()) {
          const auto comma = rest.find(',');
          const std::string n(rest.substr(0, comma));
          rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
          // The engine's own spellings (not kvplan's --gpu-memory, --weights, ...), CLI11-legal,
          // not already taken by the vLLM flags.
          if (classify_engine_flag(e, n) == EngineFlagClass::unknown) continue;
          if (!(n.size() > 2 && n[1] == '-') && n.size() != 2) continue;
          if (c.get_option_no_throw(n)) continue;
          names += (names.empty() ? "" : ",") + n;
        }
        if (!names.empty()) want.emplace_back(e, names, f.type == FieldType::boolean, std::string(f.help));
      }
    };
    table(EngineKind::sglang, engine_fields(EngineKind::sglang));
    table(EngineKind::llamacpp, engine_fields(EngineKind::llamacpp));
    for (const Extra& x : extras) want.emplace_back(x.e, x.flags, x.sw, x.help);
    flags.reserve(want.size());
    for (auto& [e, names, sw, help] : want) {
      // The long spelling is what is forwarded.
      std::string fwd = names.substr(0, names.find(','));
      for (std::string_view r = names; !r.empty();) {
        const auto comma = r.find(',');
        const std::string n(r.substr(0, comma));
        if (n.size() > 2) fwd = n;
        r = comma == std::string_view::npos ? std::string_view{} : r.substr(comma + 1);
        if (n.size() > 2) break;
      }
      flags.push_back({e, fwd, sw});
      EngineFlag& f = flags.back();
      const std::string h = std::string(e == EngineKind::sglang ? "[sglang] " : e == EngineKind::trtllm ? "[trtllm] " : "[llama.cpp] ") + help;
      f.option = sw ? c.add_flag(names, f.on, h) : c.add_option(names, f.text, h);
      f.option->group(e == EngineKind::sglang   ? "SGLang (--engine sglang)"
                      : e == EngineKind::trtllm ? "TensorRT-LLM (--engine trtllm)"
                                                : "llama.cpp (--engine llama.cpp)");
    }
  }
};

struct SimulateCliOptions {
  std::vector<std::string> positional;  // MODEL, or a launch command after --
  std::vector<std::string> assume;
  bool engine_given = false;
  std::map<std::string, CLI::Option*> vllm_options;  // the vLLM flags by name (given or not)
  std::string model;  // --model: the config of a launch command's model (llama-server -m x.gguf)
  std::string gpu, engine = "vllm", trace, workload, calibration, csv, find, seed;
  // A custom device, as for kvplan plan / check: a catalog-shaped JSON file, or the named GPU (or
  // none) with these figures in place of the catalog's.
  std::string gpu_file, gpu_memory, gpu_bandwidth, gpu_flops;
  VllmFlags vllm;
  OtherEngineFlags other;
  double prefill_efficiency = 0;  // 0: the calibrated compute fraction (data/step_time.json)
  double slo_ttft = 0, slo_tpot = 0, slo_e2e = 0, slo_percentile = 0.9, price = 0, target_rate = 0;
  bool json = false;
};

bool is_launcher(const std::string& s) {
  return s == "vllm" || s == "python" || s == "python3" || s == "sglang" || s == "llama-server" || s == "trtllm-serve";
}

// The vLLM deployment the command line describes: a launch command, or MODEL with vLLM's flags.
Deployment vllm_deployment(const SimulateCliOptions& o, const std::vector<std::string>& argv, bool launch) {
  Deployment d;
  const VllmFlags& f = o.vllm;
  if (launch) {
    d = parse_launch_command(argv);
  } else {
    if (f.prefix_on && f.prefix_off)
      throw InputError::value("--enable-prefix-caching", "both", "one of --enable-prefix-caching, --no-enable-prefix-caching");
    d.engine = EngineKind::vllm;
    d.model = argv[0];
    d.source = "command line";
    d.args = f.to_args();
  }
  if (d.engine != EngineKind::vllm) throw InputError::value("launch command", argv[0], "vllm serve ... (--engine vllm)");
  return d;
}

// The vLLM flags of the MODEL form: vLLM's alone, and those SGLang reads too (by the same name).
constexpr const char* kVllmOnlyFlags[] = {"--max-model-len", "--max-num-seqs", "--max-num-batched-tokens", "--block-size",
                                          "--gpu-memory-utilization", "--kv-cache-memory", "--enable-prefix-caching",
                                          "--no-enable-prefix-caching", "--num-gpu-blocks-override",
                                          "--long-prefill-token-threshold", "--no-enable-chunked-prefill",
                                          "--no-scheduler-reserve-full-isl", "--scheduling-policy", "--mamba-cache-mode",
                                          "--enforce-eager"};
constexpr const char* kVllmSharedFlags[] = {"--kv-cache-dtype", "--tensor-parallel-size", "--pipeline-parallel-size",
                                            "--attention-backend"};

// SGLang and llama-server: the MODEL form's flags are forwarded as the engine's launch command;
// kvplan check reads it (its memory budget: SGLang's KV bytes after weights), the engine option
// table maps the same command onto the profile's options, and the simulated pool must be the
// one check reports.
Deployment other_deployment(const SimulateCliOptions& o, EngineKind kind, const std::vector<std::string>& argv, bool launch,
                            bool engine_given) {
  Deployment d;
  const std::string name(engine_name(kind));
  // Flags of another engine are an error, never silently ignored.
  auto given = [&](const char* flag) {
    const CLI::Option* x = o.vllm_options.count(flag) ? o.vllm_options.at(flag) : nullptr;
    return x && x->count() > 0;
  };
  auto refuse = [&](const std::string& flag, const std::string& owner) {
    throw InputError::value(flag, "given for --engine " + name, "an option of " + name + " (" + flag + " is read by " + owner + ")");
  };
  for (const char* f : kVllmOnlyFlags)
    if (given(f)) refuse(f, "vllm");
  if (kind == EngineKind::llamacpp || kind == EngineKind::trtllm)
    for (const char* f : kVllmSharedFlags)
      if (given(f)) refuse(f, "vllm and sglang");
  for (const EngineFlag& f : o.other.flags)
    if (f.engine != kind && f.option->count() > 0) refuse(f.name, std::string(engine_name(f.engine)));
  if (launch) {
    d = parse_launch_command(argv);
    if (d.engine != kind) {
      if (engine_given)
        throw InputError::value("launch command", argv[0], "a " + name + " command (--engine " + name + ")");
      kind = d.engine;
    }
    if (o.other.any_given())
      throw InputError::value("engine flags", "before --", "the engine's flags inside the launch command, after --");
  } else {
    std::vector<std::string> cmd;
    if (kind == EngineKind::sglang) cmd = {"python3", "-m", "sglang.launch_server", "--model-path", argv[0]};
    else if (kind == EngineKind::trtllm) cmd = {"trtllm-serve", argv[0]};
    else cmd = {"llama-server"};  // the model is kvplan's (d.model below), not a GGUF path
    if (kind == EngineKind::sglang) {
      if (!o.vllm.kv_cache_dtype.empty()) cmd.insert(cmd.end(), {"--kv-cache-dtype", o.vllm.kv_cache_dtype});
      if (!o.vllm.attention_backend.empty()) cmd.insert(cmd.end(), {"--attention-backend", o.vllm.attention_backend});
      if (given("--tensor-parallel-size")) cmd.insert(cmd.end(), {"--tp-size", std::to_string(o.vllm.tp)});
      if (given("--pipeline-parallel-size")) cmd.insert(cmd.end(), {"--pp-size", std::to_string(o.vllm.pp)});
    }
    for (const EngineFlag& f : o.other.flags) {
      if (f.engine != kind || f.option->count() == 0) continue;
      if (f.is_switch) cmd.push_back(f.name);
      else cmd.insert(cmd.end(), {f.name, f.text});
    }
    d = parse_launch_command(cmd);
    d.source = "command line";
    if (kind == EngineKind::llamacpp) d.model = argv[0];
  }
  return d;
}

int run_simulate(SimulateCliOptions o) {
  const bool custom = !o.gpu_file.empty() || !o.gpu_memory.empty() || !o.gpu_bandwidth.empty() || !o.gpu_flops.empty();
  if (o.gpu.empty() && !custom)
    throw InputError::value("--gpu", "", "a GPU model (kvplan gpus), e.g. H100, or --gpu-file / --gpu-memory");
  EngineKind kind = parse_engine(o.engine);
  if (o.trace.empty() == o.workload.empty()) throw InputError::value("workload", "", "exactly one of --trace FILE or --workload SPEC");
  std::vector<std::string> argv;
  for (const auto& part : o.positional)
    for (auto& w : split_command_line(part)) argv.push_back(std::move(w));
  if (argv.empty()) throw InputError::value("MODEL", "", "a model, or a launch command after -- (vllm serve MODEL ...)");
  const bool launch = argv.size() > 1 || is_launcher(argv[0]);
  // The device the simulator times steps on is the one check budgets (kvplan plan's device rules).
  std::optional<Accelerator> device;
  if (custom) {
    PlanOptions dev;
    dev.fields["gpu"] = o.gpu;
    dev.gpu_file = o.gpu_file;
    dev.fields["gpu_memory"] = o.gpu_memory;
    dev.fields["gpu_bandwidth"] = o.gpu_bandwidth;
    dev.fields["gpu_flops"] = o.gpu_flops;
    device = dev.device();
  }
  const Accelerator gpu = device ? *device : find_accelerator(o.gpu);
  if (launch && !o.engine_given) kind = parse_launch_command(argv).engine;
  if (kind == EngineKind::vllm && o.other.any_given()) {
    for (const EngineFlag& f : o.other.flags)
      if (f.option->count() > 0)
        throw InputError::value(f.name, "given for --engine vllm",
                                "an option of vllm (" + f.name + " is read by " + std::string(engine_name(f.engine)) + ")");
  }
  if (kind == EngineKind::vllm && !o.model.empty())
    throw InputError::value("--model", o.model, "no --model for vLLM (vllm serve names its model; --model is for llama-server -m x.gguf)");
  // The library's preparation, as for the page and Python: the engine's batch defaults for this
  // GPU, kvplan check's budget, and the pool check reports.
  CheckOptions co;
  co.gpu = gpu.name;
  co.device = device;
  if (!o.model.empty()) co.model = o.model;  // refused above for vLLM
  LoadOptions lo;
  lo.assume = o.assume;
  SimDeployment p = prepare_simulation(kind == EngineKind::vllm ? vllm_deployment(o, argv, launch)
                                                                : other_deployment(o, kind, argv, launch, o.engine_given),
                                       co, lo);
  const Deployment& d = p.deployment;
  const CheckResult& cr = p.check;
  const ModelSpec& m = p.model;
  SimOptions& so = p.options;
  if (!o.calibration.empty()) so.step_time = load_step_time(o.calibration);
  so.step_time.prefill_efficiency = o.prefill_efficiency;
  so.slo = {o.slo_ttft, o.slo_tpot, o.slo_e2e};

  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv);
    if (!csv) throw InputError::value("--csv", o.csv, "a writable file");
    csv << sim_step_csv_header();
    so.on_step = [&csv](const SimStep& s) { csv << format_sim_step_csv(s); };
  }

  auto finish_json = [&](nlohmann::json j) {
    j["deployment"] = {{"source", d.source}, {"args", d.args}};
    j["check_notes"] = cr.notes;
    for (const auto& n : p.notes) j["notes"].push_back(n);
    return j;
  };
  if (!o.find.empty()) {
    if (o.find != "max-rate") throw InputError::value("--find", o.find, "max-rate");
    if (o.workload.empty()) throw InputError::value("--find max-rate", "--trace", "a --workload spec (its lengths; the search sets the rate)");
    WorkloadSpec w = parse_workload_spec(o.workload);
    if (!o.seed.empty()) w.seed = parse_tokens(o.seed, "--seed");
    CapacityOptions c;
    c.percentile = o.slo_percentile;
    c.price_per_gpu_hour = o.price;
    c.target_rate = o.target_rate;
    so.on_step = nullptr;
    CapacityResult r = find_max_rate(m, gpu, so, w, c);
    if (o.json) print_json(finish_json(to_json(r)));
    else std::cout << format_capacity_text(r);
    return 0;
  }
  SimResult r;
  if (!o.trace.empty()) {
    r = simulate(m, gpu, so, load_trace(o.trace));
  } else {
    WorkloadSpec w = parse_workload_spec(o.workload);
    if (!o.seed.empty()) w.seed = parse_tokens(o.seed, "--seed");
    r = simulate(m, gpu, so, w);
    if (o.json) {
      auto j = finish_json(to_json(r));
      j["workload"] = to_json(w);
      print_json(j);
      return 0;
    }
  }
  if (o.price > 0 && r.throughput_output_tokens_per_s > 0) {
    const double gpus = static_cast<double>(p.gpus);
    r.notes.push_back("cost at " + format_fixed(o.price, 2) + " per GPU-hour: " +
                      format_fixed(o.price * gpus / (r.throughput_output_tokens_per_s * 3600.0) * 1e6, 4) +
                      " per million output tokens at this run's throughput");
  }
  if (o.json) print_json(finish_json(to_json(r)));
  else std::cout << format_simulate_text(r);
  return 0;
}

}  // namespace

static void register_simulate(CLI::App& app, Runner& run) {
  auto o = std::make_shared<SimulateCliOptions>();
  auto* cmd = app.add_subcommand("simulate", "run an engine's scheduler and KV allocator (vLLM, SGLang, llama-server, TensorRT-LLM) over a request trace or synthetic workload");
  cmd->add_option("MODEL", o->positional,
                  "a model (as for kvplan size), or after -- a launch command: vllm serve MODEL --max-num-seqs 64 ...");
  cmd->add_option("--assume", o->assume, "accept an explicit assumption (as for kvplan size)");
  cmd->add_option("--gpu", o->gpu, "GPU model (kvplan gpus), e.g. H100");
  cmd->add_option("--gpu-file", o->gpu_file, "a custom accelerator: JSON object with the catalog's keys");
  cmd->add_option("--gpu-memory", o->gpu_memory, "device memory per GPU (e.g. 80GB, 24GiB), replacing the catalog's");
  cmd->add_option("--gpu-bandwidth", o->gpu_bandwidth, "memory bandwidth in bytes/s (e.g. 3.35e12), replacing the catalog's");
  cmd->add_option("--gpu-flops", o->gpu_flops, "dense BF16 peak FLOP/s (e.g. 989e12), replacing the catalog's");
  cmd->add_option("--model", o->model, "the model (as for kvplan size) of a launch command that names only a GGUF file "
                                       "(llama-server -m x.gguf), as for kvplan check --model");
  cmd->add_option("--engine", o->engine, "the engine whose scheduler runs: vllm, sglang, llama.cpp or trtllm (a launch command after -- names its own)")->capture_default_str();
  o->vllm.add(*cmd);
  for (std::span<const char* const> list : {std::span<const char* const>(kVllmOnlyFlags), std::span<const char* const>(kVllmSharedFlags)})
    for (const char* f : list) o->vllm_options[f] = cmd->get_option(f);
  o->other.add(*cmd);
  cmd->add_option("--trace", o->trace, "a trace: JSONL {arrival_s, prompt_tokens, output_tokens, session?, prefix_id?, prefix_tokens?, priority?}, "
                                       "an Azure LLM inference trace CSV or a BurstGPT CSV");
  cmd->add_option("--workload", o->workload,
                  "a synthetic workload: \"arrivals=poisson rate=10 requests=1000 prompt=lognormal:1024:0.8 "
                  "output=uniform:64:512 system_prompt=512 turns=3 think=5 users=64 seed=1\" (docs/simulate.md)");
  cmd->add_option("--seed", o->seed, "seed for the synthetic workload (overrides seed= in the spec)");
  cmd->add_option("--calibration", o->calibration,
                  "CSV of measured steps (prefill_tokens, decode_tokens, kv_tokens_read, seconds) for a fitted step time");
  cmd->add_option("--prefill-efficiency", o->prefill_efficiency, "fraction of the dense peak GEMMs reach (default 0: the calibrated one, data/step_time.json)")
      ->capture_default_str();
  cmd->add_option("--slo-ttft", o->slo_ttft, "time-to-first-token target, seconds (goodput, --find)");
  cmd->add_option("--slo-tpot", o->slo_tpot, "time-per-output-token target, seconds");
  cmd->add_option("--slo-e2e", o->slo_e2e, "end-to-end latency target, seconds");
  cmd->add_option("--slo-percentile", o->slo_percentile, "--find: the percentile the SLOs apply to (0.5, 0.9, 0.99)")
      ->capture_default_str();
  cmd->add_option("--find", o->find, "max-rate: the highest Poisson rate within the SLOs (bisection over seeded runs)");
  cmd->add_option("--target-rate", o->target_rate, "--find: also the fewest replicas for this many requests/s");
  cmd->add_option("--price", o->price, "price per GPU-hour: cost per million tokens");
  cmd->add_option("--csv", o->csv, "write one CSV row per scheduler step to FILE");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([&run, o, cmd] {
    o->engine_given = cmd->get_option("--engine")->count() > 0;
    run = [o] { return run_simulate(*o); };
  });
}

KVPLAN_VERB(47, register_simulate);

}  // namespace kvplan::cli
