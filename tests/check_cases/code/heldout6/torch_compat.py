# atlas-check: --from 2.3 --to 2.6
"""utils/compat.py: one place for the torch-version differences the codebase cares about.

Supported: torch 2.3 to 2.6. Everything version-dependent is decided once, at import,
and the rest of the package imports from here.
"""
from __future__ import annotations

import io
import json
import logging
import pickle
from typing import Any, Optional

import numpy as np
import torch
import torch.nn.functional as F
from packaging import version

log = logging.getLogger(__name__)

_TORCH_VERSION_MM = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
TORCH_GE_2_4 = _TORCH_VERSION_MM >= (2, 4)
TORCH_GE_2_6 = version.parse(torch.__version__).release >= (2, 6)

try:  # public since 2.5
    from torch.distributed.tensor import DTensor, Replicate, Shard
except ImportError:
    from torch.distributed._tensor import DTensor, Replicate, Shard  # expect: name 25-dtensor-public guarded

__all__ = ["DTensor", "Replicate", "Shard", "amp_autocast", "load_checkpoint", "attention"]


def amp_autocast(dtype=torch.bfloat16, enabled=True):
    if TORCH_GE_2_4:
        return torch.amp.autocast("cuda", dtype=dtype, enabled=enabled)
    else:
        return torch.cuda.amp.autocast(dtype=dtype, enabled=enabled)  # expect: name 24-amp-device-specific guarded


def make_scaler(enabled: bool):
    # torch.amp.GradScaler exists from 2.3, our oldest release, so no branch is needed
    return torch.amp.GradScaler("cuda", enabled=enabled)


def old_style_scaler(enabled: bool):
    return torch.cuda.amp.GradScaler(enabled=enabled)  # expect: name 24-amp-device-specific


def load_checkpoint(path: str, map_location: str = "cpu") -> dict:
    """Load a training checkpoint written by this package (tensors and plain containers)."""
    if TORCH_GE_2_6:
        return torch.load(path, map_location=map_location, weights_only=True)
    else:
        return torch.load(path, map_location=map_location)  # expect: call 26-load-weights-only-default guarded


def load_any(path: str) -> Any:
    """Checkpoints from the old trainer pickle their config dataclass as well."""
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        log.warning("%s is not weights-only; loading it as a full pickle", path)
        return torch.load(path, map_location="cpu")  # expect: call 26-load-weights-only-default


def load_or_none(path: str) -> Optional[dict]:
    try:
        return torch.load(path, map_location="cpu")  # expect: call 26-load-weights-only-default guarded
    except RuntimeError as err:  # truncated file from a preempted job
        log.error("cannot read %s: %s", path, err)
        return None


def load_trusted(path: str):
    return torch.load(path, map_location="cpu", weights_only=False)


def load_side_files(prefix: str):
    stats = np.load(prefix + ".npz")
    with open(prefix + ".json") as fh:
        meta = json.load(fh)
    scripted = torch.jit.load(prefix + ".ts")
    return stats, meta, scripted


def load_from_bytes(blob: bytes):
    return torch.load(io.BytesIO(blob))  # atlas: ignore[26-load-weights-only-default]


def attention(q, k, v, mask=None, dropout_p: float = 0.0, causal: bool = False):
    if causal:
        return F.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p, is_causal=True)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p)  # expect: call 25-sdpa-fully-masked-rows


def attention_positional(q, k, v, mask):
    # third-party kernels call it this way
    return F.scaled_dot_product_attention(q, k, v, mask)  # expect: call 25-sdpa-fully-masked-rows


def attention_or_math(q, k, v, mask):
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # expect: call 25-sdpa-fully-masked-rows guarded
    else:
        scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
        scores = scores.masked_fill(~mask, float("-inf"))
        return scores.softmax(-1) @ v


def replicate_legacy(tensor, mesh):
    # written for 2.3 and never revisited; the default placement is Replicate()
    from torch.distributed._tensor import distribute_tensor  # expect: name 25-dtensor-public

    return distribute_tensor(tensor, mesh)  # reported at its import (one finding per cause)


def replicate(tensor, mesh):
    # only reached on 2.5 and newer (the caller checks), where the public module has it
    from torch.distributed.tensor import distribute_tensor as public_distribute

    return public_distribute(tensor, mesh)


def checkpointed(block, x):
    # use_reentrant was made explicit long before this window; nothing to report here
    return torch.utils.checkpoint.checkpoint(block, x)  # expect: call 21-checkpoint-use-reentrant


def describe() -> str:
    return json.dumps({"torch": torch.__version__, "ge_2_4": TORCH_GE_2_4, "ge_2_6": TORCH_GE_2_6,
                       "dtensor_module": "torch.distributed._tensor" if not TORCH_GE_2_6 else "torch.distributed.tensor"})
