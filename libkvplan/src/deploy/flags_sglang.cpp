// SGLang's `python -m sglang.launch_server` / `sglang serve` flags, every one classified. Read from
// sgl-project/sglang docs/advanced_features/server_arguments.md (the per-argument tables of
// python/sglang/srt/server_args.py; commit b36e8e198b71553316b55bce53de6ecf9b3a9a47). "bool flag" rows
// take no value, List rows take one or more. argparse's default allow_abbrev is on, so a unique
// prefix (`--tp 2`, `--dp 2`, as the SGLang docs write them) names its flag.
// The same list is in tests/data/engine_flags/sglang.txt.
#include "deploy/flags.h"

namespace kvplan::detail {

EngineFlagTable sglang_flag_table() {
  EngineFlagTable t = make_flag_table("sglang", "sgl-project/sglang@b36e8e19 docs/advanced_features/server_arguments.md", R"(
# Model and tokenizer
--model-path --model | 1 | memory
--tokenizer-path | 1 | ignored
--tokenizer-mode | 1 | ignored
--tokenizer-worker-num | 1 | ignored
--skip-tokenizer-init | 0 | ignored
--load-format | 1 | ignored
--model-loader-extra-config | 1 | ignored
--trust-remote-code | 0 | ignored
--context-length | 1 | memory
--is-embedding | 0 | ignored
--enable-multimodal | 0 | unmodelled | why=the multimodal encoder's weights and activations
--revision | 1 | ignored
--model-impl | 1 | ignored
# HTTP server
--host | 1 | ignored
--port | 1 | ignored
--skip-server-warmup | 0 | ignored
--warmups | 1 | ignored
--nccl-port | 1 | ignored
# Quantization and data type
--dtype | 1 | memory
--quantization | 1 | memory
--quantization-param-path | 1 | ignored
--modelopt-quant | 1 | ignored
--modelopt-checkpoint-restore-path | 1 | ignored
--modelopt-checkpoint-save-path | 1 | ignored
--kv-cache-dtype | 1 | memory
--enable-fp32-lm-head | 0 | ignored
# Memory and scheduling
--mem-fraction-static | 1 | memory
--max-running-requests | 1 | memory
--max-queued-requests | 1 | ignored
--max-total-tokens | 1 | memory
--chunked-prefill-size | 1 | memory
--max-prefill-tokens | 1 | ignored
--schedule-policy | 1 | ignored
--enable-priority-scheduling | 0 | ignored
--schedule-low-priority-values-first | 0 | ignored
--priority-scheduling-preemption-threshold | 1 | ignored
--schedule-conservativeness | 1 | ignored
--page-size | 1 | memory
--hybrid-kvcache-ratio | 1 | unmodelled | why=it splits the KV pool between full and sliding-window layers
--swa-full-tokens-ratio | 1 | memory
--disable-hybrid-swa-memory | 0 | memory
# Runtime options
--device | 1 | ignored
--elastic-ep-backend | 1 | ignored
--mooncake-ib-device | 1 | ignored
--tensor-parallel-size --tp-size | 1 | memory
--pipeline-parallel-size --pp-size | 1 | memory
--pp-max-micro-batch-size | 1 | ignored
--stream-interval | 1 | ignored
--stream-output | 0 | ignored
--random-seed | 1 | ignored
--constrained-json-whitespace-pattern | 1 | ignored
--constrained-json-disable-any-whitespace | 0 | ignored
--watchdog-timeout | 1 | ignored
--dist-timeout | 1 | ignored
--download-dir | 1 | ignored
--base-gpu-id | 1 | ignored
--gpu-id-step | 1 | ignored
--sleep-on-idle | 0 | ignored
--mm-process-config | 1 | ignored
# Logging
--log-level | 1 | ignored
--log-level-http | 1 | ignored
--log-requests | 0 | ignored
--log-requests-level | 1 | ignored
--crash-dump-folder | 1 | ignored
--crash-on-nan | 1 | ignored
--show-time-cost | 0 | ignored
--enable-metrics | 0 | ignored
--enable-metrics-for-all-schedulers | 0 | ignored
--tokenizer-metrics-custom-labels-header | 1 | ignored
--tokenizer-metrics-allowed-custom-labels | + | ignored
--bucket-time-to-first-token | + | ignored
--bucket-inter-token-latency | + | ignored
--bucket-e2e-request-latency | + | ignored
--collect-tokens-histogram | 0 | ignored
--prompt-tokens-buckets | + | ignored
--generation-tokens-buckets | + | ignored
--gc-warning-threshold-secs | 1 | ignored
--decode-log-interval | 1 | ignored
--enable-request-time-stats-logging | 0 | ignored
--kv-events-config | 1 | ignored
--enable-trace | 0 | ignored
--oltp-traces-endpoint | 1 | ignored
# API related
--api-key | 1 | ignored
--served-model-name | 1 | ignored
--weight-version | 1 | ignored
--chat-template | 1 | ignored
--completion-template | 1 | ignored
--file-storage-path | 1 | ignored
--enable-cache-report | 0 | ignored
--reasoning-parser | 1 | ignored
--tool-call-parser | 1 | ignored
--sampling-defaults | 1 | ignored
--tool-server | 1 | ignored
# Data parallelism
--data-parallel-size --dp-size | 1 | memory
--load-balance-method | 1 | ignored
--load-watch-interval | 1 | ignored
--prefill-round-robin-balance | 0 | ignored
# Multi-node distributed serving
--dist-init-addr --nccl-init-addr | 1 | ignored
--nnodes | 1 | ignored
--node-rank | 1 | ignored
# Model override args
--json-model-override-args | 1 | unmodelled | why=it may change the model's config (layers, heads, context) kvplan read
--preferred-sampling-params | 1 | ignored
# LoRA
--enable-lora | 0 | unmodelled | why=LoRA adapters' weights and buffers
--max-lora-rank | 1 | unmodelled | why=LoRA buffers are sized from it
--lora-target-modules | + | unmodelled | why=LoRA buffers are sized from it
--lora-paths | + | unmodelled | why=LoRA adapters loaded at start-up
--max-loras-per-batch | 1 | unmodelled | why=LoRA buffers are sized from it
--max-loaded-loras | 1 | ignored
--lora-eviction-policy | 1 | ignored
--lora-backend | 1 | ignored
--max-lora-chunk-size | 1 | ignored
# Kernel backends
--attention-backend | 1 | memory
--prefill-attention-backend | 1 | ignored
--decode-attention-backend | 1 | ignored
--sampling-backend | 1 | ignored
--grammar-backend | 1 | ignored
--mm-attention-backend | 1 | ignored
--nsa-prefill | 1 | ignored
--nsa-decode | 1 | ignored
# current ServerArgs (sgl-project/sglang docs/basic_usage/deepseek_v32.md, "Choices of Attention Kernels")
--nsa-prefill-backend | 1 | ignored
--nsa-decode-backend | 1 | ignored
# older SGLang (its outlines grammar cache on disk; ServerArgs.disable_disk_cache, removed since)
--disable-disk-cache | 0 | ignored
--fp8-gemm-backend | 1 | ignored
# Speculative decoding
--speculative-algorithm | 1 | unmodelled | why=speculative decoding loads a draft model or head (weights, its own KV pool, CUDA graphs) and draft-token buffers
--speculative-draft-model-path --speculative-draft-model | 1 | unmodelled | why=the draft model's weights and KV pool
--speculative-draft-model-revision | 1 | ignored
--speculative-num-steps | 1 | unmodelled | why=the draft steps size the draft model's buffers and CUDA graphs
--speculative-eagle-topk | 1 | unmodelled | why=the draft tree's width sizes the verification buffers
--speculative-num-draft-tokens | 1 | unmodelled | why=the draft tokens verified per step size the verification buffers
--speculative-accept-threshold-single | 1 | ignored
--speculative-accept-threshold-acc | 1 | ignored
--speculative-token-map | 1 | ignored
--speculative-attention-mode | 1 | ignored
--speculative-moe-runner-backend | 1 | ignored
--speculative-moe-a2a-backend | 1 | ignored
--speculative-ngram-min-match-window-size | 1 | ignored
--speculative-ngram-max-match-window-size | 1 | ignored
--speculative-ngram-min-bfs-breadth | 1 | ignored
--speculative-ngram-max-bfs-breadth | 1 | ignored
--speculative-ngram-match-type | 1 | ignored
--speculative-ngram-branch-length | 1 | ignored
--speculative-ngram-capacity | 1 | unmodelled | why=the n-gram cache is sized from it
# MoE
--expert-parallel-size --ep-size --ep | 1 | ignored
--moe-a2a-backend | 1 | ignored
--moe-runner-backend | 1 | ignored
--flashinfer-mxfp4-moe-precision | 1 | ignored
--enable-flashinfer-allreduce-fusion | 0 | ignored
--deepep-mode | 1 | ignored
--ep-num-redundant-experts | 1 | unmodelled | why=redundant experts add expert weights on each GPU
--ep-dispatch-algorithm | 1 | ignored
--init-expert-location | 1 | ignored
--enable-eplb | 0 | ignored
--eplb-algorithm | 1 | ignored
--eplb-rebalance-num-iterations | 1 | ignored
--eplb-rebalance-layers-per-chunk | 1 | ignored
--eplb-min-rebalancing-utilization-threshold | 1 | ignored
--expert-distribution-recorder-mode | 1 | ignored
--expert-distribution-recorder-buffer-size | 1 | ignored
--enable-expert-distribution-metrics | 0 | ignored
--deepep-config | 1 | ignored
--moe-dense-tp-size | 1 | ignored
# Mamba cache
--max-mamba-cache-size | 1 | memory
--mamba-ssm-dtype | 1 | memory
--mamba-full-memory-ratio | 1 | memory
# Multi-item scoring
--multi-item-scoring-delimiter | 1 | ignored
# Hierarchical cache, LMCache, double sparsity, offloading
--enable-hierarchical-cache | 0 | ignored
--hicache-ratio | 1 | ignored
--hicache-size | 1 | ignored
--hicache-write-policy | 1 | ignored
--radix-eviction-policy | 1 | ignored
--hicache-io-backend | 1 | ignored
--hicache-mem-layout | 1 | ignored
--hicache-storage-backend | 1 | ignored
--hicache-storage-prefetch-policy | 1 | ignored
--hicache-storage-backend-extra-config | 1 | ignored
--enable-lmcache | 0 | ignored
--enable-double-sparsity | 0 | unmodelled | why=double sparsity keeps a label cache beside the KV cache
--ds-channel-config-path | 1 | ignored
--ds-heavy-channel-num | 1 | ignored
--ds-heavy-token-num | 1 | ignored
--ds-heavy-channel-type | 1 | ignored
--ds-sparse-decode-threshold | 1 | ignored
--cpu-offload-gb | 1 | ignored
--offload-group-size | 1 | ignored
--offload-num-in-group | 1 | ignored
--offload-prefetch-step | 1 | ignored
--offload-mode | 1 | ignored
# Optimization / debug options
--disable-radix-cache | 0 | memory
--cuda-graph-max-bs | 1 | memory
--cuda-graph-bs | + | ignored
--disable-cuda-graph | 0 | ignored
--disable-cuda-graph-padding | 0 | ignored
--enable-profile-cuda-graph | 0 | ignored
--enable-cudagraph-gc | 0 | ignored
--enable-nccl-nvls | 0 | ignored
--enable-symm-mem | 0 | ignored
--disable-flashinfer-cutlass-moe-fp4-allgather | 0 | ignored
--enable-tokenizer-batch-encode | 0 | ignored
--disable-outlines-disk-cache | 0 | ignored
--disable-custom-all-reduce | 0 | ignored
--enable-mscclpp | 0 | ignored
--enable-torch-symm-mem | 0 | ignored
--disable-overlap-schedule | 0 | ignored
--enable-mixed-chunk | 0 | ignored
--enable-dp-attention | 0 | memory
--enable-dp-lm-head | 0 | ignored
--enable-two-batch-overlap | 0 | ignored
--enable-single-batch-overlap | 0 | ignored
--tbo-token-distribution-threshold | 1 | ignored
--enable-torch-compile | 0 | ignored
--enable-torch-compile-debug-mode | 0 | ignored
--enable-piecewise-cuda-graph | 0 | ignored
--piecewise-cuda-graph-tokens | 1 | ignored
--torch-compile-max-bs | 1 | ignored
--piecewise-cuda-graph-max-tokens | 1 | ignored
--torchao-config | 1 | ignored
--enable-nan-detection | 0 | ignored
--enable-p2p-check | 0 | ignored
--triton-attention-reduce-in-fp32 | 0 | ignored
--triton-attention-num-kv-splits | 1 | ignored
--triton-attention-split-tile-size | 1 | ignored
--num-continuous-decode-steps | 1 | ignored
--delete-ckpt-after-loading | 0 | ignored
--enable-memory-saver | 0 | ignored
--enable-weights-cpu-backup | 0 | ignored
--allow-auto-truncate | 0 | ignored
--enable-custom-logit-processor | 0 | ignored
--flashinfer-mla-disable-ragged | 0 | ignored
--disable-shared-experts-fusion | 0 | ignored
--disable-chunked-prefix-cache | 0 | ignored
--disable-fast-image-processor | 0 | ignored
--keep-mm-feature-on-device | 0 | ignored
--enable-return-hidden-states | 0 | ignored
--scheduler-recv-interval | 1 | ignored
--numa-node | + | ignored
--enable-layerwise-nvtx-marker | 0 | ignored
--enable-attn-tp-input-scattered | 0 | ignored
--enable-nsa-prefill-context-parallel | 0 | ignored
# Forward hooks, debug tensor dumps
--forward-hooks | 1 | ignored
--debug-tensor-dump-output-folder | 1 | ignored
--debug-tensor-dump-input-file | 1 | ignored
--debug-tensor-dump-inject | 1 | ignored
--enable-dynamic-batch-tokenizer | 0 | ignored
--dynamic-batch-tokenizer-batch-size | 1 | ignored
--dynamic-batch-tokenizer-batch-timeout | 1 | ignored
# PD disaggregation
--disaggregation-mode | 1 | ignored
--disaggregation-transfer-backend | 1 | ignored
--disaggregation-bootstrap-port | 1 | ignored
--disaggregation-decode-tp | 1 | ignored
--disaggregation-decode-dp | 1 | ignored
--disaggregation-prefill-pp | 1 | ignored
--disaggregation-ib-device | 1 | ignored
--disaggregation-decode-enable-offload-kvcache | 0 | ignored
--num-reserved-decode-tokens | 1 | ignored
--disaggregation-decode-polling-interval | 1 | ignored
# Custom weight loader
--custom-weight-loader | + | ignored
--weight-loader-disable-mmap | 0 | ignored
--remote-instance-weight-loader-seed-instance-ip | 1 | ignored
--remote-instance-weight-loader-seed-instance-service-port | 1 | ignored
--remote-instance-weight-loader-send-weights-group-ports | 1 | ignored
# PD multiplexing, deterministic inference
--enable-pdmux | 0 | ignored
--pdmux-config-path | 1 | ignored
--sm-group-num | 1 | ignored
--enable-deterministic-inference | 0 | ignored
# Deprecated arguments (still accepted)
--enable-ep-moe | 0 | ignored
--enable-deepep-moe | 0 | ignored
--enable-flashinfer-cutlass-moe | 0 | ignored
--enable-flashinfer-cutedsl-moe | 0 | ignored
--enable-flashinfer-trtllm-moe | 0 | ignored
--enable-triton-kernel-moe | 0 | ignored
--enable-flashinfer-mxfp4-moe | 0 | ignored
# Configuration file
--config | 1 | ignored
)");
  t.allow_abbrev = true;
  return t;
}

}  // namespace kvplan::detail
