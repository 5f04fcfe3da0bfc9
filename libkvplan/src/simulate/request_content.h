#pragma once
// A request's token content as every engine's simulator reads it (what prefix caching can match),
// described by SimRequest's prefix_id / prefix_tokens / session and never stored token by token
// except where an engine matches token ids (SGLang's radix tree, llama-server's slots).
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "kvplan/simulate.h"

namespace kvplan::detail {

// `len` tokens of the stream named `key`: token i of a segment is token i of that stream.
struct Seg {
  std::uint64_t key = 0, len = 0;
};

// Each session's content so far (its last turn's prompt and output), for its next turn.
using SessionHistory = std::unordered_map<std::uint64_t, std::vector<Seg>>;

// A later turn of a session starts with the session's previous prompt and output, a prefix_id
// with its shared stream, the rest is the request's own stream (named by uid). Appends to
// `segs`, and records the session's content for its next turn.
void request_segments(SessionHistory& sessions, const SimRequest& in, std::uint64_t uid, std::vector<Seg>& segs);

// The same content as token ids (token i of a segment is hash_mix(key, i)); `segs` is scratch.
void request_tokens(SessionHistory& sessions, const SimRequest& in, std::uint64_t uid, std::vector<Seg>& segs,
                    std::vector<std::uint64_t>& tokens);

}  // namespace kvplan::detail
