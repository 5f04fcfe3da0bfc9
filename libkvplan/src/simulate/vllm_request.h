#pragma once
// vLLM V1's request as the simulator keeps it (vllm/v1/request.py Request): its token content,
// progress, and the per-group block tables and block hashes the KV cache manager fills in.
#include <cstdint>
#include <vector>

#include "kvplan/simulate.h"
#include "simulate/request_content.h"

namespace kvplan::detail {

enum class State { waiting, running, done };

struct Req {
  SimRequest in;
  std::uint64_t uid = 0, user = 0, turn = 0;
  std::vector<Seg> segs;
  std::uint64_t computed = 0, generated = 0;
  std::uint64_t num_preemptions = 0;
  double first_scheduled = -1, first_token = -1;
  State state = State::waiting;
  std::vector<std::vector<std::uint32_t>> tables;   // per KV cache group (req_to_blocks)
  std::vector<std::uint64_t> cached;                // per group: blocks already in the prefix cache
  std::vector<std::vector<std::uint64_t>> hashes;   // per block size: Request.block_hashes
  std::uint64_t num_tokens() const { return in.prompt_tokens + generated; }
  // Back to a fresh request, keeping the vectors' storage (slots are reused: no allocation per
  // request once the pool of slots has grown).
  void reset();
};

// hash_block_tokens (kv_cache_utils.py): the hash of tokens [start, start + len) chained to the
// previous block's hash `parent` (kRootHash for block 0).
constexpr std::uint64_t kRootHash = 0x6b7670'6c616e00ULL;
std::uint64_t block_hash(const std::vector<Seg>& segs, std::uint64_t parent, std::uint64_t start, std::uint64_t len);

}  // namespace kvplan::detail
