#!/bin/sh
# llama-server in the CUDA server image as llama.cpp's Docker guide starts it (ggml-org/llama.cpp
# docs/docker.md, "Docker With CUDA" / Usage, commit 30255fcb4dcf). Adapted: the guide's locally
# built local/llama.cpp:server-cuda is replaced by the published ghcr.io/ggml-org/llama.cpp:server-cuda,
# which the same guide says is built from the same .devops/cuda.Dockerfile. -n 512 is n_predict;
# --n-gpu-layers 1 offloads one layer, so the GPU holds less than kvplan counts (it counts every
# layer's weights and KV on the GPU: conservative).
docker run --gpus all -v /path/to/models:/models ghcr.io/ggml-org/llama.cpp:server-cuda -m /models/7B/ggml-model-q4_0.gguf --port 8080 --host 0.0.0.0 -n 512 --n-gpu-layers 1
