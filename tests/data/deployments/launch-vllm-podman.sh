#!/bin/sh
# The Podman form of the same docs section (vllm-project/vllm
# docs/getting_started/installation/gpu.cuda.inc.md, "pre-built-images", commit 0487d5c235ba):
# CDI device nvidia.com/gpu=all, the fully qualified docker.io image. Verbatim.
podman run --device nvidia.com/gpu=all \
-v ~/.cache/huggingface:/root/.cache/huggingface \
--env "HF_TOKEN=$HF_TOKEN" \
-p 8000:8000 \
--ipc=host \
docker.io/vllm/vllm-openai:latest \
--model Qwen/Qwen3-0.6B
