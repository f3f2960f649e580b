# atlas-check: --from 2.13 --to 2.15
"""Compatibility shims for old and new torch versions."""
import torch
from torch import *

try:
    from torch.linalg import cholesky as _chol
except ImportError:  # torch < 1.8
    from torch import cholesky as _chol  # expect: name 214-remove-cholesky guarded


def qr_compat(a):
    if hasattr(torch, "linalg"):
        return torch.linalg.qr(a)
    return torch.qr(a)  # expect: name 214-remove-qr


_old = getattr(torch, "cholesky", None)
_qr = getattr(torch, "qr")  # expect: name 214-remove-qr


def chol(a):
    return _chol(a)


def star_use(a):
    return qr(a)  # expect: name 214-remove-qr


def no_star_shadow(a):
    cholesky = torch.linalg.cholesky
    return cholesky(a)


QR_DOC = """
Q, R = torch.qr(A)   # old
Q, R = torch.linalg.qr(A)
"""
