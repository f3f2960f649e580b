# atlas-check: --from 2.13 --to 2.14
"""Losses and box utilities of the detector head.

Numbers are clamped in many places (box widths, IoU, log-space targets); the ones inside the
loss matter for the gradient, the post-processing ones do not.
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import LinearCrossEntropyLoss, LinearCrossEntropyOptions

BBOX_XFORM_CLIP = math.log(1000.0 / 16)


def clamp(value, lo, hi):
    """Plain-Python clamp for config values (not tensors)."""
    return max(lo, min(value, hi))


def box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def giou_loss(pred, target, eps=1e-7):
    lt = torch.max(pred[:, :2], target[:, :2])
    rb = torch.min(pred[:, 2:], target[:, 2:])
    wh = (rb - lt).clamp(min=0)  # expect: method 214-clamp-grad
    inter = wh[:, 0] * wh[:, 1]
    union = box_area(pred) + box_area(target) - inter
    iou = inter / union.clamp(min=eps)  # expect: method 214-clamp-grad
    enc_lt = torch.min(pred[:, :2], target[:, :2])
    enc_rb = torch.max(pred[:, 2:], target[:, 2:])
    enc_wh = torch.clamp(enc_rb - enc_lt, min=0)  # expect: call 214-clamp-grad
    enclosure = enc_wh[:, 0] * enc_wh[:, 1]
    return (1 - iou + (enclosure - union) / enclosure.clamp(min=eps)).mean()  # expect: method 214-clamp-grad


def decode_deltas(deltas, anchors):
    dw = deltas[:, 2].clamp_(max=BBOX_XFORM_CLIP)  # expect: method 214-clamp-grad
    dh = deltas[:, 3].clip_(max=BBOX_XFORM_CLIP)  # expect: method 214-clamp-grad
    widths = anchors[:, 2] - anchors[:, 0]
    heights = anchors[:, 3] - anchors[:, 1]
    return torch.stack([widths * dw.exp(), heights * dh.exp()], dim=1)


def focal_loss(logits, targets, alpha=0.25, gamma=2.0, eps=1e-6):
    probs = torch.clip(logits.sigmoid(), eps, 1 - eps)  # expect: call 214-clamp-grad
    classes = targets.long().clamp(0, logits.shape[1] - 1)
    onehot = F.one_hot(classes, logits.shape[1]).to(logits.dtype)
    pt = probs * onehot + (1 - probs) * (1 - onehot)
    w = alpha * onehot + (1 - alpha) * (1 - onehot)
    return (-w * (1 - pt) ** gamma * pt.log()).sum() / max(1, int(onehot.sum()))


def assign_levels(boxes, num_levels=4, canonical=224):
    scale = box_area(boxes).sqrt()
    levels = torch.floor(4 + torch.log2(scale / canonical + 1e-8)).to(torch.int64)
    levels = levels.clamp(min=2, max=2 + num_levels - 1) - 2
    bins = torch.tensor([32.0, 64.0, 128.0], device=boxes.device)
    coarse = torch.bucketize(scale, bins)
    coarse = torch.clamp(coarse, 0, num_levels - 1)
    return levels, coarse


def topk_candidates(scores, k):
    best = scores.argmax(dim=1)
    best.clamp_(max=scores.shape[1] - 1)
    order = torch.argsort(scores.max(dim=1).values, descending=True)
    return best, order[:k]


@torch.no_grad()
def clip_boxes_(boxes, image_size):
    h, w = image_size
    boxes[:, 0::2].clamp_(min=0, max=w)
    boxes[:, 1::2].clamp_(min=0, max=h)
    return boxes


@torch.inference_mode()
def postprocess(logits, boxes, image_size, score_thresh=0.05):
    scores = logits.sigmoid().clamp(max=1.0)
    keep = scores.max(dim=1).values > score_thresh
    return clip_boxes_(boxes[keep], image_size), scores[keep]


def heatmap_to_uint8(heatmap):
    arr = heatmap.detach().cpu().numpy()
    arr = np.clip(arr, 0.0, 1.0)
    return (arr * 255).clip(0, 255).astype(np.uint8)


class DetectionHead(nn.Module):
    def __init__(self, dim, num_classes, lr_scale=1.0):
        super().__init__()
        self.cls = LinearCrossEntropyLoss(
            dim, num_classes, options=LinearCrossEntropyOptions(acc_policy="balanced")  # expect: keyword 214-acc-policy-balanced
        )
        self.aux = LinearCrossEntropyLoss(dim, num_classes, options=LinearCrossEntropyOptions(acc_policy="compact"))
        self.logit_scale = nn.Parameter(torch.tensor(math.log(10.0)))
        self.lr_scale = clamp(lr_scale, 0.01, 10.0)

    def forward(self, feats, labels):
        with torch.no_grad():
            self.logit_scale.clamp_(0, math.log(100.0))
        logits_bias = self.logit_scale.exp().clip(1.0, 100.0)
        return self.cls(feats * logits_bias, labels) + 0.1 * self.aux(feats, labels)
