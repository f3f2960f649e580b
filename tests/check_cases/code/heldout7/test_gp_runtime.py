# atlas-check: --from 2.13 --to 2.15
"""Tests of the gpkit Gaussian-process layer and of its import-time configuration.

The legacy torch.cholesky / torch.qr paths are tested until the old solver is deleted.
"""
import importlib
import math
import os
import sys

import pytest
import torch
from torch.utils.checkpoint import checkpoint, create_selective_checkpoint_contexts, CheckpointPolicy

import gpkit.config as gp_config


def rbf_kernel(x, y, lengthscale, variance):
    d2 = (x[:, None, :] - y[None, :, :]).pow(2).sum(-1)
    return variance * torch.exp(-0.5 * d2 / lengthscale**2)


def stable_cholesky(K):
    try:
        return torch.linalg.cholesky(K)
    except RuntimeError:
        # not positive definite: add jitter and go through the legacy solver
        eye = torch.eye(K.shape[-1], dtype=K.dtype)
        return torch.cholesky(K + 1e-4 * eye)  # expect: name 214-remove-cholesky


class ExactGP(torch.nn.Module):
    def __init__(self, train_x, train_y):
        super().__init__()
        self.train_x, self.train_y = train_x, train_y
        self.raw_lengthscale = torch.nn.Parameter(torch.zeros(()))
        self.raw_noise = torch.nn.Parameter(torch.tensor(-3.0))

    def neg_log_marginal_likelihood(self):
        ls = torch.nn.functional.softplus(self.raw_lengthscale)
        noise = torch.clamp(self.raw_noise.exp(), min=1e-6)  # expect: call 214-clamp-grad
        K = rbf_kernel(self.train_x, self.train_x, ls, 1.0) + noise * torch.eye(len(self.train_x))
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(self.train_y[:, None], L)
        return 0.5 * (self.train_y[:, None] * alpha).sum() + L.diagonal().log().sum()


def orthonormal_basis(A):
    Q, _ = torch.qr(A)  # expect: name 214-remove-qr
    return Q


def test_nll_decreases():
    torch.manual_seed(0)
    x = torch.linspace(0, 1, 32)[:, None]
    gp = ExactGP(x, torch.sin(6 * x[:, 0]))
    opt = torch.optim.Adam(gp.parameters(), lr=0.1)
    first = gp.neg_log_marginal_likelihood().item()
    for _ in range(20):
        opt.zero_grad()
        loss = gp.neg_log_marginal_likelihood()
        loss.backward()
        opt.step()
    assert loss.item() < first


def test_basis_is_orthonormal():
    Q = orthonormal_basis(torch.randn(8, 4, dtype=torch.float64))
    torch.testing.assert_close(Q.T @ Q, torch.eye(4, dtype=torch.float64))
    Q2, _ = torch.linalg.qr(torch.randn(8, 4))
    assert Q2.shape == (8, 4)


def test_legacy_cholesky_raises():
    with pytest.raises(RuntimeError):
        torch.cholesky(torch.eye(2))  # atlas: ignore


def test_profile_kernel_matrix():
    x = torch.randn(256, 3)
    with torch.autograd.profiler.profile(use_cuda=torch.cuda.is_available()) as prof:  # expect: param 214-profiler-use-cuda
        rbf_kernel(x, x, 1.0, 1.0)
    assert "aten::exp" in prof.key_averages().table()


def test_selective_checkpoint_matches_plain():
    def policy(ctx, op, *args, **kwargs):
        if op is torch.ops.aten.mm.default:
            return CheckpointPolicy.MUST_SAVE
        return CheckpointPolicy.PREFER_RECOMPUTE

    w = torch.randn(16, 16, requires_grad=True)
    f = lambda t: torch.tanh(t @ w) @ w
    x = torch.randn(4, 16)
    out = checkpoint(f, x, use_reentrant=False, context_fn=lambda: create_selective_checkpoint_contexts(policy))  # expect: call 215-sac-ordered-effects
    out.sum().backward()
    assert w.grad is not None


@pytest.mark.skipif(not torch.backends.mps.is_available(), reason="needs an Apple GPU")  # expect: name 215-mps-macos15
def test_kernel_on_mps():
    x = torch.randn(64, 2, device="mps")
    assert rbf_kernel(x, x, 1.0, 1.0).device.type == "mps"


def test_config_reads_env(monkeypatch):
    monkeypatch.setenv("GPKIT_JITTER", "1e-5")
    importlib.reload(gp_config)
    assert math.isclose(gp_config.JITTER, 1e-5)


def test_torch_threads_env(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    importlib.reload(torch)  # expect: reload 215-import-once
    assert torch.get_num_threads() >= 1


def test_fresh_import(monkeypatch):
    monkeypatch.delitem(sys.modules, "gpkit.config", raising=False)
    saved = sys.modules.pop("gpkit", None)
    del sys.modules["torch"]  # expect: reload 215-import-once
    import torch as fresh_torch

    assert fresh_torch.__version__
    if saved is not None:
        sys.modules["gpkit"] = saved
