# atlas-check: --from 2.13 --to 2.15
"""tensorkit.compat: thin wrappers that keep tensorkit working across torch releases.

Public helpers: chol(), orth(), init_dist(), mps_ok(), selective_ckpt().
Nothing here should be imported by user code directly; go through tensorkit.ops.
"""
import importlib
import sys
from typing import Optional

import numpy as np
import scipy.linalg
import torch as pt
import torch.distributed as tdist
from torch import linalg as la
from torch.distributed import init_process_group as ipg
from torch.utils.checkpoint import CheckpointPolicy

from . import _plugins

# Kept for callers that still pass upper=True (the removed pt.cholesky had that flag).
_legacy_cholesky = getattr(pt, "cholesky", None)  # expect: name 214-remove-cholesky


def cholesky(A, upper: bool = False):
    """tensorkit's own cholesky: lower factor by default, like scipy.linalg.cholesky(lower=True)."""
    L = la.cholesky(A)
    return L.mH if upper else L


def qr(A, mode: str = "reduced"):
    """Same contract as numpy.linalg.qr; delegates to torch.linalg.qr."""
    return la.qr(A, mode=mode)


def chol(A, upper: bool = False):
    return cholesky(A, upper=upper)


def orth(A) -> pt.Tensor:
    Q, R = pt.qr(A)  # expect: name 214-remove-qr
    return Q


def orth_np(A: np.ndarray) -> np.ndarray:
    q, _ = np.linalg.qr(A)
    return q


def chol_np(A: np.ndarray) -> np.ndarray:
    return scipy.linalg.cholesky(A, lower=True)


def qr_result(A) -> pt.return_types.qr:  # expect: name api-diff:torch.return_types.qr
    return qr(A)


def init_dist(backend: Optional[str] = None, init_method: str = "env://", world_size: int = -1, rank: int = -1):
    """backend=None lets torch pick (nccl on CUDA machines)."""
    ipg(backend=backend, init_method=init_method, world_size=world_size, rank=rank)  # expect: call 215-nccl-default; call 215-nccl-device-binding
    return tdist.get_rank(), tdist.get_world_size()


def mps_ok() -> bool:
    return pt.backends.mps.is_available()  # expect: name 215-mps-macos15


def selective_ckpt(save_ops=(pt.ops.aten.mm.default,)):
    def policy(ctx, op, *args, **kwargs):
        return CheckpointPolicy.MUST_SAVE if op in save_ops else CheckpointPolicy.PREFER_RECOMPUTE
    return pt.utils.checkpoint.create_selective_checkpoint_contexts(policy)  # expect: call 215-sac-ordered-effects


def reload_plugins():
    """Reload tensorkit plugins (never torch itself; see _reset_for_tests)."""
    importlib.reload(_plugins)


def _reset_for_tests():
    # pytest fixture helper: forget torch so the next import picks up TORCH_LOGS changes
    sys.modules.pop("torch._logging._internal", None)
    del sys.modules["torch"]  # expect: reload 215-import-once
