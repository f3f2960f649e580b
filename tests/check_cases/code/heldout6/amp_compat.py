# atlas-check: --from 2.0 --to 2.4
"""Mixed precision and activation checkpointing shared by the trainers in this repo.

The cluster images still ship torch 2.0 and 2.1, so everything here has to import there
too. New code should take its scaler and autocast context from here instead of reaching
for torch.cuda.amp.autocast or torch.cuda.amp.GradScaler directly.
"""
import logging
from typing import Callable, Sequence

import torch
import torch.nn as nn
from packaging import version
from torch.utils.checkpoint import checkpoint

try:
    import deepspeed
except ImportError:  # deepspeed is optional on the eval boxes
    deepspeed = None

log = logging.getLogger(__name__)

TORCH_VERSION = version.parse(torch.__version__.split("+")[0])
TORCH_GE_2_3 = TORCH_VERSION >= version.parse("2.3")

__all__ = ["autocast_ctx", "make_grad_scaler", "checkpointed", "CheckpointedBlock", "ScaledMatmul"]


def make_grad_scaler(enabled: bool = True, init_scale: float = 2.0**16):
    """A GradScaler for CUDA; torch.amp.GradScaler only exists from 2.3 on."""
    if TORCH_GE_2_3:
        return torch.amp.GradScaler("cuda", init_scale=init_scale, enabled=enabled)
    else:
        return torch.cuda.amp.GradScaler(init_scale=init_scale, enabled=enabled)  # expect: name 24-amp-device-specific guarded


def legacy_scaler_for_apex_runs():
    # Only used by the apex comparison job, which pins torch 2.0; see docs/apex.md.
    return torch.cuda.amp.GradScaler(growth_interval=500)  # atlas: ignore


def autocast_ctx(device_type: str, dtype: torch.dtype = torch.bfloat16, enabled: bool = True):
    """An autocast context for "cuda" or "cpu"."""
    try:
        return torch.autocast(device_type, dtype=dtype, enabled=enabled)
    except AttributeError:  # torch builds without the device-neutral entry point
        if device_type == "cpu":
            return torch.cpu.amp.autocast(dtype=dtype, enabled=enabled)  # expect: name 24-amp-device-specific guarded
        return torch.cuda.amp.autocast(dtype=dtype, enabled=enabled)  # expect: name 24-amp-device-specific guarded


def eval_autocast():
    # The evaluation harness still builds its context the old way.
    return torch.cuda.amp.autocast(dtype=torch.float16)  # expect: name 24-amp-device-specific


def cpu_eval_autocast():
    return torch.cpu.amp.autocast()  # atlas: ignore[24-amp-device-specific]


class ScaledMatmul(torch.autograd.Function):
    """Matmul that always runs in fp32 under autocast: the fused kernel is fp32-only."""

    @staticmethod
    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)  # expect: name 24-amp-device-specific
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    @torch.cuda.amp.custom_bwd  # expect: name 24-amp-device-specific
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad @ b.t(), a.t() @ grad


def checkpointed(fn: Callable, *args, reentrant: bool = False):
    """Run fn under activation checkpointing when gradients are being recorded."""
    if not torch.is_grad_enabled():
        return fn(*args)
    return checkpoint(fn, *args, use_reentrant=reentrant)


class CheckpointedBlock(nn.Module):
    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        if self.training:
            return checkpoint(self.inner, x)  # expect: call 21-checkpoint-use-reentrant
        return self.inner(x)


def checkpoint_stack(layers: Sequence[nn.Module], x):
    for i, layer in enumerate(layers):
        if deepspeed is not None and i % 2:
            # deepspeed's own checkpoint has no use_reentrant and is not torch's
            x = deepspeed.checkpointing.checkpoint(layer, x)
        else:
            x = torch.utils.checkpoint.checkpoint(layer, x, use_reentrant=True)
    return x


def safe_checkpoint(block: nn.Module, x):
    try:
        return torch.utils.checkpoint.checkpoint(block, x)  # expect: call 21-checkpoint-use-reentrant
    except ValueError:
        log.warning("checkpoint rejected the inputs of %s; running it plainly", type(block).__name__)
        return block(x)


def head_forward(head: nn.Module, x):
    return checkpoint(head, x)  # atlas: ignore[24-amp-device-specific]  # expect: call 21-checkpoint-use-reentrant


def load_warm_start(path: str, model: nn.Module):
    # torch.load has no rule in this window: the weights_only default flips later.
    state = torch.load(path, map_location="cpu")
    missing, unexpected = model.load_state_dict(state, strict=False)
    if missing or unexpected:
        log.info("warm start: %d missing, %d unexpected keys", len(missing), len(unexpected))
    log.info("loaded %s (the old torch.cuda.amp.GradScaler state is ignored)", path)
    return model


def describe_amp() -> str:
    names = ["torch.amp.autocast", "torch.cuda.amp.autocast"]
    return f"torch {TORCH_VERSION}: amp entry points {names}"
