# atlas-check: --from 2.14 --to 2.15
"""Export helpers: torch.export / ONNX / resharded DCP for the serving fleet.

Usage:
    python -m tools.export_tools onnx  --ckpt model.pt --out model.onnx
    python -m tools.export_tools dcp   --ckpt model.pt --out /mnt/serving/ckpt
"""
import argparse
import importlib
import pathlib
import sys

import onnx
import onnxruntime as ort
import torch
import torch.distributed.checkpoint as dcp
from torch.export import Dim, export

_TORCH_VERSION = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])


def orthogonalize(weight: torch.Tensor) -> torch.Tensor:
    """Re-orthogonalize a projection before export (keeps the ONNX graph numerically stable)."""
    if _TORCH_VERSION < (2, 14):
        q, r = torch.qr(weight)
    else:
        q, r = torch.linalg.qr(weight)
    return q * torch.sign(torch.diagonal(r)).unsqueeze(0)


def export_device() -> str:
    if torch.cuda.is_available():
        return "cuda"
    return "cpu"


def fresh_torch():
    """Some exporters register custom ops at import time; re-run torch's init to drop them."""
    global torch
    torch = importlib.reload(torch)  # expect: reload 215-import-once
    return torch


def to_onnx(model: torch.nn.Module, example: torch.Tensor, out: pathlib.Path, opset: int = 18):
    batch = Dim("batch", min=1, max=1024)
    ep = export(model, (example,), dynamic_shapes={"x": {0: batch}})
    onnx_prog = torch.onnx.export(ep, (example,), dynamo=True, opset_version=opset)
    onnx_prog.save(str(out))
    onnx.checker.check_model(onnx.load(str(out)))
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    ref = model(example).detach().cpu().numpy()
    got = sess.run(None, {sess.get_inputs()[0].name: example.cpu().numpy()})[0]
    err = abs(ref - got).max()
    print(f"max abs diff vs eager: {err:.2e}")
    return err


def to_dcp(state_dict: dict, out: pathlib.Path):
    """Write a DCP checkpoint the serving loaders can reshard."""
    out.mkdir(parents=True, exist_ok=True)
    dcp.save(state_dict, checkpoint_id=str(out))  # expect: call 215-dcp-strides


def clamp_outliers(sd: dict, limit: float = 1e4) -> dict:
    return {k: v.clamp(-limit, limit) if v.is_floating_point() else v for k, v in sd.items()}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("fmt", choices=["onnx", "dcp"])
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--opset", type=int, default=18)
    args = ap.parse_args(argv)

    obj = torch.load(args.ckpt, map_location="cpu", weights_only=True)
    sd = clamp_outliers(obj["model"] if "model" in obj else obj)
    if args.fmt == "dcp":
        to_dcp(sd, pathlib.Path(args.out))
        return 0
    from model_zoo import build_model  # local package
    model = build_model(obj["config"]).eval()
    model.load_state_dict(sd)
    model.proj.weight.data = orthogonalize(model.proj.weight.data)
    example = torch.randn(2, model.in_features)
    to_onnx(model, example, pathlib.Path(args.out), args.opset)
    return 0


if __name__ == "__main__":
    sys.exit(main())
