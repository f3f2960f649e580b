# atlas-check: --from 2.13 --to 2.15
import math

import torch
from torch import cholesky  # expect: name 214-remove-cholesky
from torch.linalg import qr as linalg_qr


def whiten(cov: torch.Tensor) -> torch.Tensor:
    """Return L^{-1} where cov = L L^T (uses torch.cholesky under the hood)."""
    L = cholesky(cov)  # reported at its import (one finding per cause)
    return torch.linalg.inv(L)


def orthonormalize(w):
    q, r = torch.qr(w)  # expect: name 214-remove-qr
    return q * torch.sign(torch.diagonal(r)).unsqueeze(0)


def orthonormalize_new(w):
    q, _ = linalg_qr(w)
    return q


def method_form(w):
    # Tensor.qr / Tensor.cholesky still exist as methods
    return w.qr()[0], (w @ w.T).cholesky()


def stable_cholesky(a, jitter=1e-6):
    try:
        return torch.linalg.cholesky(a)
    except RuntimeError:
        eye = torch.eye(a.shape[-1], dtype=a.dtype, device=a.device)
        return torch.cholesky(a + jitter * eye)  # reported at its import (one finding per cause)


DECOMPS = {"qr": torch.qr, "chol": torch.linalg.cholesky}  # expect: name 214-remove-qr
print("see torch.qr docs:", math.pi)
