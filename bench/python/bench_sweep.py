#!/usr/bin/env python3
"""A 1000 x 1000 context x concurrency sweep three ways: kvplan.sweep (Python API), kvplan::sweep
(C++ API, bench_sweep_cpp) and a plain numpy formula (cache = context x concurrency x bytes per token,
valid for a full-attention model only). Reports best-of-N times and the ratios.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/bench_sweep.py [build/bin/bench_sweep_cpp] [N]
"""
import json
import pathlib
import subprocess
import sys
import time

import numpy as np

import kvplan

MODEL = "meta-llama/Llama-3.1-8B"


def best_of(fn, repeats=10):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv):
    exe = pathlib.Path(argv[1]) if len(argv) > 1 else pathlib.Path("build/bin/bench_sweep_cpp")
    n = int(argv[2]) if len(argv) > 2 else 1000
    contexts = np.arange(1, n + 1, dtype=np.uint64) * 128
    conc = np.arange(1, n + 1, dtype=np.uint64)
    model = kvplan.load(MODEL)

    t_py, s = best_of(lambda: kvplan.sweep(model, contexts, conc, gpu="H100", gpus=1))

    bpt = np.uint64(model.bytes_per_token())
    limit = np.uint64(s.usable_bytes - s.weights_bytes - s.reserved_bytes)

    def numpy_formula():
        cache = contexts[:, None] * conc[None, :] * bpt
        return cache, cache <= limit

    t_np, (cache, fits) = best_of(numpy_formula)
    assert (cache == s.cache_bytes).all(), "numpy formula disagrees with kvplan on a full-attention model"

    result = {"model": MODEL, "grid": f"{n} x {n}", "python_api_s": t_py, "numpy_formula_s": t_np}
    if exe.exists():
        cpp = json.loads(subprocess.check_output([str(exe), MODEL, str(n), "10"], text=True))
        result["cpp_api_s"] = cpp["best_seconds"]
        result["python_over_cpp"] = t_py / cpp["best_seconds"]
        assert cpp["cells_fitting"] == int(s.fits.sum())
    result["python_over_numpy"] = t_py / t_np
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
