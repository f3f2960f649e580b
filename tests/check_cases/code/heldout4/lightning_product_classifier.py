# atlas-check: --from 2.13 --to 2.15
"""Large-catalogue product classifier as a LightningModule.

The head covers ~1M SKUs, so the loss uses the fused linear + cross-entropy path
instead of materialising the (batch, num_classes) logits. Older revisions whitened
the embeddings with torch.cholesky; ``whiten`` below uses torch.linalg instead.
"""
import math

import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.linear_model import LogisticRegression
from torch import qr as torch_qr  # expect: name 214-remove-qr


class ProductClassifier(L.LightningModule):
    def __init__(self, backbone: nn.Module, feat_dim: int = 1024, emb_dim: int = 256,
                 num_classes: int = 1_000_000, feat_clip: float = 8.0, lr: float = 3e-4,
                 weight_decay: float = 0.05):
        super().__init__()
        self.save_hyperparameters(ignore=["backbone"])
        self.backbone = backbone
        self.proj = nn.Linear(feat_dim, emb_dim, bias=False)
        self.head = nn.Linear(emb_dim, num_classes, bias=False)
        self.log_temp = nn.Parameter(torch.zeros(()))
        lce_opts = nn.LinearCrossEntropyOptions(acc_policy="balanced")  # expect: keyword 214-acc-policy-balanced
        self.loss_fn = nn.LinearCrossEntropyLoss(options=lce_opts)
        self._init_projection()

    @torch.no_grad()
    def _init_projection(self):
        # Orthogonal init keeps the embedding isotropic at the start of training.
        w = torch.randn(self.hparams.feat_dim, self.hparams.emb_dim)
        q, _ = torch_qr(w)  # reported at its import (one finding per cause)
        self.proj.weight.copy_(q.T)

    def embed(self, images):
        feats = self.backbone(images)
        feats = torch.clamp(feats, -self.hparams.feat_clip, self.hparams.feat_clip)  # expect: call 214-clamp-grad
        return F.normalize(self.proj(feats), dim=-1)

    def training_step(self, batch, batch_idx):
        images, labels = batch
        emb = self.embed(images)
        temp = self.log_temp.exp().clamp(min=0.01, max=100.0)  # expect: method 214-clamp-grad
        loss = self.loss_fn(emb / temp, self.head.weight, labels)
        self.log("train/loss", loss, prog_bar=True)
        self.log("train/temp", temp.detach())
        return loss

    @staticmethod
    def whiten(emb: torch.Tensor, eps: float = 1e-4) -> torch.Tensor:
        cov = emb.T @ emb / emb.shape[0]
        chol = torch.linalg.cholesky(cov + eps * torch.eye(cov.shape[0], device=cov.device))
        return torch.linalg.solve_triangular(chol, emb.T, upper=False).T

    def on_validation_epoch_start(self):
        self._val_emb, self._val_labels = [], []

    def validation_step(self, batch, batch_idx):
        images, labels = batch
        self._val_emb.append(self.embed(images).float().cpu())
        self._val_labels.append(labels.cpu())

    def on_validation_epoch_end(self):
        emb = self.whiten(torch.cat(self._val_emb))
        labels = torch.cat(self._val_labels)
        # A linear probe on the coarse category; sklearn's "balanced" weighting, not torch's.
        coarse = labels // 10_000
        probe = LogisticRegression(max_iter=200, class_weight="balanced")
        probe.fit(emb.numpy(), coarse.numpy())
        self.log("val/probe_acc", float(probe.score(emb.numpy(), coarse.numpy())))

    def configure_gradient_clipping(self, optimizer, gradient_clip_val=None, gradient_clip_algorithm=None):
        self.clip_gradients(optimizer, gradient_clip_val=1.0, gradient_clip_algorithm="norm")

    def configure_optimizers(self):
        decay, no_decay = [], []
        for name, p in self.named_parameters():
            (no_decay if p.ndim < 2 or name == "log_temp" else decay).append(p)
        opt = torch.optim.AdamW(
            [{"params": decay, "weight_decay": self.hparams.weight_decay},
             {"params": no_decay, "weight_decay": 0.0}],
            lr=self.hparams.lr, betas=(0.9, 0.95),
        )
        total = self.trainer.estimated_stepping_batches
        warmup = max(1, int(0.03 * total))

        def lr_lambda(step):
            if step < warmup:
                return step / warmup
            return 0.5 * (1.0 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))

        sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}
