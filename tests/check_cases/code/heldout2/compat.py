# atlas-check: --from 2.13 --to 2.15
"""Compatibility shims so the library runs on the torch versions we support.

Everything version-dependent lives here; the rest of the code imports from `mylib.compat`.
Strings such as "torch.qr" or "ProcessGroupNCCL" in this docstring are documentation only.
"""
import multiprocessing.reduction
import warnings

import torch
import torch.distributed as dist

try:  # torch.linalg exists since 1.8; torch.qr was the fallback
    from torch.linalg import qr as linalg_qr
except ImportError:  # pragma: no cover
    linalg_qr = torch.qr  # expect: name 214-remove-qr guarded

try:
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    HAS_FSDP2 = True
except ImportError:  # pragma: no cover
    MixedPrecisionPolicy = fully_shard = None
    HAS_FSDP2 = False

try:
    from torch.distributed import ProcessGroupNCCL
except ImportError:  # CPU-only builds
    ProcessGroupNCCL = None

try:
    import scipy.linalg as _sla
except ImportError:
    _sla = None

HAS_OLD_CHOLESKY = hasattr(torch, "cholesky")


def mkldnn_conv2d(conv):
    """Wrap a Conv2d for oneDNN inference when the class still exists."""
    try:
        cls = torch.utils.mkldnn.MkldnnConv2d
    except AttributeError:
        warnings.warn("MkldnnConv2d is not available; using to_mkldnn instead")
        return torch.utils.mkldnn.to_mkldnn(conv)
    return cls(conv, torch.float)


def register_event_pickling():
    """Allow CUDA events to cross process boundaries in our worker pool."""
    reducer = getattr(torch.multiprocessing.reductions, "reduce_event", None)
    if reducer is None:
        return False
    multiprocessing.reduction.ForkingPickler.register(
        torch.cuda.Event, torch.multiprocessing.reductions.reduce_event  # expect: name api-diff:torch.multiprocessing.reductions.reduce_event
    )
    return True


def is_nccl_group(pg) -> bool:
    if ProcessGroupNCCL is None:
        return False
    return isinstance(pg, ProcessGroupNCCL)  # expect: isinstance 215-nccl-backend-class


def comm_splits(pg) -> int:
    if hasattr(pg, "comm_split_count"):
        return pg.comm_split_count()  # expect: method 215-nccl-backend-class
    return 0


def lce_options():
    """Options for the fused linear + cross-entropy, across torch versions."""
    try:
        return torch.nn.LinearCrossEntropyOptions(acc_policy="compact")
    except ValueError:  # older torch
        return torch.nn.LinearCrossEntropyOptions(acc_policy="balanced")  # expect: keyword 214-acc-policy-balanced


def fsdp_mixed_precision(param_dtype=torch.bfloat16):
    if not HAS_FSDP2:
        raise RuntimeError("FSDP2 needs a newer torch")
    return MixedPrecisionPolicy(param_dtype=param_dtype)  # expect: call 215-fsdp2-reduce-dtype


def scipy_cholesky(a):
    if _sla is None:
        raise ImportError("scipy is required for the reference path")
    return _sla.cholesky(a, lower=True)


def default_backend() -> str:
    backend = "nccl" if torch.cuda.is_available() else "gloo"
    return backend if dist.is_available() else "none"
