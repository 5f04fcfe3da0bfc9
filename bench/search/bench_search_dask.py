#!/usr/bin/env python3
"""kvplan.search on a dask.distributed LocalCluster of 1 and of 2 worker processes: wall time of the
same study (Qwen3-0.6B on four GPUs, tp 1-8, auto/fp8, 1-16 replicas: 512 candidates; every replica
of a simulated candidate is its own simulation, printed as simulated_replicas), the speed-up ratio of
2 workers over 1,
and whether the two documents and the local one are identical. A report, not a test: the ratio
depends on the machine's free cores (print it with `nproc` and the load).

    PYTHONPATH=build/python /usr/bin/python3 bench/search/bench_search_dask.py [MAX_REPLICAS]
"""
import json
import os
import sys
import time

import distributed

import kvplan


def study(max_replicas):
    return dict(gpus=["H100", "A100", "L40S", "H200"], workload="requests=200 prompt=lognormal:512:0.6 output=fixed:64 seed=7",
                slo_ttft=1.0, slo_tpot=0.05, target_rate=16, max_tp=8, max_replicas=max_replicas, max_model_len=4096)


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main(argv):
    max_replicas = int(argv[1]) if len(argv) > 1 else 16
    args = study(max_replicas)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(kvplan.__file__)))
    os.environ["PYTHONPATH"] = pkg + os.pathsep + os.environ.get("PYTHONPATH", "")
    t_local, local = timed(lambda: kvplan.search("Qwen/Qwen3-0.6B", **args))
    sims = sum(c["replicas"] for c in local["candidates"] if c["status"] != "pruned")
    times, docs = {}, {}
    for n in (1, 2):
        with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
            with distributed.Client(cl) as client:
                client.submit(lambda: 0).result()  # workers up before the clock starts
                times[n], docs[n] = timed(lambda: kvplan.search("Qwen/Qwen3-0.6B", client=client, **args))
    same = json.dumps(docs[1], sort_keys=True) == json.dumps(docs[2], sort_keys=True) == json.dumps(local, sort_keys=True)
    print(json.dumps({"candidates": local["candidates_total"], "simulated_replicas": sims, "cpus": os.cpu_count(),
                      "load_average_1min": os.getloadavg()[0], "local_s": round(t_local, 3), "workers_1_s": round(times[1], 3),
                      "workers_2_s": round(times[2], 3), "speedup_2_over_1": round(times[1] / times[2], 3),
                      "identical_documents": same}, indent=2))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
