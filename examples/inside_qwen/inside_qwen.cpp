// inside_qwen: Qwen3-0.6B at its real dimensions (28 layers, hidden 1024, 16 query / 8 KV heads
// of 128, FFN 3072, vocabulary 151,936, tied embeddings), FP32, seeded random weights, run by
// kvplan's reference runtime. Reproduces the measurements of seed figures S16 and S13:
//   - prefill tokens/s at 16, 64, 256 and 1024 prompt tokens;
//   - decode tokens/s with the KV cache at 64, 512 and 1024 tokens of context, and without it
//     (every step recomputes the whole sequence, as generate(use_cache=False) does);
//   - tokens computed per step with and without the cache.
// Prints a table and one JSON object. --quick runs a short version (seconds) for CI.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/kvplan.h"
#include "kvplan/runtime/runtime.h"

using namespace kvplan;
using namespace kvplan::runtime;
using Clock = std::chrono::steady_clock;

namespace {
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Args {
  bool quick = false;
  int threads = 0;
  std::uint64_t gen = 16;        // decode steps measured with the cache
  std::uint64_t gen_nocache = 3; // decode steps measured without it (each recomputes everything)
  std::string json_out;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw InputError::value(s, "nothing", "a value");
      return argv[++i];
    };
    if (s == "--quick") a.quick = true;
    else if (s == "--threads") a.threads = std::stoi(next());
    else if (s == "--gen") a.gen = std::stoull(next());
    else if (s == "--gen-nocache") a.gen_nocache = std::stoull(next());
    else if (s == "--json-out") a.json_out = next();
    else if (s == "--help" || s == "-h") {
      std::cout << "usage: inside_qwen [--quick] [--threads N] [--gen N] [--gen-nocache N] [--json-out FILE]\n";
      std::exit(0);
    } else throw InputError::value("argument", s, "--quick, --threads, --gen, --gen-nocache or --json-out");
  }
  if (a.threads <= 0) a.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (a.quick) a.gen = std::min<std::uint64_t>(a.gen, 4), a.gen_nocache = std::min<std::uint64_t>(a.gen_nocache, 2);
  return a;
}
}  // namespace

int main(int argc, char** argv) try {
  const Args args = parse(argc, argv);
  const std::vector<std::uint64_t> prefill_sizes = args.quick ? std::vector<std::uint64_t>{16, 64}
                                                              : std::vector<std::uint64_t>{16, 64, 256, 1024};
  const std::vector<std::uint64_t> contexts = args.quick ? std::vector<std::uint64_t>{64}
                                                         : std::vector<std::uint64_t>{64, 512, 1024};
  Options opt;
  opt.scaled = false;
  opt.threads = args.threads;
  auto t0 = Clock::now();
  Model model(load_model("Qwen/Qwen3-0.6B"), opt);
  const double build_s = seconds_since(t0);
  const auto& d = model.dims();
  const CacheDtypes fp32{Dtype::fp32, Dtype::fp32, Dtype::fp32, Dtype::fp32};
  const auto tokens = sample_tokens(2048, d.vocab, 3);

  nlohmann::json j;
  j["model"] = "Qwen/Qwen3-0.6B";
  j["dtype"] = "fp32";
  j["threads"] = args.threads;
  j["quick"] = args.quick;
  j["weights"] = model.weight_count();
  j["weight_bytes"] = model.weight_count() * 4;
  j["hidden_size"] = d.hidden, j["vocab_size"] = d.vocab, j["ffn"] = d.ffn;
  j["build_seconds"] = build_s;

  // Prefill: one forward over the whole prompt (matrix-matrix products), logits of the last token.
  for (auto n : prefill_sizes) {
    Cache c = model.allocate(n, fp32);
    auto t = Clock::now();
    model.forward(std::span(tokens).first(n), c);
    const double s = seconds_since(t);
    j["prefill"].push_back({{"tokens", n}, {"seconds", s}, {"tokens_per_second", n / s}});
  }

  // Decode at a context: prefill `ctx` tokens (not timed), then time `gen` single-token steps.
  for (auto ctx : contexts) {
    Cache c = model.allocate(ctx + args.gen, fp32);
    model.forward(std::span(tokens).first(ctx), c);
    ForwardStats with;
    auto t = Clock::now();
    for (std::uint64_t i = 0; i < args.gen; ++i) model.forward(std::span(tokens).subspan(ctx + i, 1), c, false, &with);
    const double s_with = seconds_since(t);
    // Without a cache: step i recomputes all ctx + i + 1 tokens from scratch.
    ForwardStats without;
    t = Clock::now();
    for (std::uint64_t i = 0; i < args.gen_nocache; ++i) {
      const std::uint64_t n = ctx + i + 1;
      Cache fresh = model.allocate(n, fp32);
      model.forward(std::span(tokens).first(n), fresh, false, &without);
    }
    const double s_without = seconds_since(t);
    j["decode"].push_back({{"context", ctx},
                           {"with_cache_tokens_per_second", args.gen / s_with},
                           {"without_cache_tokens_per_second", args.gen_nocache / s_without},
                           {"steps_with_cache", args.gen},
                           {"steps_without_cache", args.gen_nocache},
                           {"tokens_computed_per_step_with_cache", with.tokens_computed / args.gen},
                           {"tokens_computed_per_step_without_cache",
                            static_cast<double>(without.tokens_computed) / args.gen_nocache},
                           {"cache_bytes", c.bytes()}});
  }

  std::printf("Qwen3-0.6B, FP32, random weights, kvplan reference runtime (Eigen), %d thread%s\n", args.threads,
              args.threads == 1 ? "" : "s");
  std::printf("%llu weights (%.2f GB); built in %.1f s\n\n", static_cast<unsigned long long>(model.weight_count()),
              model.weight_count() * 4 / 1e9, build_s);
  std::printf("%-22s %14s\n", "prefill (prompt)", "tok/s");
  for (const auto& p : j["prefill"])
    std::printf("%-22s %14.1f\n", (std::to_string(p["tokens"].get<int>()) + " tokens").c_str(), p["tokens_per_second"].get<double>());
  std::printf("\n%-12s %16s %16s %10s %22s\n", "context", "with KV cache", "without cache", "ratio", "tokens/step with|without");
  for (const auto& r : j["decode"]) {
    const double w = r["with_cache_tokens_per_second"], wo = r["without_cache_tokens_per_second"];
    std::printf("%-12s %12.2f tok/s %12.3f tok/s %9.1fx %12llu | %.1f\n",
                (std::to_string(r["context"].get<int>()) + " tokens").c_str(), w, wo, w / wo,
                static_cast<unsigned long long>(r["tokens_computed_per_step_with_cache"].get<std::uint64_t>()),
                r["tokens_computed_per_step_without_cache"].get<double>());
  }
  const std::string js = j.dump(2);
  if (!args.json_out.empty()) {
    FILE* f = std::fopen(args.json_out.c_str(), "w");
    if (!f) throw InputError::value("--json-out", args.json_out, "a writable file");
    std::fputs(js.c_str(), f);
    std::fclose(f);
  } else {
    std::printf("\n%s\n", js.c_str());
  }
  return 0;
} catch (const kvplan::Error& e) {
  std::cerr << "inside_qwen: " << e.what() << "\n";
  return 2;
} catch (const std::exception& e) {
  std::cerr << "inside_qwen: " << e.what() << "\n";
  return 2;
}
