#!/bin/sh
# vLLM's official image as vLLM's docs start it (vllm-project/vllm
# docs/getting_started/installation/gpu.cuda.inc.md, "pre-built-images", commit 0487d5c235ba;
# included by docs/deployment/docker.md): the image's entrypoint is `vllm serve`, the engine args
# follow the image tag. Verbatim; Qwen/Qwen3-0.6B is bundled.
docker run --runtime nvidia --gpus all \
    -v ~/.cache/huggingface:/root/.cache/huggingface \
    --env "HF_TOKEN=$HF_TOKEN" \
    -p 8000:8000 \
    --ipc=host \
    vllm/vllm-openai:latest \
    --model Qwen/Qwen3-0.6B
