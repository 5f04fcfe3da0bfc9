#pragma once
// The simulator's PRNG and samplers, written out so that a seed gives the same numbers with any
// compiler and standard library (std:: distributions are implementation-defined).
//  - xoshiro256** 1.0 (Blackman & Vigna, https://prng.di.unimi.it/xoshiro256starstar.c), state
//    seeded by SplitMix64 (https://prng.di.unimi.it/splitmix64.c) as its authors recommend;
//  - uniform doubles from the top 53 bits; normals by Box-Muller (both values used in turn);
//    exponentials by inversion; gamma by Marsaglia & Tsang (2000), with the shape < 1 boost.
// Only +, *, /, log, sqrt, cos and exp of IEEE doubles are used.
#include <cmath>
#include <cstdint>

namespace kvplan::detail {

inline std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class SimRng {
 public:
  explicit SimRng(std::uint64_t seed) {
    std::uint64_t x = seed;
    for (auto& w : s_) w = splitmix64(x);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // [0, 1)
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // (0, 1]: safe for log
  double uniform_open0() { return 1.0 - uniform(); }
  double exponential(double mean) { return -mean * std::log(uniform_open0()); }
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = uniform_open0(), u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double th = 6.283185307179586 * u2;
    spare_ = r * std::sin(th);
    has_spare_ = true;
    return r * std::cos(th);
  }
  // Gamma(shape k, scale 1).
  double gamma(double k) {
    if (k < 1.0) return gamma(k + 1.0) * std::pow(uniform_open0(), 1.0 / k);
    const double d = k - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      double x, v;
      do {
        x = normal();
        v = 1.0 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const double u = uniform_open0();
      if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
    }
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

// 64-bit mixing for block hashes (the chain parent -> block content), after SplitMix64's finaliser.
inline std::uint64_t hash_mix(std::uint64_t h, std::uint64_t v) {
  std::uint64_t x = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  return splitmix64(x);
}

}  // namespace kvplan::detail
