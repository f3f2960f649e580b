# atlas-check: --from 2.5 --to 2.12
"""Trainer utilities for the fine-tuning scripts (a thin layer over transformers/accelerate).

Supported range: torch 2.5 and newer. Anything older than 2.5 has been removed from here.
"""
import logging
import os

import torch
import torch.ao.quantization as tq  # expect: name 28-ao-quantization-deprecated
import torch.distributed as dist
import torch.nn.functional as F
from accelerate.utils import is_torch_version
from torch.distributed import fsdp

logger = logging.getLogger(__name__)

TORCH_GE_2_6 = is_torch_version(">=", "2.6")
SAFE_GLOBALS = [set, frozenset]


def setup(backend="nccl"):
    if not dist.is_initialized() and int(os.environ.get("WORLD_SIZE", 1)) > 1:
        dist.init_process_group(backend)
        dist.barrier(group=dist.new_group())


def make_scaler(fp16):
    # torch.cuda.amp.GradScaler is deprecated since 2.4, which this module no longer supports
    return torch.cuda.amp.GradScaler(enabled=fp16)  # expect: name 24-amp-device-specific


def masked_attention(q, k, v, attention_mask):
    mask = attention_mask[:, None, None, :].bool()
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def pad_positions(input_ids, lengths):
    return input_ids.new_tensor([list(range(n)) + [0] * (input_ids.shape[1] - n) for n in lengths])  # expect: method 27-new-tensor-device


def load_resume_state(path):
    if TORCH_GE_2_6:
        with torch.serialization.safe_globals(SAFE_GLOBALS):
            return torch.load(path, map_location="cpu")  # no finding since issue 42: loaded under safe_globals
    else:
        return torch.load(path, map_location="cpu", weights_only=False)


def load_adapter(path, device="cpu"):
    logger.info("loading adapter weights with torch.load(%s)", path)
    return torch.load(os.path.join(path, "adapter_model.bin"), map_location=device)  # expect: call 26-load-weights-only-default


def is_fsdp_wrapped(model):
    return isinstance(model, fsdp.FullyShardedDataParallel)  # expect: name 26-fsdp1-deprecated


def prepare_qat(model):
    model.qconfig = tq.get_default_qat_qconfig("x86")  # reported at its import (one finding per cause)
    return tq.prepare_qat(model.train(), inplace=False)  # reported at its import (one finding per cause)


def export_for_finetune(model, args, kwargs=None):
    try:
        return torch.export.export_for_training(model, args, kwargs=kwargs, strict=False)  # expect: name 211-export-for-training-removed guarded
    except (AttributeError, TypeError):
        return torch.export.export(model, args, kwargs=kwargs, strict=False)


def export_for_inference(model, args):
    return torch.export.export(model, args)  # expect: call 28-export-strict-false


def export_onnx(model, dummy, path):
    torch.onnx.export(model, (dummy,), f=path, input_names=["input_ids"], output_names=["logits"])  # expect: call 29-onnx-dynamo-default


def trace_for_mobile(model, example):
    return torch.jit.trace(model, example_inputs=example, strict=False)  # expect: call 210-torchscript-deprecated


def load_vad():
    model, utils = torch.hub.load("snakers4/silero-vad", "silero_vad", force_reload=False)  # expect: call 211-hub-trust-repo
    return model, utils


def clipped_logprobs(logits, labels, min_logprob=-20.0):
    logp = logits.log_softmax(-1).gather(-1, labels[..., None]).squeeze(-1)
    return logp.clamp(min=min_logprob)
