"""Sweep benchmark: kvplan::sweep (C++) vs the same formula in numpy, same grid, same machine.

    /usr/bin/python3 bench/sweep/run.py build/bin/kvplan_bench_sweep [MODEL] [GPU]

The numpy side is the straightforward vectorised implementation: per context, the per-sequence
bytes sum_g bytes_per_token_g x min(L, cap_g) + state; the grid is the outer product with the
concurrency; fits compares with the cache budget; the step time adds the weight read time and
each sequence's cache read time. Both grids are compared exactly before the ratio is reported.
"""
import json
import subprocess
import sys
import tempfile
import time

import numpy as np


def numpy_sweep(p):
    ctx = np.asarray(p["contexts"], dtype=np.uint64)
    conc = np.asarray(p["concurrency"], dtype=np.uint64)
    per_seq = np.full(ctx.shape, p["state_bytes"], dtype=np.uint64)
    for bpt, cap in p["groups"]:
        per_seq += np.uint64(bpt) * np.minimum(ctx, np.uint64(cap))
    cache = per_seq[:, None] * conc[None, :]
    fits = (cache <= np.uint64(p["cache_budget"])) & bool(p["weights_fit"])
    step = p["weight_step_seconds"] + conc[None, :].astype(np.float64) * (per_seq[:, None].astype(np.float64) / p["bandwidth"])
    return cache, fits, step


def main():
    exe = sys.argv[1]
    extra = sys.argv[2:4]
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([exe, d, *extra], check=True)
        with open(f"{d}/sweep_cpp.json") as f:
            p = json.load(f)
        if p["experts"]:
            sys.exit("run.py: the numpy reference models dense weight reads only; pick a dense model")
        n = (len(p["contexts"]), len(p["concurrency"]))
        cpp_cache = np.fromfile(f"{d}/cache_bytes_cpp.u64", dtype="<u8").reshape(n)
        cpp_fits = np.fromfile(f"{d}/fits_cpp.u8", dtype=np.uint8).reshape(n).astype(bool)
        cpp_step = np.fromfile(f"{d}/step_cpp.f64", dtype="<f8").reshape(n)

    best = float("inf")
    for _ in range(p["repeats"]):
        t0 = time.perf_counter()
        cache, fits, step = numpy_sweep(p)
        best = min(best, time.perf_counter() - t0)
    # Overflow check numpy does not do: the largest cell must be exact.
    assert int(cache.max()) == int(cpp_cache.max())
    assert np.array_equal(cache, cpp_cache), "cache bytes differ"
    assert np.array_equal(fits, cpp_fits), "fits differ"
    assert np.allclose(step, cpp_step, rtol=1e-12, atol=0), "step times differ"
    cells = p["cells"]
    np_rate = cells / best
    print(f"numpy          same grid: {cells:.0f} cells in {best:.4f} s (best of {p['repeats']}) = {np_rate:.3g} cells/s")
    print(f"grids identical ({int(fits.sum())} of {cells:.0f} cells fit)")
    print(f"ratio kvplan/numpy = {p['cells_per_second'] / np_rate:.2f}x")


if __name__ == "__main__":
    main()
