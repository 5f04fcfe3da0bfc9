#pragma once
// llama-server's slots as the simulator runs them. Private: the public API is kvplan/simulate.h.
//
// What is mirrored, and where it lives in llama.cpp (ggml-org/llama.cpp, tools/server/):
//  - Slots (server-context.cpp): n_seq_max slots (-np; llamacpp_profile), each with a context of
//    n_ctx_seq tokens (n_ctx / slots, or all of n_ctx with a unified cache, as the profile sizes
//    them); a task waits in the queue until a slot is idle (deferred tasks, first in first out).
//  - get_available_slot: with --slot-prompt-similarity > 0 (default 0.1), the idle slot whose cached
//    tokens share the longest common prefix with the prompt, as a fraction of the prompt, above
//    the threshold; otherwise the least recently used idle slot.
//  - Prompt cache (cache_prompt, default true): the slot keeps its last prompt and output in its
//    KV cells; a new task reuses their common prefix with its prompt and evaluates the rest (at
//    least one token: n_past is stepped back when the whole prompt is cached).
//  - update_slots: one llama_decode of at most n_batch tokens per step: a token for each slot that
//    is generating, then prompt tokens of the slots processing their prompt, in slot order, until
//    the batch is full (continuous batching); a slot whose prompt completes samples its first token.
//  - Limits with context shift off (the default): a prompt of n_ctx_seq tokens or more is refused
//    ("request (N tokens) exceeds the available context size", ERROR_TYPE_EXCEED_CONTEXT_SIZE);
//    generation stops (truncated) when prompt.n_tokens() + 1 >= n_ctx, i.e. when prompt + generated
//    tokens reach the slot's context (process_token).
//  - A unified cache (-kvu, or no -np) shares n_ctx cells between the slots, idle slots' cached
//    tokens included; a step that finds too few free cells purges idle slots' sequences one by
//    one, then terminates active slots one by one ("Context size has been exceeded.", counted as
//    rejected) until the batch fits (ggml-org/llama.cpp PR #16736, "server : support unified cache
//    across slots", merged 2025-10). Which idle slot goes first (least recently used here) and which
//    active slot (the one holding the most cells here) are assumptions: the PR says "in no
//    particular order".
#include <algorithm>
#include <cmath>
#include <deque>
#include <vector>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/simulate.h"
#include "kvplan/units.h"
#include "simulate/sim_run.h"
#include "simulate/request_content.h"
#include "simulate/source.h"

namespace kvplan::detail {

struct LlamaReq {
  SimRequest in;
  std::uint64_t uid = 0, user = 0, turn = 0;
  std::vector<std::uint64_t> tokens;  // prompt then output token ids
  std::uint64_t generated = 0;
  double first_token = -1;
};

struct LlamaSlot {
  enum class State { idle, prompt, generating } state = State::idle;
  std::uint32_t req = UINT32_MAX;
  std::vector<std::uint64_t> cache;  // slot.prompt.tokens: the tokens in its KV cells
  std::uint64_t n_prompt = 0;        // the task's prompt tokens
  std::uint64_t t_last_used = 0;
};

class LlamaServerSimulator {
 public:
  LlamaServerSimulator(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o)
      : LlamaServerSimulator(llamacpp_profile(m, o.llamacpp), o, timer_for(m, gpu, o)) {
    layers_ = m.num_layers();
  }
  LlamaServerSimulator(LlamaCppResult profile, const SimOptions& o, StepTimer timer)
      : o_(o), prof_(std::move(profile)), timer_(std::move(timer)) {
    if (prof_.n_seq_max == 0 || prof_.n_ctx_seq == 0) throw InputError::value("llama.cpp slots", "0", "at least one slot with a context");
    slots_.resize(prof_.n_seq_max);
    n_batch_ = std::max<std::uint64_t>(1, std::min(prof_.n_ctx, o.llamacpp.batch_size));
    const double s = o.llama_server.slot_prompt_similarity;
    if (!(s >= 0 && s <= 1)) throw InputError::value("--slot-prompt-similarity", std::to_string(s), "a fraction in [0, 1]");
  }

