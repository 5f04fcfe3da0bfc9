#!/usr/bin/python3
"""Turn the verbatim perf-overview excerpt (tests/data/speed/trtllm_perf_overview_00f37686.md) into
tests/data/speed/points.json: one published measurement per row and column, nothing computed."""
import json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "tests", "data", "speed")
SRC = "NVIDIA/TensorRT-LLM@00f37686aa854010d68bcbd0f4ab000221541ca6:docs/source/performance/perf-overview.md"
URL = ("https://github.com/NVIDIA/TensorRT-LLM/blob/00f37686aa854010d68bcbd0f4ab000221541ca6/"
       "docs/source/performance/perf-overview.md")
MODELS = {  # section heading -> (model name, checkpoint dir stem, MoE?)
    "Llama 4 Scout": ("Llama-4-Scout-17B-16E", "llama4-scout", True),
    "Llama 3.3 70B": ("Llama-3.3-70B", "llama-3.3-70b", False),
    "Qwen3-235B-A22B": ("Qwen3-235B-A22B", "qwen3-235b-a22b", True),
    "Qwen3-30B-A3B": ("Qwen3-30B-A3B", "qwen3-30b-a3b", True),
    "Llama 3.1 405B": ("Llama-3.1-405B", "llama-3.1-405b", False),
    "Llama 3.1 8B": ("Llama-3.1-8B", "llama-3.1-8b", False),
}
GPUS = {"B200": "B200-180GB", "GB200": "GB200-186GB", "H200": "H200-141GB", "H100": "H100-SXM-80GB",
        "RTX": "RTX-PRO-6000-Blackwell-96GB"}


def main():
    text = open(os.path.join(DATA, "trtllm_perf_overview_00f37686.md")).read().splitlines()
    nreq = {}
    for line in text:
        m = re.match(r"\| (\d+) \| (\d+) \| (\d+) \|$", line)
        if m: nreq[(int(m[1]), int(m[2]))] = int(m[3])
    points, model, rtx, cols = [], None, False, None
    for line in text:
        if line.startswith("#### "):
            model, rtx = MODELS[line[5:].strip()], False
        elif line.startswith("RTX 6000 Pro"):
            rtx = True
        elif line.startswith("| Sequence Length"):
            cols = []
            for c in [c.strip() for c in line.strip("|").split("|")][1:]:
                m = re.search(r"TP(\d+)(?:,PP(\d+))? \((FP\d)\)", c)
                gpu = "RTX" if rtx else c.split("<br/>")[0]
                cols.append((GPUS[gpu], int(m[1]), int(m[2] or 1), m[3]))
        elif model and cols and re.match(r"\| \d+/\d+ \|", line):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            isl, osl = map(int, cells[0].split("/"))
            for (gpu, tp, pp, dt), v in zip(cols, cells[1:]):
                if not v: continue
                name, stem, moe = model
                points.append({
                    "id": f"trtllm/{name}/{gpu}/tp{tp}pp{pp}/{dt}/{isl}-{osl}",
                    "source": SRC, "url": URL, "engine": "trtllm", "model": name, "moe": moe,
                    "checkpoint": f"checkpoints/{stem}-{dt.lower()}", "gpu": gpu, "tp": tp, "pp": pp,
                    "ep": tp if moe else 1, "weights": dt, "kv_dtype": "fp8", "isl": isl, "osl": osl,
                    "requests": nreq[(isl, osl)], "arrivals": "at-once",
                    "kv_cache_free_gpu_mem_fraction": 0.95,
                    "metric": "output_tokens_per_s", "value": float(v.replace(",", "")),
                })
    json.dump({"_comment": "Published throughput points; made by bench/speed/make_points.py from the verbatim excerpt "
               "trtllm_perf_overview_00f37686.md (README.md beside it says how each field is read).",
               "points": points}, open(os.path.join(DATA, "points.json"), "w"), indent=1)
    print(len(points), "points", file=sys.stderr)


if __name__ == "__main__":
    main()
