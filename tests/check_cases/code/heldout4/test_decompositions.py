# atlas-check: --from 2.13 --to 2.14
"""Numerical regression tests for the decompositions that ``solver`` wraps.

Run with ``pytest -q tests/test_decompositions.py``. Reference values come from NumPy and
SciPy. torch.cholesky and torch.qr are still covered because ``solver/legacy.py`` calls them.
"""
import importlib

import numpy as np
import pytest
import scipy.linalg
import torch
import torch.utils.mkldnn as mkldnn_utils

RTOL = 1e-5


def _spd(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(n, n, generator=g, dtype=torch.float64)
    return a @ a.T + n * torch.eye(n, dtype=torch.float64)


@pytest.fixture(scope="module")
def fresh_torch():
    # The solver registers custom ops at import time; start the module from a clean import.
    return importlib.reload(torch)


@pytest.mark.parametrize("n", [2, 8, 64], ids=["tiny", "small", "medium"])
def test_legacy_cholesky_matches_linalg(n):
    a = _spd(n)
    L = torch.cholesky(a)  # expect: name 214-remove-cholesky
    torch.testing.assert_close(L, torch.linalg.cholesky(a), rtol=RTOL, atol=0.0)


@pytest.mark.parametrize("op_name", ["torch.cholesky_solve", "torch.cholesky_inverse"])
def test_cholesky_helpers(op_name):
    a = _spd(16, seed=1)
    L = torch.linalg.cholesky(a)
    if op_name == "torch.cholesky_solve":
        b = torch.randn(16, 3, dtype=torch.float64)
        x = torch.cholesky_solve(b, L)
        torch.testing.assert_close(a @ x, b, rtol=1e-6, atol=1e-8)
    else:
        inv = torch.cholesky_inverse(L)
        torch.testing.assert_close(inv @ a, torch.eye(16, dtype=torch.float64), rtol=1e-6, atol=1e-8)


def test_linalg_cholesky_against_scipy():
    a = _spd(32, seed=3)
    ref = scipy.linalg.cholesky(a.numpy(), lower=True)
    torch.testing.assert_close(torch.linalg.cholesky(a), torch.from_numpy(ref))


def test_legacy_qr_namedtuple():
    a = torch.randn(6, 4, dtype=torch.float64)
    out = torch.qr(a, some=True)  # expect: name 214-remove-qr
    assert isinstance(out, torch.return_types.qr)  # expect: name api-diff:torch.return_types.qr
    q_ref, r_ref = np.linalg.qr(a.numpy())
    torch.testing.assert_close(out.R.abs(), torch.from_numpy(r_ref).abs(), rtol=RTOL, atol=1e-10)


def test_linalg_qr_modes():
    a = torch.randn(8, 5, dtype=torch.float64)
    q, r = torch.linalg.qr(a, mode="complete")
    assert q.shape == (8, 8) and r.shape == (8, 5)
    torch.testing.assert_close(q @ r, a)


def test_clamp_grad_inside_range():
    x = torch.tensor([0.25, 0.5, 0.75], requires_grad=True)
    y = torch.clamp(x, min=0.0, max=1.0)  # expect: call 214-clamp-grad
    y.sum().backward()
    assert torch.equal(x.grad, torch.ones(3))


def test_inplace_clamp_on_copy():
    x = torch.linspace(-2.0, 2.0, 9, requires_grad=True)
    z = x.clone().clamp_(-1.0, 1.0)  # expect: method 214-clamp-grad
    z.sum().backward()
    assert x.grad[4].item() == 1.0


@pytest.mark.skipif(not torch.backends.mkldnn.is_available(), reason="needs oneDNN")
def test_mkldnn_conv_matches_dense():
    conv = torch.nn.Conv2d(3, 8, 3, padding=1).eval()
    conv_mkl = mkldnn_utils.MkldnnConv2d(conv, torch.float32)
    x = torch.randn(2, 3, 16, 16)
    with torch.no_grad():
        ref = conv(x)
        out = conv_mkl(x.to_mkldnn()).to_dense()
    torch.testing.assert_close(out, ref, rtol=1e-4, atol=1e-4)


def test_profiler_records_cholesky():
    a = _spd(128, seed=5)
    with torch.autograd.profiler.profile(use_cuda=torch.cuda.is_available()) as prof:  # expect: param 214-profiler-use-cuda
        torch.linalg.cholesky(a)
    names = {evt.name for evt in prof.function_events}
    assert any("cholesky" in name for name in names)


def test_reimport_keeps_linalg(fresh_torch):
    assert hasattr(fresh_torch.linalg, "cholesky")
    assert fresh_torch.linalg.qr is not None
