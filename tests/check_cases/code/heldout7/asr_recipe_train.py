# atlas-check: --from 2.3 --to 2.9
"""Conformer-CTC recipe: data collation, the attention block, schedulers and resume.

The schedulers are stepped per batch (warm-up) and per epoch (decay).
"""
import logging
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence
from torch.optim.lr_scheduler import OneCycleLR, ReduceLROnPlateau, StepLR

log = logging.getLogger("asr")


def collate(batch, pad_id=0):
    feats = pad_sequence([b["feats"] for b in batch], batch_first=True)
    labels = pad_sequence([b["labels"] for b in batch], batch_first=True, padding_value=pad_id)
    feat_lens = feats.new_tensor([b["feats"].shape[0] for b in batch])  # expect: method 27-new-tensor-device
    label_lens = torch.tensor([len(b["labels"]) for b in batch], dtype=torch.long)
    return feats, labels, feat_lens, label_lens


class RelPosAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def _explicit(self, q, k, v, mask):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        scores = scores.masked_fill(~mask, float("-inf"))
        return torch.softmax(scores, dim=-1).nan_to_num(0.0) @ v

    def forward(self, x, key_padding_mask):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        mask = ~key_padding_mask[:, None, None, :]
        try:
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # expect: call 25-sdpa-fully-masked-rows guarded
        except RuntimeError:
            # the fused kernels reject some mask layouts on older GPUs
            out = self._explicit(q, k, v, mask)
        return self.out(out.transpose(1, 2).reshape(b, t, d))


def build_schedulers(optimizer, cfg, steps_per_epoch):
    warm = OneCycleLR(optimizer, max_lr=cfg.lr, epochs=cfg.epochs, steps_per_epoch=steps_per_epoch)
    decay = StepLR(optimizer, step_size=cfg.decay_every, gamma=0.5, verbose=True)  # expect: param 27-lrscheduler-verbose-removed
    plateau = ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=2)
    return warm, decay, plateau


def train_epoch(model, loader, optimizer, scheds, device, amp_dtype):
    warm, decay, plateau = scheds
    model.train()
    total = 0.0
    for feats, labels, feat_lens, label_lens in loader:
        feats, labels = feats.to(device), labels.to(device)
        try:
            with torch.autocast("cuda", dtype=amp_dtype):
                logp = model(feats).log_softmax(-1)
        except RuntimeError:
            # bf16 kernels missing on this card: redo the forward in fp16
            with torch.cuda.amp.autocast(dtype=torch.float16):  # expect: name 24-amp-device-specific
                logp = model(feats).log_softmax(-1)
        loss = F.ctc_loss(logp.transpose(0, 1), labels, feat_lens, label_lens, zero_infinity=True)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        warm.step()
        total += loss.item()
    decay.step()
    decay.print_lr(True, 0, decay.get_last_lr()[0])  # expect: method 27-lrscheduler-verbose-removed
    return total / max(1, len(loader))


def resume(model, optimizer, path):
    ckpt = torch.load(path, map_location="cpu")  # expect: call 26-load-weights-only-default
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    log.info("resumed from %s (torch.load, epoch %d)", path, ckpt["epoch"])
    return ckpt["epoch"]


def load_lm(path):
    # a pickled KenLM wrapper object, not a state dict
    return torch.load(path, map_location="cpu", weights_only=False)


def export_encoder(encoder, example):
    ep = torch.export.export(encoder, (example,))  # expect: call 28-export-strict-false
    return ep.module()


def export_encoder_onnx(encoder, example, path):
    torch.onnx.export(encoder, (example,), path, opset_version=17)  # expect: call 29-onnx-dynamo-default


def average_checkpoints(paths):
    avg = None
    for p in paths:
        state = torch.load(p, map_location="cpu")["model"]  # atlas: ignore
        if avg is None:
            avg = {k: v.clone().float() for k, v in state.items()}
        else:
            for k in avg:
                avg[k] += state[k].float()
    return {k: v / len(paths) for k, v in avg.items()}
