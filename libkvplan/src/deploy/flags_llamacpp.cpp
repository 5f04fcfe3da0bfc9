// llama.cpp's `llama-server` flags and their LLAMA_ARG_* environment spellings, every one
// classified. Read from ggml-org/llama.cpp tools/server/README.md, the table `llama-gen-docs`
// generates from common/arg.cpp (commit 25d5b0c53f9a146f3d7a99a18610d9d623b5041e); `-fa` takes
// on|off|auto in newer common/arg.cpp (optional value here). common/arg.cpp reads `--a_b` as `--a-b`,
// has no `--flag=value` form and no positional arguments; an unknown argument is an error.
// The same list is in tests/data/engine_flags/llamacpp.txt.
#include "deploy/flags.h"

namespace kvplan::detail {

EngineFlagTable llamacpp_flag_table() {
  EngineFlagTable t = make_flag_table("llama.cpp", "ggml-org/llama.cpp@25d5b0c5 tools/server/README.md (from common/arg.cpp)", R"(
# Common params
-h --help --usage | 0 | ignored
--version | 0 | ignored
--completion-bash | 0 | ignored
--verbose-prompt | 0 | ignored
-t --threads | 1 | ignored | env=LLAMA_ARG_THREADS
-tb --threads-batch | 1 | ignored
-C --cpu-mask | 1 | ignored
-Cr --cpu-range | 1 | ignored
--cpu-strict | 1 | ignored
--prio | 1 | ignored
--poll | 1 | ignored
-Cb --cpu-mask-batch | 1 | ignored
-Crb --cpu-range-batch | 1 | ignored
--cpu-strict-batch | 1 | ignored
--prio-batch | 1 | ignored
--poll-batch | 1 | ignored
-c --ctx-size | 1 | memory | env=LLAMA_ARG_CTX_SIZE
-n --predict --n-predict | 1 | ignored | env=LLAMA_ARG_N_PREDICT
-b --batch-size | 1 | memory | env=LLAMA_ARG_BATCH
-ub --ubatch-size | 1 | memory | env=LLAMA_ARG_UBATCH
--keep | 1 | ignored
--swa-full | 0 | memory | env=LLAMA_ARG_SWA_FULL
--kv-unified -kvu | 0 | memory | env=LLAMA_ARG_KV_SPLIT
-fa --flash-attn | ? | memory | env=LLAMA_ARG_FLASH_ATTN
--no-perf | 0 | ignored | env=LLAMA_ARG_NO_PERF
-e --escape | 0 | ignored
--no-escape | 0 | ignored
--rope-scaling | 1 | unmodelled | env=LLAMA_ARG_ROPE_SCALING_TYPE | why=it changes the model's positions and may change its context length
--rope-scale | 1 | unmodelled | env=LLAMA_ARG_ROPE_SCALE | why=it changes the model's positions and may change its context length
--rope-freq-base | 1 | ignored | env=LLAMA_ARG_ROPE_FREQ_BASE
--rope-freq-scale | 1 | ignored | env=LLAMA_ARG_ROPE_FREQ_SCALE
--yarn-orig-ctx | 1 | ignored | env=LLAMA_ARG_YARN_ORIG_CTX
--yarn-ext-factor | 1 | ignored | env=LLAMA_ARG_YARN_EXT_FACTOR
--yarn-attn-factor | 1 | ignored | env=LLAMA_ARG_YARN_ATTN_FACTOR
--yarn-beta-slow | 1 | ignored | env=LLAMA_ARG_YARN_BETA_SLOW
--yarn-beta-fast | 1 | ignored | env=LLAMA_ARG_YARN_BETA_FAST
-nkvo --no-kv-offload | 0 | ignored | env=LLAMA_ARG_NO_KV_OFFLOAD
-nr --no-repack | 0 | ignored | env=LLAMA_ARG_NO_REPACK
-ctk --cache-type-k | 1 | memory | env=LLAMA_ARG_CACHE_TYPE_K
-ctv --cache-type-v | 1 | memory | env=LLAMA_ARG_CACHE_TYPE_V
-dt --defrag-thold | 1 | ignored | env=LLAMA_ARG_DEFRAG_THOLD
-np --parallel | 1 | memory | env=LLAMA_ARG_N_PARALLEL
--mlock | 0 | ignored | env=LLAMA_ARG_MLOCK
--no-mmap | 0 | ignored | env=LLAMA_ARG_NO_MMAP
--numa | 1 | ignored | env=LLAMA_ARG_NUMA
-dev --device | 1 | ignored | env=LLAMA_ARG_DEVICE
--list-devices | 0 | ignored
--override-tensor -ot | 1 | unmodelled | why=it keeps the tensors its patterns name in host memory; kvplan does not match tensor names, so it counts them on the GPU
--cpu-moe -cmoe | 0 | memory | env=LLAMA_ARG_CPU_MOE
--n-cpu-moe -ncmoe | 1 | memory | env=LLAMA_ARG_N_CPU_MOE
-ngl --gpu-layers --n-gpu-layers | 1 | ignored | env=LLAMA_ARG_N_GPU_LAYERS
-sm --split-mode | 1 | ignored | env=LLAMA_ARG_SPLIT_MODE
-ts --tensor-split | 1 | ignored | env=LLAMA_ARG_TENSOR_SPLIT
-mg --main-gpu | 1 | ignored | env=LLAMA_ARG_MAIN_GPU
--check-tensors | 0 | ignored
--override-kv | 1 | unmodelled | why=it may change the model's metadata (layers, heads, context) kvplan read
--no-op-offload | 0 | ignored
--lora | 1 | unmodelled | why=LoRA adapter weights
--lora-scaled | 2 | unmodelled | why=LoRA adapter weights
--control-vector | 1 | ignored
--control-vector-scaled | 2 | ignored
--control-vector-layer-range | 2 | ignored
-m --model | 1 | memory | env=LLAMA_ARG_MODEL
-mu --model-url | 1 | ignored | env=LLAMA_ARG_MODEL_URL
-hf -hfr --hf-repo | 1 | memory | env=LLAMA_ARG_HF_REPO
-hfd -hfrd --hf-repo-draft | 1 | unmodelled | env=LLAMA_ARG_HFD_REPO | why=a draft model (its weights and KV cache)
-hff --hf-file | 1 | ignored | env=LLAMA_ARG_HF_FILE
-hfv -hfrv --hf-repo-v | 1 | unmodelled | env=LLAMA_ARG_HF_REPO_V | why=a vocoder model's weights
-hffv --hf-file-v | 1 | ignored | env=LLAMA_ARG_HF_FILE_V
-hft --hf-token | 1 | ignored
--log-disable | 0 | ignored
--log-file | 1 | ignored
--log-colors | 0 | ignored | env=LLAMA_LOG_COLORS
-v --verbose --log-verbose | 0 | ignored
--offline | 0 | ignored | env=LLAMA_OFFLINE
-lv --verbosity --log-verbosity | 1 | ignored | env=LLAMA_LOG_VERBOSITY
--log-prefix | 0 | ignored | env=LLAMA_LOG_PREFIX
--log-timestamps | 0 | ignored | env=LLAMA_LOG_TIMESTAMPS
-ctkd --cache-type-k-draft | 1 | unmodelled | env=LLAMA_ARG_CACHE_TYPE_K_DRAFT | why=the draft model's KV cache
-ctvd --cache-type-v-draft | 1 | unmodelled | env=LLAMA_ARG_CACHE_TYPE_V_DRAFT | why=the draft model's KV cache
# Sampling params
--samplers | 1 | ignored
-s --seed | 1 | ignored
--sampling-seq --sampler-seq | 1 | ignored
--ignore-eos | 0 | ignored
--temp | 1 | ignored
--top-k | 1 | ignored
--top-p | 1 | ignored
--min-p | 1 | ignored
--top-nsigma | 1 | ignored
--xtc-probability | 1 | ignored
--xtc-threshold | 1 | ignored
--typical | 1 | ignored
--repeat-last-n | 1 | ignored
--repeat-penalty | 1 | ignored
--presence-penalty | 1 | ignored
--frequency-penalty | 1 | ignored
--dry-multiplier | 1 | ignored
--dry-base | 1 | ignored
--dry-allowed-length | 1 | ignored
--dry-penalty-last-n | 1 | ignored
--dry-sequence-breaker | 1 | ignored
--dynatemp-range | 1 | ignored
--dynatemp-exp | 1 | ignored
--mirostat | 1 | ignored
--mirostat-lr | 1 | ignored
--mirostat-ent | 1 | ignored
-l --logit-bias | 1 | ignored
--grammar | 1 | ignored
--grammar-file | 1 | ignored
-j --json-schema | 1 | ignored
-jf --json-schema-file | 1 | ignored
# Server params
--swa-checkpoints | 1 | ignored | env=LLAMA_ARG_SWA_CHECKPOINTS
--no-context-shift | 0 | ignored | env=LLAMA_ARG_NO_CONTEXT_SHIFT
--context-shift | 0 | ignored | env=LLAMA_ARG_CONTEXT_SHIFT
-r --reverse-prompt | 1 | ignored
-sp --special | 0 | ignored
--no-warmup | 0 | ignored
--spm-infill | 0 | ignored
--pooling | 1 | ignored | env=LLAMA_ARG_POOLING
-cb --cont-batching | 0 | ignored | env=LLAMA_ARG_CONT_BATCHING
-nocb --no-cont-batching | 0 | ignored | env=LLAMA_ARG_NO_CONT_BATCHING
--mmproj | 1 | unmodelled | env=LLAMA_ARG_MMPROJ | why=the multimodal projector's weights and compute buffers
--mmproj-url | 1 | unmodelled | env=LLAMA_ARG_MMPROJ_URL | why=the multimodal projector's weights and compute buffers
--no-mmproj | 0 | ignored | env=LLAMA_ARG_NO_MMPROJ
--no-mmproj-offload | 0 | ignored | env=LLAMA_ARG_NO_MMPROJ_OFFLOAD
--override-tensor-draft -otd | 1 | ignored
--cpu-moe-draft -cmoed | 0 | ignored | env=LLAMA_ARG_CPU_MOE_DRAFT
--n-cpu-moe-draft -ncmoed | 1 | ignored | env=LLAMA_ARG_N_CPU_MOE_DRAFT
-a --alias | 1 | ignored | env=LLAMA_ARG_ALIAS
--host | 1 | ignored | env=LLAMA_ARG_HOST
--port | 1 | ignored | env=LLAMA_ARG_PORT
--allowed-local-media-path | 1 | ignored | env=LLAMA_ARG_ALLOWED_LOCAL_MEDIA_PATH
--local-media-max-size-mb | 1 | ignored | env=LLAMA_ARG_LOCAL_MEDIA_MAX_SIZE_MB
--path | 1 | ignored | env=LLAMA_ARG_STATIC_PATH
--api-prefix | 1 | ignored | env=LLAMA_ARG_API_PREFIX
--no-webui | 0 | ignored | env=LLAMA_ARG_NO_WEBUI
--embedding --embeddings | 0 | ignored | env=LLAMA_ARG_EMBEDDINGS
--reranking --rerank | 0 | ignored | env=LLAMA_ARG_RERANKING
--api-key | 1 | ignored | env=LLAMA_API_KEY
--api-key-file | 1 | ignored
--ssl-key-file | 1 | ignored | env=LLAMA_ARG_SSL_KEY_FILE
--ssl-cert-file | 1 | ignored | env=LLAMA_ARG_SSL_CERT_FILE
--chat-template-kwargs | 1 | ignored | env=LLAMA_CHAT_TEMPLATE_KWARGS
-to --timeout | 1 | ignored | env=LLAMA_ARG_TIMEOUT
--threads-http | 1 | ignored | env=LLAMA_ARG_THREADS_HTTP
--cache-reuse | 1 | ignored | env=LLAMA_ARG_CACHE_REUSE
--metrics | 0 | ignored | env=LLAMA_ARG_ENDPOINT_METRICS
--props | 0 | ignored | env=LLAMA_ARG_ENDPOINT_PROPS
--slots | 0 | ignored | env=LLAMA_ARG_ENDPOINT_SLOTS
--no-slots | 0 | ignored | env=LLAMA_ARG_NO_ENDPOINT_SLOTS
--slot-save-path | 1 | ignored
--jinja | 0 | ignored | env=LLAMA_ARG_JINJA
--reasoning-format | 1 | ignored | env=LLAMA_ARG_THINK
--reasoning-budget | 1 | ignored | env=LLAMA_ARG_THINK_BUDGET
--chat-template | 1 | ignored | env=LLAMA_ARG_CHAT_TEMPLATE
--chat-template-file | 1 | ignored | env=LLAMA_ARG_CHAT_TEMPLATE_FILE
--no-prefill-assistant | 0 | ignored | env=LLAMA_ARG_NO_PREFILL_ASSISTANT
-sps --slot-prompt-similarity | 1 | ignored
--lora-init-without-apply | 0 | ignored
-td --threads-draft | 1 | ignored
-tbd --threads-batch-draft | 1 | ignored
--draft-max --draft --draft-n | 1 | ignored | env=LLAMA_ARG_DRAFT_MAX
--draft-min --draft-n-min | 1 | ignored | env=LLAMA_ARG_DRAFT_MIN
--draft-p-min | 1 | ignored | env=LLAMA_ARG_DRAFT_P_MIN
-cd --ctx-size-draft | 1 | unmodelled | env=LLAMA_ARG_CTX_SIZE_DRAFT | why=the draft model's KV cache
-devd --device-draft | 1 | ignored
-ngld --gpu-layers-draft --n-gpu-layers-draft | 1 | unmodelled | env=LLAMA_ARG_N_GPU_LAYERS_DRAFT | why=the draft model's weights on the GPU
-md --model-draft | 1 | unmodelled | env=LLAMA_ARG_MODEL_DRAFT | why=a draft model (its weights and KV cache)
--spec-replace | 2 | ignored
-mv --model-vocoder | 1 | unmodelled | why=a vocoder model's weights
--tts-use-guide-tokens | 0 | ignored
--embd-bge-small-en-default | 0 | unmodelled | why=it downloads and loads a preset model (weights and KV cache) kvplan does not read
--embd-e5-small-en-default | 0 | unmodelled | why=it downloads and loads a preset model (weights and KV cache) kvplan does not read
--embd-gte-small-default | 0 | unmodelled | why=it downloads and loads a preset model (weights and KV cache) kvplan does not read
--fim-qwen-1.5b-default | 0 | unmodelled | why=it downloads and loads a preset model (weights and KV cache) kvplan does not read
--fim-qwen-3b-default | 0 | unmodelled | why=it downloads and loads a preset model (weights and KV cache) kvplan does not read
--fim-qwen-7b-default | 0 | unmodelled | why=it downloads and loads a preset model (weights and KV cache) kvplan does not read
--fim-qwen-7b-spec | 0 | unmodelled | why=it downloads and loads a preset model (weights and KV cache) kvplan does not read
--fim-qwen-14b-spec | 0 | unmodelled | why=it downloads and loads a preset model (weights and KV cache) kvplan does not read
--fim-qwen-30b-default | 0 | unmodelled | why=it downloads and loads a preset model (weights and KV cache) kvplan does not read
)");
  t.underscores_to_dashes = true;
  t.equals_values = false;
  return t;
}

}  // namespace kvplan::detail
