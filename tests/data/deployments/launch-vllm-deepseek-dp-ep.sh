#!/bin/bash
# DeepSeek-V3/R1 on 8 x H200 with data parallel + expert parallel as vLLM's recipe launches it
# (vllm-project/recipes DeepSeek/DeepSeek-V3.md, "8xH200 (FP8)", "Data Parallel + Expert Parallel
# (DP8+EP)", commit ece0183f017a). Adapted: deepseek-ai/DeepSeek-R1-0528 -> deepseek-ai/DeepSeek-V3
# (bundled; the recipe says the two share the architecture and serving setup).
vllm serve deepseek-ai/DeepSeek-V3 \
  --trust-remote-code \
  --data-parallel-size 8 \
  --enable-expert-parallel
