"""pandas DataFrames of kvplan results. pandas is imported inside the functions only."""
from . import _core


def layers_frame(model, tokens=4096, batch=1, kv_dtype=None, **kw):
    """One row per layer: the layer spec (kind, heads, dims, window, ...) and the bytes it holds
    for `batch` sequences of `tokens` tokens (from kvplan.size)."""
    import pandas as pd
    m = model if isinstance(model, _core.Model) else _core.load(model)
    s = _core.size(m, tokens=tokens, batch=batch, kv_dtype=kv_dtype, **kw)
    rows = []
    for layer, sized in zip(m.layers, s["layers"]):
        row = dict(layer.to_dict())
        row.update(sized)
        row["description"] = layer.description
        rows.append(row)
    df = pd.DataFrame(rows)
    first = ["index", "kind", "description", "tokens_held", "bytes", "kv_bytes", "state_bytes"]
    return df[first + [c for c in df.columns if c not in first]].set_index("index")


def records_frame(records):
    """Plans, compare rows, GPU records ...: one row each, nested objects flattened ("per_gpu.kv_bytes")."""
    import pandas as pd
    if isinstance(records, dict):
        records = [records]
    return pd.json_normalize([dict(r) for r in records])


def sweep_frame(sw):
    """A Sweep in long format, the columns of ``kvplan sweep --csv``: context, concurrency,
    cache_bytes, memory_bytes, fits, decode_step_seconds."""
    import numpy as np
    import pandas as pd
    n, m = sw.cache_bytes.shape
    return pd.DataFrame({
        "context": np.repeat(sw.contexts, m),
        "concurrency": np.tile(sw.concurrency, n),
        "cache_bytes": sw.cache_bytes.ravel(),
        "memory_bytes": sw.memory_bytes.ravel(),
        "fits": sw.fits.ravel(),
        "decode_step_seconds": sw.decode_step_seconds.ravel(),
    })


def to_dataframe(obj, **kw):
    """A DataFrame of any kvplan result:

    - a Model (or name): its layers (keyword args go to kvplan.size: tokens, batch, kv_dtype)
    - the dict of kvplan.size(): its layers
    - a plan, a list of plans / compare rows / GPU records: one row each
    - a Sweep: one row per cell
    """
    if isinstance(obj, (_core.Model, str)):
        return layers_frame(obj, **kw)
    if hasattr(obj, "cache_bytes") and hasattr(obj, "contexts"):
        return sweep_frame(obj)
    if isinstance(obj, dict) and "layers" in obj and "total_bytes" in obj:
        import pandas as pd
        return pd.DataFrame(obj["layers"]).set_index("index")
    return records_frame(obj)
