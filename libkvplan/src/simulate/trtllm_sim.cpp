// TensorRT-LLM's batch manager as the simulator runs it (trtllm_sim.h).
#include "simulate/trtllm_sim.h"

#include <algorithm>

#include "kvplan/units.h"

namespace kvplan::detail {

TrtllmSimulator::TrtllmSimulator(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o)
    : TrtllmSimulator(checked_profile(m, o.trtllm), o, timer_for(m, gpu, o)) {
  layers_ = m.num_layers();
}

namespace {
// The pool, validated before the block manager is built from it.
TrtBlockManager block_manager(const TrtllmResult& p, const SimOptions& o) {
  if (o.trtllm.tokens_per_block == 0) throw InputError::value("tokens_per_block", "0", "a positive number of tokens");
  if (p.blocks == 0) throw InputError::value("TensorRT-LLM KV cache", "0 blocks", "a pool of at least one block");
  const TrtllmSchedulerOptions& s = o.trtllm_scheduler;
  return TrtBlockManager(p.blocks, o.trtllm.tokens_per_block, s.enable_block_reuse, s.enable_partial_reuse, s.copy_on_partial_reuse);
}
}  // namespace

TrtllmSimulator::TrtllmSimulator(TrtllmResult profile, const SimOptions& o, StepTimer timer)
    : o_(o), prof_(std::move(profile)), timer_(std::move(timer)), bm_(block_manager(prof_, o)) {
  tpb_ = o.trtllm.tokens_per_block;
  max_batch_ = o.trtllm.max_batch_size;
  if (max_batch_ == 0) throw InputError::value("max_batch_size", "0", "a positive number of requests");
  max_tokens_ = o.trtllm_scheduler.max_num_tokens;
  if (max_tokens_ == 0) throw InputError::value("max_num_tokens", "0", "a positive number of tokens");
  // MicroBatchScheduler::setCtxRequestsChunkSize<kEQUAL_PROGRESS> grows every context request's
  // chunk by one unit in turn; only kFIRST_COME_FIRST_SERVED is simulated, so EQUAL_PROGRESS is refused.
  if (o.trtllm_scheduler.context_chunking == TrtllmSchedulerOptions::ContextChunking::equal_progress)
    throw InputError::value("scheduler_config.context_chunking_policy", "EQUAL_PROGRESS",
                            "FIRST_COME_FIRST_SERVED (the context chunking policy kvplan simulates)");
  // A window shorter than max_seq_len makes long sequences cyclic, and TensorRT-LLM stores no block
  // of a cyclic sequence for reuse (BlockManager::releaseBlocks); that is not simulated.
  if (bm_.reuse())
    for (const TrtllmWindow& w : prof_.windows)
      if (w.window > 0 && w.window < prof_.max_seq_len)
        throw InputError::value("kv_cache_config.max_attention_window", std::to_string(w.window),
                                "no window below max_seq_len with enable_block_reuse (cyclic sequences are not simulated)");
}

TrtllmResult TrtllmSimulator::checked_profile(const ModelSpec& m, const TrtllmOptions& e) {
  TrtllmResult p = trtllm_profile(m, e);
  if (!p.starts) throw InputError::value("TensorRT-LLM settings", p.error.empty() ? "does not start" : p.error, "settings with which TensorRT-LLM starts");
  if (p.vswa) throw InputError::value("max_attention_window", "a variable sliding-window pattern", "one window (VSWA pools are not simulated)");
  if (p.mamba_bytes) throw InputError::value("model", m.name, "an attention-only model (TensorRT-LLM's Mamba cache is not simulated)");
  return p;
}

StepTimer TrtllmSimulator::timer_for(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o) {
  if (o.step_time.kind == StepTimeModel::Kind::linear) return StepTimer(o.step_time);
  const TrtllmResult p = checked_profile(m, o.trtllm);
  // One token's K and V rows on one rank (bytes_per_token), read once per token of context.
  return StepTimer(m, gpu, std::max<std::uint64_t>(1, o.trtllm.tp_size), {{static_cast<double>(p.bytes_per_token), UINT64_MAX}}, 0,
                   o.step_time);
}

std::uint64_t TrtllmSimulator::remaining_blocks(const TrtReq& q) const {
  const std::uint64_t total = blocks_for(q.prompt + q.max_new);
  return total > q.blocks ? total - q.blocks : 0;
}

std::uint64_t TrtllmSimulator::step_blocks(const TrtReq& q) const {
  if (!q.generation) return q.context_done == 0 ? blocks_for(q.prompt) : 0;
  const std::uint64_t want = blocks_for(q.kv_tokens + 1);
  return want > q.blocks ? want - q.blocks : 0;
}

void TrtllmSimulator::pause(std::uint32_t id) {
  TrtReq& q = reqs_[id];
  // PyExecutor._pause_requests: LlmRequest::pause, then the sequence is removed (its blocks stored
  // for reuse first, as for a finished request). A context paused between chunks stores only the
  // blocks its computed tokens fill (upstream would key every block of its prompt, computed or not).
  bm_.remove_sequence(id, tokens_of(q, q.generation ? q.in.prompt_tokens + q.generated : q.context_done + 1));
  q.blocks = 0;
  if (q.generation) {
    // LlmRequest::pause: the tokens so far become the prompt, max_new_tokens shrinks by the generated.
    const std::uint64_t life = q.kv_tokens + 1 - q.prompt;
    q.prompt += life;
    q.max_new -= life;
  }
  q.generation = false;
  q.context_done = 0;
  q.kv_tokens = 0;
  ++preempted_step_;
  ++preemptions_;
}

bool TrtllmSimulator::beneficial_to_skip(const TrtReq& q, std::vector<std::uint64_t>& contributed) const {
  if (!bm_.reuse() || q.generation || q.context_done > 0) return false;
  const auto key = bm_.find_new_context_block(tokens_of(q, q.prompt));
  if (!key) return false;
  if (std::find(contributed.begin(), contributed.end(), *key) != contributed.end()) return true;
  contributed.push_back(*key);
  return false;
}

std::vector<std::uint64_t> TrtllmSimulator::chunked_contexts_contributing() const {
  std::vector<std::uint64_t> out;
  if (!bm_.reuse()) return out;
  for (std::uint32_t id : active_) {
    const TrtReq& q = reqs_[id];
    if (q.generation || q.context_done == 0) continue;
    if (const auto key = bm_.find_new_context_block(tokens_of(q, q.prompt))) out.push_back(*key);
  }
  return out;
}

void TrtllmSimulator::capacity(std::vector<std::uint32_t>& fit) {
  fit.clear();
  std::vector<std::uint64_t> contributed = chunked_contexts_contributing();
  if (o_.trtllm_scheduler.policy == TrtllmCapacityPolicy::guaranteed_no_evict) {
    std::int64_t avail = static_cast<std::int64_t>(bm_.free_blocks());
    for (std::uint32_t id : active_) {
      if (fit.size() >= max_batch_) break;
      if (!reqs_[id].generation) continue;
      fit.push_back(id);
      avail -= static_cast<std::int64_t>(remaining_blocks(reqs_[id]));
    }
    for (std::uint32_t id : active_) {
      if (reqs_[id].generation) continue;
      if (beneficial_to_skip(reqs_[id], contributed)) {
        ++skipped_;
        continue;
      }
      if (fit.size() >= max_batch_) break;
      const auto need = static_cast<std::int64_t>(remaining_blocks(reqs_[id]));
      if (need > avail) break;
      fit.push_back(id);
      avail -= need;
    }
    return;
  }
  // MAX_UTILIZATION
  std::uint64_t scheduled = 0;
  std::size_t end = active_.size();
  for (std::size_t i = 0; i < end;) {
    const TrtReq& q = reqs_[active_[i]];
    if (beneficial_to_skip(q, contributed)) {
      ++skipped_;
      ++i;
      continue;
    }
    const std::uint64_t need = step_blocks(q);
    if (fit.size() < max_batch_ && scheduled + need <= bm_.free_blocks()) {
      scheduled += need;
      fit.push_back(active_[i]);
      ++i;
      continue;
    }
    std::size_t last = end;
    for (std::size_t j = end; j-- > i;)
      if (reqs_[active_[j]].started()) {
        last = j;
        break;
      }
    if (last == end) break;
    pause(active_[last]);
    end = last;
  }
}

void TrtllmSimulator::micro_batch(const std::vector<std::uint32_t>& fit, std::vector<Item>& batch) const {
  batch.clear();
  std::uint64_t n = 0;
  const bool chunked = o_.trtllm_scheduler.enable_chunked_context;
  for (std::uint32_t id : fit) {
    if (batch.size() >= max_batch_) break;
    const TrtReq& q = reqs_[id];
    if (q.generation) {
      if (n + 1 > max_tokens_) break;
      batch.push_back({id, 1});
      ++n;
    } else if (chunked) {
      batch.push_back({id, 0});  // sized below
    } else {
      const std::uint64_t rest = q.prompt - q.context_done;
      if (n + rest > max_tokens_) break;
      batch.push_back({id, rest});
      n += rest;
    }
  }
  if (!chunked) return;
  std::uint64_t left = max_tokens_ > n ? max_tokens_ - n : 0;
  std::vector<Item> out;
  for (Item it : batch) {
    const TrtReq& q = reqs_[it.id];
    if (!q.generation) {
      const std::uint64_t rest = q.prompt - q.context_done;
      std::uint64_t c = std::min(rest, left);
      if (c < rest) c -= c % tpb_;
      left -= c;
      if (c == 0) continue;
      it.tokens = c;
    }
    out.push_back(it);
  }
  batch = std::move(out);
}

SimResult TrtllmSimulator::run(Source& src) {
  SimResult r;
  fill_header(r);
  RunRecorder rec(r, o_);
  double clock = 0;
  std::vector<std::uint32_t> fit;
  std::vector<Item> batch;
  while (true) {
    while (!src.empty() && src.next_time() <= clock) admit(src, r, rec);
    if (active_.empty()) {
      if (src.empty()) break;
      clock = std::max(clock, src.next_time());
      continue;
    }
    if (r.steps >= o_.max_steps)
      throw InputError::value("simulation length", std::to_string(r.steps) + " steps", "a run that finishes within max_steps");
    preempted_step_ = 0;
    capacity(fit);
    micro_batch(fit, batch);
    if (batch.empty()) {
      // Admission refuses what can never fit, so only a paused request whose prompt grew by its
      // generated tokens past max_num_tokens (chunked context off) can stop here.
      const TrtReq& head = reqs_[fit.empty() ? active_.front() : fit.front()];
      if (!o_.trtllm_scheduler.enable_chunked_context && head.prompt > max_tokens_)
        throw InputError::value("max_num_tokens", std::to_string(max_tokens_),
                                "room for a paused request's prompt and generated tokens (" + std::to_string(head.prompt) +
                                    "), or chunked context (enable_chunked_prefill)");
      throw Error("kvplan simulate: internal error: no TensorRT-LLM request scheduled");
    }
    StepBatch sb;
    for (Item& it : batch) {
      TrtReq& q = reqs_[it.id];
      if (!q.generation && q.context_done == 0) {
        if (!q.queued) {
          q.queued = true;
          rec.queued(clock, q.in.arrival_s);
        }
        // addSequence: the blocks of the whole prompt, the reused ones found in the tree.
        if (bm_.free_blocks() < blocks_for(q.prompt))
          throw Error("kvplan simulate: internal error: TensorRT-LLM blocks over the pool");
        const std::uint64_t pre = bm_.add_sequence(it.id, tokens_of(q, q.prompt), q.prompt);
        q.blocks = bm_.held(it.id);
        if (pre > 0) {
          // LlmRequest::setPrepopulatedPromptLen: the context position moves past the reused
          // tokens; a chunk that then ends short of the prompt is cut back to a block boundary.
          std::uint64_t chunk = it.tokens;
          if (pre + chunk < q.prompt) chunk = (pre + chunk) / tpb_ * tpb_ - pre;
          else chunk = q.prompt - pre;
          q.context_done = pre;
          it.tokens = chunk;
        }
      } else if (q.generation) {
        const std::uint64_t want = blocks_for(q.kv_tokens + 1);
        if (want > q.blocks) {
          if (bm_.free_blocks() == 0) throw Error("kvplan simulate: internal error: TensorRT-LLM blocks over the pool");
          bm_.allocate_block(it.id);  // KVCacheManager::addToken -> allocateBlock
          q.blocks = bm_.held(it.id);
        }
      }
      timer_.add(sb, q.generation ? q.kv_tokens : q.context_done, it.tokens);
      if (q.generation) sb.decode_tokens += 1;
      else sb.prefill_tokens += it.tokens;
    }
    std::uint64_t running = 0;
    for (std::uint32_t id : active_) running += reqs_[id].started();
    const double dt = timer_.seconds(sb);
    rec.step(clock, dt, running, active_.size() - running, sb, bm_.used_blocks(), bm_.cached_free_blocks(), preempted_step_);
    clock += dt;
    std::uint64_t finished = 0;
    for (const Item& it : batch) {
      TrtReq& q = reqs_[it.id];
      if (!q.generation) {
        q.context_done += it.tokens;
        if (q.context_done < q.prompt) continue;
        q.generation = true;  // the last chunk samples the first token
        q.kv_tokens = q.prompt;
        // KVCacheManager::storeContextBlocks once the whole context is computed (resource_manager.py
        // update_resources: "We wait until context_remaining_length == 0").
        bm_.store_context_blocks(it.id, tokens_of(q, q.prompt));
      } else {
        ++q.kv_tokens;
      }
      ++q.generated;
      if (q.first_token < 0) {
        q.first_token = clock;
        rec.first_token(clock, q.in.arrival_s);
      }
      if (q.generated >= q.in.output_tokens) {
        rec.finished(q.in, q.generated, q.first_token, clock);
        src.on_finish_turn(q.in.session, q.turn, q.user, q.in.prompt_tokens, q.in.output_tokens, clock);
        if (q.in.session && last_turn_ && q.turn >= last_turn_) sessions_.erase(q.in.session);
        bm_.remove_sequence(it.id, tokens_of(q, q.in.prompt_tokens + q.generated));  // removeSequence
        q.blocks = 0;
        q.done = true;
        ++finished;
      }
    }
    if (finished) {
      std::erase_if(active_, [&](std::uint32_t id) {
        if (!reqs_[id].done) return false;
        reqs_[id] = TrtReq{};
        free_ids_.push_back(id);
        return true;
      });
    }
    rec.step_finished(finished);
  }
  if (bm_.reuse()) {
    rec.finalize(preemptions_, bm_.total_input_tokens, bm_.reused_tokens);
    r.reused_blocks = bm_.reused_blocks;
    r.missed_blocks = bm_.missed_blocks;
    const std::uint64_t looked_up = bm_.reused_blocks + bm_.missed_blocks;
    r.block_hit_rate = looked_up ? static_cast<double>(bm_.reused_blocks) / static_cast<double>(looked_up) : 0;
    if (skipped_)
      r.notes.push_back(format_count(skipped_) + " times a first context chunk waited a step for blocks another context was "
                        "writing (the capacity scheduler's beneficialToSkip)");
  } else {
    rec.finalize(preemptions_, 0, 0);
  }
  if (r.rejected)
    r.notes.push_back(format_count(r.rejected) + " requests rejected: empty, prompt + output over max_seq_len " +
                      format_count(prof_.max_seq_len) +
                      (o_.trtllm_scheduler.enable_chunked_context ? std::string() : ", or a prompt over max_num_tokens " + format_count(max_tokens_) + " (chunked context off)"));
  return r;
}

void TrtllmSimulator::fill_header(SimResult& r) {
  const bool no_evict = o_.trtllm_scheduler.policy == TrtllmCapacityPolicy::guaranteed_no_evict;
  r.engine = "trtllm";
  r.num_blocks = prof_.blocks;
  r.block_size = tpb_;
  r.max_model_len = prof_.max_seq_len;
  r.engine_max_concurrency = prof_.max_concurrency;
  r.max_num_seqs = max_batch_;
  r.max_num_batched_tokens = max_tokens_;
  r.prefix_caching = bm_.reuse();
  r.groups.push_back({"paged_kv", tpb_, 0, layers_, 0});
  r.step_time_model = timer_.describe();
  r.slo = o_.slo;
  r.notes.push_back(std::string("TensorRT-LLM's batch manager mirrored step by step: capacity policy ") +
                    (no_evict ? "GUARANTEED_NO_EVICT" : "MAX_UTILIZATION") + ", " + format_count(prof_.blocks) + " blocks of " +
                    format_count(tpb_) + " tokens, max_batch_size " + format_count(max_batch_) + ", max_num_tokens " +
                    format_count(max_tokens_) + ", chunked context " + (o_.trtllm_scheduler.enable_chunked_context ? "on" : "off"));
  const TrtllmSchedulerOptions& s = o_.trtllm_scheduler;
  r.notes.push_back(s.enable_block_reuse
                        ? std::string("KV block reuse on (radix tree of blocks, LRU eviction of free blocks; partial reuse ") +
                              (s.enable_partial_reuse ? (s.copy_on_partial_reuse ? "on, copy on partial reuse on" : "on, copy on partial reuse off")
                                                      : "off") +
                              "); admission counts every block of a request, as GUARANTEED_NO_EVICT / MAX_UTILIZATION do"
                        : std::string("KV block reuse off (kv_cache_config.enable_block_reuse: false): no prefix hits"));
  r.notes.push_back("not simulated: host offloading, beam search, speculative decoding, EOS before max_tokens");
  r.notes.push_back(step_time_note(o_.step_time));
}

void TrtllmSimulator::admit(Source& src, SimResult& r, RunRecorder& rec) {
  const Pending p = rec.take_arrival(src);
  const SimRequest& in = p.r;
  const bool too_long = in.prompt_tokens + in.output_tokens > prof_.max_seq_len;
  const bool over_tokens = !o_.trtllm_scheduler.enable_chunked_context && in.prompt_tokens > max_tokens_;
  if (in.prompt_tokens == 0 || in.output_tokens == 0 || too_long || over_tokens ||
      blocks_for(in.prompt_tokens + in.output_tokens) > prof_.blocks) {
    ++r.rejected;
    return;
  }
  const std::uint32_t id = take_slot(reqs_, free_ids_);
  TrtReq& q = reqs_[id];
  q.in = in;
  q.in.arrival_s = p.t;
  q.user = p.user;
  q.turn = p.turn;
  q.prompt = in.prompt_tokens;
  q.max_new = in.output_tokens;
  if (bm_.reuse()) request_tokens(sessions_, in, ++uid_, segs_, q.tokens);
  r.prompt_tokens += in.prompt_tokens;
  active_.push_back(id);
}

}  // namespace kvplan::detail
