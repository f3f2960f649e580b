# atlas-check: --from 2.1 --to 2.15
"""Version compatibility helpers for torchkit.

torchkit supports torch 2.1 and newer. Version-specific code lives in this module so
that the rest of the package can stay version-agnostic. Nothing here imports optional
dependencies at module level.
"""
from __future__ import annotations

import os
import warnings
from typing import Callable, Optional, Sequence

import torch
import torch.distributed as dist
from torch.autograd.gradcheck import gradcheck
from torch.utils.cpp_extension import include_paths

TORCH_VERSION = tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2])

__all__ = [
    "TORCH_VERSION",
    "qr",
    "psd_cholesky",
    "orthonormal_basis",
    "coalesced_all_reduce",
    "is_nccl_group",
    "use_rewritten_nccl",
    "extension_include_dirs",
    "check_grad",
]


def qr(matrix: torch.Tensor):
    """Reduced QR with the semantics torch.qr(some=True) had, on every supported release."""
    return torch.linalg.qr(matrix, mode="reduced")


def psd_cholesky(a: torch.Tensor, jitter: float = 1e-6) -> torch.Tensor:
    """Lower Cholesky factor of a (possibly only barely) positive-definite matrix."""
    eye = torch.eye(a.shape[-1], dtype=a.dtype, device=a.device)
    return torch.cholesky(a + jitter * eye)  # expect: name 214-remove-cholesky


def orthonormal_basis(vectors: torch.Tensor) -> torch.Tensor:
    q, _ = qr(vectors)
    return q


def coalesced_all_reduce(tensors: Sequence[torch.Tensor], group: Optional[dist.ProcessGroup] = None) -> None:
    """All-reduce a list of tensors, one per local GPU, as a single collective."""
    if len(tensors) == 1:
        dist.all_reduce(tensors[0], group=group)
        return
    dist.all_reduce_multigpu(list(tensors), group=group)  # expect: name api-diff:torch.distributed.all_reduce_multigpu


def is_nccl_group(group: Optional[dist.ProcessGroup] = None) -> bool:
    """True when ``group`` (default: the world group) runs on NCCL."""
    if dist.get_backend(group) != "nccl":
        return False
    pg = group if group is not None else dist.group.WORLD
    backend = pg._get_backend(torch.device("cuda"))
    return isinstance(backend, dist.ProcessGroupNCCL)  # expect: isinstance 215-nccl-backend-class


def use_rewritten_nccl(enable: bool = True) -> None:
    """Choose the NCCL implementation. Call on every rank before init_process_group."""
    if TORCH_VERSION < (2, 14):
        warnings.warn("the rewritten NCCL backend needs torch 2.14 or newer", stacklevel=2)
        return
    os.environ["TORCH_DIST_USE_NCCL2"] = "1" if enable else "0"  # expect: env 215-nccl-default


def extension_include_dirs(with_cuda: bool) -> list:
    """Include directories for building torchkit's C++/CUDA extension."""
    return include_paths(cuda=with_cuda)  # expect: param api-diff:torch.utils.cpp_extension.include_paths


def check_grad(fn: Callable, inputs, sparse: bool = False) -> bool:
    """gradcheck with torchkit's tolerances; ``sparse`` also checks sparse inputs."""
    return gradcheck(fn, inputs, eps=1e-6, atol=1e-4, check_sparse_nnz=sparse)  # expect: param api-diff:torch.autograd.gradcheck.gradcheck


def maybe_compile(fn: Callable, **kwargs) -> Callable:
    """torch.compile when it works on this interpreter, the plain function otherwise."""
    try:
        return torch.compile(fn, **kwargs)
    except RuntimeError as exc:  # e.g. "torch.compile is not supported on Python 3.15+"
        warnings.warn(f"running {getattr(fn, '__name__', fn)} eagerly: {exc}", stacklevel=2)
        return fn
