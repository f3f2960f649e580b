# atlas-check: --from 2.0 --to 2.6
"""Offline evaluation of detector checkpoints (the eval image is pinned to torch 2.0;
moving it to 2.6). Writes per-class AP to a CSV and, with --export, an ONNX and a
traced copy of the model for the visualiser."""
import argparse
import csv
import glob
import os

import torch
import torch.cuda.amp as amp
import torch.nn as nn
from torch import load as load_checkpoint


class TinyDetector(nn.Module):
    def __init__(self, num_classes: int = 80, width: int = 64):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, width, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(width, width, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.cls = nn.Conv2d(width, num_classes, 1)
        self.box = nn.Conv2d(width, 4, 1)

    def forward(self, x):
        f = self.backbone(x)
        return self.cls(f), self.box(f)


def build(ckpt_path: str, num_classes: int) -> TinyDetector:
    model = TinyDetector(num_classes)
    model.load_state_dict(load_checkpoint(ckpt_path, map_location="cpu")["model"])  # no finding since issue 42: a state dict goes into load_state_dict
    return model.eval()


def average_precision(scores: torch.Tensor, hits: torch.Tensor) -> float:
    order = scores.argsort(descending=True)
    hits = hits[order].float()
    tp = hits.cumsum(0)
    precision = tp / torch.arange(1, len(hits) + 1)
    return float((precision * hits).sum() / hits.sum().clamp_min(1))


@torch.no_grad()
def evaluate(model, batches, num_classes: int):
    model = model.cuda()
    scores = [[] for _ in range(num_classes)]
    hits = [[] for _ in range(num_classes)]
    for path in batches:
        batch = torch.load(path)  # expect: call 26-load-weights-only-default
        with amp.autocast():  # expect: name 24-amp-device-specific
            cls_logits, _ = model(batch["images"].cuda())
        probs = cls_logits.float().sigmoid().amax(dim=(2, 3)).cpu()
        for c in range(num_classes):
            scores[c].append(probs[:, c])
            hits[c].append(batch["labels"][:, c])
    return [average_precision(torch.cat(s), torch.cat(h)) for s, h in zip(scores, hits)]


def export(model, out_dir: str) -> None:
    model = model.cpu()
    dummy = torch.randn(1, 3, 640, 640)
    torch.onnx.export(model, dummy, os.path.join(out_dir, "detector.onnx"), opset_version=14)
    traced = torch.jit.trace(model, dummy)
    traced.save(os.path.join(out_dir, "detector_traced.pt"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ckpt", required=True)
    p.add_argument("--batches", required=True, help="directory of pre-collated *.pt batches")
    p.add_argument("--num-classes", type=int, default=80)
    p.add_argument("--out", default="eval_out")
    p.add_argument("--export", action="store_true")
    args = p.parse_args()

    os.makedirs(args.out, exist_ok=True)
    model = build(args.ckpt, args.num_classes)
    aps = evaluate(model, sorted(glob.glob(os.path.join(args.batches, "*.pt"))), args.num_classes)
    with open(os.path.join(args.out, "ap.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["class", "ap"])
        writer.writerows(enumerate(aps))
    print(f"mAP {sum(aps) / len(aps):.4f}")
    if args.export:
        export(model, args.out)


if __name__ == "__main__":
    main()
