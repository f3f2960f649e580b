# atlas-check: --from 2.0 --to 2.15
"""One place for everything that differs between the torch releases we support.

The rest of the code base imports autocast, GradScaler, DTensor, load_checkpoint, ... from
here. When the oldest supported release moves up, delete the branches it no longer needs.
"""
import functools
import operator
import sys

import torch
import torch.nn.functional as F
import torch.utils.checkpoint
from packaging.version import Version
from torch.distributed import fsdp as _fsdp

TORCH_VERSION = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
_TORCH_GE_2_4 = Version(torch.__version__) >= Version("2.4")
_HAS_MPS = hasattr(torch.backends, "mps")
_PY313 = sys.version_info >= (3, 13)

_OPS = {">=": operator.ge, ">": operator.gt, "<": operator.lt, "<=": operator.le, "==": operator.eq}


def is_torch_version(op, ver):
    return _OPS[op](Version(torch.__version__.split("+")[0]), Version(ver))


# ---------------------------------------------------------------- mixed precision
if _TORCH_GE_2_4:
    autocast = functools.partial(torch.amp.autocast, "cuda")
    custom_fwd = functools.partial(torch.amp.custom_fwd, device_type="cuda")
    custom_bwd = functools.partial(torch.amp.custom_bwd, device_type="cuda")
else:
    autocast = torch.cuda.amp.autocast  # expect: name 24-amp-device-specific guarded
    custom_fwd = torch.cuda.amp.custom_fwd  # expect: name 24-amp-device-specific guarded
    custom_bwd = torch.cuda.amp.custom_bwd  # expect: name 24-amp-device-specific guarded

try:
    GradScaler = functools.partial(torch.amp.GradScaler, "cuda")
except AttributeError:  # torch.amp.GradScaler arrived in 2.3
    GradScaler = torch.cuda.amp.GradScaler  # expect: name 24-amp-device-specific guarded


def scaler_of(trainer):
    if hasattr(trainer, "scaler"):
        return trainer.scaler
    else:
        return torch.cuda.amp.GradScaler()  # expect: name 24-amp-device-specific


# ---------------------------------------------------------------- DTensor
if TORCH_VERSION >= (2, 5):
    from torch.distributed.tensor import DTensor, Replicate, Shard
elif TORCH_VERSION >= (2, 2):
    from torch.distributed._tensor import DTensor, Replicate, Shard  # expect: name 25-dtensor-public guarded
else:
    DTensor = Replicate = Shard = None


# ---------------------------------------------------------------- checkpoints
def load_checkpoint(path, map_location="cpu", trusted=False):
    if is_torch_version(">=", "2.4"):
        return torch.load(path, map_location=map_location, weights_only=not trusted)
    else:
        return torch.load(path, map_location=map_location)  # expect: call 26-load-weights-only-default guarded


def checkpoint_block(block, *args, save_policy=None):
    if getattr(torch.utils.checkpoint, "create_selective_checkpoint_contexts", None) is not None and save_policy:
        return torch.utils.checkpoint.checkpoint(
            block,
            *args,
            use_reentrant=False,
            context_fn=lambda: torch.utils.checkpoint.create_selective_checkpoint_contexts(save_policy),  # expect: call 215-sac-ordered-effects guarded
        )
    else:
        return torch.utils.checkpoint.checkpoint(block, *args)  # expect: call 21-checkpoint-use-reentrant guarded


# ---------------------------------------------------------------- attention
def sdpa(q, k, v, mask=None, dropout_p=0.0):
    if hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p)  # expect: call 25-sdpa-fully-masked-rows guarded
    scores = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return F.dropout(scores.softmax(-1), p=dropout_p) @ v


# ---------------------------------------------------------------- tensors
def as_index_tensor(ref, values):
    if torch.__version__ < "2.7":
        # before 2.7 new_tensor put its result on the CPU whatever ref was
        return ref.new_tensor(values, device=ref.device)  # expect: method 27-new-tensor-device guarded
    else:
        return ref.new_tensor(values)  # expect: method 27-new-tensor-device guarded


# ---------------------------------------------------------------- wrapping and export
def wrap_sharded(model, fsdp_version=1, **kwargs):
    if fsdp_version == 1:
        return _fsdp.FullyShardedDataParallel(model, **kwargs)  # expect: name 26-fsdp1-deprecated
    else:
        from torch.distributed.fsdp import fully_shard

        fully_shard(model, **kwargs)
        return model


def quantize_linear_layers(model):
    try:
        from torch.ao.quantization import quantize_dynamic  # expect: name 28-ao-quantization-deprecated guarded
    except ImportError:  # torch < 1.10
        from torch.quantization import quantize_dynamic
    return quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)


def export_program(model, args):
    if hasattr(torch, "export") and hasattr(torch.export, "export_for_training"):
        return torch.export.export_for_training(model, args)  # expect: call 28-export-strict-false guarded; name 211-export-for-training-removed guarded
    else:
        return torch.export.export(model, args)  # expect: call 28-export-strict-false guarded


def maybe_compile(model, enabled=True):
    if not enabled:
        return model
    if _PY313:
        # dynamo lags behind new Pythons; TorchScript still runs there
        return torch.jit.script(model)  # expect: call 210-torchscript-deprecated
    return torch.compile(model)


# ---------------------------------------------------------------- devices
def default_device():
    if torch.cuda.is_available():
        return torch.device("cuda")
    if _HAS_MPS and torch.backends.mps.is_available():  # expect: name 215-mps-macos15 guarded
        return torch.device("mps")
    return torch.device("cpu")


def pick_device(prefer_mps=False):
    if prefer_mps and torch.backends.mps.is_available():  # expect: name 215-mps-macos15
        return torch.device("mps")
    return default_device()


__all__ = [
    "TORCH_VERSION",
    "autocast",
    "custom_fwd",
    "custom_bwd",
    "GradScaler",
    "DTensor",
    "Replicate",
    "Shard",
    "load_checkpoint",
    "checkpoint_block",
    "sdpa",
    "as_index_tensor",
    "wrap_sharded",
    "quantize_linear_layers",
    "export_program",
    "maybe_compile",
    "default_device",
    "pick_device",
]
