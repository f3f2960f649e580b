# atlas-check: --from 2.13 --to 2.14
"""Post-training int8 quantization for the CPU inference image.

Two paths: dynamic quantization of Linear/LSTM layers (torch.ao), and a hand-rolled
per-channel symmetric weight quantizer for the custom kernels. For the oneDNN path the
model is converted with torch.utils.mkldnn.
"""
import argparse
import copy

import numpy as np
import torch
import torch.ao.quantization as tq  # expect: name 28-ao-quantization-deprecated
import torch.nn as nn
from torch.utils import mkldnn as mkldnn_utils
from torch.utils.mkldnn import MkldnnBatchNorm


def per_channel_symmetric(w: torch.Tensor, bits: int = 8):
    qmax = 2 ** (bits - 1) - 1
    scale = (w.abs().amax(dim=1, keepdim=True) / qmax).clamp(min=1e-8)  # expect: method 214-clamp-grad
    q = torch.clamp(torch.round(w / scale), -qmax - 1, qmax)  # expect: call 214-clamp-grad
    return q.to(torch.int8), scale.squeeze(1)


def per_channel_symmetric_np(w: np.ndarray, bits: int = 8):
    """NumPy twin used by the calibration notebook."""
    qmax = 2 ** (bits - 1) - 1
    scale = np.maximum(np.abs(w).max(axis=1, keepdims=True) / qmax, 1e-8)
    return np.clip(np.round(w / scale), -qmax - 1, qmax).astype(np.int8), scale


def dynamic_int8(model: nn.Module) -> nn.Module:
    torch.backends.quantized.engine = "x86"
    return tq.quantize_dynamic(copy.deepcopy(model), {nn.Linear, nn.LSTM}, dtype=torch.qint8)


def to_onednn(model: nn.Module) -> nn.Module:
    """Swap eval-mode Linear/BatchNorm2d for their oneDNN twins."""
    model = copy.deepcopy(model).eval()
    for name, child in list(model.named_children()):
        if isinstance(child, nn.Linear):
            setattr(model, name, mkldnn_utils.MkldnnLinear(child, torch.float32))
        elif isinstance(child, nn.BatchNorm2d):
            setattr(model, name, MkldnnBatchNorm(child))
        else:
            setattr(model, name, to_onednn(child))
    return model


def pick_backend(args) -> str:
    if args.backend != "auto":
        return args.backend
    if torch.backends.mkldnn.is_available():
        return "onednn"
    if torch.backends.mps.is_available():
        return "fp16-mps"
    return "dynamic"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--backend", default="auto", choices=["auto", "dynamic", "onednn", "fp16-mps"])
    args = ap.parse_args()
    model = torch.load(args.model, weights_only=False).eval()
    backend = pick_backend(args)
    if backend == "dynamic":
        qmodel = dynamic_int8(model)
    elif backend == "onednn":
        qmodel = mkldnn_utils.to_mkldnn(to_onednn(model))
    else:
        qmodel = model.half().to("mps")
    for name, p in model.named_parameters():
        if p.dim() == 2:
            q, s = per_channel_symmetric(p.detach())
            print(f"{name}: scale range [{s.min():.3e}, {s.max():.3e}]")
    torch.save(qmodel, args.out)


if __name__ == "__main__":
    main()
