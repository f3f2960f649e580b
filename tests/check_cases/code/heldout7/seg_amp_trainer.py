# atlas-check: --from 2.1 --to 2.6
"""Mixed-precision trainer for the segmentation baseline.

On CUDA the step runs under torch.cuda.amp.autocast and a GradScaler; resuming reads the
last checkpoint with torch.load. Nothing in this docstring is code.
"""
import logging
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from packaging import version
from torch.distributed import fsdp
from torch.utils.checkpoint import checkpoint

logger = logging.getLogger(__name__)

_NEW_AMP_API = version.parse(torch.__version__) >= version.parse("2.3")


class ScaledSiLU(torch.autograd.Function):
    """SiLU with a learned scale, kept in fp32 under autocast."""

    @staticmethod
    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)  # expect: name 24-amp-device-specific
    def forward(ctx, x, scale):
        ctx.save_for_backward(x, scale)
        return F.silu(x) * scale

    @staticmethod
    @torch.cuda.amp.custom_bwd  # expect: name 24-amp-device-specific
    def backward(ctx, grad_out):
        x, scale = ctx.saved_tensors
        sig = torch.sigmoid(x)
        dx = grad_out * scale * (sig * (1 + x * (1 - sig)))
        return dx, (grad_out * F.silu(x)).sum()


class AttentionBlock(nn.Module):
    def __init__(self, dim, heads, dropout=0.0):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.dropout = dropout

    def forward(self, x, pad_mask=None):
        b, n, c = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        p = self.dropout if self.training else 0.0
        if pad_mask is None:
            out = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=False)
        else:
            mask = pad_mask[:, None, None, :]
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)  # expect: call 25-sdpa-fully-masked-rows
        return self.proj(out.transpose(1, 2).reshape(b, n, c))


class Trainer:
    def __init__(self, model, optimizer, cfg):
        self.cfg = cfg
        self.device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))
        model = model.to(self.device)
        if cfg.fsdp:
            model = fsdp.FullyShardedDataParallel(model, use_orig_params=True)  # expect: name 26-fsdp1-deprecated
        self.model = model
        self.optimizer = optimizer
        self.amp_dtype = torch.bfloat16 if cfg.bf16 else torch.float16
        if _NEW_AMP_API:
            self.scaler = torch.amp.GradScaler("cuda", enabled=not cfg.bf16)
        else:
            self.scaler = torch.cuda.amp.GradScaler(enabled=not cfg.bf16)  # expect: name 24-amp-device-specific guarded

    def _forward_blocks(self, x):
        for i, block in enumerate(self.model.blocks):
            if self.cfg.grad_ckpt and i % 2 == 0:
                x = checkpoint(block, x)  # expect: call 21-checkpoint-use-reentrant
            elif self.cfg.grad_ckpt:
                x = checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        return x

    def train_step(self, images, targets):
        self.optimizer.zero_grad(set_to_none=True)
        with torch.cuda.amp.autocast(dtype=self.amp_dtype):  # expect: name 24-amp-device-specific
            feats = self._forward_blocks(self.model.stem(images))
            logits = self.model.head(feats)
            loss = F.cross_entropy(logits, targets, ignore_index=255)
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.max_norm)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        # logits are clamped for the logged confidence only; 2.14 is outside this window
        conf = logits.detach().softmax(1).clamp(min=1e-6).max(1).values.mean()
        return loss.item(), conf.item()

    def eval_step(self, images):
        with torch.autocast(device_type="cuda", dtype=self.amp_dtype):
            return self.model(images)

    def resume(self, path):
        if not os.path.exists(path):
            logger.info("no checkpoint at %s, calling torch.load is skipped", path)
            return 0
        state = torch.load(path, map_location="cpu")  # expect: call 26-load-weights-only-default
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optim"])
        return state["epoch"]

    def load_pretrained(self, path):
        weights = torch.load(path, map_location="cpu", weights_only=True)
        missing, unexpected = self.model.load_state_dict(weights, strict=False)
        logger.info("missing=%d unexpected=%d", len(missing), len(unexpected))

    def load_teacher(self, path):
        # our own pickled teacher, written by tools/distill.py
        return torch.load(path, map_location=self.device)  # atlas: ignore[26-load-weights-only-default]


def cosine_lr(step, total, base_lr, warmup=500):
    if step < warmup:
        return base_lr * step / warmup
    return 0.5 * base_lr * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))
