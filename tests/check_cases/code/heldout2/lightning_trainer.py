# atlas-check: --from 2.13 --to 2.15
"""LightningModule for the contrastive image-text model.

Run with:  python -m train.lightning_trainer --devices 4 --precision bf16-mixed

Notes for maintainers: the logit scale is clipped like in CLIP; we used torch.clamp here
because torch.clip(...) reads worse in the loss. Do not switch to np.clip on the CPU side.
"""
from __future__ import annotations

import math
import os

import numpy as np
import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from pytorch_lightning.callbacks import LearningRateMonitor, ModelCheckpoint
from pytorch_lightning.strategies import DDPStrategy

from .models import ImageEncoder, TextEncoder


def pick_accelerator() -> str:
    if torch.cuda.is_available():
        return "gpu"
    if torch.backends.mps.is_available():  # expect: name 215-mps-macos15
        return "mps"
    return "cpu"


class ContrastiveModule(pl.LightningModule):
    def __init__(self, embed_dim: int = 512, lr: float = 3e-4, max_logit_scale: float = 100.0):
        super().__init__()
        self.save_hyperparameters()
        self.image_encoder = ImageEncoder(embed_dim)
        self.text_encoder = TextEncoder(embed_dim)
        self.logit_scale = torch.nn.Parameter(torch.ones([]) * math.log(1 / 0.07))

    def forward(self, images, tokens):
        img = F.normalize(self.image_encoder(images), dim=-1)
        txt = F.normalize(self.text_encoder(tokens), dim=-1)
        return img, txt

    def _loss(self, img, txt):
        scale = torch.clamp(self.logit_scale.exp(), max=self.hparams.max_logit_scale)  # expect: call 214-clamp-grad
        logits = scale * img @ txt.t()
        labels = torch.arange(logits.size(0), device=logits.device)
        return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2

    def training_step(self, batch, batch_idx):
        img, txt = self(batch["pixel_values"], batch["input_ids"])
        loss = self._loss(img, txt)
        self.log("train/loss", loss, prog_bar=True, sync_dist=True)
        return loss

    def validation_step(self, batch, batch_idx):
        img, txt = self(batch["pixel_values"], batch["input_ids"])
        sims = (img * txt).sum(-1)
        sims = torch.nan_to_num(sims)
        self.log("val/sim", sims.mean(), sync_dist=True)
        self.log("val/loss", self._loss(img, txt), sync_dist=True)

    def on_after_backward(self):
        # keep the temperature parameter in a sane range after each step
        with torch.no_grad():
            self.logit_scale.clamp_(0, math.log(self.hparams.max_logit_scale))

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=0.1)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.trainer.max_steps)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}


def summarize_similarities(path: str) -> dict:
    # offline analysis on exported numpy arrays, not torch
    arr = np.load(path)
    arr = np.clip(arr, -1.0, 1.0)
    return {"mean": float(arr.mean()), "p99": float(np.percentile(arr, 99))}


def main(devices: int = 4, precision: str = "bf16-mixed", max_steps: int = 100_000):
    use_cuda = torch.cuda.is_available()
    accelerator = pick_accelerator()
    strategy = DDPStrategy(process_group_backend="nccl") if use_cuda and devices > 1 else "auto"
    model = ContrastiveModule()
    if os.environ.get("COMPILE", "0") == "1":
        model = torch.compile(model)
    trainer = pl.Trainer(
        accelerator=accelerator,
        devices=devices,
        strategy=strategy,
        precision=precision,
        max_steps=max_steps,
        gradient_clip_val=1.0,
        callbacks=[ModelCheckpoint(monitor="val/loss"), LearningRateMonitor()],
        profiler="simple",
    )
    trainer.fit(model)


if __name__ == "__main__":
    main()
