"""kvplan.search: the cheapest vLLM deployment that meets latency SLOs at a target rate.

Every figure comes from the C++ library (kvplan/search.h): this module builds the study, evaluates
its candidates (here one after another, or on a Dask cluster with ``client.map`` over the
per-candidate C++ function) and asks the library for the document, which is byte for byte what
``kvplan search --json`` prints for the same study.
"""
import os

from . import _core


def _evaluate(study, index):
    """One candidate's outcome (JSON text); a module-level function so Dask workers can import it."""
    from kvplan import _core as core
    return core.search_evaluate(study, index)


def _path(p, what):
    if p is None:
        return ""
    if hasattr(p, "__fspath__"):
        p = os.fspath(p)
    if not isinstance(p, str):
        raise _core.KvplanError(f"{what}: expected a path, got {type(p).__name__}")
    return p


def search(model, *, gpus, workload=None, trace=None, slo_ttft=None, slo_tpot=None, slo_e2e=None, slo_percentile=0.9,
           target_rate=None, prices=None, kv_cache_dtypes=("auto", "fp8"), max_tp=8, max_replicas=8, max_model_len=None,
           router="round-robin", client=None):
    """Search GPU x tensor-parallel size x KV dtype x replicas for `model` served by vLLM.

    `gpus`: GPU names (a list, or "H100,L40S"); exactly one of `workload` (an open-loop spec, its
    rate replaced by `target_rate`) or `trace` (a file; arrivals scaled to `target_rate` when given);
    SLOs in seconds at `slo_percentile` (0.5, 0.9, 0.99); `prices`: a CSV gpu,usd_per_hour,source,date
    (without it cost is null). `router`: "round-robin", "least-outstanding" or "prefix-aware" (as
    ``kvplan search --router``). `client`: a dask.distributed Client; the candidates are then evaluated
    with client.map and merged by index, so the document equals the local one.
    Returns the document of ``kvplan search --json`` (a dict: "pareto", "chosen", "candidates", ...).
    """
    if isinstance(gpus, str):
        gpus = [g.strip() for g in gpus.split(",") if g.strip()]
    if isinstance(kv_cache_dtypes, str):
        kv_cache_dtypes = [d.strip() for d in kv_cache_dtypes.split(",") if d.strip()]
    model = _path(model, "model") if not isinstance(model, str) else model
    study = _core.search_study(model, list(gpus), workload or "", _path(trace, "trace"), float(slo_ttft or 0),
                               float(slo_tpot or 0), float(slo_e2e or 0), float(slo_percentile), float(target_rate or 0),
                               _path(prices, "prices"), list(kv_cache_dtypes), int(max_tp), int(max_replicas),
                               int(max_model_len or 0), router)
    n = _core.search_candidate_count(study)
    if client is None:
        outcomes = [_core.search_evaluate(study, i) for i in range(n)]
    else:
        futures = client.map(_evaluate, [study] * n, list(range(n)), pure=False)
        outcomes = client.gather(futures)
    return _core.search_document(study, list(outcomes))
