# atlas-check: --from 2.9 --to 2.13
"""modeling_utils: loading backbones from torch.hub and preparing them for serving.

Follows the conventions of the transformers code base: version checks go through
is_torch_version(), optional features are probed once at import.
"""
import importlib.metadata
import logging
import operator
import os
from typing import Optional

import torch
import torch.nn as nn
from huggingface_hub import hf_hub_download
from packaging import version

logger = logging.getLogger(__name__)

_OPS = {">": operator.gt, ">=": operator.ge, "==": operator.eq, "<": operator.lt, "<=": operator.le}
_torch_version = version.parse(version.parse(importlib.metadata.version("torch")).base_version)
_HAS_EXPORT_FOR_TRAINING = hasattr(torch.export, "export_for_training")

TRUSTED_REPOS = ("facebookresearch/dinov2", "pytorch/vision")


def is_torch_version(op: str, ref: str) -> bool:
    return _OPS[op](_torch_version, version.parse(ref))


def load_backbone(repo: str, name: str, pretrained: bool = True) -> nn.Module:
    if repo in TRUSTED_REPOS:
        return torch.hub.load(repo, name, pretrained=pretrained, trust_repo=True)
    logger.warning("loading %s from an unvetted repository %s", name, repo)
    return torch.hub.load(repo, name, pretrained=pretrained)  # expect: call 211-hub-trust-repo


def load_dinov2(size: str = "vitb14") -> nn.Module:
    return torch.hub.load("facebookresearch/dinov2", f"dinov2_{size}")  # expect: call 211-hub-trust-repo


def load_yolo() -> nn.Module:
    # the detection demo runs interactively; the prompt is acceptable there
    return torch.hub.load("ultralytics/yolov5", "yolov5s")  # atlas: ignore[211-hub-trust-repo]


def available_entrypoints(repo: str):
    return torch.hub.list(repo)  # atlas: ignore[210-torchscript-deprecated]  # expect: call 211-hub-trust-repo


def describe_entrypoint(repo: str, name: str) -> str:
    return torch.hub.help(repo, name, trust_repo="check")


def entrypoint_doc(repo: str, name: str) -> Optional[str]:
    try:
        return torch.hub.help(repo, name)  # expect: call 211-hub-trust-repo
    except (ValueError, OSError):
        return None


def load_head_weights(url: str, repo_id: Optional[str] = None):
    if repo_id is not None:
        path = hf_hub_download(repo_id=repo_id, filename="head.safetensors")
        from safetensors.torch import load_file

        return load_file(path)
    return torch.hub.load_state_dict_from_url(url, map_location="cpu", weights_only=True)


def script_for_serving(model: nn.Module):
    if is_torch_version(">=", "2.10"):
        return torch.compile(model, mode="reduce-overhead")
    else:
        return torch.jit.script(model)  # expect: call 210-torchscript-deprecated guarded


def trace_for_serving(model: nn.Module, example: torch.Tensor):
    try:
        return torch.jit.trace(model, example, check_trace=False)  # expect: call 210-torchscript-deprecated guarded
    except RuntimeError:
        logger.warning("tracing failed; serving the eager model")
        return model


def script_submodule(module: nn.Module):
    try:
        return torch.jit.script(module)  # expect: call 210-torchscript-deprecated
    except (TypeError, ValueError) as err:
        logger.info("cannot script %s: %s", type(module).__name__, err)
        return module


def trace_or_eager(model: nn.Module, example):
    traced = torch.jit.trace(model, example)  # expect: call 210-torchscript-deprecated
    torch.jit.save(traced, os.path.join("serving", "model.ts"))
    return torch.jit.load(os.path.join("serving", "model.ts"))


def capture_for_finetune(model: nn.Module, args: tuple, kwargs: Optional[dict] = None):
    if _HAS_EXPORT_FOR_TRAINING:
        return torch.export.export_for_training(model, args, kwargs)  # expect: name 211-export-for-training-removed guarded
    else:
        return torch.export.export(model, args, kwargs)


def capture_for_quantization(model: nn.Module, args: tuple):
    from torch.export import export_for_training  # expect: name 211-export-for-training-removed

    return export_for_training(model, args).module()  # reported at its import (one finding per cause)


def export_onnx(model: nn.Module, example: torch.Tensor, path: str):
    # the dynamo default flipped in 2.9, before this window
    torch.onnx.export(model, (example,), path)
    return path


def is_trusted(repo: str) -> bool:
    return repo in TRUSTED_REPOS or repo.startswith("mylab/")
