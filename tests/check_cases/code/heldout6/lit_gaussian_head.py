# atlas-check: --from 2.13 --to 2.14
"""LightningModule for the probabilistic forecaster (Gaussian head + vocab head).

Trained with `python -m forecaster.train fit --config configs/forecaster.yaml`.
"""
import math

import lightning as L
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile


def orthogonal_(weight: torch.Tensor) -> torch.Tensor:
    """Orthogonal init for the mixing matrix (kept from the 2019 codebase)."""
    with torch.no_grad():
        q, r = torch.qr(torch.randn_like(weight))  # expect: name 214-remove-qr
        weight.copy_(q * torch.sign(torch.diagonal(r)))
    return weight


def normalize_targets(y: torch.Tensor) -> torch.Tensor:
    return (y / 1000.0).clip(0.0, 1.0)  # expect: method 214-clamp-grad


class GaussianHead(nn.Module):
    def __init__(self, dim: int, out: int, min_log_std: float = -7.0, max_log_std: float = 2.0):
        super().__init__()
        self.mu = nn.Linear(dim, out)
        self.log_std = nn.Linear(dim, out)
        self.bounds = (min_log_std, max_log_std)

    def forward(self, h):
        log_std = self.log_std(h).clamp(*self.bounds)  # expect: method 214-clamp-grad
        return self.mu(h), log_std.exp()


def mvn_scale_tril(cov: torch.Tensor, jitter: float = 1e-5) -> torch.Tensor:
    eye = torch.eye(cov.shape[-1], device=cov.device, dtype=cov.dtype)
    try:
        return torch.linalg.cholesky(cov)
    except RuntimeError:  # not positive definite: add jitter and use the old routine
        return torch.cholesky(cov + jitter * eye)  # expect: name 214-remove-cholesky guarded


def solve_with_factor(cov: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    L_ = torch.cholesky(cov)  # expect: name 214-remove-cholesky
    return torch.cholesky_solve(b, L_)


class Forecaster(L.LightningModule):
    def __init__(self, dim: int = 256, horizon: int = 24, vocab: int = 32000, max_logit: float = 30.0):
        super().__init__()
        self.save_hyperparameters()
        self.encoder = nn.GRU(8, dim, batch_first=True)
        self.head = GaussianHead(dim, horizon)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.ce_options = nn.LinearCrossEntropyOptions(acc_policy="balanced", batch_chunk_size=4096)  # expect: keyword 214-acc-policy-balanced
        self.ce_options_eval = nn.LinearCrossEntropyOptions(acc_policy="compact")
        orthogonal_(self.lm_head.weight)

    def forward(self, x):
        h, _ = self.encoder(x)
        return self.head(h[:, -1])

    def nll(self, mu, std, y):
        return (torch.log(std) + 0.5 * ((y - mu) / std) ** 2 + 0.5 * math.log(2 * math.pi)).mean()

    def training_step(self, batch, batch_idx):
        x, y = batch
        mu, std = self(x)
        mu = torch.clamp(mu, -10.0, 10.0)  # expect: call 214-clamp-grad
        std = torch.clip(std, min=1e-4)  # expect: call 214-clamp-grad
        loss = self.nll(mu, std, normalize_targets(y))
        logits = self.lm_head(self.encoder(x)[0][:, -1])
        logits = logits.clamp(-self.hparams.max_logit, self.hparams.max_logit)  # atlas: ignore
        self.log("train/nll", loss, prog_bar=True)
        return loss + 0.0 * logits.sum()

    @torch.no_grad()
    def validation_step(self, batch, batch_idx):
        x, y = batch
        mu, std = self(x)
        mu = mu.clamp(-10.0, 10.0)
        self.log("val/nll", self.nll(mu, std.clip(min=1e-4), normalize_targets(y)))

    @torch.inference_mode()
    def predict_step(self, batch, batch_idx):
        mu, std = self(batch[0])
        return torch.clamp(mu, -10.0, 10.0), std.clip_(1e-4, 1e4)

    def on_before_optimizer_step(self, optimizer):
        torch.nn.utils.clip_grad_norm_(self.parameters(), max_norm=1.0)
        with torch.no_grad():
            for p in self.head.parameters():
                p.clamp_(-5.0, 5.0)

    def on_train_batch_end(self, outputs, batch, batch_idx):
        if batch_idx == 20 and self.trainer.is_global_zero:
            with torch.autograd.profiler.profile(use_cuda=True, record_shapes=True) as prof:  # expect: param 214-profiler-use-cuda
                self(batch[0])
            print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=10))

    def profile_step(self, batch):
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
            self(batch[0])
        return prof

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=3e-4, weight_decay=0.01)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-4, total_steps=self.trainer.estimated_stepping_batches)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}


def summarize(preds) -> np.ndarray:
    # numpy side, after the tensors left torch; "clamp" here is only a word in this comment
    arr = np.concatenate([p[0].numpy() for p in preds])
    return np.quantile(arr, [0.1, 0.5, 0.9], axis=0)


def whiten(x: torch.Tensor) -> torch.Tensor:
    q, _ = torch.linalg.qr(x - x.mean(0))
    return q * math.sqrt(x.shape[0])
