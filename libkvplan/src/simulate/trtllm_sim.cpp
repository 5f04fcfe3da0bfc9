// TensorRT-LLM's batch manager as the simulator runs it (trtllm_sim.h).
#include "simulate/trtllm_sim.h"

#include <algorithm>

#include "kvplan/units.h"

namespace kvplan::detail {

TrtllmSimulator::TrtllmSimulator(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o)
    : TrtllmSimulator(checked_profile(m, o.trtllm), o, timer_for(m, gpu, o)) {
  layers_ = m.num_layers();
}

TrtllmSimulator::TrtllmSimulator(TrtllmResult profile, const SimOptions& o, StepTimer timer)
    : o_(o), prof_(std::move(profile)), timer_(std::move(timer)) {
  tpb_ = o.trtllm.tokens_per_block;
  if (tpb_ == 0) throw InputError::value("tokens_per_block", "0", "a positive number of tokens");
  if (prof_.blocks == 0) throw InputError::value("TensorRT-LLM KV cache", "0 blocks", "a pool of at least one block");
  max_batch_ = o.trtllm.max_batch_size;
  if (max_batch_ == 0) throw InputError::value("max_batch_size", "0", "a positive number of requests");
  max_tokens_ = o.trtllm_scheduler.max_num_tokens;
  if (max_tokens_ == 0) throw InputError::value("max_num_tokens", "0", "a positive number of tokens");
  // MicroBatchScheduler::setCtxRequestsChunkSize<kEQUAL_PROGRESS> grows every context request's
  // chunk by one unit in turn; only kFIRST_COME_FIRST_SERVED is simulated, so EQUAL_PROGRESS is refused.
  if (o.trtllm_scheduler.context_chunking == TrtllmSchedulerOptions::ContextChunking::equal_progress)
    throw InputError::value("scheduler_config.context_chunking_policy", "EQUAL_PROGRESS",
                            "FIRST_COME_FIRST_SERVED (the context chunking policy kvplan simulates)");
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
  used_ -= q.blocks;
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

void TrtllmSimulator::capacity(std::vector<std::uint32_t>& fit) {
  fit.clear();
  if (o_.trtllm_scheduler.policy == TrtllmCapacityPolicy::guaranteed_no_evict) {
    std::int64_t avail = static_cast<std::int64_t>(prof_.blocks) - static_cast<std::int64_t>(used_);
    for (std::uint32_t id : active_) {
      if (fit.size() >= max_batch_) break;
      if (!reqs_[id].generation) continue;
      fit.push_back(id);
      avail -= static_cast<std::int64_t>(remaining_blocks(reqs_[id]));
    }
    for (std::uint32_t id : active_) {
      if (reqs_[id].generation) continue;
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
    const std::uint64_t need = step_blocks(q);
    if (fit.size() < max_batch_ && scheduled + need <= prof_.blocks - used_) {
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
    for (const Item& it : batch) {
      TrtReq& q = reqs_[it.id];
      if (!q.generation && q.context_done == 0) {
        if (!q.queued) {
          q.queued = true;
          rec.queued(clock, q.in.arrival_s);
        }
        const std::uint64_t need = blocks_for(q.prompt);  // addSequence: the whole prompt
        q.blocks = need;
        used_ += need;
      } else if (q.generation) {
        const std::uint64_t want = blocks_for(q.kv_tokens + 1);
        if (want > q.blocks) used_ += want - q.blocks, q.blocks = want;
      }
      if (used_ > prof_.blocks) throw Error("kvplan simulate: internal error: TensorRT-LLM blocks over the pool");
      timer_.add(sb, q.generation ? q.kv_tokens : q.context_done, it.tokens);
      if (q.generation) sb.decode_tokens += 1;
      else sb.prefill_tokens += it.tokens;
    }
    std::uint64_t running = 0;
    for (std::uint32_t id : active_) running += reqs_[id].started();
    const double dt = timer_.seconds(sb);
    rec.step(clock, dt, running, active_.size() - running, sb, used_, 0, preempted_step_);
    clock += dt;
    std::uint64_t finished = 0;
    for (const Item& it : batch) {
      TrtReq& q = reqs_[it.id];
      if (!q.generation) {
        q.context_done += it.tokens;
        if (q.context_done < q.prompt) continue;
        q.generation = true;  // the last chunk samples the first token
        q.kv_tokens = q.prompt;
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
        used_ -= q.blocks;
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
  rec.finalize(preemptions_, 0, 0);
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
  r.prefix_caching = false;
  r.groups.push_back({"paged_kv", tpb_, 0, layers_, 0});
  r.step_time_model = timer_.describe();
  r.slo = o_.slo;
  r.notes.push_back(std::string("TensorRT-LLM's batch manager mirrored step by step: capacity policy ") +
                    (no_evict ? "GUARANTEED_NO_EVICT" : "MAX_UTILIZATION") + ", " + format_count(prof_.blocks) + " blocks of " +
                    format_count(tpb_) + " tokens, max_batch_size " + format_count(max_batch_) + ", max_num_tokens " +
                    format_count(max_tokens_) + ", chunked context " + (o_.trtllm_scheduler.enable_chunked_context ? "on" : "off"));
  r.notes.push_back("not simulated: KV block reuse (enable_block_reuse: no prefix hits are counted, which can only "
                    "overstate the blocks used), host offloading, beam search, speculative decoding, EOS before max_tokens");
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
  r.prompt_tokens += in.prompt_tokens;
  active_.push_back(id);
}

}  // namespace kvplan::detail