  static StepTimer timer_for(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o) {
    if (o.step_time.kind == StepTimeModel::Kind::linear) return StepTimer(o.step_time);
    const LlamaCppResult p = llamacpp_profile(m, o.llamacpp);
    // Each cache's bytes per cell (one token of one sequence), read once per token of context;
    // the SWA cache holds at most its cells; recurrent state is per sequence.
    std::vector<StepTimer::CacheRead> cache;
    double state = 0;
    for (const auto& c : p.caches) {
      const double per = static_cast<double>(c.k_bytes + c.v_bytes) / static_cast<double>(std::max<std::uint64_t>(1, c.cells * c.streams));
      if (c.role == "recurrent") state += per;
      else cache.push_back({per, c.role == "swa" ? c.cells : UINT64_MAX});
    }
    return StepTimer(m, gpu, 1, std::move(cache), state, o.step_time);
  }

  std::uint64_t cells_used() const {
    std::uint64_t n = 0;
    for (const auto& s : slots_) n += s.cache.size();
    return n;
  }
  std::uint64_t idle_cells() const {
    std::uint64_t n = 0;
    for (const auto& s : slots_)
      if (s.state == LlamaSlot::State::idle) n += s.cache.size();
    return n;
  }
  static std::uint64_t common_prefix(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b, std::uint64_t n) {
    const std::uint64_t m = std::min<std::uint64_t>({a.size(), b.size(), n});
    std::uint64_t i = 0;
    while (i < m && a[i] == b[i]) ++i;
    return i;
  }

  // get_available_slot (or none: the task stays queued).
  std::size_t available_slot(const LlamaReq& q) const {
    const std::size_t none = slots_.size();
    std::size_t best = none;
    const double threshold = o_.llama_server.slot_prompt_similarity;
    if (threshold != 0) {
      double sim_best = 0;
      for (std::size_t i = 0; i < slots_.size(); ++i) {
        const LlamaSlot& s = slots_[i];
        if (s.state != LlamaSlot::State::idle || s.cache.empty()) continue;
        const double sim = static_cast<double>(common_prefix(s.cache, q.tokens, q.in.prompt_tokens)) /
                           static_cast<double>(q.in.prompt_tokens);
        if (sim > sim_best && sim > threshold) {
          sim_best = sim;
          best = i;
        }
      }
    }
    if (best == none) {
      std::uint64_t t_last = UINT64_MAX;
      for (std::size_t i = 0; i < slots_.size(); ++i)
        if (slots_[i].state == LlamaSlot::State::idle && slots_[i].t_last_used < t_last) {
          t_last = slots_[i].t_last_used;
          best = i;
        }
    }
    return best;
  }

  void launch(std::size_t si, std::uint32_t id, double clock, RunRecorder& rec) {
    LlamaSlot& s = slots_[si];
    LlamaReq& q = reqs_[id];
    std::uint64_t n_past = o_.llama_server.cache_prompt ? common_prefix(s.cache, q.tokens, q.in.prompt_tokens) : 0;
    if (n_past == q.in.prompt_tokens) --n_past;  // at least one token is evaluated
    s.cache.resize(n_past);                      // llama_memory_seq_rm of the rest
    s.state = LlamaSlot::State::prompt;
    s.req = id;
    s.n_prompt = q.in.prompt_tokens;
    prefix_query_ += q.in.prompt_tokens;
    prefix_hit_ += n_past;
    rec.queued(clock, q.in.arrival_s);
  }

