// Times kvplan::sweep over an N x N grid (default 1000 x 1000) through the C++ API, the same grid
// bench_sweep.py sends through Python. Prints one JSON object: {"n":..., "best_seconds":..., ...}.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "kvplan/kvplan.h"
#include "kvplan/planner.h"

int main(int argc, char** argv) {
  const std::string model = argc > 1 ? argv[1] : "meta-llama/Llama-3.1-8B";
  const std::uint64_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
  try {
    const auto m = kvplan::load_model(model);
    kvplan::PlanInput in;
    in.gpu = kvplan::find_accelerator("H100");
    in.gpus = 1;
    std::vector<std::uint64_t> contexts(n), concurrency(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      contexts[i] = 128 * (i + 1);
      concurrency[i] = i + 1;
    }
    double best = 1e300;
    std::uint64_t checksum = 0;
    for (int r = 0; r < repeats; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto s = kvplan::sweep(m, in, contexts, concurrency);
      const auto t1 = std::chrono::steady_clock::now();
      best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
      checksum = std::accumulate(s.fits.begin(), s.fits.end(), std::uint64_t{0});
    }
    std::cout << "{\"model\": \"" << model << "\", \"n\": " << n << ", \"repeats\": " << repeats
              << ", \"best_seconds\": " << best << ", \"cells_fitting\": " << checksum << "}\n";
  } catch (const kvplan::Error& e) {
    std::cerr << "bench_sweep_cpp: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
