"""Count the bytes autograd saves for backward in one transformer block.

Method: run the block once with torch.autograd.graph.saved_tensors_hooks; the pack hook records every saved
tensor, filed under the named part active in the block code (blocks.part).  Tensors are deduplicated by their
storage (data_ptr + nbytes of the storage), so views of one buffer count once, at the size of the whole storage
they keep alive.  Parameters, buffers and the per-forward extras (rope cos/sin, causal mask) are pre-seeded as
"seen": they are model state or shared by all layers, not this block's activations.

A second pass walks the grad_fn graph and reads each node's `_saved_*` attributes (and ctx.saved_tensors of
custom Functions) to name the op(s) that saved each storage; both passes must find the same storages.

PyTorch 1.13 vs >= 2: MeanBackward in 1.13 keeps its input (`_saved_self`), PyTorch >= 2 keeps only its sizes.
We report bytes as PyTorch >= 2 would: a storage whose only savers are Mean* nodes is dropped (listed apart).
"""
import torch

from blocks import CURRENT_PART


def storage_key(t):
    st = t.storage()
    return (st.data_ptr(), st.nbytes())


def _saved_of(node):
    """(attr, tensor) pairs saved by one autograd node."""
    out = []
    if hasattr(node, "saved_tensors") and type(node).__name__.endswith("Backward"):
        try:
            for i, t in enumerate(node.saved_tensors):
                if isinstance(t, torch.Tensor):
                    out.append((f"saved_tensors[{i}]", t))
        except RuntimeError:
            pass
    for attr in dir(node):
        if not attr.startswith("_saved_"):
            continue
        try:
            v = getattr(node, attr)
        except RuntimeError:
            continue
        vals = v if isinstance(v, (list, tuple)) else [v]
        for t in vals:
            if isinstance(t, torch.Tensor):
                out.append((attr, t))
    return out


def graph_savers(root):
    """storage key -> list of (node name, attr, shape, dtype)."""
    savers, seen, stack = {}, set(), [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for attr, t in _saved_of(node):
            savers.setdefault(storage_key(t), []).append((type(node).__name__, attr, tuple(t.shape), t.dtype))
        for nxt, _ in node.next_functions:
            stack.append(nxt)
    return savers


def excluded_keys(module, extras):
    keys = {storage_key(p) for p in module.parameters()}
    keys |= {storage_key(bf) for bf in module.buffers()}
    keys |= {storage_key(e) for e in extras.values() if isinstance(e, torch.Tensor)}
    return keys


def measure_block(block, x, extras):
    """-> dict(total=bytes as PyTorch >= 2, parts={name: bytes}, tensors=[...], mean_only=bytes)."""
    skip = excluded_keys(block, extras)
    packed = {}  # storage key -> (part, shape, dtype, storage bytes), first packing wins

    def pack(t):
        k = storage_key(t)
        if k not in skip and k not in packed:
            packed[k] = (CURRENT_PART[0], tuple(t.shape), t.dtype, k[1])
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = block(x, **extras)
    savers = graph_savers(y.grad_fn)
    walked = {k for k in savers if k not in skip}
    if walked != set(packed):
        raise AssertionError(f"pack hook and graph walk disagree: {len(packed)} vs {len(walked)} storages")
    parts, tensors, mean_only = {}, [], 0
    for k, (name, shape, dtype, nbytes) in packed.items():
        ops = sorted({s[0] for s in savers[k]})
        if all(op.startswith("MeanBackward") for op in ops):
            mean_only += nbytes  # PyTorch 1.13 only: MeanBackward keeps its input; >= 2 keeps sizes
            continue
        if len(shape) == 0:
            name = "scalar constants (0-d)"  # Python scalars wrapped as 0-d tensors by mul/div: a few bytes
        parts[name] = parts.get(name, 0) + nbytes
        tensors.append({"part": name, "ops": ops, "shape": shape, "dtype": str(dtype).replace("torch.", ""),
                        "bytes": nbytes})
    return {"total": sum(parts.values()), "parts": parts, "tensors": tensors, "mean_only": mean_only, "out": y}


def measure_checkpointed(block, x, extras, reentrant):
    """Bytes the block keeps alive between forward and backward under torch.utils.checkpoint.

    Saved-tensor hooks cannot see this (non-reentrant checkpoint installs its own hooks, and reading `_saved_*`
    would trigger the recomputation), so this counts live CPU allocations with the memory profiler: the block
    input is made inside the profiled region (a non-leaf, as the previous layer's output is), then everything
    still allocated after the forward except the output is what the checkpoint keeps.
    -> dict(kept=bytes, rng=bytes of the stashed RNG state, input=bytes of the block input)."""
    from torch.utils.checkpoint import checkpoint
    names = list(extras)
    fn = lambda inp, *ex: block(inp, **dict(zip(names, ex)))
    rng = torch.get_rng_state()

    def fwd():
        xi = x * 1.0  # fresh non-leaf input: only the checkpoint can keep it alive
        return checkpoint(fn, xi, *[extras[n] for n in names], use_reentrant=reentrant)
    y, live = live_bytes_delta(fwd)
    rng_bytes = rng.numel() * rng.element_size()  # preserve_rng_state stashes a copy of the CPU RNG state
    return {"kept": live - y.numel() * y.element_size(), "rng": rng_bytes, "input": x.numel() * x.element_size()}


def live_bytes_delta(fn, repeats=3):
    """Run fn() under the CPU memory profiler; -> (result, net bytes allocated and still alive after fn).
    The profiler now and then misses a free (seen as +4 to +20 KB spread over runs, never a shortfall), so this
    keeps the smallest of `repeats` runs."""
    best = None
    for _ in range(repeats):
        result, live = _live_once(fn)
        best = live if best is None else min(best, live)
    return result, best


def _live_once(fn):
    import gc
    from torch.profiler import ProfilerActivity, profile
    gc.collect()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        result = fn()
        gc.collect()  # free temporaries caught in reference cycles before counting
    return result, sum(e.self_cpu_memory_usage for e in prof.events())


def checkpoint_saved_reentrant(block, x, extras):
    """Deterministic count for run.py: with use_reentrant=True, CheckpointFunction keeps its inputs through
    ctx.save_for_backward (seen by the pack hook) and nothing else; shared extras and parameters excluded."""
    from torch.utils.checkpoint import checkpoint
    skip = excluded_keys(block, extras)
    packed = {}

    def pack(t):
        k = storage_key(t)
        if k not in skip:
            packed[k] = k[1]
        return t
    names = list(extras)
    fn = lambda inp, *ex: block(inp, **dict(zip(names, ex)))
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        checkpoint(fn, x, *[extras[n] for n in names], use_reentrant=True)
    return sum(packed.values())
