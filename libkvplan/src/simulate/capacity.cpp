// Capacity search over seeded simulations: the highest Poisson rate within the SLOs (bisection),
// the replicas a target rate needs, and the cost per million tokens at a GPU-hour price.
#include <algorithm>
#include <cmath>
#include <optional>

#include "kvplan/error.h"
#include "kvplan/simulate.h"
#include "kvplan/units.h"

namespace kvplan {

double percentile_of(const Percentiles& p, double q) { return q <= 0.5 ? p.p50 : q <= 0.9 ? p.p90 : p.p99; }

bool meets_slo(const SimResult& r, const SloTargets& s, double q) {
  if (r.finished == 0) return false;  // rejections (too long for max_model_len) do not depend on the rate
  if (s.ttft_s > 0 && percentile_of(r.ttft_s, q) > s.ttft_s) return false;
  if (s.tpot_s > 0 && r.tpot_s.count && percentile_of(r.tpot_s, q) > s.tpot_s) return false;
  if (s.e2e_s > 0 && percentile_of(r.e2e_s, q) > s.e2e_s) return false;
  return true;
}

SimOptions at_slow_end(const SimOptions& o, std::string* note) {
  SimOptions slow = o;
  if (slow.step_time.kind != StepTimeModel::Kind::roofline) return slow;
  slow.step_time.time_scale = o.step_time.calibration.slow_factor;
  if (note)
    *note = "SLOs checked at the slow end of the step-time band (every step x " +
            std::to_string(o.step_time.calibration.slow_factor) + ", the held-out error of " +
            o.step_time.calibration.source + ")";
  return slow;
}

CapacityResult find_max_rate(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, const WorkloadSpec& w,
                             const CapacityOptions& c) {
  if (o.slo.ttft_s <= 0 && o.slo.tpot_s <= 0 && o.slo.e2e_s <= 0)
    throw InputError::value("SLO (--slo-ttft, --slo-tpot, --slo-e2e)", "none", "at least one latency target for --find");
  if (c.percentile != 0.5 && c.percentile != 0.9 && c.percentile != 0.99)
    throw InputError::value("SLO percentile (--slo-percentile)", std::to_string(c.percentile), "0.5, 0.9 or 0.99");
  if (w.arrivals == WorkloadSpec::Arrivals::closed)
    throw InputError::value("workload arrivals", "closed", "an open-loop workload (the search sets Poisson arrivals)");
  CapacityResult out;
  // Verdicts at the band's slow end (a wrong PASS is the worst bug).
  std::string note;
  const SimOptions slow = at_slow_end(o, &note);
  if (!note.empty()) out.notes.push_back(note);
  auto run = [&](double rate) {
    WorkloadSpec x = w;
    x.arrivals = WorkloadSpec::Arrivals::poisson;
    x.rate = rate;
    ++out.runs;
    return simulate(m, gpu, slow, x);
  };
  double lo = c.rate_lo, hi = c.rate_hi;
  std::optional<SimResult> best;
  if (hi <= 0) {
    // Bracket: double from 0.5 req/s until a rate fails (or halve until one passes).
    double r = 0.5;
    SimResult s = run(r);
    if (meets_slo(s, o.slo, c.percentile)) {
      best = s;
      lo = r;
      for (;;) {
        r *= 2;
        if (r > 1e6) throw InputError::value("rate search", "above 1e6 req/s", "SLOs that some rate fails");
        SimResult t = run(r);
        if (!meets_slo(t, o.slo, c.percentile)) break;
        best = t;
        lo = r;
      }
      hi = r;
    } else {
      hi = r;
      for (;;) {
        r /= 2;
        if (r < 1e-4) break;
        SimResult t = run(r);
        if (meets_slo(t, o.slo, c.percentile)) {
          best = t;
          lo = r;
          break;
        }
        hi = r;
      }
    }
  } else {
    SimResult s = run(lo > 0 ? lo : hi / 1024);
    if (meets_slo(s, o.slo, c.percentile)) best = s, lo = lo > 0 ? lo : hi / 1024;
  }
  if (best) {
    for (std::uint64_t i = 0; i < c.iterations; ++i) {
      const double mid = 0.5 * (lo + hi);
      SimResult t = run(mid);
      if (meets_slo(t, o.slo, c.percentile)) {
        lo = mid;
        best = t;
      } else {
        hi = mid;
      }
    }
    out.max_rate = lo;
    out.at_max = *best;
  } else {
    out.notes.push_back("no rate down to 1e-4 req/s meets the SLOs");
  }
  out.gpus_per_replica = o.engine_kind == EngineKind::trtllm
                             ? std::max<std::uint64_t>(1, o.trtllm.tp_size) * std::max<std::uint64_t>(1, o.trtllm.pp_size)
                             : std::max<std::uint64_t>(1, o.engine.tensor_parallel_size) *
                                   std::max<std::uint64_t>(1, o.engine.pipeline_parallel_size);
  if (c.target_rate > 0 && out.max_rate > 0)
    out.replicas_for_target = static_cast<std::uint64_t>(std::ceil(c.target_rate / out.max_rate - 1e-12));
  if (c.price_per_gpu_hour > 0 && best && best->throughput_output_tokens_per_s > 0) {
    const double per_hour = c.price_per_gpu_hour * static_cast<double>(out.gpus_per_replica);
    out.cost_per_million_output_tokens = per_hour / (best->throughput_output_tokens_per_s * 3600.0) * 1e6;
    out.cost_per_million_total_tokens = per_hour / (best->throughput_total_tokens_per_s * 3600.0) * 1e6;
  }
  out.notes.push_back("max rate: bisection over " + std::to_string(out.runs) + " seeded runs of " +
                      std::to_string(w.requests) + " Poisson requests; SLOs at p" +
                      std::to_string(static_cast<int>(std::lround(c.percentile * 100))) +
                      "; replicas assume traffic split evenly");
  return out;
}

}  // namespace kvplan
