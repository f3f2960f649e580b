# atlas-check: --from 2.6 --to 2.10
"""_torch_utils: small helpers the recommender trainer and its export job share.

Pinned range in setup.cfg: torch>=2.6,<2.11.
"""
import logging
import warnings
from typing import Iterable, List, Sequence

import torch
import torch.ao.quantization as tq  # expect: name 28-ao-quantization-deprecated
import torch.nn as nn
from packaging import version

log = logging.getLogger(__name__)

TORCH_VERSION = version.parse(torch.__version__)
NEW_TENSOR_FOLLOWS_DEVICE = TORCH_VERSION >= version.parse("2.7")


def as_like(ref: torch.Tensor, data: Sequence[float]) -> torch.Tensor:
    """A tensor holding `data` with the dtype and device of `ref`."""
    if NEW_TENSOR_FOLLOWS_DEVICE:
        return ref.new_tensor(data)  # expect: method 27-new-tensor-device guarded
    else:
        return ref.new_tensor(data).to(ref.device)  # expect: method 27-new-tensor-device guarded


def host_copy(ref: torch.Tensor, data) -> torch.Tensor:
    # callers rely on getting a CPU tensor back
    return ref.new_tensor(data)  # expect: method 27-new-tensor-device


def host_copy_explicit(ref: torch.Tensor, data) -> torch.Tensor:
    return torch.tensor(data, dtype=ref.dtype, device="cpu")


def log_lrs(scheduler, epoch: int) -> List[float]:
    lrs = scheduler.get_last_lr()
    if hasattr(scheduler, "print_lr"):
        scheduler.print_lr(True, 0, lrs[0], epoch)  # expect: method 27-lrscheduler-verbose-removed guarded
    else:
        log.info("epoch %d lr %s", epoch, lrs)
    return lrs


def make_scheduler(optimizer, total_steps: int):
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01, total_iters=total_steps // 20)
    decay = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=total_steps)
    return torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, decay], milestones=[total_steps // 20])


def script_feature_fn(fn):
    if TORCH_VERSION < version.parse("2.10"):
        return torch.jit.script(fn)  # expect: call 210-torchscript-deprecated guarded
    return torch.compile(fn, dynamic=True)


def trace_ranker(model: nn.Module, example: torch.Tensor):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return torch.jit.trace(model, example)  # expect: call 210-torchscript-deprecated


def trace_or_none(model: nn.Module, example):
    try:
        return torch.jit.trace(model, (example,), strict=False)  # expect: call 210-torchscript-deprecated
    except Exception:
        log.exception("tracing failed")
        return None


def load_ranker(path: str) -> nn.Module:
    model = torch.jit.load(path, map_location="cpu")
    return torch.jit.freeze(model.eval())


def load_state(path: str) -> dict:
    # weights_only became the default in 2.6, the oldest release in this range
    return torch.load(path, map_location="cpu")


def capture(model: nn.Module, example: torch.Tensor, dynamic_batch: bool = False):
    if dynamic_batch:
        ds = {"x": {0: torch.export.Dim("batch", max=4096)}}
        return torch.export.export(model, (example,), dynamic_shapes=ds)  # expect: call 28-export-strict-false
    return torch.export.export(model, (example,), strict=False)


def capture_training(model: nn.Module, example: torch.Tensor):
    return torch.export.export_for_training(model, (example,))  # expect: call 28-export-strict-false


def to_onnx(model: nn.Module, example: torch.Tensor, path: str):
    torch.onnx.export(model, (example,), path, input_names=["x"], dynamic_axes={"x": {0: "batch"}})  # expect: call 29-onnx-dynamo-default


def to_onnx_new(model: nn.Module, example: torch.Tensor, path: str):
    torch.onnx.export(model, (example,), path, dynamo=True, dynamic_shapes=({0: "batch"},))


def static_int8(model: nn.Module, calib: Iterable[torch.Tensor]) -> nn.Module:
    model.eval()
    model.qconfig = tq.get_default_qconfig("x86")  # reported at its import (one finding per cause)
    prepared = tq.prepare(model)  # reported at its import (one finding per cause)
    for batch in calib:
        prepared(batch)
    return tq.convert(prepared)  # reported at its import (one finding per cause)


def int8_dynamic(model: nn.Module) -> nn.Module:
    from torchao.quantization import Int8DynamicActivationInt8WeightConfig, quantize_

    quantize_(model, Int8DynamicActivationInt8WeightConfig())
    return model