  SimResult run(Source& src) {
    SimResult r;
    fill_header(r);
    RunRecorder rec(r, o_);
    double clock = 0;
    struct Item {
      std::size_t slot;
      std::uint64_t tokens;
    };
    std::vector<Item> batch;
    while (true) {
      while (!src.empty() && src.next_time() <= clock) admit(src, r, rec);
      // Queued tasks to idle slots, first come first served.
      while (!queue_.empty()) {
        const std::size_t si = available_slot(reqs_[queue_.front()]);
        if (si == slots_.size()) break;
        launch(si, queue_.front(), clock, rec);
        queue_.pop_front();
      }
      std::uint64_t busy = 0;
      for (const auto& s : slots_) busy += s.state != LlamaSlot::State::idle;
      if (busy == 0) {
        if (src.empty()) break;
        clock = std::max(clock, src.next_time());
        continue;
      }
      if (r.steps >= o_.max_steps)
        throw InputError::value("simulation length", std::to_string(r.steps) + " steps", "a run that finishes within max_steps");
      // update_slots: generating slots' tokens first, then prompt tokens up to n_batch.
      batch.clear();
      std::uint64_t n = 0;
      for (std::size_t i = 0; i < slots_.size(); ++i)
        if (slots_[i].state == LlamaSlot::State::generating) batch.push_back({i, 1}), ++n;
      for (std::size_t i = 0; i < slots_.size() && n < n_batch_; ++i) {
        LlamaSlot& s = slots_[i];
        if (s.state != LlamaSlot::State::prompt) continue;
        const std::uint64_t take = std::min(s.n_prompt - s.cache.size(), n_batch_ - n);
        if (take == 0) continue;
        batch.push_back({i, take});
        n += take;
      }
      if (prof_.kv_unified && cells_used() + n > prof_.n_ctx) {
        // PR #16736: purge idle slots' cached sequences, one by one, until the batch fits...
        while (cells_used() + n > prof_.n_ctx) {
          std::size_t idle = slots_.size();
          for (std::size_t i = 0; i < slots_.size(); ++i)
            if (slots_[i].state == LlamaSlot::State::idle && !slots_[i].cache.empty() &&
                (idle == slots_.size() || slots_[i].t_last_used < slots_[idle].t_last_used))
              idle = i;
          if (idle == slots_.size()) break;
          slots_[idle].cache.clear();
        }
        if (cells_used() + n > prof_.n_ctx) {
          // ... then terminate active slots one by one ("Context size has been exceeded."): the one
          // holding the most cells first (the order is an assumption), and build the batch again.
          std::size_t victim = batch.front().slot;
          for (const Item& it : batch)
            if (slots_[it.slot].cache.size() >= slots_[victim].cache.size()) victim = it.slot;
          slots_[victim].cache.clear();
          release(slots_[victim]);
          ++r.rejected;
          ++failed_;
          continue;
        }
      }
      StepBatch sb;
      for (const Item& it : batch) {
        LlamaSlot& s = slots_[it.slot];
        timer_.add(sb, s.cache.size(), it.tokens);
        if (s.state == LlamaSlot::State::generating) sb.decode_tokens += 1;
        else sb.prefill_tokens += it.tokens;
      }
      const double dt = timer_.seconds(sb);
      std::uint64_t waiting = queue_.size();
      rec.step(clock, dt, busy, waiting, sb, cells_used() + n, idle_cells(), 0);
      clock += dt;
      std::uint64_t finished = 0;
      for (const Item& it : batch) {
        LlamaSlot& s = slots_[it.slot];
        LlamaReq& q = reqs_[s.req];
        const std::size_t from = s.cache.size();
        s.cache.insert(s.cache.end(), q.tokens.begin() + static_cast<std::ptrdiff_t>(from),
                       q.tokens.begin() + static_cast<std::ptrdiff_t>(from + it.tokens));
        if (s.state == LlamaSlot::State::prompt && s.cache.size() < s.n_prompt) continue;  // more prompt next step
        s.state = LlamaSlot::State::generating;
        ++q.generated;  // sampled
        if (q.first_token < 0) {
          q.first_token = clock;
          rec.first_token(clock, q.in.arrival_s);
        }
        // process_token: n_predict reached, or (context shift off) prompt + generated reach n_ctx.
        const bool limit = s.cache.size() + 1 >= prof_.n_ctx_seq;
        if (q.generated >= q.in.output_tokens || limit) {
          if (limit && q.generated < q.in.output_tokens) ++truncated_;
          rec.finished(q.in, q.generated, q.first_token, clock);
          src.on_finish_turn(q.in.session, q.turn, q.user, q.in.prompt_tokens, q.in.output_tokens, clock);
          if (q.in.session && last_turn_ && q.turn >= last_turn_) sessions_.erase(q.in.session);
          release(s);
          ++finished;
        }
      }
      rec.step_finished(finished);
    }
    rec.finalize(0, prefix_query_, prefix_hit_);
    if (r.rejected)
      r.notes.push_back(format_count(r.rejected - failed_) + " requests rejected: empty, or a prompt of the slot context " +
                        format_count(prof_.n_ctx_seq) + " tokens or more (\"exceeds the available context size\")" +
                        (failed_ ? "; " + format_count(failed_) + " failed with \"Context size has been exceeded.\" (the unified cache ran out of cells)" : ""));
    if (truncated_)
      r.notes.push_back(format_count(truncated_) + " requests stopped at the slot context before their output_tokens (truncated: "
                        "context shift is off)");
    return r;
  }

