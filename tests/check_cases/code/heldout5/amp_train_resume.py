# atlas-check: --from 2.3 --to 2.10
"""Image-classification training loop with mixed precision and resumable checkpoints.

Written against torch 2.3 and being moved to 2.10. Mixed precision still goes
through the CUDA-specific amp API; evaluation was already switched to torch.autocast.
"""
import argparse
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.cuda.amp import GradScaler, autocast  # expect: name 24-amp-device-specific
from torch.utils.data import DataLoader, TensorDataset


def build_model(num_classes: int) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, num_classes),
    )


def make_loader(data_dir: str, split: str, batch_size: int, shuffle: bool) -> DataLoader:
    images = np.load(os.path.join(data_dir, f"{split}_x.npy"))
    labels = np.load(os.path.join(data_dir, f"{split}_y.npy"))
    ds = TensorDataset(torch.from_numpy(images).float(), torch.from_numpy(labels).long())
    return DataLoader(ds, batch_size=batch_size, shuffle=shuffle, num_workers=4, pin_memory=True)


def resume(path, model, optimizer, scaler) -> int:
    if not os.path.exists(path):
        return 0
    ckpt = torch.load(path, map_location="cpu")  # no finding since issue 42: a state dict goes into load_state_dict
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    scaler.load_state_dict(ckpt["scaler"])
    return ckpt["epoch"] + 1


@torch.no_grad()
def evaluate(model, loader, device) -> float:
    model.eval()
    correct = total = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            pred = model(x).argmax(dim=1)
        correct += (pred == y).sum().item()
        total += y.numel()
    return correct / max(total, 1)


def train(args) -> None:
    device = torch.device("cuda")
    with open(args.config) as f:
        cfg = json.load(f)
    model = build_model(cfg["num_classes"]).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=0.05)
    scaler = GradScaler(enabled=args.amp)  # reported at its import (one finding per cause)
    start = resume(args.resume, model, optimizer, scaler)
    train_loader = make_loader(args.data, "train", cfg["batch_size"], shuffle=True)
    val_loader = make_loader(args.data, "val", cfg["batch_size"], shuffle=False)

    for epoch in range(start, cfg["epochs"]):
        model.train()
        t0 = time.time()
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad(set_to_none=True)
            with autocast(enabled=args.amp):  # expect: name 24-amp-device-specific
                loss = F.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
        acc = evaluate(model, val_loader, device)
        print(f"epoch {epoch} loss {loss.item():.4f} acc {acc:.3f} ({time.time() - t0:.1f}s)")
        torch.save(
            {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
             "scaler": scaler.state_dict(), "epoch": epoch},
            args.resume,
        )

    # The C++ serving side still takes a TorchScript file.
    model.eval()
    scripted = torch.jit.script(model.cpu())  # expect: call 210-torchscript-deprecated
    torch.jit.save(scripted, os.path.join(args.out, "model_ts.pt"))
    # Re-read the plain state_dict we just wrote, as the release job does.
    final = torch.load(args.resume, map_location="cpu", weights_only=True)
    print("saved", sorted(final))


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--resume", default="last.pt")
    p.add_argument("--out", default="export")
    p.add_argument("--amp", action="store_true")
    train(p.parse_args())
