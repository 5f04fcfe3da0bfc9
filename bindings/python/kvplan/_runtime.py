"""The reference runtime (present when kvplan was built with it)."""
from . import _core


def measure(model, tokens=64, kv_dtype=None, **kw):
    """Allocate and run the model's real cache in kvplan's reference runtime and return the
    measured bytes beside the formula, layer by layer (``kvplan measure --json``).
    Keyword args: k_dtype, v_dtype, state_dtype, run_tokens (4), scaled (True), threads (1)."""
    m = model if isinstance(model, _core.Model) else _core.load(model)
    return _core.measure(m, tokens=tokens, kv_dtype=kv_dtype, **kw)
