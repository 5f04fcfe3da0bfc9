// A request's token content (request_content.h).
#include "simulate/request_content.h"

#include <algorithm>

#include "simulate/rng.h"

namespace kvplan::detail {

namespace {
constexpr std::uint64_t kPrefixTag = 0x70726566ULL, kOwnTag = 0x6f776e00ULL;
}  // namespace

void request_segments(SessionHistory& sessions, const SimRequest& in, std::uint64_t uid, std::vector<Seg>& segs) {
  std::uint64_t covered = 0;
  auto hist = in.session ? sessions.find(in.session) : sessions.end();
  if (hist != sessions.end()) {
    for (const auto& s : hist->second) {
      if (covered >= in.prompt_tokens) break;
      const std::uint64_t take = std::min(s.len, in.prompt_tokens - covered);
      segs.push_back({s.key, take});
      covered += take;
    }
  } else if (in.prefix_id) {
    const std::uint64_t shared = in.prefix_tokens ? std::min(in.prefix_tokens, in.prompt_tokens) : in.prompt_tokens;
    segs.push_back({hash_mix(kPrefixTag, in.prefix_id), shared});
    covered = shared;
  }
  const std::uint64_t total = in.prompt_tokens + in.output_tokens;
  if (total > covered) segs.push_back({hash_mix(kOwnTag, uid), total - covered});
  if (in.session) sessions[in.session] = segs;
}

void request_tokens(SessionHistory& sessions, const SimRequest& in, std::uint64_t uid, std::vector<Seg>& segs,
                    std::vector<std::uint64_t>& tokens) {
  segs.clear();
  request_segments(sessions, in, uid, segs);
  tokens.clear();
  tokens.reserve(in.prompt_tokens + in.output_tokens);
  for (const Seg& s : segs)
    for (std::uint64_t i = 0; i < s.len; ++i) tokens.push_back(hash_mix(s.key, i));
}

}  // namespace kvplan::detail
