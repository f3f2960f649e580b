# atlas-check: --from 2.13 --to 2.15
"""Numerics regression tests for the solver package.

Run: pytest -q tests/test_numerics.py -k "not slow"
"""
import importlib

import numpy as np
import pytest
import torch

from solver import linalg_utils

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.fixture(params=DEVICES)
def device(request):
    return torch.device(request.param)


@pytest.fixture
def spd(device):
    g = torch.Generator().manual_seed(0)
    A = torch.randn(32, 32, generator=g, dtype=torch.float64)
    return (A @ A.T + 32 * torch.eye(32, dtype=torch.float64)).to(device)


@pytest.fixture
def fresh_torch():
    """Some tests flip global state at import time; give them a freshly initialised torch."""
    yield importlib.reload(torch)  # expect: reload 215-import-once


@pytest.fixture
def use_cuda():
    return torch.cuda.is_available()


def test_cholesky_matches_linalg(spd):
    L_new = torch.linalg.cholesky(spd)
    L_old = torch.cholesky(spd)  # expect: name 214-remove-cholesky
    torch.testing.assert_close(L_new, L_old)


def test_wrapper_cholesky(spd):
    # linalg_utils.cholesky is our jittered wrapper
    L = linalg_utils.cholesky(spd)
    torch.testing.assert_close(L @ L.mT, spd, atol=1e-4, rtol=1e-5)


def test_qr_against_numpy():
    a = np.random.default_rng(0).standard_normal((8, 5))
    q, r = np.linalg.qr(a)
    Q, R = torch.linalg.qr(torch.from_numpy(a))
    np.testing.assert_allclose(np.abs(q), np.abs(Q.numpy()), atol=1e-10)


@pytest.mark.parametrize("lo,hi", [(0.0, 1.0), (-1.0, 1.0)])
def test_clamp_grad_at_boundary(lo, hi):
    x = torch.tensor([lo, (lo + hi) / 2, hi], requires_grad=True)
    x.clamp(lo, hi).sum().backward()  # expect: method 214-clamp-grad
    assert x.grad[1] == 1.0


def test_clip_is_clamp():
    x = torch.linspace(-2, 2, 9)
    torch.testing.assert_close(torch.clip(x, -1, 1), x.clamp(min=-1, max=1))  # expect: call 214-clamp-grad  (one finding per line and change)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_matmul_tf32_off(use_cuda):
    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.randn(64, 64, device="cuda")
    torch.testing.assert_close(a @ torch.eye(64, device="cuda"), a)


@pytest.mark.slow
def test_reimport_keeps_version(fresh_torch):
    assert fresh_torch.__version__ == torch.__version__
