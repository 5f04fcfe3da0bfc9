// vLLM's `vllm serve` / `python -m vllm.entrypoints.openai.api_server` flags, every one classified.
// Read from vllm-project/vllm: vllm/engine/arg_utils.py EngineArgs.add_cli_args (commit
// 99d7eb5d6a512cfcc5a2b104f24ebf2d6cda772b) and vllm/entrypoints/openai/cli_args.py
// (make_arg_parser, FrontendArgs, BaseFrontendArgs; commit 005223338608bc94fd165a4f976c102a57bd1fc4),
// plus the newer cache flags kvplan models (--attention-backend, --mamba-cache-mode; see
// /shared/spec/engines.md) and the newer scheduler flag kvplan simulate reads
// (--scheduler-reserve-full-isl, SchedulerConfig.scheduler_reserve_full_isl). Arity follows
// get_kwargs: bool fields are BooleanOptionalAction (--x / --no-x), list fields nargs='+'. The
// same list is in tests/data/engine_flags/vllm.txt.
// memory: modelled by kvplan check (the budget terms of kvplan/budget.h included: --quantization fp8
// weights, --cpu-offload-gb, --enable-expert-parallel, --speculative-config drafts, LoRA slots;
// --max-cpu-loras is read as host memory, no GPU bytes); ignored: does not change GPU memory;
// unmodelled: may change GPU memory in a way kvplan does not model (why= says how): the verdict is UNCERTAIN and names it.
#include "deploy/flags.h"

