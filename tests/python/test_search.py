"""kvplan.search: the same document as `kvplan search --json`, locally and on a Dask cluster of two
worker processes (distributed.LocalCluster), where each candidate is one client.map task over the
per-candidate C++ function."""
import json
import os
import pathlib
import subprocess

import pytest

import kvplan

def _cli_env():
    # Under the ASan suite this process preloads the shared ASan runtime for the extension; the
    # CLI links its own, and the two in one process abort ("incompatible ASan runtimes").
    return {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


ARGS = dict(gpus=["H100", "A100"], workload="requests=120 prompt=fixed:512 output=fixed:32 seed=3", slo_ttft=2.0,
            slo_tpot=0.05, target_rate=8, max_tp=2, max_replicas=2, max_model_len=4096)


@pytest.fixture(scope="module")
def local():
    return kvplan.search("Qwen/Qwen3-0.6B", **ARGS)


def test_document_keys_and_choice(local):
    assert local["schema"] == "kvplan.search/1"
    assert local["candidates_total"] == 16
    chosen = local["chosen"]
    assert chosen == local["pareto"][0]
    for k in ("gpu", "gpus", "tp", "pp", "dp", "replicas", "launch_command", "cost_per_hour", "goodput", "memory"):
        assert k in chosen
    assert chosen["cost_per_hour"] is None  # no prices given
    # The chosen command passes kvplan.check on its GPU (the same reading as the CLI's).
    r = kvplan.check(chosen["launch_command"], gpu=chosen["gpu"])
    assert r["verdict"] == "PASS"
    assert r["kv_cache_tokens"] == chosen["memory"]["kv_cache_tokens"]


def test_same_document_as_the_cli(local, root):
    cli = pathlib.Path(kvplan.__file__).resolve().parents[2] / "bin" / "kvplan"
    if not cli.exists():
        pytest.skip(f"no CLI at {cli}")
    out = subprocess.run([str(cli), "search", "Qwen/Qwen3-0.6B", "--gpu", "H100,A100", "--workload", ARGS["workload"],
                          "--slo-ttft", "2", "--slo-tpot", "0.05", "--target-rate", "8", "--max-tp", "2",
                          "--max-replicas", "2", "--max-model-len", "4096", "--json"],
                         capture_output=True, text=True, check=True, env=_cli_env()).stdout
    assert json.loads(out) == local


def test_dask_local_cluster_gives_the_local_result(local):
    distributed = pytest.importorskip("distributed")
    pkg = str(pathlib.Path(kvplan.__file__).resolve().parents[1])
    os.environ["PYTHONPATH"] = pkg + os.pathsep + os.environ.get("PYTHONPATH", "")  # the workers import kvplan
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            with distributed.get_task_stream(client) as stream:
                remote = kvplan.search("Qwen/Qwen3-0.6B", client=client, **ARGS)
            assert len(client.scheduler_info()["workers"]) == 2
    # One task per candidate ran on the cluster's workers (other processes than this one).
    tasks = [t for t in stream.data if t["key"].startswith("_evaluate")]
    assert len(tasks) == 16
    assert all(t["worker"] for t in tasks)
    assert json.dumps(remote, sort_keys=True) == json.dumps(local, sort_keys=True)


def test_bad_input_is_a_kvplan_error():
    with pytest.raises(kvplan.KvplanError, match="slo-percentile"):
        kvplan.search("Qwen/Qwen3-0.6B", **{**ARGS, "slo_percentile": 0.8})


def test_router_keyword_matches_the_cli(local):
    # The router is the study's (a keyword of kvplan.search as of kvplan search --router).
    assert local["study"]["router"] == "round-robin"
    doc = kvplan.search("Qwen/Qwen3-0.6B", **{**ARGS, "max_replicas": 1, "router": "prefix-aware"})
    assert doc["study"]["router"] == "prefix-aware"
    sim = [c for c in doc["candidates"] if c["status"] != "pruned"]
    assert sim and all(c["router"] == "prefix-aware" and c["requests_per_replica"] == [120] for c in sim)
    with pytest.raises(kvplan.KvplanError, match="--router"):
        kvplan.search("Qwen/Qwen3-0.6B", **{**ARGS, "router": "random"})
