// vLLM V1's request (vllm_request.h).
#include "simulate/vllm_request.h"

#include <algorithm>

#include "simulate/rng.h"

namespace kvplan::detail {

void Req::reset() {
  in = SimRequest{};
  uid = user = turn = 0;
  segs.clear();
  computed = generated = num_preemptions = 0;
  first_scheduled = first_token = -1;
  state = State::waiting;
  for (auto& t : tables) t.clear();
  cached.clear();
  for (auto& h : hashes) h.clear();
}

std::uint64_t block_hash(const std::vector<Seg>& segs, std::uint64_t parent, std::uint64_t start, std::uint64_t len) {
  std::uint64_t h = parent, pos = 0;
  const std::uint64_t end = start + len;
  for (const auto& s : segs) {
    const std::uint64_t a = std::max(pos, start), b = std::min(pos + s.len, end);
    if (a < b) h = hash_mix(hash_mix(hash_mix(h, s.key), a - pos), b - a);
    pos += s.len;
    if (pos >= end) break;
  }
  return h;
}

}  // namespace kvplan::detail
