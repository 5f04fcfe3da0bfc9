"""kvplan: exact KV-cache and recurrent-state bytes of LLMs, deployment plans and engine profiles.

Every number comes from kvplan's C++ library (``kvplan._core``); this package only forwards
arguments and wraps results (records are dicts with attribute access; sweeps are numpy arrays).

    >>> import kvplan
    >>> m = kvplan.load("Qwen/Qwen3-0.6B")
    >>> m.kv_bytes(tokens=40960, kv_dtype="bf16")
    4697620480
"""
from . import _core
from ._core import (KvplanError, Layer, Model, dtypes, format_bytes, generation, load, models,
                    parse_bytes, parse_tokens, size)
from ._records import Record

_core._set_record_type(Record)
__version__ = _core.__version__

__all__ = ["KvplanError", "Layer", "Model", "Record", "dtypes", "format_bytes", "generation", "load", "models",
           "parse_bytes", "parse_tokens", "size", "to_dataframe"]

from ._planner import (Sweep, compare, fields, gpu, gpus, gpus_needed, gpus_to_hold,  # noqa: E402
                       kv_dtype_ladder, plan, plan_text, sweep, weight_bytes)
from ._engines import check, engine, engine_options, engine_text, llamacpp, ollama, sglang, trtllm, vllm  # noqa: E402
from ._simulate import SimulationResult, simulate  # noqa: E402
from ._search import search  # noqa: E402
__all__ += ["SimulationResult", "simulate", "search"]
__all__ += ["Sweep", "check", "compare", "fields", "engine", "engine_options", "engine_text", "gpu", "gpus", "gpus_needed",
            "gpus_to_hold", "kv_dtype_ladder", "plan", "plan_text", "sweep", "weight_bytes",
            "vllm", "llamacpp", "sglang", "trtllm", "ollama"]


def _model_weight_bytes(self, dtype=None):
    """Bytes of the weights as stored (kvplan.weight_bytes(self, dtype))."""
    return _core._weight_bytes(self, dtype)


Model.weight_bytes = _model_weight_bytes

# The reference runtime is optional (KVPLAN_BUILD_RUNTIME); without it there is no measure().
if hasattr(_core, "measure"):
    from ._runtime import measure
    __all__ += ["measure"]

from .frames import to_dataframe  # noqa: E402
from . import plots  # noqa: E402,F401


def _model_to_dataframe(self, tokens=4096, batch=1, kv_dtype=None):
    """One row per layer with its spec and bytes (kvplan.to_dataframe(self, ...))."""
    return to_dataframe(self, tokens=tokens, batch=batch, kv_dtype=kv_dtype)


Model.to_dataframe = _model_to_dataframe
