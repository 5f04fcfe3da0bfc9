// Times kvplan::sweep on a 1000 x 1000 context x concurrency grid and writes what the numpy
// side of the benchmark (run.py) needs: the cache profile, the budget, the timings and the
// cache-bytes grid itself (raw little-endian uint64) so both results can be compared exactly.
//
//   kvplan_bench_sweep OUT_DIR [MODEL] [GPU] [REPEATS]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "kvplan/kvplan.h"
#include "kvplan/planner.h"
#include "kvplan/weights.h"

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::cerr << "usage: kvplan_bench_sweep OUT_DIR [MODEL] [GPU] [REPEATS]\n";
    return 2;
  }
  const std::string out = argv[1];
  const std::string model_id = argc > 2 ? argv[2] : "google/gemma-2-9b";
  const std::string gpu = argc > 3 ? argv[3] : "H100";
  const int repeats = argc > 4 ? std::max(1, std::atoi(argv[4])) : 5;

  const kvplan::ModelSpec m = kvplan::load_model(model_id);
  kvplan::PlanInput in;
  in.gpu = kvplan::find_accelerator(gpu);
  in.k_dtype = in.v_dtype = kvplan::Dtype::bf16;
  std::vector<std::uint64_t> contexts(1000), concurrency(1000);
  for (std::size_t i = 0; i < contexts.size(); ++i) contexts[i] = 128 * (i + 1);  // 128 .. 128,000 tokens
  for (std::size_t j = 0; j < concurrency.size(); ++j) concurrency[j] = j + 1;    // 1 .. 1,000 sequences

  kvplan::SweepResult r;
  double best = 1e300;
  for (int k = 0; k < repeats; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    r = kvplan::sweep(m, in, contexts, concurrency);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
  }
  const double cells = static_cast<double>(contexts.size() * concurrency.size());

  const kvplan::CacheProfile prof = kvplan::cache_profile(m, in);
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : prof.stages.at(0)) groups.push_back({g.bytes_per_token, g.cap_tokens});
  const kvplan::WeightBytes wb = kvplan::weight_bytes(m);
  nlohmann::json j{{"model", model_id},
                   {"gpu", in.gpu.name},
                   {"contexts", contexts},
                   {"concurrency", concurrency},
                   {"groups", groups},
                   {"state_bytes", prof.state_bytes.at(0)},
                   {"cache_budget", r.usable_bytes >= r.weights_bytes + r.reserved_bytes
                                        ? r.usable_bytes - r.weights_bytes - r.reserved_bytes
                                        : 0},
                   {"weights_fit", r.usable_bytes >= r.weights_bytes + r.reserved_bytes},
                   {"weight_step_seconds", r.decode_step_seconds[0] - [&] {
                      // the first cell's cache read time, so numpy gets the weight part alone
                      std::uint64_t per = prof.state_bytes.at(0);
                      for (const auto& g : prof.stages.at(0)) per += g.bytes_per_token * std::min(contexts[0], g.cap_tokens);
                      return static_cast<double>(per) / in.gpu.bandwidth_bytes_per_s;
                    }()},
                   {"bandwidth", in.gpu.bandwidth_bytes_per_s},
                   {"experts", m.dims.num_experts},
                   {"cells", cells},
                   {"best_seconds", best},
                   {"repeats", repeats},
                   {"cells_per_second", cells / best}};
  std::ofstream(out + "/sweep_cpp.json") << j.dump(1);
  std::ofstream bin(out + "/cache_bytes_cpp.u64", std::ios::binary);
  bin.write(reinterpret_cast<const char*>(r.cache_bytes.data()),
            static_cast<std::streamsize>(r.cache_bytes.size() * sizeof(std::uint64_t)));
  std::ofstream fits(out + "/fits_cpp.u8", std::ios::binary);
  fits.write(reinterpret_cast<const char*>(r.fits.data()), static_cast<std::streamsize>(r.fits.size()));
  std::ofstream steps(out + "/step_cpp.f64", std::ios::binary);
  steps.write(reinterpret_cast<const char*>(r.decode_step_seconds.data()),
              static_cast<std::streamsize>(r.decode_step_seconds.size() * sizeof(double)));
  std::printf("kvplan::sweep  %s on %s: %.0f cells in %.4f s (best of %d) = %.3g cells/s\n", model_id.c_str(),
              in.gpu.name.c_str(), cells, best, repeats, cells / best);
  return 0;
} catch (const std::exception& e) {
  std::cerr << "kvplan_bench_sweep: " << e.what() << "\n";
  return 2;
}
