#!/bin/bash
# A launch script built the way vLLM's docs write serving commands (vllm-project/vllm
# docs/serving/distributed_serving.md, commit 494b01737b3c: `vllm serve MODEL --tensor-parallel-size N`
# on one node): exported variables, a line continuation, the model in a shell variable, a pipe to
# tee. A construction on that shape, not a verbatim copy.
set -euo pipefail
export MODEL=meta-llama/Llama-3.1-70B
export CUDA_VISIBLE_DEVICES=0,1,2,3
echo "starting $MODEL"
vllm serve "$MODEL" \
    --tensor-parallel-size 4 \
    --max-model-len 65536 \
    --gpu-memory-utilization 0.9 \
    --port 8000 2>&1 | tee vllm.log
