# atlas-check: --from 2.13 --to 2.15
"""Small linear-algebra helpers shared by the GP and the whitening code.

History: this module predates torch.linalg; the old torch.cholesky(A, upper=False) and
torch.qr(A, some=True) calls were mostly ported, see the TODOs below.
"""
from typing import Tuple

import numpy as np
import scipy.linalg as sla
import torch as T
from torch import linalg

EPS = 1e-6


def jitter(A: T.Tensor, eps: float = EPS) -> T.Tensor:
    return A + eps * T.eye(A.shape[-1], dtype=A.dtype, device=A.device)


def cholesky(A: T.Tensor) -> T.Tensor:
    """Lower Cholesky factor with jitter; our own wrapper, not the removed torch function."""
    return linalg.cholesky(jitter(A))


def qr(X: T.Tensor) -> Tuple[T.Tensor, T.Tensor]:
    Q, R = linalg.qr(X, mode="reduced")
    # make the decomposition unique: positive diagonal of R
    d = T.sign(T.diagonal(R, dim1=-2, dim2=-1))
    return Q * d.unsqueeze(-2), R * d.unsqueeze(-1)


def gp_posterior(K: T.Tensor, y: T.Tensor):
    L = cholesky(K)
    alpha = T.cholesky_solve(y.unsqueeze(-1), L)
    return L, alpha.squeeze(-1)


def legacy_whitening(C: T.Tensor) -> T.Tensor:
    # TODO(perf-team): port to linalg.cholesky, blocked on the batched upper=True case
    U = T.cholesky(C, upper=True)  # expect: name 214-remove-cholesky
    return T.linalg.inv(U)


def orthonormal_basis(X: T.Tensor) -> T.Tensor:
    Q, _ = T.qr(X)  # expect: name 214-remove-qr
    return Q


def spectrum(C: T.Tensor) -> T.Tensor:
    evals = T.linalg.eigvalsh(C)
    return T.clamp(evals, min=EPS)  # expect: call 214-clamp-grad


def reference_qr(a: np.ndarray):
    """NumPy/SciPy reference used in the tests (not torch)."""
    q, r = np.linalg.qr(a)
    c = sla.cholesky(a.T @ a + EPS * np.eye(a.shape[1]), lower=True)
    return q, r, c


def logdet_psd(A: T.Tensor) -> T.Tensor:
    L = cholesky(A)
    return 2.0 * T.log(T.diagonal(L, dim1=-2, dim2=-1)).sum(-1)


def nearest_orthogonal(M: T.Tensor) -> T.Tensor:
    U, _, Vh = linalg.svd(M, full_matrices=False)
    return U @ Vh


def procrustes(A: T.Tensor, B: T.Tensor) -> T.Tensor:
    Q, R = qr(A.mT @ B)
    return nearest_orthogonal(Q @ R)
