#!/bin/bash
# A launch script as vLLM's docs write serving commands (docs/serving/distributed_serving.md):
# exported variables, a line continuation, the model in a shell variable.
set -euo pipefail
export MODEL=meta-llama/Llama-3.1-70B
export CUDA_VISIBLE_DEVICES=0,1,2,3
echo "starting $MODEL"
vllm serve "$MODEL" \
    --tensor-parallel-size 4 \
    --max-model-len 65536 \
    --gpu-memory-utilization 0.9 \
    --port 8000 2>&1 | tee vllm.log