namespace kvplan::detail {

EngineFlagTable vllm_flag_table() {
  EngineFlagTable t = make_flag_table("vllm", "vllm-project/vllm@99d7eb5d vllm/engine/arg_utils.py; @00522333 vllm/entrypoints/openai/cli_args.py", R"(
# make_arg_parser
--headless | 0 | ignored
--api-server-count -asc | 1 | ignored
--config | 1 | ignored
--grpc | 0 | ignored
# FrontendArgs / BaseFrontendArgs
--host | 1 | ignored
--port | 1 | ignored
--data-parallel-supervisor-port | 1 | ignored
--dp-supervisor-probe-interval-s | 1 | ignored
--dp-supervisor-probe-timeout-s | 1 | ignored
--dp-supervisor-probe-failure-threshold | 1 | ignored
--uds | 1 | ignored
--uvicorn-log-level | 1 | ignored
--disable-uvicorn-access-log | 0 | ignored | neg=--no-disable-uvicorn-access-log
--disable-access-log-for-endpoints | 1 | ignored
--allow-credentials | 0 | ignored | neg=--no-allow-credentials
--allowed-origins | 1 | ignored
--allowed-methods | 1 | ignored
--allowed-headers | 1 | ignored
--api-key | + | ignored
--ssl-keyfile | 1 | ignored
--ssl-certfile | 1 | ignored
--ssl-ca-certs | 1 | ignored
--enable-ssl-refresh | 0 | ignored | neg=--no-enable-ssl-refresh
--ssl-cert-reqs | 1 | ignored
--ssl-ciphers | 1 | ignored
--root-path | 1 | ignored
--middleware | 1 | ignored
--enable-request-id-headers | 0 | ignored | neg=--no-enable-request-id-headers
--disable-fastapi-docs | 0 | ignored | neg=--no-disable-fastapi-docs
--h11-max-incomplete-event-size | 1 | ignored
--h11-max-header-count | 1 | ignored
--enable-offline-docs | 0 | ignored | neg=--no-enable-offline-docs
--enable-flash-late-interaction | 0 | ignored | neg=--no-enable-flash-late-interaction
--lora-modules | + | unmodelled | why=LoRA adapters loaded at start-up (their weights and the LoRA slots they need)
--chat-template | 1 | ignored
--chat-template-content-format | 1 | ignored
--trust-request-chat-template | 0 | ignored | neg=--no-trust-request-chat-template
--default-chat-template-kwargs | 1 | ignored
--response-role | 1 | ignored
--return-tokens-as-token-ids | 0 | ignored | neg=--no-return-tokens-as-token-ids
--enable-auto-tool-choice | 0 | ignored | neg=--no-enable-auto-tool-choice
--exclude-tools-when-tool-choice-none | 0 | ignored | neg=--no-exclude-tools-when-tool-choice-none
--tool-call-parser | 1 | ignored
--tool-parser-plugin | 1 | ignored
--tool-server | 1 | ignored
--log-config-file | 1 | ignored
--max-log-len | 1 | ignored
--enable-prompt-tokens-details | 0 | ignored | neg=--no-enable-prompt-tokens-details
--enable-per-request-metrics | 0 | ignored | neg=--no-enable-per-request-metrics
--enable-server-load-tracking | 0 | ignored | neg=--no-enable-server-load-tracking
--enable-force-include-usage | 0 | ignored | neg=--no-enable-force-include-usage
--enable-tokenizer-info-endpoint | 0 | ignored | neg=--no-enable-tokenizer-info-endpoint
--enable-log-outputs | 0 | ignored | neg=--no-enable-log-outputs
--enable-log-deltas | 0 | ignored | neg=--no-enable-log-deltas
--cohere-is-reasoning-model | 0 | ignored | neg=--no-cohere-is-reasoning-model
--cohere-format | 1 | ignored
--log-error-stack | 0 | ignored | neg=--no-log-error-stack
--tokens-only | 0 | ignored | neg=--no-tokens-only
--fingerprint-mode | 1 | ignored
--fingerprint-value | 1 | ignored
# AsyncEngineArgs
--enable-log-requests | 0 | ignored | neg=--no-enable-log-requests
--disable-log-requests | 0 | ignored | neg=--no-disable-log-requests
# ModelConfig
--model | 1 | memory
--runner | 1 | ignored
--convert | 1 | ignored
--task | 1 | ignored
--tokenizer | 1 | ignored
--tokenizer-mode | 1 | ignored
--trust-remote-code | 0 | ignored | neg=--no-trust-remote-code
--dtype | 1 | memory
--seed | 1 | ignored
--hf-config-path | 1 | ignored
--allowed-local-media-path | 1 | ignored
--allowed-media-domains | + | ignored
--revision | 1 | ignored
--code-revision | 1 | ignored
--rope-scaling | 1 | unmodelled | why=it changes the model's positions and may change its context length
--rope-theta | 1 | ignored
--tokenizer-revision | 1 | ignored
--max-model-len | 1 | memory
--quantization -q | 1 | memory
--enforce-eager | 0 | memory | neg=--no-enforce-eager
--max-logprobs | 1 | ignored
--logprobs-mode | 1 | ignored
--disable-sliding-window | 0 | unmodelled | neg=--no-disable-sliding-window | why=sliding-window layers then keep KV for the whole context (or the context is capped)
--disable-cascade-attn | 0 | ignored | neg=--no-disable-cascade-attn
--skip-tokenizer-init | 0 | ignored | neg=--no-skip-tokenizer-init
--enable-prompt-embeds | 0 | ignored | neg=--no-enable-prompt-embeds
--served-model-name | + | ignored
--config-format | 1 | ignored
--hf-token | ? | ignored
--hf-overrides | 1 | unmodelled | why=it may change the model's config (layers, heads, context) kvplan read
--pooler-config | 1 | ignored
--override-pooler-config | 1 | ignored
--logits-processor-pattern | 1 | ignored
--generation-config | 1 | ignored
--override-generation-config | 1 | ignored
--enable-sleep-mode | 0 | ignored | neg=--no-enable-sleep-mode
--model-impl | 1 | ignored
--override-attention-dtype | 1 | ignored
--logits-processors | + | ignored
--io-processor-plugin | 1 | ignored
# LoadConfig
--load-format | 1 | ignored
--download-dir | 1 | ignored
--safetensors-load-strategy | 1 | ignored
--model-loader-extra-config | 1 | ignored
--ignore-patterns | + | ignored
--use-tqdm-on-load | 0 | ignored | neg=--no-use-tqdm-on-load
--pt-load-map-location | 1 | ignored
# StructuredOutputsConfig (and the deprecated guided-decoding flags, each typed: one value)
--reasoning-parser | 1 | ignored
# newer vLLM: StructuredOutputsConfig.reasoning_parser_plugin; ModelConfig/MultiModalConfig language_model_only
--reasoning-parser-plugin | 1 | ignored
--language-model-only | 0 | unmodelled | neg=--no-language-model-only | why=the multimodal encoder is not loaded, so the weights are less than the checkpoint kvplan counts (and the KV memory more)
--guided-decoding-backend | 1 | ignored
--guided-decoding-disable-fallback | 1 | ignored
--guided-decoding-disable-any-whitespace | 1 | ignored
--guided-decoding-disable-additional-properties | 1 | ignored
# ParallelConfig
--distributed-executor-backend | 1 | ignored
--pipeline-parallel-size -pp | 1 | memory
--tensor-parallel-size -tp | 1 | memory
--decode-context-parallel-size -dcp | 1 | unmodelled | why=the KV cache is split over the decode context-parallel ranks
--data-parallel-size -dp | 1 | memory
--data-parallel-rank -dpn | 1 | ignored
--data-parallel-start-rank -dpr | 1 | ignored
--data-parallel-size-local -dpl | 1 | ignored
--data-parallel-address -dpa | 1 | ignored
--data-parallel-rpc-port -dpp | 1 | ignored
--data-parallel-backend -dpb | 1 | ignored
--data-parallel-hybrid-lb | 0 | ignored | neg=--no-data-parallel-hybrid-lb
--enable-expert-parallel | 0 | memory | neg=--no-enable-expert-parallel
--all2all-backend | 1 | ignored
--enable-dbo | 0 | ignored | neg=--no-enable-dbo
--dbo-decode-token-threshold | 1 | ignored
--dbo-prefill-token-threshold | 1 | ignored
--disable-nccl-for-dp-synchronization | 0 | ignored | neg=--no-disable-nccl-for-dp-synchronization
--enable-eplb | 0 | unmodelled | neg=--no-enable-eplb | why=expert-parallel load balancing keeps redundant expert weights
--eplb-config | 1 | ignored
--expert-placement-strategy | 1 | ignored
--num-redundant-experts | 1 | unmodelled | why=redundant experts add expert weights on each GPU
--eplb-window-size | 1 | ignored
--eplb-step-interval | 1 | ignored
--eplb-log-balancedness | 0 | ignored | neg=--no-eplb-log-balancedness
--max-parallel-loading-workers | 1 | ignored
--ray-workers-use-nsight | 0 | ignored | neg=--no-ray-workers-use-nsight
--disable-custom-all-reduce | 0 | ignored | neg=--no-disable-custom-all-reduce
--worker-cls | 1 | ignored
--worker-extension-cls | 1 | ignored
--enable-multimodal-encoder-data-parallel | 0 | ignored
# CacheConfig
--block-size | 1 | memory
--gpu-memory-utilization | 1 | memory
--kv-cache-memory-bytes | 1 | memory
--swap-space | 1 | ignored
--kv-cache-dtype | 1 | memory
--num-gpu-blocks-override | 1 | memory
--enable-prefix-caching | 0 | memory | neg=--no-enable-prefix-caching
--prefix-caching-hash-algo | 1 | ignored
--cpu-offload-gb | 1 | memory
--calculate-kv-scales | 0 | ignored | neg=--no-calculate-kv-scales
--kv-sharing-fast-prefill | 0 | ignored | neg=--no-kv-sharing-fast-prefill
--mamba-cache-dtype | 1 | memory
--mamba-ssm-cache-dtype | 1 | memory
--mamba-block-size | 1 | unmodelled | why=the recurrent-state blocks are sized from it
--mamba-cache-mode | 1 | memory
# AttentionConfig (newer vLLM)
--attention-backend | 1 | memory
# MultiModalConfig
--limit-mm-per-prompt | 1 | unmodelled | why=vLLM profiles the multimodal encoder and sizes its encoder cache from the items allowed per prompt, before the KV cache is allocated
--enable-mm-embeds | 0 | ignored | neg=--no-enable-mm-embeds
--media-io-kwargs | 1 | ignored
--mm-processor-kwargs | 1 | ignored
--mm-processor-cache-gb | 1 | ignored
--disable-mm-preprocessor-cache | 0 | ignored
--mm-processor-cache-type | 1 | ignored
--mm-shm-cache-max-object-size-mb | 1 | ignored
--mm-encoder-tp-mode | 1 | ignored
--mm-encoder-attn-backend | 1 | ignored
--interleave-mm-strings | 0 | ignored | neg=--no-interleave-mm-strings
--skip-mm-profiling | 0 | unmodelled | neg=--no-skip-mm-profiling | why=the multimodal encoder is not profiled, so its activation peak is not reserved before the KV cache
--video-pruning-rate | 1 | ignored
# LoRAConfig
--enable-lora | 0 | memory | neg=--no-enable-lora
--max-loras | 1 | memory
--max-lora-rank | 1 | memory
--lora-extra-vocab-size | 1 | unmodelled | why=LoRA extra vocabulary rows add embedding weights
--lora-dtype | 1 | unmodelled | why=the LoRA weights' dtype sets their size
--max-cpu-loras | 1 | memory
--fully-sharded-loras | 0 | unmodelled | neg=--no-fully-sharded-loras | why=it changes how the LoRA weights are split over GPUs
--default-mm-loras | 1 | unmodelled | why=LoRA adapters loaded for multimodal inputs
# ObservabilityConfig
--show-hidden-metrics-for-version | 1 | ignored
--otlp-traces-endpoint | 1 | ignored
--collect-detailed-traces | 1 | ignored
# SchedulerConfig
--max-num-batched-tokens | 1 | memory
--max-num-seqs | 1 | memory
--max-num-partial-prefills | 1 | ignored
--max-long-partial-prefills | 1 | ignored
--long-prefill-token-threshold | 1 | ignored
--num-lookahead-slots | 1 | ignored
# --scheduling-policy: not memory; read by kvplan simulate (fcfs or priority)
--scheduling-policy | 1 | ignored
--enable-chunked-prefill | 0 | ignored | neg=--no-enable-chunked-prefill
--disable-chunked-mm-input | 0 | ignored | neg=--no-disable-chunked-mm-input
--scheduler-cls | 1 | ignored
--disable-hybrid-kv-cache-manager | 0 | memory | neg=--no-disable-hybrid-kv-cache-manager
--async-scheduling | 0 | ignored | neg=--no-async-scheduling
# newer vLLM: SchedulerConfig.scheduler_reserve_full_isl (vllm/config/scheduler.py; read by kvplan simulate)
--scheduler-reserve-full-isl | 0 | ignored | neg=--no-scheduler-reserve-full-isl
# CompilationConfig
--cudagraph-capture-sizes | + | ignored
--cuda-graph-sizes | + | ignored
--max-cudagraph-capture-size | 1 | ignored
# VllmConfig
--speculative-config | 1 | memory
--kv-transfer-config | 1 | unmodelled | why=a KV connector (LMCache, NIXL, offloading) may allocate GPU buffers of its own
--kv-events-config | 1 | ignored
--compilation-config -O | 1 | ignored
--additional-config | 1 | ignored
--structured-outputs-config | 1 | ignored
# Other
--disable-log-stats | 0 | ignored
--aggregate-engine-logging | 0 | ignored
)");
  t.underscores_to_dashes = true;   // FlexibleArgumentParser: --max_model_len == --max-model-len
  t.dotted_keys = true;             // --compilation-config.mode 3
  t.positional_model = true;        // vllm serve MODEL (model_tag)
  // FlexibleArgumentParser (vllm/utils/argparse_utils.py @00da11e3) passes no allow_abbrev, and the
  // `serve` subparser inherits it: argparse's default, a unique prefix names its flag.
  t.allow_abbrev = true;
  return t;
}

}  // namespace kvplan::detail
