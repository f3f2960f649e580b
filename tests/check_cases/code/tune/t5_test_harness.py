# atlas-check: --from 2.14 --to 2.15
"""pytest helpers that reload torch between tests (old habit from 1.x)."""
import importlib
import sys

try:
    import torch
except ImportError:  # CPU-only CI images without torch
    torch = None

import pytest


@pytest.fixture
def fresh_torch():
    importlib.reload(torch)  # expect: reload 215-import-once
    yield torch


def purge_torch():
    del sys.modules["torch"]  # expect: reload 215-import-once
    for name in list(sys.modules):
        if name.startswith("torch."):
            del sys.modules[name]


def reload_plugin(mod):
    return importlib.reload(mod)


@pytest.mark.skipif(torch is None, reason="needs torch")
def test_qr_shapes():
    a = torch.randn(4, 3)
    q, r = torch.linalg.qr(a)
    assert q.shape == (4, 3)
