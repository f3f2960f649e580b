# atlas-check: --from 2.6 --to 2.12
"""Export a trained checkpoint to ONNX and, optionally, to an ExportedProgram (.pt2).

    python export_onnx_tool.py ckpt/best.pt --out build/ --dynamo --fallback
    python export_onnx_tool.py ckpt/best.pt --out build/ --pt2 --fake

Exporter paths:
  --dynamo   the torch.export-based exporter (torch.onnx.dynamo_export / ExportOptions)
  default    the TorchScript-based torch.onnx.export with dynamic_axes
"""
import argparse
import contextlib
import json
import logging
from pathlib import Path

import torch
import torch.nn as nn

log = logging.getLogger("export")


def load_model(ckpt_path: str) -> nn.Module:
    from models import build_model  # project-local

    state = torch.load(ckpt_path, map_location="cpu", weights_only=True)
    model = build_model(**state["config"])
    model.load_state_dict(state["model"])
    return model.eval()


@torch.no_grad()
def orthogonalize_(linear: nn.Linear) -> None:
    # Some fine-tuned checkpoints drift away from orthogonal projections; snap them back.
    q, _ = torch.qr(linear.weight.T)
    linear.weight.copy_(q.T)


def export_program(model: nn.Module, example, out_dir: Path) -> Path:
    batch = torch.export.Dim("batch", min=1, max=256)
    ep = torch.export.export_for_training(model, example, dynamic_shapes=({0: batch},))  # expect: name 211-export-for-training-removed; call 28-export-strict-false
    path = out_dir / "model.pt2"
    torch.export.save(ep, str(path))
    return path


def export_dynamo(model: nn.Module, example, out_dir: Path, fake: bool) -> Path:
    opts = torch.onnx.ExportOptions(dynamic_shapes=True)  # expect: name api-diff:torch.onnx.ExportOptions
    ctx = torch.onnx.enable_fake_mode() if fake else contextlib.nullcontext()  # expect: name api-diff:torch.onnx.enable_fake_mode
    with ctx:
        program = torch.onnx.dynamo_export(model, *example, export_options=opts)  # expect: name api-diff:torch.onnx.dynamo_export
    path = out_dir / "model.onnx"
    program.save(str(path))
    return path


def export_onnx(model: nn.Module, example, out_dir: Path, opset: int, fallback: bool) -> Path:
    path = out_dir / "model.onnx"
    if fallback:
        # Try the torch.export-based exporter first and fall back to TorchScript if it fails.
        torch.onnx.export(model, example, str(path), dynamo=True, fallback=True, opset_version=opset)  # expect: param api-diff:torch.onnx.export
    else:
        torch.onnx.export(
            model, example, str(path), opset_version=opset,
            input_names=["x"], output_names=["y"],
            dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}},
        )
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint")
    p.add_argument("--out", type=Path, default=Path("build"))
    p.add_argument("--opset", type=int, default=18)
    p.add_argument("--dynamo", action="store_true", help="use torch.onnx.dynamo_export")
    p.add_argument("--fallback", action="store_true", help="torch.onnx.export(dynamo=True) with fallback to TorchScript")
    p.add_argument("--pt2", action="store_true", help="also write an ExportedProgram")
    p.add_argument("--fake", action="store_true", help="trace under fake tensors (no real weights in memory)")
    p.add_argument("--orthogonalize", action="store_true")
    args = p.parse_args()

    args.out.mkdir(parents=True, exist_ok=True)
    model = load_model(args.checkpoint)
    if args.orthogonalize:
        for module in model.modules():
            if isinstance(module, nn.Linear) and module.in_features == module.out_features:
                orthogonalize_(module)
    example = (torch.randn(2, model.config.in_dim),)

    written = []
    if args.pt2:
        written.append(export_program(model, example, args.out))
    if args.dynamo:
        written.append(export_dynamo(model, example, args.out, args.fake))
    else:
        written.append(export_onnx(model, example, args.out, args.opset, args.fallback))
    (args.out / "manifest.json").write_text(json.dumps([str(w) for w in written], indent=2))
    log.info("wrote %s", ", ".join(str(w) for w in written))


if __name__ == "__main__":
    main()