  void release(LlamaSlot& s) {
    const std::uint32_t id = s.req;
    s.state = LlamaSlot::State::idle;
    s.req = UINT32_MAX;
    s.t_last_used = ++tick_;
    reqs_[id] = LlamaReq{};
    free_ids_.push_back(id);
  }

  void fill_header(SimResult& r) {
    r.engine = "llama.cpp";
    r.num_blocks = prof_.n_ctx;  // cells, all streams
    r.block_size = 1;
    r.max_model_len = prof_.n_ctx_seq;
    r.engine_max_concurrency = prof_.kv_unified ? static_cast<double>(prof_.n_ctx / prof_.n_ctx_seq) : static_cast<double>(prof_.n_seq_max);
    r.max_num_seqs = prof_.n_seq_max;
    r.max_num_batched_tokens = n_batch_;
    r.prefix_caching = o_.llama_server.cache_prompt;
    r.groups.push_back({prof_.kv_unified ? "unified_cells" : "slot_cells", 1, 0, layers_, 0});
    r.step_time_model = timer_.describe();
    r.slo = o_.slo;
    r.notes.push_back("llama-server's slots mirrored step by step: " + format_count(prof_.n_seq_max, "slot") + " of " +
                      format_count(prof_.n_ctx_seq) + " tokens (" + (prof_.kv_unified ? "one unified cache of " : "") +
                      format_count(prof_.n_ctx) + " cells, num_blocks counts cells), n_batch " + format_count(n_batch_) +
                      "; a slot reuses the common prefix of its cached tokens; slot selection by prompt similarity " +
                      format_fixed(o_.llama_server.slot_prompt_similarity, 2) + ", else least recently used");
    r.notes.push_back("not simulated: context shift, --cache-ram's host prompt cache (a slot reuses only its own cached tokens), "
                      "speculative decoding, EOS before max_tokens");
    r.notes.push_back(step_time_note(o_.step_time));
  }

  void admit(Source& src, SimResult& r, RunRecorder& rec) {
    const Pending p = rec.take_arrival(src);
    const SimRequest& in = p.r;
    if (in.prompt_tokens == 0 || in.output_tokens == 0 || in.prompt_tokens >= prof_.n_ctx_seq) {
      ++r.rejected;
      return;
    }
    const std::uint32_t id = take_slot(reqs_, free_ids_);
    LlamaReq& q = reqs_[id];
    q.in = in;
    q.in.arrival_s = p.t;
    q.uid = ++uid_;
    q.user = p.user;
    q.turn = p.turn;
    request_tokens(sessions_, in, q.uid, segs_, q.tokens);
    r.prompt_tokens += in.prompt_tokens;
    queue_.push_back(id);
  }

  std::uint64_t last_turn_ = 0, layers_ = 0;
  SimOptions o_;
  LlamaCppResult prof_;
  StepTimer timer_;
  std::uint64_t n_batch_ = 1;
  std::vector<LlamaSlot> slots_;
  std::vector<LlamaReq> reqs_;
  std::vector<std::uint32_t> free_ids_;
  std::deque<std::uint32_t> queue_;
  SessionHistory sessions_;
  std::vector<Seg> segs_;
  std::uint64_t uid_ = 0, tick_ = 0, prefix_query_ = 0, prefix_hit_ = 0, truncated_ = 0, failed_ = 0;
};

}  // namespace kvplan::detail
