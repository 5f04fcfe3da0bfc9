#!/bin/bash
# DeepSeek-V3 on one 8-GPU node as SGLang's DeepSeek guide launches it with Docker
# (sgl-project/sglang benchmark/deepseek_v3/README.md, "Using Docker (Recommended)", commit
# 0006053c1f74). Verbatim.
docker pull lmsysorg/sglang:latest

docker run --gpus all --shm-size 32g -p 30000:30000 -v ~/.cache/huggingface:/root/.cache/huggingface --ipc=host --network=host --privileged lmsysorg/sglang:latest \
    python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code --port 30000
