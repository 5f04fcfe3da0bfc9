#!/bin/bash
# DeepSeek-V3 served by trtllm-serve on one 8-GPU node as TensorRT-LLM's DeepSeek guide writes it
# (NVIDIA/TensorRT-LLM examples/models/core/deepseek_v3/README.md, "Serving / Use trtllm-serve",
# commit 010892fdde1a). Verbatim except where the LLM API options live: the guide writes
# ./extra-llm-api-config.yml with a heredoc just before; here the same YAML is the file
# files/trtllm-deepseek-extra-llm-api-config.yml beside this script.
trtllm-serve \
  deepseek-ai/DeepSeek-V3 \
  --host localhost \
  --port 8000 \
  --backend pytorch \
  --max_batch_size 161 \
  --max_num_tokens 1160 \
  --tp_size 8 \
  --ep_size 8 \
  --pp_size 1 \
  --kv_cache_free_gpu_memory_fraction 0.95 \
  --extra_llm_api_options files/trtllm-deepseek-extra-llm-api-config.yml
